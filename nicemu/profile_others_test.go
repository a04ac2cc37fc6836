package nicemu

import (
	"math"
	"testing"
	"time"
)

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// The DIMMnet-2 profile's headline costs are its paper's (seed 002).
func TestDIMMnet2Headline(t *testing.T) {
	p := &DIMMnet2
	// Table 2 + Table 4: 0.570 µs to send an 8-byte BOTF, 0.442 to
	// receive it.
	if got := us(p.WriteLatency(OpBOTF, 8)); !near(got, 0.570+0.442, 0.001) {
		t.Errorf("8 B BOTF, send and receive: %.3f µs, want 1.012", got)
	}
	// Fig 8: the sender's host sees the completion after 0.922 µs.
	if got := us(p.WriteCompletion(OpBOTF, 8)); !near(got, 0.922, 0.001) {
		t.Errorf("8 B BOTF completion seen by the host: %.3f µs, want 0.922", got)
	}
	// 4.2: two Write Windows in turn hide the host's writes behind the
	// Window Controller's 70 clocks for 496 bytes.
	mbps, err := p.RunModel(ModelRun{Procs: 2, Flows: []Flow{{Kind: FlowBOTF, From: 0, To: []int{1}, Size: 496, Count: 1000}}})
	if err != nil {
		t.Fatal(err)
	}
	if interval := 496 / mbps[0]; !near(interval, 0.700, 0.005) {
		t.Errorf("496 B BOTFs in two Windows: %.3f µs apart, want 0.700", interval)
	}
	one := *p
	one.WriteWindows = 1
	single, err := one.RunModel(ModelRun{Procs: 2, Flows: []Flow{{Kind: FlowBOTF, From: 0, To: []int{1}, Size: 496, Count: 1000}}})
	if err != nil {
		t.Fatal(err)
	}
	if single[0] >= 0.6*mbps[0] {
		t.Errorf("one Window: %.0f MB/s, two: %.0f; want one well below", single[0], mbps[0])
	}
}

// The Cenju-4 profile's headline costs are its paper's (seed 004).
func TestCenju4Headline(t *testing.T) {
	p := &Cenju4
	if got := us(p.WriteLatency(OpBOTF, 8)); !near(got, 4.9, 0.001) {
		t.Errorf("8 B inline write: %.3f µs, want 4.9", got)
	}
	mbps, err := p.RunModel(ModelRun{Procs: 2, Flows: []Flow{{Kind: FlowPush, From: 0, To: []int{1}, Size: 1 << 20, Count: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(mbps[0], 200, 15) {
		t.Errorf("1 MB remote DMA: %.1f MB/s, want about 200", mbps[0])
	}
	b2, ok2 := p.SyncBarrier(2)
	b32, ok32 := p.SyncBarrier(32)
	if !ok2 || !ok32 {
		t.Fatal("Cenju-4 has an in-network barrier")
	}
	if !near(us(b32), 5, 1) || b32-b2 > time.Microsecond {
		t.Errorf("in-network barrier: %v at 2 nodes, %v at 32; want about 5 µs and flat", b2, b32)
	}
	if _, ok := Martini.SyncBarrier(4); ok {
		t.Error("Martini has no in-network barrier")
	}
}

// Every timed profile is found by name, numbered in the segment header
// and named back.
func TestProfileRegistry(t *testing.T) {
	for _, name := range []string{ProfileMartini, ProfileDIMMnet2, ProfileCenju4} {
		p, err := LookupProfile(name)
		if err != nil || p == nil || p.Name != name {
			t.Fatalf("LookupProfile(%q) = %v, %v", name, p, err)
		}
		code, err := profileCode(name)
		if err != nil || code == 0 || profileName(code) != name {
			t.Errorf("%s: code %d names %q (%v)", name, code, profileName(code), err)
		}
	}
	if got := len(Profiles()); got != 4 {
		t.Errorf("Profiles() = %v", Profiles())
	}
}

// The model run reproduces the emulated one-way stream's figures (Fig 6.3:
// 444 MB/s at 32 KB) and, with a NIC that drops what arrives, Fig 6.4's
// higher sending rate.
func TestRunModelOneWay(t *testing.T) {
	p := &Martini
	flow := []Flow{{Kind: FlowPush, From: 0, To: []int{1}, Size: 32 << 10, Count: 200}}
	one, err := p.RunModel(ModelRun{Procs: 2, Flows: flow})
	if err != nil {
		t.Fatal(err)
	}
	drop, err := p.RunModel(ModelRun{Procs: 2, Flows: flow, Discard: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(one[0], 444, 2) || drop[0] < one[0]*1.05 {
		t.Errorf("32 KB: %.1f MB/s received, %.1f dropped; want 444 and above", one[0], drop[0])
	}
	if _, err := p.RunModel(ModelRun{Procs: 2, Flows: []Flow{{From: 0, To: []int{0}, Size: 8, Count: 1}}}); err == nil {
		t.Error("a flow to its own sender was accepted")
	}
}

// TestVirtualAnswerAfterArrival checks that in virtual time a request
// that follows data whose arrival moved the clock is timed from that
// arrival, even within BackToBack of the last request and when the host
// went on long before the emulation let it (DIMMnet-2's two Write
// Windows): taking that excess back would time the answer before the data
// it answers.
func TestVirtualAnswerAfterArrival(t *testing.T) {
	cfg := testConfig(2)
	cfg.Profile, cfg.Clock, cfg.HostSpeed = ProfileDIMMnet2, ClockVirtual, 1
	seg := newSegment(t, cfg)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sa, _ := mustRegisterSegment(t, a, 4096)
	sb, _ := mustRegisterSegment(t, b, 4096)
	buf := make([]byte, 8)
	one := DIMMnet2.WriteLatency(OpBOTF, 8)
	if err := b.BOTF(0, sa, 64, buf); err != nil {
		t.Fatal(err)
	}
	returned := b.Clock().Now()
	// a writes to b so that the data lands half a microsecond after b's
	// request returned.
	a.Clock().Reach(returned + 500*time.Nanosecond - one)
	if err := a.BOTF(1, sb, 64, buf); err != nil {
		t.Fatal(err)
	}
	arrival := returned + 500*time.Nanosecond
	b.Arrived(sb, 64, 8)
	if got := b.Clock().Now(); got != arrival {
		t.Fatalf("b's clock %v after the arrival, want %v", got, arrival)
	}
	if err := b.BOTF(0, sa, 128, buf); err != nil {
		t.Fatal(err)
	}
	if got := b.Clock().Now(); got < arrival+one {
		t.Errorf("the answer landed at %v, before the data it answers arrived (%v) and a hop", got, arrival+one)
	}
}
