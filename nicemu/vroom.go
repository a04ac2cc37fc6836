package nicemu

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// Room in a VPUSH queue, in virtual time.
//
// A sender whose VPUSH finds the target's queue full must send again once
// the owner has consumed. Tried again at the sender's own clock, each try
// a VPUSH's cost, the sender would step its clock towards the owner's
// release one try at a time: the owner, later in virtual time, cannot
// consume before the sender's clock has passed it (the ordering of virtual
// time, vorder.go), and a long computation of the owner cost thousands of
// tries in real time. Instead the owner's release is an event: the sender
// registers in one of the owner's waiter slots and waits as for data
// (taking no part in the ordering); the owner's next release wakes it as a
// write into its memory would, and the sender takes the release at the
// owner's clock then (roomSlot.at), from which it sends again. Until then
// RoomFor reports false, and the caller holds what it would send.

// roomSlots is how many senders can wait for room in one queue, or for
// the consumer counts of one process's rings (vring.go), at once; a sender
// that finds every slot taken tries again at its own clock.
const roomSlots = 32

// roomNoticed marks a waiter slot whose sender the owner has woken.
const roomNoticed = 1 << 63

// roomRegs are the owner's side of waiting for room, in its control page
// after the clock: the virtual time of its last release, and the slots of
// the senders that wait for the next one.
type roomRegs struct {
	at      uint64 // when the owner's last release may be taken
	waiting uint64 // slots whose sender has not been woken
	ringAt  uint64 // when the owner's last publication of a ring's consumer count may be taken (vring.go)
	_       [40]byte
	slot    [roomSlots]roomSlot
}

// roomSlot is one sender's wait: who is its PID+1 (0: free), with
// roomNoticed once the owner's release woke it at virtual time at, and
// roomRing when it waits for a ring's consumer count (vring.go).
type roomSlot struct {
	who uint64
	at  uint64
}

// roomOffset places the room registers in the control page, after the
// clock.
const roomOffset = clockOffset + int(unsafe.Sizeof(clockWord{}))

// The room registers must fit in the control page.
var _ [PageSize - roomOffset - int(unsafe.Sizeof(roomRegs{}))]byte

func (s *Segment) roomRegs(p int) *roomRegs {
	return (*roomRegs)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl+roomOffset]))
}

// roomWait is a queue this process waits to have room in: its owner, the
// waiter slot it holds there, and the owner's release pointer when the
// VPUSH that found the queue full was tried.
type roomWait struct {
	dst, slot int
	seen      uint64
}

// RoomFor reports whether a VPUSH to dst may be tried now: always, unless
// in virtual time the last one found dst's queue full and the process has
// not yet taken dst's next release (PollRoom). Until then a try would find
// the queue as full as before.
func (n *NIC) RoomFor(dst int) bool {
	return !slices.ContainsFunc(n.rooms, func(w roomWait) bool { return w.dst == dst })
}

// PollRoom takes, in virtual time, the releases of the queues the process
// waits to have room in (see RoomFor), as it takes arriving data: a release
// at the process's clock or before it at once, a later one while the
// process waits and nothing earlier can come (Clock.take). It reports
// whether it took one.
func (n *NIC) PollRoom() bool {
	waits := len(n.rooms)
	n.rooms = slices.DeleteFunc(n.rooms, n.takeRoom)
	return len(n.rooms) < waits
}

// takeRoom takes the release that w waits for, if the owner has made it
// and the ordering lets the process take it now, and frees w's slot.
func (n *NIC) takeRoom(w roomWait) bool {
	rr := n.seg.roomRegs(w.dst)
	s := &rr.slot[w.slot]
	me := uint64(n.pid) + 1
	var t uint64
	switch who := atomic.LoadUint64(&s.who); {
	case who == me|roomNoticed:
		t = atomic.LoadUint64(&s.at)
	case atomic.LoadUint64(&n.seg.vpushRegs(w.dst).released) != w.seen:
		// Released without waking this process: only after an escape
		// from the ordering (Clock.Escapes).
		t = atomic.LoadUint64(&rr.at)
	default:
		return false
	}
	if !n.clock.take(int64(t)) {
		return false
	}
	if atomic.SwapUint64(&s.who, 0) == me {
		atomic.AddUint64(&rr.waiting, ^uint64(0))
	}
	return true
}

// awaitRoom registers the process as waiting for room in dst's queue,
// which a VPUSH found full when dst's release pointer read seen. It
// reports false when every waiter slot of dst is taken: the caller then
// tries again at its own clock.
func (n *NIC) awaitRoom(dst int, seen uint64) bool {
	rr := n.seg.roomRegs(dst)
	me := uint64(n.pid) + 1
	for i := range rr.slot {
		if atomic.CompareAndSwapUint64(&rr.slot[i].who, 0, me) {
			atomic.AddUint64(&rr.waiting, 1)
			n.rooms = append(n.rooms, roomWait{dst: dst, slot: i, seen: seen})
			return true
		}
	}
	return false
}

// releasedRoom, in virtual time, wakes the senders waiting for room in
// the process's queue once it has moved its release pointer: each takes
// the release at the time recorded in its slot, and is woken as by a
// write into its memory (the ordering waits for its clock until it has
// looked) and a ring of its doorbell. A sender registers while it runs,
// when the ordering lets no owner release, and a woken one keeps its slot
// until it has taken the release, so that it takes the first release
// after its wait began, whatever the owner did since.
func (n *NIC) releasedRoom(at uint64) {
	rr := n.seg.roomRegs(n.pid)
	if atomic.LoadUint64(&rr.waiting) == 0 {
		return
	}
	for i := range rr.slot {
		s := &rr.slot[i]
		who := atomic.LoadUint64(&s.who)
		if who == 0 || who&(roomNoticed|roomRing) != 0 {
			continue
		}
		atomic.StoreUint64(&s.at, at)
		if atomic.CompareAndSwapUint64(&s.who, who, who|roomNoticed) {
			atomic.AddUint64(&rr.waiting, ^uint64(0))
			n.seg.wrote(int(who-1), n.pid)
			n.notify(int(who - 1))
		}
	}
}
