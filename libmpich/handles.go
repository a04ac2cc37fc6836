package main

import "sync"

// maxIndex bounds the index part of a handle (bits 0-25).
const maxIndex = 1 << 26

// table maps the handles of one kind of object that a program created to
// their Go objects. A handle is "direct" (bits 30-31 are 10) or "indirect"
// (11), of the table's
// kind (bits 26-29), with the index of its slot in the low bits; freed slots
// are reused. It is safe for concurrent use.
type table[T any] struct {
	kind  int32
	form  uint32 // the two top bits: handleDirect, or handleIndirect
	mu    sync.RWMutex
	slots []slot[T]
	free  []int32 // indices of the slots not in use
}

// slot is one entry of a table.
type slot[T any] struct {
	v    T
	used bool
}

// newTable returns an empty table for handles of kind.
func newTable[T any](kind int32) *table[T] { return &table[T]{kind: kind, form: handleDirect} }

// newIndirectTable returns an empty table whose handles have the
// "indirect" form (bits 30-31 are 11), for a kind whose direct handles
// MPICH's ABI takes for predefined objects (the datatypes MPI_FLOAT_INT
// and the others).
func newIndirectTable[T any](kind int32) *table[T] {
	return &table[T]{kind: kind, form: handleIndirect}
}

// handle returns the handle of the slot at index i.
func (t *table[T]) handle(i int32) int32 { return handleOf(t.form, t.kind, i) }

// index returns the slot index that h names, or -1 if h is not a handle of
// this table's form.
func (t *table[T]) index(h int32) int32 {
	if i, ok := handleIndex(t.form, t.kind, h); ok {
		return int32(i)
	}
	return -1
}

// handleOf returns the handle of form (handleDirect or handleIndirect)
// and kind whose index is i.
func handleOf(form uint32, kind, i int32) int32 {
	return int32(form<<30 | uint32(kind)<<26 | uint32(i))
}

// handleIndex returns the index that h names; ok is false if h is not a
// handle of form and kind.
func handleIndex(form uint32, kind, h int32) (i uint32, ok bool) {
	u := uint32(h)
	return u & (maxIndex - 1), u>>30 == form && u>>26&0xf == uint32(kind)
}

// add stores v and returns its new handle; ok is false when every index is
// taken.
func (t *table[T]) add(v T) (h int32, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i int32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		if len(t.slots) >= maxIndex {
			return 0, false
		}
		i = int32(len(t.slots))
		t.slots = append(t.slots, slot[T]{})
	}
	t.slots[i] = slot[T]{v: v, used: true}
	return t.handle(i), true
}

// get returns the object of handle h. It unlocks without a defer (it is
// on every call of a communicator, request or datatype the program made):
// nothing between the lock and the unlock can panic.
func (t *table[T]) get(h int32) (v T, ok bool) {
	i := t.index(h)
	if i < 0 {
		return v, false
	}
	t.mu.RLock()
	if int(i) < len(t.slots) && t.slots[i].used {
		v, ok = t.slots[i].v, true
	}
	t.mu.RUnlock()
	return v, ok
}

// set replaces the object of the live handle h.
func (t *table[T]) set(h int32, v T) bool {
	i := t.index(h)
	if i < 0 {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if int(i) >= len(t.slots) || !t.slots[i].used {
		return false
	}
	t.slots[i].v = v
	return true
}

// remove forgets handle h and returns its object, so that its index may be
// given to a later add.
func (t *table[T]) remove(h int32) (v T, ok bool) {
	i := t.index(h)
	if i < 0 {
		return v, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if int(i) >= len(t.slots) || !t.slots[i].used {
		return v, false
	}
	v = t.slots[i].v
	t.slots[i] = slot[T]{}
	t.free = append(t.free, i)
	return v, true
}

// len returns the number of live handles.
func (t *table[T]) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.slots) - len(t.free)
}
