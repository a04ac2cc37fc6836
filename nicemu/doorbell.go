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
// One sleeper of the process at a time blocks its thread without telling
// Go's scheduler (rawSleep), so that the ring resumes it at once; the
// others sleep in an ordinary system call, which lets the scheduler run
// the process's other goroutines on their processors meanwhile.
func (n *NIC) WaitDoorbell(seen uint32, timeout time.Duration) {
	if n.rawSleeper.CompareAndSwap(false, true) {
		rawSleep(&n.ent.bell, seen, timeout)
		n.rawSleeper.Store(false)
	} else {
		ts := unix.NsecToTimespec(int64(timeout))
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&n.ent.bell)), futexWait, uintptr(seen),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	n.DisarmDoorbell()
}

// rawSleep blocks until *bell differs from seen or timeout passes, in raw
// futex waits. A sleep through Go's ordinary system call hands the thread's
// processor to another thread when it lasts (sysmon retakes it), and on
// waking the sleeper must get a processor back, often by waking yet
// another thread: with more processes than cores, that chain cost tens of
// microseconds a wake. A raw wait keeps the processor; the runtime's
// preemption signal interrupts it (EINTR), and the loop's next call then
// yields to a stop-the-world, so a garbage collection never waits for the
// timeout.
func rawSleep(bell *uint32, seen uint32, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for atomic.LoadUint32(bell) == seen {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		ts := unix.NsecToTimespec(int64(left))
		unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(bell)), futexWait, uintptr(seen),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
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
// thread (see rawSleep).
func yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// Wake rings the caller's own doorbell if one of its goroutines may be
// asleep on it: a goroutine that completes work another one waits for
// (outside the NIC's own requests) calls it. Safe for concurrent use.
func (n *NIC) Wake() { n.ring(n.pid) }
