package main

import "sync"

// keyvalRefs counts the attributes that use each keyval, and marks the
// keyvals freed while in use: MPI_*_free_keyval does not remove a keyval
// that attributes still use (their delete callbacks run later, and its
// handle must not name another keyval meanwhile).
var keyvalRefs struct {
	mu    sync.Mutex
	refs  map[int32]int
	freed map[int32]bool
}

// keyvalUse counts one more attribute of key.
func keyvalUse(key int32) {
	keyvalRefs.mu.Lock()
	defer keyvalRefs.mu.Unlock()
	if keyvalRefs.refs == nil {
		keyvalRefs.refs = map[int32]int{}
	}
	keyvalRefs.refs[key]++
}

// keyvalRelease counts one attribute of key less, and removes key once
// freed and unused.
func keyvalRelease(key int32) {
	keyvalRefs.mu.Lock()
	defer keyvalRefs.mu.Unlock()
	if keyvalRefs.refs[key] > 0 {
		keyvalRefs.refs[key]--
	}
	if keyvalRefs.refs[key] == 0 && keyvalRefs.freed[key] {
		delete(keyvalRefs.refs, key)
		delete(keyvalRefs.freed, key)
		keyvals.remove(key)
	}
}

// freeKeyval frees key: at once if no attribute uses it, else once the
// last one goes. It reports whether key was a keyval not freed yet.
func freeKeyval(key int32) bool {
	keyvalRefs.mu.Lock()
	defer keyvalRefs.mu.Unlock()
	if _, ok := keyvals.get(key); !ok || keyvalRefs.freed[key] {
		return false
	}
	if keyvalRefs.refs[key] == 0 {
		keyvals.remove(key)
		return true
	}
	if keyvalRefs.freed == nil {
		keyvalRefs.freed = map[int32]bool{}
	}
	keyvalRefs.freed[key] = true
	return true
}
