package nicemu

import (
	"testing"
	"time"
)

// TestPMSweep pins PM/RHiNET's pass over its receive buffers (thesis
// 8.3.2): cached up to 8 buffers (Fig 8.4: the round trip hardly changes
// up to 8 nodes), about 70 ns a buffer beyond, so that 16 nodes (15
// buffers) add about Fig 8.4's 1.8 µs to a round trip of two receives, and
// 128 buffers take at least Fig 8.5's 9 µs less a percent.
func TestPMSweep(t *testing.T) {
	p := martini()
	for _, c := range []struct {
		rings int
		want  time.Duration
	}{{1, 30 * time.Nanosecond}, {7, 210 * time.Nanosecond}, {8, 240 * time.Nanosecond},
		{15, 1050 * time.Nanosecond}, {128, 8960 * time.Nanosecond}} {
		if got := p.PMSweep(c.rings); got != c.want {
			t.Errorf("PMSweep(%d) = %v, want %v", c.rings, got, c.want)
		}
	}
	step := 2 * (p.PMSweep(15) - p.PMSweep(1))
	if !within(float64(step), 1800, 0.15) {
		t.Errorf("2 → 16 nodes: two sweeps add %v to a round trip, thesis 1.8 µs", step)
	}
	if grow := 2 * (p.PMSweep(7) - p.PMSweep(1)); grow > 500*time.Nanosecond {
		t.Errorf("2 → 8 nodes: two sweeps add %v, thesis: hardly any change", grow)
	}
}
