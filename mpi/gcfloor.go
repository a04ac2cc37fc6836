package mpi

import (
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/hugepage"
)

// The collector's floor.
//
// A process keeps its large data (the shared segment, its rings, the
// buffers offered to peers) outside Go's heap, so that the heap of an MPI
// program is often small: about 1 MiB live in mpibench. Go collects once
// the heap has grown by its live size, but by no less than 4 MiB (GOGC
// 100), and every nonblocking call allocates its Request (176 bytes): a
// loop of small Isends then starts a collection every few milliseconds.
// With one processor a rank (launch's shareProcessors), each collection's
// mark phase lasts milliseconds of the wall clock, during which the
// collector takes turns with the rank's goroutine and every pointer store
// pays the write barrier: in a loop of small exchanges a rank spent about
// a third of its time in one (docs/decisions.md, the heap floor).
//
// So while MPI is initialized the runtime holds gcFloorSize bytes that
// hold no pointers and are never written. The collector counts them as
// live, and starts a collection only after about as much more has been
// allocated; a program whose own heap is far larger collects as before.
// They cost no memory where the heap takes them from fresh pages, as it
// does for an allocation this large early in a process (Init's resident
// memory grows by a small fraction of the floor). Where the program
// has allocated and freed as much before Init, the pages may be reused,
// and are then cleared once, and resident.
//
// Of the floors tried, 32 MiB took most of the gain that small messages
// between 2 processes showed, at half the memory of the fastest, 64 MiB
// (docs/decisions.md, the heap floor).
//
// Where GOGC or GOMEMLIMIT is set the user tunes the collector, and the
// floor is left out.
//
// The floor's allocation takes the heap past its first goal (4 MiB) and so
// starts a collection, which gcFloor finishes before Init returns (a
// millisecond or less). Left to run, it ran on into the program's first
// calls: with one processor a rank, its mark worker gets the rank's
// processor only when the rank's goroutine gives it up (a preemption, or
// a sleep on the doorbell, after which the rank waits for the worker to
// yield the processor back), so that the cycle lasted several times its
// usual length (docs/decisions.md, the heap floor) and stopped the rank,
// and every rank waiting for it, for slices of that time over its first
// hundreds of calls; every rank of a job goes through it, each at its own
// time.
const gcFloorSize = 32 << 20

// The first cycle's pages.
//
// Between the floor's collection and the next, the heap grows by about
// the floor's size through pages the process never touched, and each
// takes a page fault when first written: a fresh 8 KiB span of Requests
// stalls the Isend that takes it, and both ranks of an exchange at once.
// A job's first 200,000 or so nonblocking calls, which a benchmark's job
// mostly is, run at that pace; later cycles use the spans the collector
// freed, already there (docs/decisions.md, the first cycle's pages).
//
// So gcFloor also has a block of up to the floor's size backed by memory
// (populate: MADV_POPULATE_WRITE and a write to each page) and lets it go
// before the collection it finishes: its pages are then the heap's free
// pages, which the first cycle's spans take before fresh ones, as the
// later cycles take theirs. They are resident from Init on, as the first
// cycle would have made them, but also for a program that allocates
// little: the block is bounded to 1/firstCycleShare of the host's memory
// among the host's processes, and left out below firstCycleMin. It is
// left out too where the host's processes outnumber the CPUs the process
// started with (runtime.NumCPU): their start-up would wait for each
// other's mapping, and their time goes to sharing the CPUs anyway.
const (
	firstCycleShare = 64
	firstCycleMin   = 1 << 20
)

// gcFloor returns the block the runtime holds as the collector's floor,
// or nil where getenv shows the collector tuned (GOGC, GOMEMLIMIT), maps
// the first cycle's pages (firstCycleSize of a process among local on
// its host) and finishes the collection the block's allocation started,
// which frees them for the heap's spans.
func gcFloor(getenv func(string) string, local int) []byte {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	b := make([]byte, gcFloorSize)
	if n := firstCycleSize(local, runtime.NumCPU(), hostMemory()); n > 0 {
		populate(make([]byte, n))
	}
	runtime.GC()
	return b
}

// firstCycleSize is how many bytes of the first cycle's pages one of
// local processes maps on a host of mem bytes where it may use cpus CPUs
// (0: none, or unknown).
func firstCycleSize(local, cpus int, mem uint64) int {
	if local < 1 || local > cpus {
		return 0
	}
	n := min(uint64(gcFloorSize), mem/firstCycleShare/uint64(local))
	if n < firstCycleMin {
		return 0
	}
	return int(n &^ (firstCycleMin - 1))
}

// hostMemory returns the host's memory in bytes, 0 if unknown.
func hostMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

// populate has every page of b backed by memory: the kernel gives each
// a frame in one call where it can (Linux 5.14), and a write to each page
// then takes what a hypervisor may still owe. Under some (a guest whose
// free pages are reported to its host: docs/decisions.md, "The first
// cycle's pages"), a page that the guest's kernel populated is not backed
// by the host until the guest writes it, and that first write costs a
// host fault, some 7 µs a page, as much as leaving the page fresh would
// have cost the first cycle's spans. Where the call has backed the pages,
// the writes find them there.
//
// Where only advised memory gets transparent huge pages (the policy
// "madvise", Debian's default), the whole huge pages inside b are advised
// MADV_HUGEPAGE for the call, which then backs them 2 MiB at a time, and
// MADV_NOHUGEPAGE after it: the pages populated stay huge, and no later
// fault or collapse in that range, on the message path, makes a huge page
// (docs/decisions.md, "The first cycle's pages": a huge page's fault there
// stalled a round). Under "always" the call gets huge pages without the
// advice, and the range keeps the system's policy.
func populate(b []byte) {
	huge := hugepage.Whole(b)
	if len(huge) == 0 || hugepage.SystemPolicy() != hugepage.Madvise || unix.Madvise(huge, unix.MADV_HUGEPAGE) != nil {
		huge = nil
	}
	unix.Madvise(b, unix.MADV_POPULATE_WRITE) // best effort: the writes below back every page either way
	for i := 0; i < len(b); i += unix.Getpagesize() {
		b[i] = 0
	}
	if huge != nil {
		unix.Madvise(huge, unix.MADV_NOHUGEPAGE) // advice only: a refusal leaves the range open to huge pages, as advised
	}
}
