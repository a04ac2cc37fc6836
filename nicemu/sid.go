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

// rvaTLB caches SID table snapshots of remote processes (Martini's RVATLB).
// An entry is valid while the target's state word still matches.
type rvaTLB struct {
	ents         [256]rvaEntry
	hits, misses uint64
}

type rvaEntry struct {
	pid  int32
	sid  SID
	view sidView
	ent  *sidEntry
}

func (t *rvaTLB) lookup(s *Segment, pid int, sid SID) (sidView, bool) {
	e, ok := t.entry(pid, sid)
	if ok {
		t.hits++
		return e.view, true
	}
	return t.refill(e, s, pid, sid)
}

// entry returns the entry that holds (pid, sid) and whether it is valid
// for it (a hit, not yet counted).
func (t *rvaTLB) entry(pid int, sid SID) (*rvaEntry, bool) {
	e := &t.ents[(uint32(pid)*31+uint32(sid))&uint32(len(t.ents)-1)]
	return e, e.ent != nil && e.pid == int32(pid) && e.sid == sid && atomic.LoadUint64(&e.ent.state) == e.view.state
}

// refill is a lookup's miss: the entry e is loaded from the SID table.
func (t *rvaTLB) refill(e *rvaEntry, s *Segment, pid int, sid SID) (sidView, bool) {
	t.misses++
	v, ok := s.readSID(pid, sid)
	if !ok {
		return v, false
	}
	*e = rvaEntry{pid: int32(pid), sid: sid, view: v, ent: s.sidEntry(pid, sid)}
	return v, true
}

// paTLB models Martini's 2-way, 2048-entry page translation cache, keyed by
// (PID, virtual page). Misses are refilled as firmware would and counted.
type paTLB struct {
	sets         [1024][2]uint64 // key+1 (0 = empty); way 0 is most recent
	hits, misses uint64
	// flushed: in virtual time, flush was called and no PUSH has looked
	// its source up since (see vpatlb.go).
	flushed bool
}

func (t *paTLB) touch(pid int, addr uint64, length int) {
	if pg := addr / PageSize; length > 0 && (addr+uint64(length)-1)/PageSize == pg {
		if set, key := t.slot(pid, pg); set[0] == key {
			t.hits++ // one page, the set's most recent: touchPages's first case
			return
		}
	}
	t.touchPages(pid, addr, length, nil, nil)
}

// slot returns the set that holds page pg of process pid, and the page's
// key in it.
func (t *paTLB) slot(pid int, pg uint64) (*[2]uint64, uint64) {
	return &t.sets[(pg^uint64(pid)*0x9e37)&1023], (uint64(pid)<<52 | pg) + 1
}

// touchPages looks up the pages of [addr, addr+length) of process pid,
// filling the misses, and appends the pages that missed to missed (at
// *n, as far as it has room) when missed is not nil.
func (t *paTLB) touchPages(pid int, addr uint64, length int, missed []uint64, n *int) {
	if length <= 0 {
		length = 1
	}
	first := addr / PageSize
	last := (addr + uint64(length) - 1) / PageSize
	for pg := first; pg <= last; pg++ {
		set, key := t.slot(pid, pg)
		switch key {
		case set[0]:
			t.hits++
		case set[1]:
			t.hits++
			set[0], set[1] = set[1], set[0]
		default:
			t.misses++
			set[1] = set[0]
			set[0] = key
			if missed != nil && *n < len(missed) {
				missed[*n] = pg
				*n++
			}
		}
	}
}

// flush invalidates every entry.
func (t *paTLB) flush() {
	t.sets = [1024][2]uint64{}
	t.flushed = true
}
