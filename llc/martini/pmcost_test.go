package martini

import (
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// virtualTranslator returns the translator of a one-process martini job in
// virtual time.
func virtualTranslator(t *testing.T) *Translator {
	t.Helper()
	return soloTranslator(t, nicemu.JobConfig{NProcs: 1, PGID: 9, Profile: nicemu.ProfileMartini, Clock: nicemu.ClockVirtual})
}

// soloTranslator returns the translator of the one process of a job of
// cfg, whose segment and NIC the test's end closes.
func soloTranslator(t *testing.T, cfg nicemu.JobConfig) *Translator {
	t.Helper()
	seg, err := nicemu.CreateSegment(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seg.Close() })
	nic, err := nicemu.Open(seg, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nic.Close() })
	return New(nic)
}

// TestPMPollCharges pins what a PM poll costs in virtual time: nothing
// when it found nothing, one pass over the rings when it found a
// message (PMSweep: the step between 8 and 16 nodes, Fig 8.4), and a
// second pass when PM/RHiNET gave up on a long message's trailer
// (8.3.2, Fig 8.6).
func TestPMPollCharges(t *testing.T) {
	tr := virtualTranslator(t)
	c := tr.nic.Clock()
	p := tr.nic.Profile()
	charge := func(arrived, gaveUp bool, rings int) time.Duration {
		before := c.Now()
		tr.arrived, tr.gaveUp = arrived, gaveUp
		tr.Charge(llc.WorkPoll, rings)
		return c.Now() - before
	}
	for _, k := range []struct {
		arrived, gaveUp bool
		rings           int
		want            time.Duration
	}{
		{false, false, 16, 0},
		{true, false, 8, 8 * p.PMPoll},
		{true, false, 16, 16 * p.PMPollMiss},
		{true, true, 16, 2 * 16 * p.PMPollMiss},
	} {
		if got := charge(k.arrived, k.gaveUp, k.rings); got != k.want {
			t.Errorf("poll of %d rings (found %v, gave up %v): charged %v, want %v", k.rings, k.arrived, k.gaveUp, got, k.want)
		}
	}
	if tr.arrived || tr.gaveUp {
		t.Error("the charge left the arrival marks set")
	}
}

// TestCopyCharges pins the charges of MPICH-SCore's copies and
// PM/RHiNET's zeroing: each batch's bytes at the rate its copies' (or
// records') size picks (Profile.HostCopy, HostZero).
func TestCopyCharges(t *testing.T) {
	tr := virtualTranslator(t)
	c := tr.nic.Clock()
	p := tr.nic.Profile()
	batch := func(w ...[2]int) time.Duration {
		before := c.Now()
		for _, k := range w {
			tr.Charge(llc.HostWork(k[0]), k[1])
		}
		return c.Now() - before
	}
	copies, cp, recv, zero := int(llc.WorkCopies), int(llc.WorkCopy), int(llc.WorkRecv), int(llc.WorkZero)
	if got, want := batch([2]int{copies, 1}, [2]int{cp, 1 << 20}), p.HostCopy(1<<20, 1); got != want || want < time.Millisecond {
		t.Errorf("one 1 MB copy: charged %v, want %v (the memory rate)", got, want)
	}
	if got, want := batch([2]int{copies, 16}, [2]int{cp, 1 << 20}), p.HostCopy(1<<20, 16); got != want || want > 300*time.Microsecond {
		t.Errorf("16 copies of 64 KB: charged %v, want %v (the cached rate)", got, want)
	}
	if got, want := batch([2]int{recv, 2}, [2]int{zero, 4096}), p.PMRecv*2+p.HostZero(4096, 2); got != want {
		t.Errorf("two records zeroed: charged %v, want %v", got, want)
	}
}
