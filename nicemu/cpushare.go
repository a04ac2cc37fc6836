package nicemu

import "sync/atomic"

// Processes sharing a CPU.
//
// When a job's processes outnumber the cores, a waiting process yields its
// core so that another process can run: the one it waits for, or one that
// process waits for. But a yield is a switch between processes (about
// half a microsecond), and where every other process on
// the waiter's core waits too, for a process on another core, the yield
// only hands the core to a process that looks and yields it back (a third
// of the switches of a small broadcast at 4 processes on 2 cores;
// docs/decisions.md).
//
// So each process publishes, in the second line of its process entry, the
// CPU it is pinned to (PublishCPU, which the launcher's side calls with
// launch.PinnedCPU) and, while it waits for a member's
// arrival at a generation of a barrier controller or for a generation's
// release, what it waits for (WaitingForArrival, WaitingForRelease,
// DoneWaiting); YieldHelps tells a waiter whether a process that may run
// on its CPU could do anything if it yielded. A process that waits for
// anything else (a message, say) publishes nothing and so counts as one
// that could. A process alone on its CPU yields as before: the yield
// switches to nothing and costs a system call, but at 3 processes on 2
// cores polling at the pace of those calls was faster than polling flat
// out (docs/decisions.md, waiters sharing a CPU).
//
// With a core each, a waiter spins first (llc.Endpoint.Spin), and once it
// asks, it is alone on its CPU and yields as before (or, where a program
// outside the job takes a share of that CPU, sleeps: llc's crowd.go).

// Wait states of a process entry's waitOn: waitNone, or waitArrival or
// waitRelease with the controller's id shifted by waitIDShift (waitIDMask
// wide) and the member awaited (waitArrival) or the group's size
// (waitRelease) in the low bits.
const (
	waitNone    = 0
	waitArrival = 1 << 63
	waitRelease = 1 << 62
	waitIDShift = 32
	waitIDMask  = 1<<30 - 1
)

// The CPU word of a process entry: cpuUnpublished until the process
// publishes its CPU, then cpuNone or cpuBase plus the CPU.
const (
	cpuUnpublished = 0
	cpuNone        = 1
	cpuBase        = 2
)

// PublishCPU publishes cpu, the CPU this process is pinned to (-1: not
// pinned to one), and that it waits for nothing. Until every process of
// the job has published its CPU, YieldHelps cannot tell and says true.
func (n *NIC) PublishCPU(cpu int) {
	atomic.StoreUint64(&n.ent.waitOn, waitNone)
	w := uint64(cpuNone)
	if cpu >= 0 {
		w = cpuBase + uint64(cpu)
	}
	atomic.StoreUint64(&n.ent.cpu, w)
	n.cpuMates.Store(nil)
}

// PeerUnpinned reports whether this process is pinned to a CPU and
// another of the job's processes here has published that it is pinned to
// none: one that unpinned itself, crowded off its CPU (llc's crowd.go).
func (n *NIC) PeerUnpinned() bool {
	if atomic.LoadUint64(&n.ent.cpu) < cpuBase {
		return false
	}
	for _, e := range n.procs {
		if e != n.ent && atomic.LoadUint64(&e.cpu) == cpuNone {
			return true
		}
	}
	return false
}

// CPUMates returns the CPU this process has published it is pinned to,
// -1 if none, and the operating system's process ids of the job's
// processes pinned to it, this one's first.
func (n *NIC) CPUMates() (cpu int, pids []int) {
	mine := atomic.LoadUint64(&n.ent.cpu)
	if mine < cpuBase {
		return -1, nil
	}
	pids = append(pids, int(atomic.LoadUint64(&n.ent.ospid)))
	for _, e := range n.procs {
		if e != n.ent && atomic.LoadUint64(&e.cpu) == mine {
			pids = append(pids, int(atomic.LoadUint64(&e.ospid)))
		}
	}
	return int(mine - cpuBase), pids
}

// WaitingForArrival publishes that this process waits for member's
// arrival at generation gen of barrier controller id, until DoneWaiting.
func (n *NIC) WaitingForArrival(id, member int, gen uint64) {
	n.publishWait(waitArrival|uint64(id)<<waitIDShift|uint64(uint32(member)), gen)
}

// WaitingForRelease publishes that this process waits for the release of
// generation gen of barrier controller id, used by a group of size
// members, until DoneWaiting.
func (n *NIC) WaitingForRelease(id, size int, gen uint64) {
	n.publishWait(waitRelease|uint64(id)<<waitIDShift|uint64(uint32(size)), gen)
}

func (n *NIC) publishWait(on, gen uint64) {
	atomic.StoreUint64(&n.ent.waitGen, gen)
	atomic.StoreUint64(&n.ent.waitOn, on)
}

// DoneWaiting publishes that this process no longer waits for what
// WaitingForArrival or WaitingForRelease published.
func (n *NIC) DoneWaiting() { atomic.StoreUint64(&n.ent.waitOn, waitNone) }

// YieldHelps reports whether a yield of this process's CPU may let
// another process of the job do something: whether a process that may run
// on the CPU (pinned to it, or to none) is not waiting for a barrier's
// arrival or release, or is waiting for one that has come. It reports
// true where it cannot tell: this process is not pinned to one CPU, or
// some process of the job has not published its CPU yet; and where no other
// process may run on its CPU (see above). Only the caller's
// wait state may be stale for it (a waiter that has just seen what it
// awaited counts as waiting until it publishes DoneWaiting): the caller
// asks again at its next poll.
//
// Goroutines of one process may ask at once, and all publish their waits
// in the process's one wait state, where the last published stands. For a
// mate whose goroutines wait for different things the answer follows that
// last one: it may say false while another of the mate's goroutines could
// run, which costs that goroutine the yield, not its progress (a waiter
// told false still sleeps after its yielding phase, llc.Endpoint).
func (n *NIC) YieldHelps() bool {
	cm := n.cpuMates.Load()
	if cm == nil {
		if cm = n.findMates(); cm == nil {
			return true
		}
	}
	if !cm.pinned || len(cm.mates) == 0 {
		return true // a yield on a CPU of its own switches to nothing (see above)
	}
	for _, m := range cm.mates {
		if n.canRun(m) {
			return true
		}
	}
	return false
}

// canRun reports whether process entry m waits for nothing this NIC can
// see still missing.
func (n *NIC) canRun(m *procEntry) bool {
	on := atomic.LoadUint64(&m.waitOn)
	if on == waitNone {
		return true
	}
	gen := atomic.LoadUint64(&m.waitGen)
	id, low := int(on>>waitIDShift&waitIDMask), int(uint32(on))
	if on&waitArrival != 0 {
		return n.BarrierArrived(id, low, gen)
	}
	return n.BarrierReleased(id, low, gen)
}

// cpuMates are the other processes that may run on a process's CPU, and
// whether the process is pinned to one.
type cpuMates struct {
	mates  []*procEntry
	pinned bool
}

// findMates finds, once every process of the job has published its CPU,
// the others that may run on this process's CPU: those pinned to it and
// those pinned to none, and keeps them for later calls. It returns nil
// while some process has not published.
func (n *NIC) findMates() *cpuMates {
	for _, e := range n.procs {
		if atomic.LoadUint64(&e.cpu) == cpuUnpublished {
			return nil // asked again at the next yield, without allocating
		}
	}
	mine := atomic.LoadUint64(&n.ent.cpu)
	cm := &cpuMates{pinned: mine != cpuNone}
	for _, e := range n.procs {
		if c := atomic.LoadUint64(&e.cpu); e != n.ent && (c == mine || c == cpuNone) {
			cm.mates = append(cm.mates, e)
		}
	}
	n.cpuMates.CompareAndSwap(nil, cm)
	return cm
}
