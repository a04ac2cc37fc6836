package main

import (
	"slices"
	"sync"
)

// infoObj is an info object: keys and values, in the order they were
// first set.
type infoObj struct {
	mu   sync.Mutex
	keys []string
	vals map[string]string
}

// infos are the info objects.
var infos = newTable[*infoObj](kindInfo)

// newInfo returns an empty info object.
func newInfo() *infoObj { return &infoObj{vals: map[string]string{}} }

// set sets key to val.
func (o *infoObj) set(key, val string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = val
}

// get returns the value of key.
func (o *infoObj) get(key string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.vals[key]
	return v, ok
}

// remove deletes key and reports whether it was set.
func (o *infoObj) remove(key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.vals[key]; !ok {
		return false
	}
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
	return true
}

// nth returns the n-th key and the number of keys.
func (o *infoObj) nth(n int) (string, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n < 0 || n >= len(o.keys) {
		return "", len(o.keys)
	}
	return o.keys[n], len(o.keys)
}

// dup returns a copy of o.
func (o *infoObj) dup() *infoObj {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := newInfo()
	d.keys = slices.Clone(o.keys)
	for k, v := range o.vals {
		d.vals[k] = v
	}
	return d
}

// emptyEnvInfo is MPI_INFO_ENV: this runtime records nothing in it.
var emptyEnvInfo = newInfo()

// lookupInfo returns the info object of handle h.
func lookupInfo(h int32) (*infoObj, bool) {
	if h == infoEnv {
		return emptyEnvInfo, true
	}
	return infos.get(h)
}
