package nicemu

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// SID names a registered memory region of a process (Segment ID). Remote
// requests address memory as (PID, SID, offset), never by virtual address.
// SID 0 is never valid.
type SID uint32

// RegionKind tells where a registered region lives.
type RegionKind uint64

// Region kinds.
const (
	// KindSegment regions live in the shared segment: remote access is a
	// plain copy through the mapping.
	KindSegment RegionKind = 1
	// KindProcess regions are ordinary process memory (the Go heap): remote
	// access uses cross-memory attach, or the owner's bounce buffer.
	KindProcess RegionKind = 2
)

// sidEntry is one SID table entry in the owner's partition. state is a
// sequence word: odd means valid; every change increments it, so a reader
// that sees the same odd value before and after reading the fields has a
// consistent snapshot, and a cached snapshot is stale when the word moved.
type sidEntry struct {
	state  uint64
	kind   uint64
	base   uint64 // segment offset (KindSegment) or virtual address (KindProcess)
	length uint64
	_      [sidEntrySize - 32]byte
}

// sidView is a consistent snapshot of a SID table entry.
type sidView struct {
	state  uint64
	kind   RegionKind
	base   uint64
	length uint64
}

func (s *Segment) sidEntry(pid int, sid SID) *sidEntry {
	return (*sidEntry)(unsafe.Pointer(&s.mem[s.partBase(pid)+partSIDs+int(sid)*sidEntrySize]))
}

// readSID takes a consistent snapshot of (pid, sid). ok is false when the
// SID is not registered.
func (s *Segment) readSID(pid int, sid SID) (v sidView, ok bool) {
	if sid == 0 || sid >= NumSIDs {
		return v, false
	}
	e := s.sidEntry(pid, sid)
	for {
		s1 := atomic.LoadUint64(&e.state)
		if s1&1 == 0 {
			return v, false
		}
		v = sidView{state: s1, kind: RegionKind(atomic.LoadUint64(&e.kind)),
			base: atomic.LoadUint64(&e.base), length: atomic.LoadUint64(&e.length)}
		if atomic.LoadUint64(&e.state) == s1 {
			return v, true
		}
	}
}

// register writes an entry of the calling process's own SID table.
func (n *NIC) register(kind RegionKind, base, length uint64) (SID, error) {
	if len(n.freeSIDs) == 0 {
		return 0, fmt.Errorf("nicemu: register %d bytes: SID table full (%d entries)", length, NumSIDs-1)
	}
	sid := n.freeSIDs[len(n.freeSIDs)-1]
	n.freeSIDs = n.freeSIDs[:len(n.freeSIDs)-1]
	e := n.seg.sidEntry(n.pid, sid)
	st := atomic.LoadUint64(&e.state)
	atomic.StoreUint64(&e.kind, uint64(kind))
	atomic.StoreUint64(&e.base, base)
	atomic.StoreUint64(&e.length, length)
	atomic.StoreUint64(&e.state, st+1)
	n.stats.Registrations++
	return sid, nil
}

func (n *NIC) unregister(sid SID) (sidView, error) {
	v, ok := n.seg.readSID(n.pid, sid)
	if !ok {
		return v, fmt.Errorf("nicemu: deregister SID %d: not registered", sid)
	}
	atomic.StoreUint64(&n.seg.sidEntry(n.pid, sid).state, v.state+1)
	n.freeSIDs = append(n.freeSIDs, sid)
	n.stats.Deregistrations++
	return v, nil
}

// UserMemory reports whether sid of process peer names memory registered
// in that process's own address space (RegisterMemory: a user's buffer)
// rather than segment memory.
func (n *NIC) UserMemory(peer int, sid SID) bool {
	if uint(peer) >= uint(n.seg.NProcs()) {
		return false
	}
	v, ok := n.seg.readSID(peer, sid)
	return ok && v.kind == KindProcess
}
