package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/cputopo"
)

// FloorWhat says what the floor is, as its reference row in the PingPong
// table names it.
const FloorWhat = "cache-line ping-pong between two processes, this machine"

// Floor is the cross-core floor of the machine a Record was measured on:
// how long a store of one process to a cache line takes to reach a
// process spinning on another CPU, measured as half the round trip of a
// counter that two processes, each pinned to a CPU of its own, increment
// in turn in one shared cache line. No message between two processes
// that share memory can arrive faster, so it bounds an 8 B PingPong from
// below.
type Floor struct {
	// CPUs are the CPUs of the two processes: the measuring one and its
	// child.
	CPUs [2]int `json:"cpus"`
	// RoundTrips is the number of round trips each sample timed.
	RoundTrips int `json:"round_trips"`
	// Samples are the half round trips of the samples, in microseconds;
	// T is their median.
	Samples []float64 `json:"samples_usec"`
	T       float64   `json:"t_usec"`
	// Compute is the compute gauge (gauge.go) of each of CPUs, measured
	// right after the floor, in milliseconds: how fast each CPU ran
	// ordinary instructions then, which the floor does not show. Empty
	// in records from before the gauge.
	Compute []float64 `json:"compute_msec,omitempty"`
}

// Describe writes the floor on one line, as the suite's listing shows it.
func (f *Floor) Describe() string {
	gauge := ""
	if len(f.Compute) == 2 {
		gauge = fmt.Sprintf("; compute gauge %.3g and %.3g ms", f.Compute[0], f.Compute[1])
	}
	return fmt.Sprintf("# floor: %s (CPUs %d and %d): %s usec, half the round trip%s%s",
		FloorWhat, f.CPUs[0], f.CPUs[1], formatUsec(f.T), samplesNote(len(f.Samples)), gauge)
}

// FloorChange is how far apart (a ratio) the floors around and between a
// benchmark's jobs may be before a run takes the machine to have changed:
// a VM whose two CPUs share a cache at one moment and not the next moves
// its floor four-fold and more.
const FloorChange = 2

// FloorsApart reports whether floors, all known and at least two, are
// FloorChange or more apart: the machine changed between them.
func FloorsApart(floors []float64) bool {
	if len(floors) < 2 || slices.ContainsFunc(floors, func(t float64) bool { return t <= 0 }) {
		return false
	}
	return slices.Max(floors) >= FloorChange*slices.Min(floors)
}

// FloorOptions are the settings of MeasureFloor.
type FloorOptions struct {
	// Samples is the number of timed samples, at least 1.
	Samples int
	// Budget is the time the timed samples take together, when the two
	// processes have their CPUs to themselves; a warm-up and a
	// calibration come first.
	Budget time.Duration
	// Timeout bounds the whole measurement, the child's start included;
	// 0 means 30 s and 20 budgets.
	Timeout time.Duration
}

// floorWarmup is the number of round trips of the warm-up, and
// floorMinRoundTrips the fewest a sample makes.
const (
	floorWarmup        = 1000
	floorMinRoundTrips = 100
)

// ErrFloorCPUs says that the floor cannot be measured because this
// process may run on fewer than two CPUs.
var ErrFloorCPUs = errors.New("fewer than 2 CPUs allowed")

// MeasureFloor measures the cross-core floor (Floor), then the compute
// gauge of its two CPUs (Floor.Compute). command starts the
// child process: a program that calls FloorChild with the arguments
// MeasureFloor appends to command (in mpibench, its own executable and a
// hidden argument). The child gets the shared line as its file
// descriptor 3, dies with this process and is waited for whatever
// happens. The measuring thread is pinned to the first CPU this process
// may run on, the child to another, on another core when Linux tells the
// cores apart; the error wraps ErrFloorCPUs when there is no other CPU.
func MeasureFloor(ctx context.Context, command []string, o FloorOptions) (*Floor, error) {
	switch {
	case len(command) == 0 || command[0] == "":
		return nil, errors.New("bench: floor: no command for the child")
	case o.Samples < 1:
		return nil, fmt.Errorf("bench: floor: %d samples, need at least 1", o.Samples)
	case o.Budget <= 0:
		return nil, fmt.Errorf("bench: floor: budget %v, must be positive", o.Budget)
	case o.Timeout < 0:
		return nil, fmt.Errorf("bench: floor: timeout %v, must not be negative", o.Timeout)
	}
	if o.Timeout == 0 {
		o.Timeout = 30*time.Second + 20*o.Budget
	}
	cpus, err := floorCPUs()
	if err != nil {
		return nil, err
	}
	type result struct {
		f   *Floor
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The thread stays locked, pinned: it ends with this goroutine
		// and is never given back to the Go runtime.
		runtime.LockOSThread()
		f, err := measureFloorLocked(ctx, command, cpus, o)
		done <- result{f, err}
	}()
	r := <-done
	return r.f, r.err
}

// measureFloorLocked measures the floor on the locked thread it is
// called on, which starts the child (its Pdeathsig follows that thread)
// and pins itself to cpus[0].
func measureFloorLocked(ctx context.Context, command []string, cpus [2]int, o FloorOptions) (*Floor, error) {
	line, err := newSharedLine()
	if err != nil {
		return nil, err
	}
	defer line.close()
	child, err := startFloorChild(ctx, command, cpus[1], line, o.Timeout)
	if err != nil {
		return nil, err
	}
	f, err := pingFloor(line, &child.abort, cpus, o)
	line.counter().Store(floorStop)
	errChild := child.wait()
	switch {
	case errors.Is(err, errFloorAborted):
		return nil, fmt.Errorf("bench: floor: %w", child.why())
	case err != nil:
		return nil, err
	case errChild != nil:
		return nil, errChild
	}
	// The child is gone: the thread may take each CPU in turn.
	if f.Compute, err = measureCompute(cpus[:]); err != nil {
		return nil, err
	}
	return f, nil
}

// pingFloor pins the calling thread to cpus[0] and measures: one round
// trip that waits for the child to start, a warm-up, batches that find
// how many round trips a sample's time holds, and the samples.
func pingFloor(line *sharedLine, abort *atomic.Bool, cpus [2]int, o FloorOptions) (*Floor, error) {
	if err := pinThread(cpus[0]); err != nil {
		return nil, err
	}
	p := &pinger{c: line.counter(), next: 1, abort: abort}
	if err := p.roundTrips(1); err != nil {
		return nil, err
	}
	per := o.Budget / time.Duration(o.Samples)
	n, err := p.calibrate(per)
	if err != nil {
		return nil, err
	}
	f := &Floor{CPUs: cpus, RoundTrips: n}
	for range o.Samples {
		start := time.Now()
		if err := p.roundTrips(n); err != nil {
			return nil, err
		}
		half := time.Since(start).Seconds() * 1e6 / float64(2*n)
		f.Samples = append(f.Samples, half)
	}
	f.T = median(f.Samples)
	if f.T <= 0 || math.IsInf(f.T, 0) || math.IsNaN(f.T) {
		return nil, fmt.Errorf("bench: floor: measured %v usec", f.T)
	}
	return f, nil
}

// calibrate warms up with floorWarmup round trips, then makes batches
// of round trips, twice as many each time, until one takes a quarter of
// per, and returns how many round trips take per at that batch's pace
// (at least floorMinRoundTrips), as the suite's benchmarks do: when the
// two processes must share their CPUs with others, the samples last about
// per still.
func (p *pinger) calibrate(per time.Duration) (int, error) {
	if err := p.roundTrips(floorWarmup); err != nil {
		return 0, err
	}
	for n := 16; ; n *= 2 {
		start := time.Now()
		if err := p.roundTrips(n); err != nil {
			return 0, err
		}
		if took := time.Since(start); took >= per/4 || n >= 1<<30 {
			reps := float64(n) * per.Seconds() / math.Max(took.Seconds(), 1e-9)
			return int(math.Min(math.Max(reps, floorMinRoundTrips), 1<<30)), nil
		}
	}
}

// floorCPUs chooses the CPUs of the two processes: the first this
// process may run on, and the first other that Linux does not place on
// the same core (or, when it does not tell, the second).
func floorCPUs() ([2]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return [2]int{}, fmt.Errorf("bench: floor: the CPUs allowed: %w", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return [2]int{}, fmt.Errorf("bench: floor: %w (%d)", ErrFloorCPUs, len(cpus))
	}
	first := cputopo.Core(cpus[0])
	for _, c := range cpus[1:] {
		if core := cputopo.Core(c); first == "" || core != first {
			return [2]int{cpus[0], c}, nil
		}
	}
	return [2]int{cpus[0], cpus[1]}, nil
}

// pinThread pins the calling thread, which must be locked to its
// goroutine, to cpu.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("bench: floor: pin to CPU %d: %w", cpu, err)
	}
	return nil
}
