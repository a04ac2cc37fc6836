package llc

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/rhinet-go/martini/internal/cpuload"
)

// A process crowded off its CPU.
//
// A process pinned to one CPU cannot leave it when another program takes
// that CPU. Where a job's processes outnumber the CPUs, its waiters yield
// the CPU at every poll; under the kernel's scheduler (EEVDF) each yield
// moves the yielder's deadline later, so that a program that never yields
// keeps the CPU for whole slices, a millisecond and more, while the job's
// processes pinned beside it wait behind it, and the job's processes on
// the other CPUs wait for those. Small collectives then took a hundred to
// a thousand times as long as without the program, where the same job
// left unpinned kept its speed (docs/decisions.md, crowded processes): the
// kernel moves a process that may run anywhere to a CPU where it can run.
//
// The process's own waits cannot tell: the program takes the CPU as much
// while the process computes or sends as while it waits, and the
// processes on the other CPUs only wait longer. The kernel's accounts
// can: where the process may unpin itself (Unpin), a waiter looks, at
// most every crowdLookEvery, at how busy its CPU was since the last look
// and how much of that the job's processes pinned to it used
// (CPUPublisher.CPUMates, package cpuload). When the rest reaches
// crowdShare of the time, the endpoint asks Unpin to let the process run
// on every CPU it was allowed before it was pinned, for the rest of the
// job, and publishes that it did; the host's other processes then unpin
// themselves at their next sleep or look (CPUPublisher.PeerUnpinned), as
// the program moves from CPU to CPU while the kernel balances them.
//
// A process with a CPU of its own (the job's processes no more than the
// CPUs) stays pinned: unpinned beside such a program, two processes on
// two CPUs took tens of µs a message where pinned ones kept their speed.
// But its waiter's yields hand the CPU to the program: a waiter spins for
// SpinFor, then yields, and each yield moves its deadline later, so that
// the program keeps the CPU for whole slices while the process's peers
// wait for its answers, and calls took a thousand times as long as
// without it. Such a waiter looks at its CPU's load as one that may unpin
// does (at most every crowdLookEvery, while it yields), and while
// programs outside the job take crowdShare of the CPU or more, it sleeps
// on the doorbell once its spinning ends instead of yielding
// (crowdWatch.beside): the kernel runs a woken sleeper soon, where a
// yielder waits behind the program. Its sleeps look again meanwhile, and
// it yields again once the program has gone (docs/decisions.md, a CPU of
// its own beside another program).

// crowdLookEvery is the shortest time between two looks at the CPU's
// load, twenty of /proc's ticks; crowdShare the share of that time that
// programs outside the job must have used the CPU for the process to be
// crowded off it: a program that never yields takes a third where two of
// the job's processes share the CPU with it, the kernel's own threads a
// few hundredths.
const (
	crowdLookEvery = 200 * time.Millisecond
	crowdShare     = 0.25
)

// readCPULoad reads the CPU's load (a variable for tests).
var readCPULoad = cpuload.Take

// crowdWatch is what an endpoint whose process is pinned knows of its
// CPU's load: when it last looked, the last reading and its CPU's and
// processes' and whether its waiters stop yielding beside other programs
// (touched only by the polling goroutine, as the poll's state is),
// whether the endpoint has asked Unpin, whether that unpinned the
// process, and whether its waiters have ever stopped yielding.
type crowdWatch struct {
	looked     time.Time
	sample     cpuload.Sample
	cpu        int
	pids       []int
	beside     bool
	asked      bool
	unpinned   atomic.Bool
	besideSeen atomic.Bool
}

// yieldLook is backOff's look at the clock while it yields (every
// yieldClockEvery polls): at most every crowdLookEvery a look at the
// CPU's load too (lookAtCPU), where the endpoint may unpin its process or
// publishes its CPU. It returns the end of the yielding once that has
// lasted its bound, and idle otherwise.
func (ep *Endpoint) yieldLook(idle int, b waitBounds, ph *waitPhases) int {
	now := time.Now()
	if !ep.crowd.asked && (ep.Unpin != nil || ep.publisher != nil) && now.Sub(ep.crowd.looked) >= crowdLookEvery {
		ep.crowd.looked = now
		ep.lookAtCPU()
	}
	if b.yieldFor <= 0 {
		return idle
	}
	return phaseEndAt(now, idle, &ph.yielded, b.yieldFor, b.spin+ep.Yield)
}

// lookAtCPU reads the CPU's load and, if programs outside the job took
// crowdShare of the CPU since the last reading with the same processes
// pinned to it, unpins the process where it may (Unpin), or else has its
// waiters sleep instead of yielding until a reading finds less
// (crowdWatch.beside). A process that may unpin itself also does so when
// another process of the host did. A reading that fails (no /proc) leaves
// no reading to compare the next one with.
func (ep *Endpoint) lookAtCPU() {
	if ep.Unpin != nil {
		ep.followPeers()
	}
	if ep.crowd.asked || ep.publisher == nil {
		return
	}
	cpu, pids := ep.publisher.CPUMates()
	if cpu < 0 {
		return
	}
	s, err := readCPULoad(cpu, pids)
	if err != nil {
		ep.crowd.sample = cpuload.Sample{}
		return
	}
	last := ep.crowd.sample
	same := cpu == ep.crowd.cpu && slices.Equal(pids, ep.crowd.pids)
	ep.crowd.sample, ep.crowd.cpu, ep.crowd.pids = s, cpu, pids
	if !same || last.At.IsZero() {
		return
	}
	crowded := cpuload.ForeignShare(last, s, 1) >= crowdShare
	if ep.Unpin != nil {
		if crowded {
			ep.unpin()
		}
		return
	}
	ep.crowd.beside = crowded
	if crowded {
		ep.crowd.besideSeen.Store(true)
	}
}

// besideLook is a sleep's look at the CPU's load while the waiters sleep
// instead of yielding (crowdWatch.beside), at most every crowdLookEvery:
// the yields' looks no longer run.
func (ep *Endpoint) besideLook() {
	if now := time.Now(); now.Sub(ep.crowd.looked) >= crowdLookEvery {
		ep.crowd.looked = now
		ep.lookAtCPU()
	}
}

// followPeers unpins the process once another process of its host has
// unpinned itself (sleep's look, before the doorbell).
func (ep *Endpoint) followPeers() {
	if !ep.crowd.asked && ep.publisher != nil && ep.publisher.PeerUnpinned() {
		ep.unpin()
	}
}

// unpin unpins the process (Unpin) and, if it was pinned, publishes that
// it is pinned to no CPU now.
func (ep *Endpoint) unpin() {
	ep.crowd.asked = true
	if !ep.Unpin() {
		return
	}
	ep.crowd.unpinned.Store(true)
	if ep.publisher != nil {
		ep.publisher.PublishCPU(-1)
	}
}
