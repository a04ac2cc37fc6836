package spinwait

import (
	"testing"
	"time"
)

// BenchmarkPause measures one Pause: how long a spinning waiter's hint
// holds the processor on this machine.
func BenchmarkPause(b *testing.B) {
	for b.Loop() {
		Pause()
	}
}

// TestTicks checks the counter against the operating system's clock: over
// 5 ms it must grow by the calibrated rate, within a quarter.
func TestTicks(t *testing.T) {
	rate := TicksPerMicrosecond()
	if rate == 0 {
		if Ticks() != 0 {
			t.Fatal("a counter that reads but has no rate")
		}
		t.Skip("no processor counter on this architecture")
	}
	t0, start := Ticks(), time.Now()
	time.Sleep(5 * time.Millisecond)
	t1, took := Ticks(), time.Since(start)
	if t1 <= t0 {
		t.Fatalf("the counter went from %d to %d", t0, t1)
	}
	want := float64(rate) * float64(took) / float64(time.Microsecond)
	if got := float64(t1 - t0); got < 0.75*want || got > 1.25*want {
		t.Fatalf("the counter grew by %.0f in %v; at %d a microsecond it should have grown by %.0f", got, took, rate, want)
	}
}

// BenchmarkTicks measures one read of the counter.
func BenchmarkTicks(b *testing.B) {
	for b.Loop() {
		Ticks()
	}
}
