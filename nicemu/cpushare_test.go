package nicemu

import (
	"sync"
	"testing"
)

// TestYieldHelps checks the answer a waiter gets from the wait states of
// the processes that share its CPU: processes 0, 2 and 3 of a job of 4
// on CPU 0 (3 by being pinned to none), process 1 on CPU 1.
func TestYieldHelps(t *testing.T) {
	seg := newSegment(t, testConfig(4))
	nics := make([]*NIC, 4)
	for p := range nics {
		nics[p] = openNIC(t, seg, p)
	}
	for p, cpu := range []int{0, 1, 0, -1} {
		nics[p].PublishCPU(cpu)
	}
	n0, n1, n2, n3 := nics[0], nics[1], nics[2], nics[3]
	id, err := n0.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	procs := []int{0, 1, 2, 3}
	check := func(when string, want bool) {
		t.Helper()
		if got := n0.YieldHelps(); got != want {
			t.Errorf("%s: YieldHelps %v, want %v", when, got, want)
		}
	}
	check("no process waits", true)

	// 2 and 3 wait for 1's arrival at generation 1, which is missing.
	n2.WaitingForArrival(id, 1, 1)
	check("2 waits for a missing arrival, 3 waits for nothing", true)
	if !n1.YieldHelps() {
		t.Error("process 1: YieldHelps false; want true (3, pinned to no CPU, may run on 1's, and waits for nothing)")
	}
	n3.WaitingForArrival(id, 1, 1)
	check("2 and 3 wait for a missing arrival", false)
	if n1.YieldHelps() {
		t.Error("process 1: YieldHelps true; want false (3, its one mate, waits for a missing arrival)")
	}
	if _, err := n1.BarrierArriveRecord(id, 1, procs, 1, [RecordSize]byte{}, nil); err != nil {
		t.Fatal(err)
	}
	check("the arrival they wait for came", true)

	// 2 and 3 wait for generation 1's release: 0 has not arrived.
	n2.WaitingForRelease(id, 4, 1)
	n3.WaitingForRelease(id, 4, 1)
	check("2 and 3 wait for a release 0 holds up", false)
	for _, p := range []int{2, 3, 0} {
		if _, err := nics[p].BarrierArriveRecord(id, p, procs, 1, [RecordSize]byte{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	check("the release came", true)

	n2.WaitingForRelease(id, 4, 2)
	n3.DoneWaiting()
	check("3 waits no more", true)
	n3.WaitingForArrival(id, 0, 2)
	check("2 and 3 wait for generation 2", false)
}

// TestYieldHelpsUnknown checks that YieldHelps says true where it cannot
// tell (the caller pinned to no CPU, or a process of the job that has not
// published its CPU) and for a process alone on its CPU.
func TestYieldHelpsUnknown(t *testing.T) {
	seg, n0, n1, id := matesOnCPU0(t, 3)
	n1.WaitingForArrival(id, 2, 1)
	if !n0.YieldHelps() {
		t.Error("process 2 not open: YieldHelps false, want true")
	}
	n2 := openNIC(t, seg, 2)
	if !n0.YieldHelps() {
		t.Error("process 2 open, its CPU not published: YieldHelps false, want true")
	}
	n2.PublishCPU(1)
	if n0.YieldHelps() {
		t.Error("all open, the one mate waits for a missing arrival: YieldHelps true, want false")
	}
	if !n2.YieldHelps() {
		t.Error("process 2, alone on its CPU: YieldHelps false, want true")
	}
	n0.PublishCPU(-1)
	if !n0.YieldHelps() {
		t.Error("the caller pinned to no CPU: YieldHelps false, want true")
	}
}

// TestOpenUnpublishes checks that Open forgets what an earlier user of
// the process slot published: its CPU and its wait.
func TestOpenUnpublishes(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0, n1 := openNIC(t, seg, 0), openNIC(t, seg, 1)
	n0.PublishCPU(0)
	n1.PublishCPU(0)
	n1.WaitingForArrival(0, 0, 1)
	if n0.YieldHelps() {
		t.Fatal("the one mate waits for a missing arrival: YieldHelps true, want false")
	}
	again := openNIC(t, seg, 1)
	if again.ent.cpu != cpuUnpublished || again.ent.waitOn != waitNone {
		t.Errorf("after Open: CPU word %d, wait %#x; want %d, %#x", again.ent.cpu, again.ent.waitOn, cpuUnpublished, waitNone)
	}
	n0.PublishCPU(0) // forget the mates found
	if !n0.YieldHelps() {
		t.Error("process 1 reopened, its CPU not published: YieldHelps false, want true")
	}
}

// TestYieldHelpsConcurrent asks from several goroutines of one process at
// once, as the waits of concurrent MPI calls do; under the race detector
// it fails if the mates found on first use are shared unsynchronised.
func TestYieldHelpsConcurrent(t *testing.T) {
	_, n0, n1, id := matesOnCPU0(t, 2)
	n1.WaitingForRelease(id, 2, 1) // a release 0 holds up
	var wg sync.WaitGroup
	answers := make([]bool, 4)
	for g := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[g] = true
			for range 100 {
				answers[g] = answers[g] && n0.YieldHelps()
			}
		}()
	}
	wg.Wait()
	for g, a := range answers {
		if a {
			t.Errorf("goroutine %d: YieldHelps true, want false (the one mate waits for a release the caller holds up)", g)
		}
	}
}

// matesOnCPU0 opens processes 0 and 1 of a job of procs, both pinned to
// CPU 0, and a barrier controller of process 0's.
func matesOnCPU0(t *testing.T, procs int) (seg *Segment, n0, n1 *NIC, id int) {
	t.Helper()
	seg = newSegment(t, testConfig(procs))
	n0, n1 = openNIC(t, seg, 0), openNIC(t, seg, 1)
	n0.PublishCPU(0)
	n1.PublishCPU(0)
	id, err := n0.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	return seg, n0, n1, id
}

// TestPeerUnpinned checks that a pinned process learns that another of
// the job's has published that it is pinned to none, and that a process
// pinned to none, or that has not published, learns nothing.
func TestPeerUnpinned(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	n0, n1, n2 := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	if n0.PeerUnpinned() {
		t.Error("nothing published: PeerUnpinned true")
	}
	n0.PublishCPU(0)
	n1.PublishCPU(1)
	n2.PublishCPU(0)
	if n0.PeerUnpinned() || n1.PeerUnpinned() {
		t.Error("every process pinned: PeerUnpinned true")
	}
	n2.PublishCPU(-1)
	if !n0.PeerUnpinned() || !n1.PeerUnpinned() {
		t.Error("process 2 unpinned: a pinned process's PeerUnpinned false")
	}
	if n2.PeerUnpinned() {
		t.Error("process 2, pinned to none: PeerUnpinned true")
	}
}

// TestCPUMates checks that a pinned process finds the processes pinned to
// its CPU, itself first, and one pinned to none finds no CPU.
func TestCPUMates(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	n0, n1, n2 := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	for i, n := range []*NIC{n0, n1, n2} {
		n.ent.ospid = uint64(100 + i) // distinct, as the processes of a job are
	}
	n0.PublishCPU(3)
	n1.PublishCPU(1)
	n2.PublishCPU(3)
	if cpu, pids := n2.CPUMates(); cpu != 3 || len(pids) != 2 || pids[0] != 102 || pids[1] != 100 {
		t.Errorf("process 2: CPU %d, pids %v; want 3, [102 100]", cpu, pids)
	}
	if cpu, pids := n1.CPUMates(); cpu != 1 || len(pids) != 1 || pids[0] != 101 {
		t.Errorf("process 1: CPU %d, pids %v; want 1, [101]", cpu, pids)
	}
	n2.PublishCPU(-1)
	if cpu, pids := n2.CPUMates(); cpu != -1 || pids != nil {
		t.Errorf("process 2 pinned to none: CPU %d, pids %v; want -1, none", cpu, pids)
	}
}
