package martini

import (
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// syncPair builds two members of one barrier controller, in this process,
// each with its endpoint; spin is the endpoints' Spin.
func syncPair(t *testing.T, spin int) [2]*SyncGroup {
	t.Helper()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 2, PGID: 42})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seg.Close() })
	var trs [2]*Translator
	var boot [2]llc.RegionID
	for i := range trs {
		nic, err := nicemu.Open(seg, i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nic.Close() })
		trs[i] = New(nic)
		if boot[i], err = llc.AllocBoot(trs[i], i, 2); err != nil {
			t.Fatal(err)
		}
	}
	id, err := trs[0].AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	var gs [2]*SyncGroup
	for i := range gs {
		eng, err := llc.NewEngine(llc.Config{Self: i, Size: 2, Boot: boot[:], EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		ep := llc.NewEndpoint(eng, trs[i])
		ep.Spin, ep.Yield = spin, 100
		gs[i] = NewSyncGroup(trs[i], ep, id, i, []int{0, 1}, 1)
	}
	return gs
}

// A member waits for every member at each barrier, whether it spins on
// the release first (a core per process) or not (processes outnumbering
// cores): a release seen at one barrier does not end the next.
func TestSyncGroupWaitsEachBarrier(t *testing.T) {
	for _, spin := range []int{0, 4000} {
		gs := syncPair(t, spin)
		for round := range 3 {
			done := make(chan error, 1)
			go func() { done <- gs[0].Barrier(1, [nicemu.DatumSize]byte{}, nil) }()
			select {
			case err := <-done:
				t.Fatalf("spin %d, barrier %d: member 0 left before member 1 arrived (%v)", spin, round, err)
			case <-time.After(20 * time.Millisecond):
			}
			if err := gs[1].Barrier(1, [nicemu.DatumSize]byte{}, nil); err != nil {
				t.Fatalf("spin %d, barrier %d: member 1: %v", spin, round, err)
			}
			if err := <-done; err != nil {
				t.Fatalf("spin %d, barrier %d: member 0: %v", spin, round, err)
			}
		}
	}
}
