package main

import (
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/percpu"
)

// reqTable is the table of request handles (MPI_Request), which every
// nonblocking call adds to and every completion looks up and removes
// from: table's handles and semantics without its lock. A lookup reads
// the slot where the handle's index says; a handle's slot is written by
// the call that adds or removes it, and another thread reaches the
// handle only through the program's own ordering (MPI does not let two
// threads complete one request at once). The indices of removed slots
// wait for reuse in the processor's list (internal/percpu), so that
// neither taking nor freeing one needs a lock or a locked instruction
// where table's read-write lock took four a call.
type reqTable struct {
	chunks [maxIndex / reqChunkLen]atomic.Pointer[reqChunk]
	fresh  atomic.Int32 // indices from here on were never handed out
	local  percpu.Values[reqFree]
	mu     sync.Mutex // guards spare and the allocation of chunks
	spare  []int32    // freed indices that the processors' lists had no room for
}

// reqChunkLen is how many slots a reqTable allocates at once.
const reqChunkLen = 1024

// reqChunk is reqChunkLen slots of a reqTable.
type reqChunk [reqChunkLen]slot[reqObj]

// reqFree is one processor's freed indices.
type reqFree struct {
	n     int
	items [64]int32
}

// add stores v and returns its new handle; ok is false when every index is
// taken.
func (t *reqTable) add(v reqObj) (h int32, ok bool) {
	i, ok := t.take()
	if !ok {
		return 0, false
	}
	c := t.chunks[i/reqChunkLen].Load()
	if c == nil {
		c = t.chunk(i / reqChunkLen)
	}
	s := &c[i%reqChunkLen] // zero (remove): set field by field (see load)
	s.v.setFrom(&v)
	s.used = true
	return handleOf(handleDirect, kindRequest, i), true
}

// slot returns the slot of handle h, or nil if h names none.
func (t *reqTable) slot(h int32) *slot[reqObj] {
	i, ok := handleIndex(handleDirect, kindRequest, h)
	if !ok {
		return nil
	}
	c := t.chunks[i/reqChunkLen].Load()
	if c == nil || !c[i%reqChunkLen].used {
		return nil
	}
	return &c[i%reqChunkLen]
}

// get returns the object of handle h.
func (t *reqTable) get(h int32) (v reqObj, ok bool) {
	ok = t.load(h, &v)
	return v, ok
}

// load copies the object of handle h into *o and reports whether h names
// one: get for the completion calls. A reqObj returned by value is
// spilled by the caller with 8-byte stores and copied into its variable
// by 16-byte moves across them, which wait for the stores to land
// (docs/decisions.md, "Stores and loads of different sizes").
func (t *reqTable) load(h int32, o *reqObj) bool {
	s := t.slot(h)
	if s == nil {
		return false
	}
	*o = s.v
	return true
}

// remove forgets handle h and returns its object, so that its index may be
// given to a later add.
func (t *reqTable) remove(h int32) (v reqObj, ok bool) {
	s := t.slot(h)
	if s == nil {
		return v, false
	}
	v = s.v
	t.release(h, s)
	return v, true
}

// free forgets handle h, as remove does, without returning its object,
// and reports whether h named one: the completion calls, which have the
// object already.
func (t *reqTable) free(h int32) bool {
	s := t.slot(h)
	if s == nil {
		return false
	}
	t.release(h, s)
	return true
}

// release clears s, handle h's slot, field by field (see reqObj.reset),
// and keeps its index for a later add.
func (t *reqTable) release(h int32, s *slot[reqObj]) {
	s.v.reset()
	s.used = false
	i, _ := handleIndex(handleDirect, kindRequest, h)
	t.give(int32(i))
}

// take returns an index for a new handle: one freed on this processor,
// else one of the spare, else a fresh one.
func (t *reqTable) take() (int32, bool) {
	l := t.local.Pin()
	if l.n > 0 {
		l.n--
		i := l.items[l.n]
		t.local.Unpin()
		return i, true
	}
	t.local.Unpin()
	t.mu.Lock()
	if n := len(t.spare); n > 0 {
		i := t.spare[n-1]
		t.spare = t.spare[:n-1]
		t.mu.Unlock()
		return i, true
	}
	t.mu.Unlock()
	if t.fresh.Load() >= maxIndex {
		return 0, false
	}
	if i := t.fresh.Add(1) - 1; i < maxIndex {
		return i, true
	}
	return 0, false
}

// give keeps index i, whose slot is free, for a later take.
func (t *reqTable) give(i int32) {
	l := t.local.Pin()
	if l.n < len(l.items) {
		l.items[l.n] = i
		l.n++
		t.local.Unpin()
		return
	}
	t.local.Unpin()
	t.mu.Lock()
	t.spare = append(t.spare, i)
	t.mu.Unlock()
}

// chunk returns chunk k, allocating it if no call has.
func (t *reqTable) chunk(k int32) *reqChunk {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.chunks[k].Load()
	if c == nil {
		c = new(reqChunk)
		t.chunks[k].Store(c)
	}
	return c
}
