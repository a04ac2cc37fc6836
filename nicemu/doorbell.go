package nicemu

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

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
func (n *NIC) WakePeer(dst int) { n.ring(dst) }

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
