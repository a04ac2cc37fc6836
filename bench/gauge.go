package bench

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The compute gauge: the time a CPU takes for a fixed loop of integer
// operations in four independent chains (gaugeIters iterations, about
// four million instructions that a core can run several at a time), the
// fastest of gaugeSamples runs, in milliseconds.
//
// Why: a virtual machine's CPU can run such code at one speed one second
// and at little more than half of it the next, each CPU on its own (its
// host runs another program's thread on the same core), while the
// cross-core floor, a wait for a cache line, does not move. A message's
// software cost moves with the gauge, which the floor cannot show
// (docs/performance.md, "Reading the numbers").
const (
	gaugeIters   = 1 << 20
	gaugeSamples = 3
)

// ComputeChange is how far apart (a ratio) one CPU's compute gauges may
// be before a run takes that CPU's speed to have changed: well above the
// few percent between gauges of one speed, well below the near doubling
// of a shared core.
const ComputeChange = 1.25

// measureCompute measures the compute gauge on each of cpus in turn,
// pinning the calling thread, which must be locked to its goroutine and
// not needed on any CPU afterwards.
func measureCompute(cpus []int) ([]float64, error) {
	var ms []float64
	for _, cpu := range cpus {
		if err := pinThread(cpu); err != nil {
			return nil, err
		}
		best := math.Inf(1)
		for range gaugeSamples {
			start := time.Now()
			gaugeSink += gaugeLoop(gaugeIters)
			best = min(best, time.Since(start).Seconds()*1e3)
		}
		if best <= 0 || math.IsInf(best, 0) {
			return nil, fmt.Errorf("bench: compute gauge on CPU %d: %v ms", cpu, best)
		}
		ms = append(ms, best)
	}
	return ms, nil
}

// gaugeSink keeps gaugeLoop's result alive.
var gaugeSink uint64

// gaugeLoop is the gauge's loop: four chains of additions, shifts and
// exclusive ors that depend on each other once an iteration, so that a
// core runs them side by side, as it does the independent instructions
// of a message's path.
//
//go:noinline
func gaugeLoop(n int) uint64 {
	a, b, c, d := uint64(1), uint64(2), uint64(3), uint64(4)
	for range n {
		a += b ^ 0x9e3779b97f4a7c15
		b += c >> 3
		c ^= d + 7
		d += a << 1
	}
	return a ^ b ^ c ^ d
}

// ComputeApart reports whether gauges, the compute gauges of the same
// CPUs measured at several times (each of them one per CPU, all known),
// put one CPU's slowest at ComputeChange times its fastest or more.
func ComputeApart(gauges [][]float64) bool {
	if len(gauges) < 2 {
		return false
	}
	for cpu := range gauges[0] {
		lo, hi := math.Inf(1), 0.0
		for _, g := range gauges {
			if len(g) != len(gauges[0]) || g[cpu] <= 0 {
				return false
			}
			lo, hi = min(lo, g[cpu]), max(hi, g[cpu])
		}
		if hi >= ComputeChange*lo {
			return true
		}
	}
	return false
}

// ComputeList formats gauges as ComputeApart takes them, one group per
// time, its CPUs' gauges joined by a slash: "0.92/0.93, 1.7/0.93 and
// 0.92/0.92".
func ComputeList(gauges [][]float64) string {
	parts := make([]string, len(gauges))
	for i, g := range gauges {
		cpus := make([]string, len(g))
		for j, ms := range g {
			cpus[j] = fmt.Sprintf("%.2g", ms)
		}
		parts[i] = strings.Join(cpus, "/")
	}
	return AndList(parts)
}
