package bench

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// BenchmarkLineWork measures what the cross-core floor (Floor) becomes
// when each side does some work between seeing the other's store and
// replying, as every MPI does between a message's arrival and its answer.
// Two threads, pinned to the floor's two CPUs, take turns storing a
// counter into one cache line; after seeing the other's store, each runs
// a dependent chain of work multiply-adds before it stores. It reports
// the half round trip (ns/half) and the work alone (work-ns, timed on one
// thread), so that the line's own cost is ns/half - work-ns. The waits
// poll flat out (poll=tight) or with the processor's spin-wait hint
// between polls (poll=pause, spinwait.Pause, as llc.Endpoint does). The
// floor is poll=tight/work=0:
//
//	go test -run XXX -bench LineWork ./bench
//
// It is a measurement of the machine, not of this runtime: it needs two
// CPUs and skips with fewer.
func BenchmarkLineWork(b *testing.B) {
	cpus := lineCPUs(b)
	for _, pause := range []bool{false, true} {
		poll := map[bool]string{false: "tight", true: "pause"}[pause]
		for _, work := range []int{0, 8, 16, 32, 40, 48, 56, 64, 96} {
			b.Run(fmt.Sprintf("poll=%s/work=%d", poll, work), func(b *testing.B) {
				half, err := lineWork(cpus, work, pause, 0, b.N)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(half, "ns/half")
				b.ReportMetric(workNs(work), "work-ns")
			})
		}
	}
}

// lineCPUs returns the floor's two CPUs, skipping b where there are fewer.
func lineCPUs(b *testing.B) [2]int {
	b.Helper()
	cpus, err := floorCPUs()
	if errors.Is(err, ErrFloorCPUs) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return cpus
}

// workLine is the shared line: the counter, alone in its cache line.
type workLine struct {
	_ [64]byte
	n atomic.Uint64
	_ [56]byte
}

// BenchmarkLineQuiet measures what a quiet window does to LineWork's
// ping-pong (llc's quietWindow): after its store, each side waits quiet
// nanoseconds, by the processor's counter, before it polls the line
// again, so that it does not take the line back while the other composes
// its answer. Both sides do 64 multiply-adds (about 65 ns here, as long as
// MPI's path from a message's arrival to its reply) and poll with PAUSE:
//
//	go test -run XXX -bench LineQuiet ./bench
func BenchmarkLineQuiet(b *testing.B) {
	cpus := lineCPUs(b)
	perUS := spinwait.TicksPerMicrosecond()
	if perUS == 0 {
		b.Skip("no processor counter to time the window with")
	}
	const work = 64
	for _, quiet := range []uint64{0, 32, 64, 96, 128, 160} {
		b.Run(fmt.Sprintf("quiet=%dns", quiet), func(b *testing.B) {
			half, err := lineWork(cpus, work, true, quiet*perUS/1000, b.N)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(half, "ns/half")
			b.ReportMetric(workNs(work), "work-ns")
		})
	}
}

// lineWork runs n round trips between two threads pinned to cpus, each
// doing work multiply-adds before it replies, pausing between polls if
// pause, and waiting quiet ticks (spinwait.Ticks) after its store before
// it polls again; it returns the half round trip in nanoseconds.
func lineWork(cpus [2]int, work int, pause bool, quiet uint64, n int) (float64, error) {
	var line workLine
	stop := func() { line.n.Store(^uint64(0)) }
	return pinnedPair(cpus, n, stop, func(me int) {
		var sink, wrote uint64
		for v := uint64(me); v < 2*uint64(n); v += 2 {
			for quiet != 0 && spinwait.Ticks()-wrote < quiet {
				spinwait.Pause()
			}
			for line.n.Load() != v {
				if line.n.Load() == ^uint64(0) {
					return
				}
				if pause {
					spinwait.Pause()
				}
			}
			sink = spinWork(sink, work)
			line.n.Store(v + 1)
			if quiet != 0 {
				wrote = spinwait.Ticks()
			}
		}
		workSink.Add(sink)
	})
}

// pinnedPair runs side(0) and side(1) at once, each on a thread pinned to
// its CPU of cpus, and returns the half round trip of their n round
// trips: the time from side 0's start to side 1's end, over 2n. A side
// whose thread cannot be pinned calls stop instead of side, and stop must
// make the other side return.
func pinnedPair(cpus [2]int, n int, stop func(), side func(me int)) (float64, error) {
	var (
		wg    sync.WaitGroup
		errs  [2]error
		start time.Time
		took  time.Duration
	)
	wg.Add(2)
	for me := range 2 {
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // pinned: the thread ends with the goroutine
			if errs[me] = pinThread(cpus[me]); errs[me] != nil {
				stop()
				return
			}
			if me == 0 {
				start = time.Now() // side 1 reads it after side 0's first store, which it waits for
			}
			side(me)
			if me == 1 {
				took = time.Since(start)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return 0, err
	}
	return float64(took.Nanoseconds()) / float64(2*n), nil
}

// workSink keeps the work's results alive.
var workSink atomic.Uint64

// spinWork runs work dependent multiply-adds on x.
func spinWork(x uint64, work int) uint64 {
	for range work {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// workNs times spinWork(work) on this thread, in nanoseconds a call.
func workNs(work int) float64 {
	const calls = 1 << 20
	var x uint64
	start := time.Now()
	for range calls {
		x = spinWork(x, work)
	}
	workSink.Add(x)
	return float64(time.Since(start).Nanoseconds()) / calls
}
