package tuning

import (
	"math"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// Waiting is how a waiting process uses its CPU and how far the
// collectives run ahead of their argument checks: choices that depend on
// how the job's processes share the host's CPUs (the host class's CPUs,
// which -tune overrides) and on whether a timing model runs, not on the
// vendor. docs/tuning.md, "Waiting", gives the measurements.
type Waiting struct {
	// Spin and Yield are the polls a waiter spins, then yields, before it
	// sleeps (llc.Endpoint.Spin and Yield).
	Spin, Yield int
	// SpinFor bounds the spinning in time (llc.Endpoint.SpinFor).
	SpinFor time.Duration
	// YieldFor bounds the yielding in time (llc.Endpoint.YieldFor); 0:
	// unbounded (the user set the yields).
	YieldFor time.Duration
	// BusySpin and BusyYieldFor are the least spinning and yielding while
	// nonblocking collectives run (llc.Endpoint.SpinBusy, YieldBusyFor).
	BusySpin     int
	BusyYieldFor time.Duration
	// RunAhead lets broadcasts, scatters, and reductions and gathers of a
	// data word to a root return before their argument check settles
	// (collectives.RunAhead), and makes the exchanges' receives whole
	// (llc.RecvOp.Whole).
	RunAhead bool
	// WordBcastAhead lets the broadcasts of a data word alone run ahead
	// of their check where RunAhead is off (collectives.Runner's
	// WordBcastAhead): with a core each, from wordBcastAheadMin
	// processes, unless the user turned the run-ahead off.
	WordBcastAhead bool
	// OverlapLimit bounds the collectives that overlap their argument
	// check with their data (collectives.Runner.OverlapLimit).
	OverlapLimit int
	// QueueNonblocking lets the commonest nonblocking collectives run as
	// the blocking ones do, one after another in the order they start
	// (mpi's collqueue.go), with a core each and no timing model. Where
	// processes outnumber cores they keep their software algorithms (but
	// for the rooted ones, QueueRooted),
	// which progress many in flight at once where the queue, whose calls
	// each wait for every process to run, lost (docs/decisions.md,
	// "Nonblocking collectives in the communicator's queue").
	QueueNonblocking bool
	// QueueRooted lets the nonblocking broadcasts, scatters, reductions
	// and gathers to a root queue where the others do not but RunAhead is
	// on (processes outnumber cores, no timing model): queued, they run
	// ahead of their argument check as the blocking calls do, the root of
	// a broadcast or a scatter sending and returning, the others of a
	// reduction or a gather, where the software path first compares the
	// arguments by messages, rounds that each wait for the processes
	// sharing a CPU to run (docs/decisions.md, "Nonblocking rooted
	// collectives queue where processes outnumber cores").
	QueueRooted bool
}

// waitingFor is the Waiting of job on cpus CPUs, whose engine and
// collectives' eager limits are cfg's and collEager.
func waitingFor(job Job, cpus int, cfg llc.Config, collEager int) Waiting {
	procs, modelled := job.Size, job.Caps.Modelled
	w := Waiting{SpinFor: spinFor, BusySpin: busySpin, BusyYieldFor: busyYieldFor,
		RunAhead:         runAhead(procs, cpus, modelled, job.Settings.RunAhead),
		OverlapLimit:     overlapLimit(cfg, collEager, procs, cpus, modelled),
		QueueNonblocking: procs <= cpus && !modelled}
	w.QueueRooted = w.RunAhead && !modelled
	w.WordBcastAhead = !w.RunAhead && !modelled && procs >= wordBcastAheadMin && job.Settings.RunAhead != launch.RunAheadOff
	w.Spin, w.Yield = backoff(procs, cpus, job.Settings)
	if job.Settings.Yield < 0 {
		w.YieldFor = yieldBound(procs, cpus)
	}
	return w
}

// runAhead is Waiting.RunAhead: the user's choice, else on where
// processes outnumber cores and no timing model runs.
func runAhead(procs, cpus int, modelled bool, setting string) bool {
	switch setting {
	case launch.RunAheadOn:
		return true
	case launch.RunAheadOff:
		return false
	}
	return procs > cpus && !modelled
}

// wordBcastAheadMin is the fewest processes whose broadcasts of a data
// word run ahead with a core each: the keyed barrier has each of them
// wait for the last process to arrive, the ring only for the root. At 3
// and 4 processes the two took the same time; from 8 the ring won,
// by more the more processes (docs/tuning.md, "Waiting").
const wordBcastAheadMin = 8

// overlapLimit is the collectives' OverlapLimit. With more processes
// than cores every call overlaps its check, whatever its size: the
// check's barrier done first would cost a pass of every process before
// any data moves. With a core each, only the calls whose sends travel
// eagerly overlap (the collectives' eager limit): overlapping the rest
// lost there. Under the timing model, whose recorded runs (thesis npb)
// were made so, the calls overlap only while their sends go eagerly (up
// to the engine's EagerHintLimit with more processes than cores).
func overlapLimit(cfg llc.Config, collEager, procs, cpus int, modelled bool) int {
	switch {
	case procs > cpus && modelled:
		return max(cfg.EagerLimit, cfg.EagerHintLimit)
	case procs > cpus:
		return math.MaxInt
	}
	return max(cfg.EagerLimit, collEager)
}

// backoff chooses how long a waiting process spins and yields before it
// sleeps. With a core per process, spinning answers fastest; with more
// processes than cores, the process being waited for may not be running,
// so a waiter yields the core at every poll. Past yieldProcsPerCPU
// processes a core a waiter does not yield at all: a yield then hands
// the core to another waiter far more often than to the process they
// wait for, and the waiters' yields together starve it. MARTINI_SPIN and
// MARTINI_YIELD (launch.Settings) override the choice.
func backoff(procs, cpus int, settings launch.Settings) (spin, yield int) {
	spin, yield = 4000, 200
	switch {
	case procs > yieldProcsPerCPU*cpus:
		spin, yield = 20, 0
	case procs > cpus:
		spin, yield = oversubscribedSpin, oversubscribedYield
	}
	if settings.Spin >= 0 {
		spin = settings.Spin
	}
	if settings.Yield >= 0 {
		yield = settings.Yield
	}
	return spin, yield
}

// busySpin and busyYieldFor bound a waiter's spinning and yielding, at
// least, while nonblocking collectives run in the process's goroutines.
// With processes outnumbering cores a waiter otherwise yields the core
// at its first idle poll and sleeps after yieldBound, though with
// operations in flight the next message comes soon; the two together
// halve the nonblocking mix's time there (docs/decisions.md).
const (
	busySpin     = 50
	busyYieldFor = 5 * time.Millisecond
)

// spinFor bounds a waiter's spinning in time: the scheduler sometimes
// puts two processes of a job on one core for a while, and spinning then
// only delays the peer being waited for.
const spinFor = 20 * time.Microsecond

// yieldFor bounds a waiter's yielding in time: with more processes than
// cores, a yield hands the core to the others on it for a turn each, and
// unbounded yields kept a waiter that waited long off its sleep, taking
// turns from the processes it shared a core with.
const yieldFor = 300 * time.Microsecond

// yieldBound is the YieldFor of procs processes on cpus CPUs: yieldFor
// up to 3 processes a CPU, and yieldFor more for every 2 processes a CPU
// more, as a turn of every process on a CPU takes longer.
func yieldBound(procs, cpus int) time.Duration {
	perCPU := (procs + max(cpus, 1) - 1) / max(cpus, 1)
	return yieldFor * time.Duration(max(1, perCPU/2))
}

// The yields of a waiting process when processes outnumber cores: no
// spinning first (a poll over every peer's ring costs about what a
// yield does), 2000 yields, and none past yieldProcsPerCPU processes a
// core, where the waiters' yields hand the core to each other and starve
// the process they wait for.
const (
	oversubscribedSpin  = 0
	oversubscribedYield = 2000
	yieldProcsPerCPU    = 128
)
