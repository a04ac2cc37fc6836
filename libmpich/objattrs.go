package main

import "sync"

// attrStore caches the attributes of one kind of object (datatypes,
// windows) by the object's handle: key to value.
type attrStore struct {
	mu sync.Mutex
	m  map[int32]map[int32]uintptr
}

// The attributes of datatypes (predefined ones included) and of windows.
var typeAttrs, winAttrs attrStore

// set caches val under key on object h and returns the value it replaces.
func (s *attrStore) set(h, key int32, val uintptr) (old uintptr, had bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[int32]map[int32]uintptr{}
	}
	a := s.m[h]
	if a == nil {
		a = map[int32]uintptr{}
		s.m[h] = a
	}
	old, had = a[key]
	a[key] = val
	return old, had
}

// get returns the value cached under key on object h.
func (s *attrStore) get(h, key int32) (uintptr, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[h][key]
	return v, ok
}

// take removes the value cached under key on object h and returns it.
func (s *attrStore) take(h, key int32) (uintptr, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[h][key]
	delete(s.m[h], key)
	return v, ok
}

// takeAll removes every attribute of object h and returns them.
func (s *attrStore) takeAll(h int32) map[int32]uintptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.m[h]
	delete(s.m, h)
	return a
}

// snapshot returns a copy of the attributes of object h.
func (s *attrStore) snapshot(h int32) map[int32]uintptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := make(map[int32]uintptr, len(s.m[h]))
	for k, v := range s.m[h] {
		a[k] = v
	}
	return a
}

// setObjAttr caches val under key on object h of s, after running the
// delete callback of the value it replaces.
func setObjAttr(s *attrStore, h, key int32, val uintptr) error {
	kv, ok := keyvals.get(key)
	if !ok {
		return errorf(errKeyval, "invalid keyval %#x", uint32(key))
	}
	old, had := s.set(h, key, val)
	if !had {
		keyvalUse(key)
		return nil
	}
	return deleteCallback(kv, h, key, old)
}

// deleteObjAttr removes the attribute of key from object h of s, running
// its delete callback.
func deleteObjAttr(s *attrStore, h, key int32) error {
	kv, ok := keyvals.get(key)
	old, had := s.take(h, key)
	if !ok || !had {
		return errorf(errKeyval, "no attribute of keyval %#x", uint32(key))
	}
	defer keyvalRelease(key)
	return deleteCallback(kv, h, key, old)
}

// deleteCallback runs the delete callback of keyval kv, if any, on the
// value val of key on object h.
func deleteCallback(kv *keyvalObj, h, key int32, val uintptr) error {
	if kv.deleteFn == 0 {
		return nil
	}
	if rc := callAttrDelete(kv.deleteFn, h, key, val, kv.extra); rc != errSuccess {
		return errorf(errOther, "the delete callback of keyval %#x returned %d", uint32(key), rc)
	}
	return nil
}

// freeObjAttrs removes every attribute of object h of s, as freeing the
// object does, running their delete callbacks.
func freeObjAttrs(s *attrStore, h int32) error {
	var first error
	for key, val := range s.takeAll(h) {
		if kv, ok := keyvals.get(key); ok {
			if err := deleteCallback(kv, h, key, val); err != nil && first == nil {
				first = err
			}
		}
		keyvalRelease(key)
	}
	return first
}

// copyObjAttrs copies the attributes of object from to object to of s
// through their keyvals' copy callbacks, as MPI_Type_dup does.
func copyObjAttrs(s *attrStore, from, to int32) error {
	for key, val := range s.snapshot(from) {
		kv, ok := keyvals.get(key)
		if !ok || kv.copyFn == 0 {
			continue
		}
		out, keep, rc := callAttrCopy(kv.copyFn, from, key, kv.extra, val)
		if rc != errSuccess {
			return errorf(errOther, "the copy callback of keyval %#x returned %d", uint32(key), rc)
		}
		if keep {
			s.set(to, key, out)
			keyvalUse(key)
		}
	}
	return nil
}
