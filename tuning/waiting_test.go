package tuning

import (
	"math"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// Past yieldProcsPerCPU processes a CPU, waiting processes do not yield:
// they yielded 2000 times a wait, and at np=512 on 2 cores the waiters'
// yields took most of the job's time (np=1024 did not end).
func TestBackoffBoundsYields(t *testing.T) {
	unset := launch.DefaultSettings()
	for _, cpus := range []int{1, 2, 16} {
		full := yieldProcsPerCPU * cpus
		for _, procs := range []int{full + 1, 2 * full, 32768} {
			if spin, yield := backoff(procs, cpus, unset); spin > 20 || yield != 0 {
				t.Errorf("%d processes on %d CPUs: spin %d, yield %d; want at most 20 and none", procs, cpus, spin, yield)
			}
		}
		for _, procs := range []int{cpus + 1, full} {
			if spin, yield := backoff(procs, cpus, unset); spin != oversubscribedSpin || yield != oversubscribedYield {
				t.Errorf("%d processes on %d CPUs: spin %d yield %d, want %d and %d", procs, cpus, spin, yield, oversubscribedSpin, oversubscribedYield)
			}
		}
		if spin, yield := backoff(cpus, cpus, unset); spin != 4000 || yield != 200 {
			t.Errorf("a CPU per process (%d): spin %d yield %d, want 4000 and 200", cpus, spin, yield)
		}
	}
	set := unset
	set.Spin, set.Yield = 0, 5000
	if spin, yield := backoff(1024, 2, set); spin != 0 || yield != 5000 {
		t.Errorf("MARTINI_SPIN=0 MARTINI_YIELD=5000: spin %d yield %d", spin, yield)
	}
}

// The yield bound grows with the processes a CPU past two: a turn of
// every process on a CPU takes that much longer.
func TestYieldBound(t *testing.T) {
	for _, tc := range []struct {
		procs, cpus int
		want        time.Duration
	}{
		{1, 2, yieldFor}, {2, 2, yieldFor}, {4, 2, yieldFor}, {6, 2, yieldFor},
		{8, 2, 2 * yieldFor}, {16, 2, 4 * yieldFor}, {64, 2, 16 * yieldFor}, {5, 0, 2 * yieldFor},
	} {
		if got := yieldBound(tc.procs, tc.cpus); got != tc.want {
			t.Errorf("yieldBound(%d processes, %d CPUs) = %v, want %v", tc.procs, tc.cpus, got, tc.want)
		}
	}
}

// The collectives' calls overlap their check up to the collectives' eager
// limit (or the engine's) with a core per process, always with more
// processes than cores, and up to the eager hint's under the timing model.
func TestOverlapLimit(t *testing.T) {
	rings := llc.Config{EagerLimit: 6 << 10, EagerHintLimit: 64 << 10}
	for _, modelled := range []bool{false, true} {
		if got := overlapLimit(rings, 16<<10, 2, 2, modelled); got != 16<<10 {
			t.Errorf("overlap limit %d with a core per process (modelled %v), want the collectives' eager limit", got, modelled)
		}
		if got := overlapLimit(rings, 0, 2, 2, modelled); got != 6<<10 {
			t.Errorf("overlap limit %d without a collectives' limit (modelled %v), want the engine's", got, modelled)
		}
	}
	if got := overlapLimit(rings, 16<<10, 3, 2, false); got != math.MaxInt {
		t.Errorf("overlap limit %d with more processes than cores, want none (every call overlaps)", got)
	}
	if got, want := overlapLimit(rings, 16<<10, 3, 2, true), max(rings.EagerLimit, rings.EagerHintLimit); got != want {
		t.Errorf("overlap limit %d under the timing model with more processes than cores, want %d (the eager hint's)", got, want)
	}
}

// The plan's Waiting follows the host class's CPUs, which -tune
// overrides: the same job is oversubscribed on a 2-CPU class and not on
// a 16-CPU one.
func TestPlanWaitingFollowsHostClass(t *testing.T) {
	job := Job{Rank: 0, Size: 4, Caps: llc.Caps{LoadStore: true, AnyLoadStore: true, MaxRecord: 2048},
		Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{Vendor: Generic, CPUs: 16}}
	roomy, err := For(job)
	if err != nil {
		t.Fatal(err)
	}
	if w := roomy.Waiting; w.RunAhead || w.Spin != 4000 || w.YieldFor != yieldFor || w.OverlapLimit == math.MaxInt ||
		!w.QueueNonblocking || w.QueueRooted {
		t.Errorf("4 processes on 16 CPUs: %+v, want spinning, no run-ahead, a bounded overlap, every nonblocking collective queued", w)
	}
	job.Settings.Tune = "generic:2"
	crowded, err := For(job)
	if err != nil {
		t.Fatal(err)
	}
	if w := crowded.Waiting; !w.RunAhead || w.Spin != oversubscribedSpin || w.Yield != oversubscribedYield || w.OverlapLimit != math.MaxInt ||
		w.QueueNonblocking || !w.QueueRooted {
		t.Errorf("4 processes on -tune generic:2: %+v, want the oversubscribed choices, the broadcasts and scatters alone queued", w)
	}
	job.Caps.Modelled = true
	modelled, err := For(job)
	if err != nil {
		t.Fatal(err)
	}
	if w := modelled.Waiting; w.RunAhead || w.OverlapLimit == math.MaxInt || w.QueueNonblocking || w.QueueRooted {
		t.Errorf("under the timing model: %+v, want no run-ahead, a bounded overlap, no nonblocking collective queued", w)
	}
}

// The user's -run-ahead wins over the processes per CPU, both ways; with
// a core each, from 8 processes, the broadcasts of a data word alone run
// ahead unless the user turned the run-ahead off.
func TestPlanRunAheadSetting(t *testing.T) {
	job := Job{Rank: 0, Size: 4, Caps: llc.Caps{LoadStore: true, AnyLoadStore: true, MaxRecord: 2048},
		Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{Vendor: Generic, CPUs: 16}}
	for _, c := range []struct {
		tune, setting string
		size          int
		want, words   bool
	}{
		{"", launch.RunAheadOn, 4, true, false},
		{"", launch.RunAheadOff, 8, false, false},
		{"", "", 8, false, true},
		{"", "", 4, false, false},
		{"generic:2", launch.RunAheadOff, 4, false, false},
		{"generic:2", launch.RunAheadOn, 4, true, false},
		{"generic:2", "", 4, true, false},
	} {
		job.Settings.Tune, job.Settings.RunAhead, job.Size = c.tune, c.setting, c.size
		p, err := For(job)
		if err != nil {
			t.Fatal(err)
		}
		if w := p.Waiting; w.RunAhead != c.want || w.WordBcastAhead != c.words {
			t.Errorf("%d processes, tune %q, run-ahead %q: RunAhead %v, WordBcastAhead %v; want %v, %v",
				c.size, c.tune, c.setting, w.RunAhead, w.WordBcastAhead, c.want, c.words)
		}
	}
}
