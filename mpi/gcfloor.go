package mpi

import "runtime"

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

// gcFloor returns the block the runtime holds as the collector's floor,
// or nil where getenv shows the collector tuned (GOGC, GOMEMLIMIT), and
// finishes the collection the block's allocation started.
func gcFloor(getenv func(string) string) []byte {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	b := make([]byte, gcFloorSize)
	runtime.GC()
	return b
}
