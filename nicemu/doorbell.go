package nicemu

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A process's doorbell and its bounce mailbox: how the other processes
// reach it besides the NIC's writes into its segment memory. Its waits
// (await) serve the mailbox while they sleep on the doorbell.

// The doorbell emulates the NIC's interrupt: a process that has nothing to
// do may sleep on its doorbell word, and every request that writes into a
// process's memory (or posts to its bounce mailbox) rings the doorbell if,
// and only if, the process announced it may sleep. A polling process pays
// one load of a read-mostly word per request; a sleeping one costs nothing.

const (
	futexWait = 0
	futexWake = 1
)

// ArmDoorbell announces that the caller may sleep and returns the doorbell
// value to pass to WaitDoorbell. After arming, the caller must check once
// more for work, then call WaitDoorbell or DisarmDoorbell. Safe for
// concurrent use.
func (n *NIC) ArmDoorbell() uint32 {
	atomic.AddUint32(&n.ent.sleepers, 1)
	return atomic.LoadUint32(&n.ent.bell)
}

// DisarmDoorbell withdraws an ArmDoorbell without sleeping.
func (n *NIC) DisarmDoorbell() { atomic.AddUint32(&n.ent.sleepers, ^uint32(0)) }

// WaitDoorbell sleeps until the doorbell rings after the ArmDoorbell that
// returned seen, or until timeout, then disarms. Safe for concurrent use.
//
// The wait is an ordinary system call, not a raw one: Go's runtime then
// knows the thread is blocked, and a garbage collection's stop of the world
// does not wait for the ring or the timeout (a signal does not end a futex
// wait that the kernel restarts).
func (n *NIC) WaitDoorbell(seen uint32, timeout time.Duration) {
	ts := unix.NsecToTimespec(int64(timeout))
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&n.ent.bell)), futexWait, uintptr(seen),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	n.DisarmDoorbell()
}

// notify rings dst's doorbell if dst may be asleep.
func (n *NIC) notify(dst int) {
	e := n.procs[dst]
	if atomic.LoadUint32(&e.sleepers) != 0 {
		atomic.AddUint32(&e.bell, 1)
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&e.bell)), futexWake, math.MaxInt32, 0, 0, 0)
		n.stats.Wakeups++
	}
}

// await waits for done to become true while serving this process's own
// bounce mailbox (so two processes bouncing to each other cannot deadlock):
// spin, then yield, then sleep on the doorbell. done is called until it
// returns true, and never again after.
func (n *NIC) await(done func() bool) {
	for i := 0; ; i++ {
		if done() {
			return
		}
		n.Service()
		switch {
		case i < 256:
		case i < 2048:
			yield()
		default:
			seen := n.ArmDoorbell()
			if done() {
				// done may act (the bounce lock is a compare-and-swap):
				// once it has said true, it must not be asked again.
				n.DisarmDoorbell()
				return
			}
			if n.pendingService() {
				n.DisarmDoorbell()
				continue
			}
			n.WaitDoorbell(seen, time.Millisecond)
		}
	}
}

// yield gives the CPU to another runnable process (sched_yield), which
// matters when more ranks than cores run. The call is raw: through Go's
// ordinary system call, a yield that lets another process run for long
// enough has its processor retaken by the runtime and handed to another
// thread.
func yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// Wake rings the caller's own doorbell if one of its goroutines may be
// asleep on it: a goroutine that completes work another one waits for
// (outside the NIC's own requests) calls it. Safe for concurrent use.
func (n *NIC) Wake() { n.ring(n.pid) }

// WakePeer rings process dst's doorbell if dst may be asleep on it: a
// process that stored, itself, into memory that dst polls (a shared
// line), rather than by a request of the NIC, calls it after a
// sequentially consistent store, which orders the store before the look
// at dst's sleepers. Safe for concurrent use.
func (n *NIC) WakePeer(dst int) {
	// The look at dst's sleepers first, inlined into the caller: on a
	// message's path dst is seldom asleep, and ring's checks can wait.
	if uint(dst) < uint(len(n.procs)) && atomic.LoadUint32(&n.procs[dst].sleepers) != 0 {
		n.ring(dst)
	}
}

// ring is notify for the methods that may run concurrently: it rings dst's
// doorbell if dst may be asleep and counts the wake-up atomically. It never
// rings a process outside the job.
func (n *NIC) ring(dst int) {
	if uint(dst) >= uint(len(n.procs)) {
		return
	}
	e := n.procs[dst]
	if e.pgid != n.ent.pgid {
		return
	}
	if atomic.LoadUint32(&e.sleepers) != 0 {
		atomic.AddUint32(&e.bell, 1)
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&e.bell)), futexWake, math.MaxInt32, 0, 0, 0)
		atomic.AddUint64(&n.seg.syncCounters(n.pid).wakeups, 1)
	}
}

// When cross-memory attach is not permitted, a PUSH or PULL that targets
// another process's private memory is staged through that process's bounce
// buffer in the segment: the initiator locks the target's mailbox, posts a
// chunk request, and the target's NIC (Service, run by the target whenever it
// polls) copies between its own memory and the bounce buffer, as Martini's
// Replier and RBend would by DMA. Two copies instead of one; which path ran
// is visible in Stats (CMAOps versus BounceOps).

// mailbox is a process's bounce request slot, at the start of its control
// page.
type mailbox struct {
	lock   uint64 // 0: free; otherwise initiator PID+1
	state  uint64 // boxIdle, boxPosted, boxDone, boxRefused
	op     uint64 // OpPush or OpPull
	sid    uint64
	off    uint64
	length uint64
	from   uint64 // initiator PID
	result uint64 // Violation when refused
}

const (
	boxIdle uint64 = iota
	boxPosted
	boxDone
	boxRefused
)

func (s *Segment) mailbox(p int) *mailbox {
	return (*mailbox)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl]))
}

func (s *Segment) bounceBuf(p int) []byte {
	b := s.partBase(p) + partBounce
	return s.mem[b : b+int(s.hdr.bounceSize) : b+int(s.hdr.bounceSize)]
}

// bounce moves b to or from (dst, sid, off) through dst's bounce buffer.
func (n *NIC) bounce(op Op, dst int, sid SID, off uint64, b []byte) error {
	box := n.seg.mailbox(dst)
	buf := n.seg.bounceBuf(dst)
	me := uint64(n.pid) + 1
	n.await(func() bool { return atomic.CompareAndSwapUint64(&box.lock, 0, me) })
	defer func() {
		atomic.StoreUint64(&box.state, boxIdle)
		atomic.StoreUint64(&box.lock, 0)
	}()
	for done := 0; done < len(b); {
		c := min(len(b)-done, len(buf))
		if op == OpPush {
			copy(buf, b[done:done+c])
		}
		box.op, box.sid, box.off, box.length, box.from = uint64(op), uint64(sid), off+uint64(done), uint64(c), uint64(n.pid)
		atomic.StoreUint64(&box.state, boxPosted)
		n.notify(dst)
		n.await(func() bool { return atomic.LoadUint64(&box.state) != boxPosted })
		if atomic.LoadUint64(&box.state) == boxRefused {
			return n.refuse(op, Violation(box.result), dst, sid, off+uint64(done), c, "refused by the target during a bounce transfer")
		}
		if op == OpPull {
			copy(b[done:done+c], buf)
		}
		done += c
		n.stats.BounceOps++
		n.stats.BounceBytes += uint64(c)
	}
	return nil
}

// pendingService reports whether another process posted a bounce request.
func (n *NIC) pendingService() bool { return atomic.LoadUint64(&n.box.state) == boxPosted }

// Service performs a bounce request another process posted to this
// process's mailbox, if any, and reports whether it did. The layer above
// calls it from its progress loop.
func (n *NIC) Service() bool {
	if !n.pendingService() {
		return false
	}
	return n.serve()
}

// serve is Service's work where a request is posted: out of the line of
// the progress loop's look, which finds none nearly always.
func (n *NIC) serve() bool {
	b := n.box
	// Read the initiator before answering: once the state leaves
	// boxPosted, the initiator may release the mailbox and another one
	// may post (and overwrite from) before this process rings.
	from := int(b.from)
	if from < 0 || from >= n.seg.NProcs() {
		from = n.pid // a malformed request: ring nobody else's doorbell
	}
	region, ok := n.procRegions[SID(b.sid)]
	bounce := n.seg.bounceBuf(n.pid)
	c := b.length
	switch {
	case !ok:
		b.result = uint64(ViolationBadSID)
	case b.off > uint64(len(region)) || c > uint64(len(region))-b.off:
		b.result = uint64(ViolationOutOfRange)
	case c > uint64(len(bounce)):
		b.result = uint64(ViolationBadRequest)
	default:
		buf := bounce[:c]
		if Op(b.op) == OpPush {
			copy(region[b.off:b.off+c], buf)
		} else {
			copy(buf, region[b.off:b.off+c])
		}
		n.stats.Served++
		atomic.StoreUint64(&b.state, boxDone)
		n.notify(from)
		return true
	}
	atomic.StoreUint64(&b.state, boxRefused)
	n.notify(from)
	return true
}
