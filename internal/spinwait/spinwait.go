// Package spinwait gives a spinning waiter what it needs from the
// processor: the hint that the loop it runs only waits for a store of
// another processor, and a clock cheap enough to look at in every turn of
// such a loop.
//
// On amd64 the hint is PAUSE, on arm64 YIELD; elsewhere Pause does
// nothing. Intel's optimization manual gives PAUSE's purpose in a
// spin-wait loop: without it the processor runs ahead speculatively
// through the loop's loads, and when another core writes the awaited
// line it must discard that work (a memory-order machine clear) before
// the waiter goes on. How long PAUSE holds the processor differs from
// model to model; BenchmarkPause measures it.
//
// The clock is the processor's own counter, read without a system call:
// the time-stamp counter on amd64 (RDTSC), the virtual counter on arm64
// (CNTVCT_EL0). Its rate is measured once against the operating system's
// clock (TicksPerMicrosecond). Elsewhere there is no such clock.
package spinwait

import (
	"sync"
	"time"
)

// calibration is the counter's rate, measured once.
var calibration struct {
	once  sync.Once
	perUS uint64
}

// calibrateFor is how long the rate's measurement spins.
const calibrateFor = 20 * time.Microsecond

// TicksPerMicrosecond returns how much Ticks grows in a microsecond, or 0
// where there is no counter. The first call measures it: it spins for 20
// µs, reading the counter and the operating system's clock.
func TicksPerMicrosecond() uint64 {
	calibration.once.Do(func() {
		t0, start := sample()
		if t0 == 0 {
			return
		}
		for time.Since(start) < calibrateFor {
		}
		t1, end := sample()
		if took := end.Sub(start); t1 > t0 && took > 0 {
			calibration.perUS = (t1 - t0) * uint64(time.Microsecond) / uint64(took)
		}
	})
	return calibration.perUS
}

// sampleTries is how many reads sample makes to find one that nothing
// interrupted.
const sampleTries = 8

// sample reads the counter between two reads of the operating system's
// clock and returns it with the middle of the two, from the try whose
// clock reads lay closest together: a read of the counter and the clock
// that a virtual machine's processor lost its turn between (tens of
// microseconds) would make a rate of 20 µs twice too fast or too slow.
func sample() (ticks uint64, at time.Time) {
	best := time.Duration(1<<63 - 1)
	for range sampleTries {
		before := time.Now()
		t := Ticks()
		d := time.Since(before)
		if d < best {
			best, ticks, at = d, t, before.Add(d/2)
		}
	}
	return ticks, at
}
