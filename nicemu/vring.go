package nicemu

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// Room in a PM ring, in virtual time: what vroom.go does for a VPUSH
// queue, for the rings of PM/RHiNET (one ring per sender in each
// receiver's memory, written by PUSH).
//
// The thesis, 8.3.1 (受信領域の管理): "PM/RHiNET では、受信領域の解放情報
// を受信側から送信側に積極的に通知せず、送信側が認識している受信側の受信
// 領域の空き容量が不足した場合にのみ、この値を送信側が PULL で読み出して
// 最新のものに更新する実装とした。" PM/RHiNET does not have the receiver
// tell the sender how far it has released its receive area; only when the
// free space the sender knows of runs short does the sender read the value
// by PULL and bring its own up to date.
//
// A sender whose ring looks full therefore PULLs the receiver's consumer
// count, and, finding it unchanged, would PULL again at its own clock, each
// try a PULL's time: the receiver, later in virtual time (computing), cannot
// consume before the sender's clock has passed it (vorder.go), and a long
// computation cost thousands of tries in real time. Instead, as for a full
// VPUSH queue, the receiver's next publication of a consumer count is an
// event: the sender registers in one of the receiver's waiter slots
// (AwaitRing) and waits as for data; the receiver, when it publishes the
// count of that sender's ring (PublishedRing), wakes it as a write into its
// memory would, and the sender takes the publication at the receiver's
// clock (PollRings), from which it PULLs the count again. Each sender
// writes one ring at each receiver, so a slot names its sender.

// A ring's waiter takes one of the owner's waiter slots of vroom.go
// (roomRegs), marked roomRing beside its PID+1: the owner's release of
// VPUSH queue room passes it by, and the owner's publication of the count
// of a ring wakes only the slot of that ring's sender.
const roomRing = 1 << 62

// AwaitRing registers the process, in virtual time, as waiting for dst's
// next publication of the consumer count of the ring the process writes
// into there: the 8-byte word at (dst, sid, off) of segment memory, which
// the process has just read (PULL) as seen, as it read it before. Until
// the process has taken that publication (PollRings), RingWaiting(dst)
// reports true, and a PULL of the word would find it as before. AwaitRing
// reports false (the caller reads again at its own clock) in real time,
// for a word that is not segment memory of dst, or when every waiter slot
// of dst is taken.
func (n *NIC) AwaitRing(dst int, sid SID, off uint64, seen uint64) bool {
	if n.clock == nil {
		return false
	}
	mem, err := n.SharedRegion(dst, sid)
	if err != nil || off%8 != 0 || off > uint64(len(mem)) || uint64(len(mem))-off < 8 {
		return false
	}
	rr := n.seg.roomRegs(dst)
	me := uint64(n.pid) + 1 | roomRing
	for i := range rr.slot {
		if atomic.CompareAndSwapUint64(&rr.slot[i].who, 0, me) {
			atomic.AddUint64(&rr.waiting, 1)
			n.stats.RingWaits++
			n.ringWaits = append(n.ringWaits, ringWait{roomWait: roomWait{dst: dst, slot: i, seen: seen}, word: (*uint64)(unsafe.Pointer(&mem[off]))})
			return true
		}
	}
	return false
}

// ringWait is a ring's consumer count this process waits to see
// published: the owner's waiter slot it holds, the count it read, and the
// word.
type ringWait struct {
	roomWait
	word *uint64
}

// RingWaiting reports whether the process waits for a publication of dst
// (AwaitRing) that it has not taken yet.
func (n *NIC) RingWaiting(dst int) bool {
	return slices.ContainsFunc(n.ringWaits, func(w ringWait) bool { return w.dst == dst })
}

// PollRings takes, in virtual time, the publications of consumer counts
// that the process waits for (AwaitRing), as it takes arriving data: one
// at the process's clock or before it at once, a later one while the
// process waits and nothing earlier can come (Clock.take). It reports
// whether it took one.
func (n *NIC) PollRings() bool {
	waits := len(n.ringWaits)
	n.ringWaits = slices.DeleteFunc(n.ringWaits, n.takeRing)
	return len(n.ringWaits) < waits
}

// takeRing takes the publication that w waits for, if the owner has made
// it and the ordering lets the process take it now, and frees w's slot.
func (n *NIC) takeRing(w ringWait) bool {
	rr := n.seg.roomRegs(w.dst)
	s := &rr.slot[w.slot]
	me := uint64(n.pid) + 1 | roomRing
	var t uint64
	switch who := atomic.LoadUint64(&s.who); {
	case who == me|roomNoticed:
		t = atomic.LoadUint64(&s.at)
	case atomic.LoadUint64(w.word) != w.seen:
		// Published without waking this process: between its read and
		// its registration, when the owner's clock was behind its own
		// (the ordering lets the owner act then only), so at a time the
		// process's clock has passed; or after an escape from the
		// ordering (Clock.Escapes). Not at the owner's last publication,
		// which may be a later one of another ring (taking that would
		// move the clock by how the processes ran in real time): at the
		// process's clock, or at that publication if it is earlier.
		t = min(atomic.LoadUint64(&rr.ringAt), uint64(n.clock.now()))
	default:
		return false
	}
	if !n.clock.take(int64(t)) {
		return false
	}
	if t != atomic.LoadUint64(&s.at) || atomic.LoadUint64(&s.who) != me|roomNoticed {
		n.stats.RingMissed++
	}
	if atomic.SwapUint64(&s.who, 0) == me {
		atomic.AddUint64(&rr.waiting, ^uint64(0))
	}
	return true
}

// PublishedRing, in virtual time, tells the NIC that the process has just
// published the consumer count of the ring that process peer writes into
// (a store into the ring's memory, which a PULL of peer reads): it wakes
// peer if peer waits for that (AwaitRing), as releasedRoom wakes a VPUSH
// sender, and peer takes the publication 1 ns after the process's clock.
// In real time it does nothing. The owner's cost when nobody waits: a
// store of the time (a full fence, which orders the count's store before
// the look at the waiters that follows) and a load.
func (n *NIC) PublishedRing(peer int) {
	if n.clock == nil {
		return
	}
	rr := n.seg.roomRegs(n.pid)
	at := uint64(n.clock.now() + 1) // as ReleaseQueue's: every look at that time finds it
	atomic.StoreUint64(&rr.ringAt, at)
	if atomic.LoadUint64(&rr.waiting) == 0 {
		return
	}
	who := uint64(peer) + 1 | roomRing
	for i := range rr.slot {
		s := &rr.slot[i]
		if atomic.LoadUint64(&s.who) != who {
			continue
		}
		atomic.StoreUint64(&s.at, at)
		if atomic.CompareAndSwapUint64(&s.who, who, who|roomNoticed) {
			atomic.AddUint64(&rr.waiting, ^uint64(0))
			n.seg.wrote(peer, n.pid)
			n.notify(peer)
		}
	}
}
