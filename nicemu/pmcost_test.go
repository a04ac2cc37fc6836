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

// TestSwitchTrunks pins chapter 8's topology (thesis 8.3.2): 4 nodes a
// switch, one 600 MB/s link between two switches. Two nodes of switch 0
// pushing 2 KB at once to two nodes of switch 1 share that link, so the
// second packet lands one packet's link time after the first; to nodes of
// their own switch, or to two different switches, they do not wait.
func TestSwitchTrunks(t *testing.T) {
	p := martini()
	pair := func(dst0, dst1 int) (first, second int64) {
		hosts := virtualJob(p, 16, 1e9)
		a := writeReq(hosts[0].t, OpPush, dst0, 2048)
		b := writeReq(hosts[1].t, OpPush, dst1, 2048)
		return a, b
	}
	lt := bytesTime(p.HeaderBytes+2048, p.TrunkBytesPerSecond)
	if a, b := pair(4, 5); b-a != lt {
		t.Errorf("0→4 and 1→5 at once: landed %v apart, want the trunk's %v", time.Duration(b-a), time.Duration(lt))
	}
	for _, d := range [][2]int{{2, 3}, {4, 8}} {
		if a, b := pair(d[0], d[1]); a != b {
			t.Errorf("0→%d and 1→%d at once: landed %v apart, want together", d[0], d[1], time.Duration(b-a))
		}
	}
	p.SwitchNodes = 0
	if a, b := pair(4, 5); a != b {
		t.Errorf("without switches: 0→4 and 1→5 landed %v apart, want together", time.Duration(b-a))
	}
}

// TestVPUSHFirmwareWait pins 8.7.1's figure: the receive path of a small
// VPUSH packet waits about 7.4 µs for the firmware alone; a 2 KB packet's
// DMA hides the firmware's work beside it.
func TestVPUSHFirmwareWait(t *testing.T) {
	p := martini()
	if got := p.VPUSHFirmwareWait(8); !within(float64(got), 7400, 0.01) {
		t.Errorf("8 B: %v, thesis about 7.4 µs", got)
	}
	if got, want := p.VPUSHFirmwareWait(2048), p.VPUSHDispatch+p.VPUSHRFend+p.VPUSHReplier; got != want {
		t.Errorf("2 KB: %v, want %v", got, want)
	}
}
