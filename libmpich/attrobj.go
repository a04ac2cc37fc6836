package main

import "slices"

// keyvalObj is an attribute key that the program created: its copy and
// delete callbacks (C function pointers, 0 for none) and extra state.
type keyvalObj struct {
	copyFn, deleteFn, extra uintptr
}

// keyvals are the attribute keys.
var keyvals = newTable[*keyvalObj](kindKeyval)

// callAttrCopy and callAttrDelete call the program's attribute callbacks;
// set by the cgo part of the library.
var (
	callAttrCopy = func(fn uintptr, comm, key int32, extra, in uintptr) (out uintptr, keep bool, rc int32) {
		return in, false, errSuccess
	}
	callAttrDelete = func(fn uintptr, comm, key int32, val, extra uintptr) int32 { return errSuccess }
)

// setAttr caches val under key on o.
func (o *commObj) setAttr(key int32, val uintptr) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.attrs == nil {
		o.attrs = map[int32]uintptr{}
	}
	if _, ok := o.attrs[key]; !ok {
		o.order = append(o.order, key)
	}
	o.attrs[key] = val
}

// getAttr returns the value cached under key on o.
func (o *commObj) getAttr(key int32) (uintptr, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.attrs[key]
	return v, ok
}

// takeAttr removes the value cached under key on o and returns it.
func (o *commObj) takeAttr(key int32) (uintptr, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.attrs[key]
	delete(o.attrs, key)
	if ok {
		o.order = slices.DeleteFunc(o.order, func(k int32) bool { return k == key })
	}
	return v, ok
}

// lastSet returns the keyval of o's attribute set last, and false if it
// has none.
func (o *commObj) lastSet() (int32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.order) == 0 {
		return 0, false
	}
	return o.order[len(o.order)-1], true
}

// snapshotAttrs returns a copy of o's attributes.
func (o *commObj) snapshotAttrs() map[int32]uintptr {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := make(map[int32]uintptr, len(o.attrs))
	for k, v := range o.attrs {
		m[k] = v
	}
	return m
}
