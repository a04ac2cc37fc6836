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

// TestHostCopyRates pins the host's copy and zeroing costs: a Pentium III
// 933 MHz's 4 bytes a cycle while a copy's source and destination fit its
// 256 KB L2, the PC133 front-side bus's 1066 MB/s over three bus bytes a
// byte copied beyond (two a byte zeroed), and the rate picked by one
// copy's size, not the batch's.
func TestHostCopyRates(t *testing.T) {
	p := martini()
	ns := func(d time.Duration) float64 { return float64(d.Nanoseconds()) }
	for _, c := range []struct {
		what string
		got  time.Duration
		want float64 // ns
	}{
		{"copy 2 KB", p.HostCopy(2048, 1), 2048 / 3.732},
		{"copy 128 KB (source and destination fill the L2)", p.HostCopy(128<<10, 1), 131072 / 3.732},
		{"copy 128 KB + 8 B", p.HostCopy(128<<10+8, 1), (131072 + 8) / 0.35555},
		{"two copies of 128 KB", p.HostCopy(256<<10, 2), 262144 / 3.732},
		{"zero 256 KB", p.HostZero(256<<10, 1), 262144 / 3.732},
		{"zero 1 MB", p.HostZero(1<<20, 1), 1048576 / 0.53333},
	} {
		if !within(ns(c.got), c.want, 0.002) {
			t.Errorf("%s: %v, want %.0f ns", c.what, c.got, c.want)
		}
	}
}
