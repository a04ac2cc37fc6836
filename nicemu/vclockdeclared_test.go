package nicemu

import (
	"strings"
	"testing"
	"time"
)

// declaredSegment makes a martini segment of nprocs processes in virtual
// time with declared computing at rate Mop/s.
func declaredSegment(t *testing.T, nprocs int, rate float64) *Segment {
	cfg := testConfig(nprocs)
	cfg.Profile, cfg.Clock, cfg.HostSpeed, cfg.Compute, cfg.OpRate = ProfileMartini, ClockVirtual, 1, ComputeDeclared, rate
	seg := newSegment(t, cfg)
	if seg.Compute() != ComputeDeclared || seg.OpRate() != rate {
		t.Fatalf("segment: computing %s at %v Mop/s", seg.Compute(), seg.OpRate())
	}
	return seg
}

// TestDeclaredCompute checks that under declared computing the clock
// moves by the declared operations at the job's rate only, however the
// work is split, and not by the thread's CPU time.
func TestDeclaredCompute(t *testing.T) {
	seg := declaredSegment(t, 1, 3) // 3 Mop/s: 333.3 ns per operation
	c := openNIC(t, seg, 0).Clock()
	done := make(chan [2]time.Duration)
	go func() {
		c.Bind()
		spin(20 * time.Millisecond) // not declared: counts nothing
		c.Enter()
		before := c.Now()
		c.Leave()
		for range 3000 {
			c.Compute(0.5) // 1500 operations, 500 µs, in pieces of 166.67 ns
		}
		c.Compute(-1) // nothing
		c.Compute(0)
		spin(20 * time.Millisecond)
		c.Enter()
		done <- [2]time.Duration{before, c.Now()}
	}()
	r := <-done
	if r[0] != 0 {
		t.Errorf("20 ms of CPU time moved a declared clock to %v", r[0])
	}
	if want := 500 * time.Microsecond; r[1] != want {
		t.Errorf("1500 operations at 3 Mop/s moved the clock to %v, want %v", r[1], want)
	}
	if ops := c.DeclaredOps(); ops != 1500 {
		t.Errorf("DeclaredOps %v, want 1500", ops)
	}
	if k := c.Computing(); k.Intervals != 0 {
		t.Errorf("Computing %+v under declared computing, want none", k)
	}
}

// TestDeclaredIgnoredUnderCPU checks that Compute changes nothing when the
// job counts CPU time.
func TestDeclaredIgnoredUnderCPU(t *testing.T) {
	c := openNIC(t, virtualSegment(t, 1, 0), 0).Clock()
	c.Compute(1e9)
	if c.Now() != 0 || c.DeclaredOps() != 0 || c.Declared() {
		t.Errorf("Compute under cpu computing: clock %v, %v operations", c.Now(), c.DeclaredOps())
	}
}

func TestDeclaredConfig(t *testing.T) {
	for _, c := range []struct {
		clock, compute string
		rate           float64
		bad            string
	}{
		{ClockVirtual, "flops", 1, "unknown computing mode"},
		{ClockReal, ComputeDeclared, 1, "needs virtual time"},
		{ClockVirtual, ComputeDeclared, 0, "operation rate 0"},
		{ClockVirtual, ComputeCPU, 5, "only with computing declared"},
	} {
		cfg := testConfig(1)
		cfg.Profile, cfg.Clock, cfg.Compute, cfg.OpRate = ProfileMartini, c.clock, c.compute, c.rate
		seg, err := CreateSegment(cfg)
		if err == nil {
			seg.Close()
			t.Errorf("%+v: created", c)
		} else if !strings.Contains(err.Error(), c.bad) {
			t.Errorf("%+v: %v, want %q", c, err, c.bad)
		}
	}
	for _, s := range []string{"0", "-1", "x", "NaN", "Inf"} {
		if _, err := ParseOpRate(s); err == nil {
			t.Errorf("ParseOpRate(%q) accepted", s)
		}
	}
	if f, err := ParseOpRate("2.5"); err != nil || f != 2.5 {
		t.Errorf("ParseOpRate(2.5) = %v, %v", f, err)
	}
}
