package mpi_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	rawScenarios["gc-floor"] = rawGCFloor
	rawScenarios["gc-settled"] = rawGCSettled
	rawScenarios["gc-first-cycle"] = rawGCFirstCycle
}

// TestGCFloorTuned: the floor is left out where GOGC or GOMEMLIMIT is set.
func TestGCFloorTuned(t *testing.T) {
	for _, env := range []map[string]string{{}, {"GOGC": "200"}, {"GOMEMLIMIT": "1GiB"}, {"GOGC": "off"}} {
		got := len(mpi.GCFloorForTest(func(k string) string { return env[k] }))
		want := mpi.GCFloorSize
		if len(env) != 0 {
			want = 0
		}
		if got != want {
			t.Errorf("environment %v: a floor of %d bytes, want %d", env, got, want)
		}
	}
}

// TestGCFloor: between Init and Finalize the collector's heap goal is
// above the floor, and after Finalize below it again, though the program
// keeps a communicator.
func TestGCFloor(t *testing.T) {
	t.Parallel()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the runtime keeps no floor")
	}
	runAt(t, "gc-floor", []int{2})
}

// heapGoal returns the collector's heap goal after a collection.
func heapGoal() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func rawGCFloor() error {
	if goal := heapGoal(); goal >= mpi.GCFloorSize {
		return fmt.Errorf("before Init: heap goal %d, want below the floor %d", goal, mpi.GCFloorSize)
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World() // kept after Finalize, as a program may keep it
	during := heapGoal()
	if err := mpi.Finalize(); err != nil {
		return err
	}
	after := heapGoal()
	runtime.KeepAlive(w)
	if during < mpi.GCFloorSize || after >= mpi.GCFloorSize {
		return fmt.Errorf("heap goal %d while initialized, %d after Finalize; want at least, then below, the floor %d", during, after, mpi.GCFloorSize)
	}
	return nil
}

// TestGCSettledAtInit: no collection is under way when Init returns, so
// that none runs on into the program's first calls (the floor's
// allocation starts one): a collection forced right after Init is the only
// one that ends.
func TestGCSettledAtInit(t *testing.T) {
	t.Parallel()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the runtime keeps no floor")
	}
	runAt(t, "gc-settled", []int{2})
}

// rawGCSettled runs on one processor, so that a collection left under way
// by Init cannot end before it is looked at: its mark worker runs only
// when this goroutine gives the processor up, which Init's return and
// ReadMemStats do not.
func rawGCSettled() error {
	runtime.GOMAXPROCS(1)
	if err := mpi.Init(); err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runtime.GC() // waits for a collection under way, then runs one
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n != 1 {
		return fmt.Errorf("%d collections ended after Init returned, want only the one forced: one was still under way", n)
	}
	return mpi.Finalize()
}

// TestFirstCycleSize: a process maps up to the floor's size of the first
// cycle's pages, within its share of the host's memory, in whole MiB;
// none where that share is below a MiB, or where the host's processes
// outnumber its CPUs.
func TestFirstCycleSize(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		local, cpus int
		mem         uint64
		want        int
	}{
		{1, 2, 24 * gib, mpi.GCFloorSize},
		{2, 2, 125 * gib, mpi.GCFloorSize},
		{16, 16, 24 * gib, 24 << 20},
		{256, 256, 125 * gib, 7 << 20},
		{256, 256, 8 * gib, 0},
		{3, 2, 24 * gib, 0},
		{0, 2, 24 * gib, 0},
		{2, 2, 0, 0},
	} {
		if got := mpi.FirstCycleSizeForTest(c.local, c.cpus, c.mem); got != c.want {
			t.Errorf("%d processes on %d CPUs and %d bytes: %d bytes, want %d", c.local, c.cpus, c.mem, got, c.want)
		}
	}
}

// TestGCFirstCyclePages: the heap's first growth after Init takes pages
// already mapped: small objects allocated up to half the first cycle's
// pages take almost no page faults, where on fresh pages they take about
// one a page.
func TestGCFirstCyclePages(t *testing.T) {
	t.Parallel()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the runtime keeps no floor")
	}
	if raceEnabled {
		t.Skip("under the race detector every write of the heap's also touches its shadow memory, whose fresh pages fault whatever the heap's pages are")
	}
	runAt(t, "gc-first-cycle", []int{2})
}

// firstCycleObj is the size of a Request, as the first cycle mostly
// allocates.
type firstCycleObj struct {
	p    *firstCycleObj
	data [21]uint64
}

var firstCycleKeep []*firstCycleObj

func rawGCFirstCycle() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	faults := func() int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Minflt
	}
	bytes := mpi.FirstCycleBytesForTest(mpi.World().Size()) / 2
	if bytes == 0 {
		return nil // a host with too few CPUs or too little memory for the first cycle's pages (TestFirstCycleSize)
	}
	n := bytes / 176
	firstCycleKeep = make([]*firstCycleObj, 0, n)
	before := faults()
	for range n {
		firstCycleKeep = append(firstCycleKeep, new(firstCycleObj))
	}
	got := faults() - before
	firstCycleKeep = nil
	if pages := int64(bytes / os.Getpagesize()); got > pages/8 {
		return fmt.Errorf("%d objects of 176 bytes took %d page faults, want few (%d pages of them)", n, got, pages)
	}
	return nil
}
