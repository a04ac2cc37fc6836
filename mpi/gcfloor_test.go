package mpi_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/hugepage"
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
// pages take almost no page faults (100 to 160 of 4,096 pages, the
// objects' own bookkeeping), where on fresh pages they take about one a
// page. The pages are the process's until it uses them, but a loaded
// host's kernel has been seen to take some back meanwhile (once, in a
// run of the whole suite, 1,088 faults: the pages of about two huge
// pages), so three jobs are tried before the test fails.
func TestGCFirstCyclePages(t *testing.T) {
	t.Parallel()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the runtime keeps no floor")
	}
	if raceEnabled {
		t.Skip("under the race detector every write of the heap's also touches its shadow memory, whose fresh pages fault whatever the heap's pages are")
	}
	var r result
	for try := range 3 {
		r = mpirun(t, []string{envScenario + "=gc-first-cycle"}, "-np", "2", "-timeout", jobTimeout.String(), self)
		if r.code == 0 {
			return
		}
		t.Logf("job %d of 3 failed:\n%v", try+1, r)
	}
	t.Fatal("three jobs failed")
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

// TestPopulateHugePages checks that where only advised memory gets huge
// pages, populate backs the whole huge pages of its block with huge
// pages and leaves them advised against any more (MADV_NOHUGEPAGE), so
// that no later fault in the range makes one. The block is a mapping of
// the test's own, starting a page past a boundary. The kernel may lack a
// free huge page at a moment: three blocks are tried before it fails.
func TestPopulateHugePages(t *testing.T) {
	if p := hugepage.SystemPolicy(); p != hugepage.Madvise {
		t.Skipf("the system's huge-page policy is %v, not madvise: populate gives no advice", p)
	}
	var kb int
	for try := 0; try < 3 && kb == 0; try++ {
		kb = populatedHugeKB(t)
	}
	if kb == 0 {
		t.Fatal("three blocks populated without a huge page")
	}
}

// populatedHugeKB populates a block of three huge pages and a base page
// and returns the kilobytes of its whole huge pages that are huge, after
// checking that they are all there or none is, and advised against more.
func populatedHugeKB(t *testing.T) int {
	const page = 4096
	m, err := unix.Mmap(-1, 0, 4*hugepage.Size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	whole := hugepage.Whole(m)
	block := m[len(m)-len(whole)+page:]
	mpi.PopulateForTest(block)
	inner := hugepage.Whole(block)
	a := uintptr(unsafe.Pointer(&inner[0]))
	flags, err := hugepage.SmapsField(a, "VmFlags")
	if err != nil {
		t.Skipf("no smaps to check against: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " nh ") {
		t.Errorf("the populated huge pages' VmFlags %q have no nh (MADV_NOHUGEPAGE)", flags)
	}
	kb, err := hugepage.AnonHugeKB(a)
	if err != nil {
		t.Fatal(err)
	}
	if kb != 0 && kb != len(inner)>>10 {
		t.Errorf("%d kB of the populated %d kB are huge pages, want all", kb, len(inner)>>10)
	}
	for i := 0; i < len(block); i += page {
		if block[i] != 0 {
			t.Fatalf("byte %d of the block is %d after populate, want 0", i, block[i])
		}
	}
	return kb
}
