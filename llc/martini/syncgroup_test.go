package martini

import (
	"testing"
	"time"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// syncPair builds two members of one barrier controller, in this process,
// each with its endpoint; spin is the endpoints' Spin.
func syncPair(t *testing.T, spin int) [2]*SyncGroup {
	t.Helper()
	return syncPairOn(t, spin, nicemu.ProfileNative)
}

// syncPairOn is syncPair on NICs of the given timing profile.
func syncPairOn(t *testing.T, spin int, profile string) [2]*SyncGroup {
	t.Helper()
	trs := translators(t, 2, profile)
	boot := make([]llc.RegionID, len(trs))
	for i, tr := range trs {
		var err error
		if boot[i], err = llc.AllocBoot(tr, i, len(trs)); err != nil {
			t.Fatal(err)
		}
	}
	id, err := trs[0].AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	var gs [2]*SyncGroup
	for i := range gs {
		eng, err := llc.NewEngine(llc.Config{Self: i, Size: 2, Boot: boot, EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 20})
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
			go func() { done <- gs[0].Barrier(1, nil, nil) }()
			select {
			case err := <-done:
				t.Fatalf("spin %d, barrier %d: member 0 left before member 1 arrived (%v)", spin, round, err)
			case <-time.After(20 * time.Millisecond):
			}
			if err := gs[1].Barrier(1, nil, nil); err != nil {
				t.Fatalf("spin %d, barrier %d: member 1: %v", spin, round, err)
			}
			if err := <-done; err != nil {
				t.Fatalf("spin %d, barrier %d: member 0: %v", spin, round, err)
			}
		}
	}
}

// While processes outnumber cores, a member looks at the synchronisation
// network alone only while no process sharing its CPU could run: it looks
// until what it waits for comes (or syncSpin looks) while its mate waits
// for something missing, and not past its first look once the mate could
// run.
func TestSyncGroupLooksWhileIdle(t *testing.T) {
	gs := syncPair(t, 0)
	for _, g := range gs {
		g.nic.PublishCPU(0) // mates
	}
	looks := 0
	comesAt := func(n int) func(*SyncGroup) bool {
		looks = 0
		return func(*SyncGroup) bool { looks++; return looks >= n }
	}
	gs[1].nic.WaitingForArrival(gs[1].id, 0, 5) // member 0 has not arrived there
	if came := gs[0].lookWhileIdle(comesAt(20)); !came || looks != 20 {
		t.Errorf("mate waiting for what is missing: came %v after %d looks, want true after 20", came, looks)
	}
	if gs[0].lookWhileIdle(comesAt(syncSpin+1)) || looks != syncSpin {
		t.Errorf("mate waiting, nothing coming: %d looks, want %d", looks, syncSpin)
	}
	gs[1].nic.DoneWaiting() // the mate could run
	if gs[0].lookWhileIdle(comesAt(20)) || looks != 1 {
		t.Errorf("mate able to run: %d looks, want 1 and false", looks)
	}

	// Under the Martini model the waits are the model's: no looks.
	gs = syncPairOn(t, 0, nicemu.ProfileMartini)
	for _, g := range gs {
		g.nic.PublishCPU(0)
	}
	gs[1].nic.WaitingForArrival(gs[1].id, 0, 5)
	if gs[0].lookWhileIdle(comesAt(20)) || looks != 1 {
		t.Errorf("under the Martini model: %d looks, want 1 and false", looks)
	}
}

// A member waiting at a barrier entered through its port publishes the
// release it waits for, so that its mate on one CPU does not yield to it
// until that comes: the NIC sees the port's arrivals.
func TestSyncGroupPublishesRelease(t *testing.T) {
	gs := syncPair(t, 0)
	if gs[0].port == nil || gs[1].port == nil {
		t.Fatal("the members have no barrier ports")
	}
	for _, g := range gs {
		g.nic.PublishCPU(0) // mates
	}
	if !gs[0].nic.YieldHelps() {
		t.Fatal("a mate that waits for nothing: no yield")
	}
	done := make(chan error, 1)
	go func() { done <- gs[1].Barrier(1, nil, nil) }()
	deadline := time.Now().Add(10 * time.Second)
	for gs[0].nic.YieldHelps() {
		if time.Now().After(deadline) {
			t.Fatal("member 1 waits at the barrier, and its mate would still yield to it")
		}
		time.Sleep(time.Millisecond)
	}
	if err := gs[0].Barrier(1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !gs[0].nic.YieldHelps() {
		t.Error("member 1 released and done: no yield")
	}
}

// The synchronisation network's groups serve the collectives as their
// Hardware, and let calls run ahead of their argument checks.
var (
	_ collectives.Hardware        = (*SyncGroup)(nil)
	_ collectives.RunAheadBarrier = (*SyncGroup)(nil)
)
