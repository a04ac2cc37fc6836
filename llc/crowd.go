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

// crowdWatch is what an endpoint that may unpin its process knows of its
// CPU's load: when it last looked, the last reading and its CPU's and
// processes' (touched only by the polling goroutine, as the poll's state
// is), whether the endpoint has asked Unpin, and whether that unpinned
// the process.
type crowdWatch struct {
	looked   time.Time
	sample   cpuload.Sample
	cpu      int
	pids     []int
	asked    bool
	unpinned atomic.Bool
}

// yieldLook is backOff's look at the clock while it yields (every
// yieldClockEvery polls): where the endpoint may unpin its process, at
// most every crowdLookEvery a look at the CPU's load too (lookAtCPU). It
// returns the end of the yielding once that has lasted its bound, and
// idle otherwise.
func (ep *Endpoint) yieldLook(idle int, b waitBounds, ph *waitPhases) int {
	now := time.Now()
	if ep.Unpin != nil && !ep.crowd.asked && now.Sub(ep.crowd.looked) >= crowdLookEvery {
		ep.crowd.looked = now
		ep.lookAtCPU()
	}
	if b.yieldFor <= 0 {
		return idle
	}
	return phaseEndAt(now, idle, &ph.yielded, b.yieldFor, b.spin+ep.Yield)
}

// lookAtCPU reads the CPU's load and unpins the process if programs
// outside the job took crowdShare of the CPU since the last reading with
// the same processes pinned to it, or if another process of the host
// unpinned itself. A reading that fails (no /proc) leaves no reading to
// compare the next one with.
func (ep *Endpoint) lookAtCPU() {
	if ep.followPeers(); ep.crowd.asked || ep.publisher == nil {
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
	if same && !last.At.IsZero() && cpuload.ForeignShare(last, s, 1) >= crowdShare {
		ep.unpin()
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
