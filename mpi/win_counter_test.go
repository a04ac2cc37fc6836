package mpi_test

// The atomicity of the accumulates under contention (MPI-3.1 11.7.1), in
// the manner of MPICH's rma/atomic_rmw_gacc and atomic_rmw_fop: origins
// add 1 to counters of one target with GetAccumulate, FetchAndOp and
// CompareAndSwap, each followed by a Flush. Each must fetch the value
// just before its own update, so that the values all origins fetched of
// a counter are each of 0..total-1 exactly once, and the counter ends at
// total.

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["win-counter"] = scenarioWinCounter }

// TestWinCounter runs the counters on the martini network, on TCP and on
// both (two hosts that are this one: martini within each, TCP between):
// over TCP, the accumulates of windows of the caller's memory and of
// elements other than 8 bytes are combinations the target applies,
// under the lock that the processes of its host take by their
// processors' atomics.
func TestWinCounter(t *testing.T) {
	t.Parallel()
	runAt(t, "win-counter", []int{2, 3, 4})
	t.Run("tcp", func(t *testing.T) {
		t.Parallel()
		runAt(t, "win-counter", []int{2, 4}, "-transport", "tcp")
	})
	t.Run("hosts", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			hosts string
			np    int
		}{{"a:2,b:2", 4}, {"a:1,b:2", 3}} {
			t.Run(c.hosts, func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, c.np, "win-counter", "-hosts", c.hosts, "-launch", "env MARTINI_TEST_HOST={host}")
			})
		}
	})
}

// counterOps are the ways the origins count: GetAccumulate of a vector
// of counterLen counters, FetchAndOp, a CompareAndSwap loop, and the
// three in turn on one counter, the target counting too (mixed): they
// must be atomic with respect to each other as well.
var counterOps = []string{"getacc", "fetchop", "cas", "mixed"}

// counterLen is the length of the vector of counters of getacc, and
// counterIters the number of updates of each origin.
const (
	counterLen   = 3
	counterIters = 40
)

// scenarioWinCounter counts at the last rank in windows of bytes (C's
// untyped windows: int32 counters from byte 8), of int32 and int64 over
// the caller's memory (read, combined and written back under the
// accumulate lock) and of int64, bytes and int32 in the network's memory
// (its atomics, or the processor's on a host's shared memory, and the
// accumulate lock taken by either), under a shared lock and under
// LockAll.
func scenarioWinCounter(w *mpi.Comm) error {
	rounds := []struct {
		name string
		run  func(w *mpi.Comm, op string, all bool) error
	}{
		{"window of bytes", counterRound[int32, byte]("create", 8)},
		{"window of int32", counterRound[int32, int32]("create", 1)},
		{"window of int64", counterRound[int64, int64]("create", 1)},
		{"allocated window of int64", counterRound[int64, int64]("allocate", 1)},
		{"allocated window of bytes", counterRound[int32, byte]("allocate", 8)},
		{"allocated window of int32", counterRound[int32, int32]("allocate", 1)},
	}
	for _, r := range rounds {
		for _, op := range counterOps {
			for _, all := range []bool{false, true} {
				if err := r.run(w, op, all); err != nil {
					return fmt.Errorf("%s, %s, LockAll %v: %w", r.name, op, all, err)
				}
			}
		}
	}
	return nil
}

// counterRound returns a round of counting in counters of T from
// displacement disp of a window of E made as kind, with op, under LockAll
// if all (else a shared lock).
func counterRound[T int32 | int64, E mpi.Type](kind winKind, disp int) func(w *mpi.Comm, op string, all bool) error {
	step := int(unsafe.Sizeof(T(0)) / unsafe.Sizeof(*new(E))) // displacement units a counter
	return func(w *mpi.Comm, op string, all bool) error {
		win, _, err := makeWin[E](w, kind, disp+step*counterLen)
		if err != nil {
			return err
		}
		target := w.Size() - 1
		got := make([]int64, counterIters*counterLen)
		for i := range got {
			got[i] = -1 // nothing fetched
		}
		if w.Rank() != target || op == "mixed" {
			if err := count[T](win, op, all, w.Rank(), target, disp, got); err != nil {
				return err
			}
		}
		every := make([]int64, len(got)*w.Size())
		if err := mpi.Allgather(w, got, every); err != nil {
			return err
		}
		counters := 1
		if op == "getacc" {
			counters = counterLen
		}
		for j := range counters {
			if err := checkCounter[T](win, every, j, target, disp+j*step); err != nil {
				return err
			}
		}
		return win.Free()
	}
}

// count makes the updates of origin me in one epoch, each flushed, and
// notes what they fetched in got: counter j of update i at
// got[i*counterLen+j].
func count[T int32 | int64](win *mpi.Win, op string, all bool, me, target, disp int, got []int64) error {
	lock, unlock := func() error { return win.Lock(mpi.LockShared, target) }, func() error { return win.Unlock(target) }
	if all {
		lock, unlock = win.LockAll, win.UnlockAll
	}
	if err := lock(); err != nil {
		return err
	}
	for i := range counterIters {
		kind, n := op, counterLen
		if op == "mixed" {
			kind, n = counterOps[(i+me)%3], 1
		}
		fetched, err := update[T](win, kind, n, target, disp)
		if err == nil {
			err = win.Flush(target)
		}
		if err != nil {
			return fmt.Errorf("update %d (%s): %w", i, kind, err)
		}
		for j, v := range fetched {
			got[i*counterLen+j] = int64(v)
		}
	}
	return unlock()
}

// update adds 1 to n counters (1 but for getacc) from disp of target
// with the operation of kind, and returns what it fetched.
func update[T int32 | int64](win *mpi.Win, kind string, n, target, disp int) ([]T, error) {
	switch kind {
	case "getacc":
		res := make([]T, n)
		err := mpi.GetAccumulate(win, slices.Repeat([]T{1}, n), res, target, disp, mpi.Sum)
		return res, err
	case "fetchop":
		old, err := mpi.FetchAndOp(win, T(1), target, disp, mpi.Sum)
		return []T{old}, err
	}
	// A compare-and-swap loop: guess the counter, swap in the guess plus
	// 1, guess what the swap found until the guess was right.
	var guess T
	for {
		old, err := mpi.CompareAndSwap(win, guess, guess+1, target, disp)
		if err != nil || old == guess {
			return []T{old}, err
		}
		guess = old
	}
}

// checkCounter checks counter j, at disp of target: the values every
// origin fetched of it (in every, got of each rank in rank order) are
// each of 0..total-1 exactly once, and the counter, read atomically, is
// total.
func checkCounter[T int32 | int64](win *mpi.Win, every []int64, j, target, disp int) error {
	var seen []int64
	for i := j; i < len(every); i += counterLen {
		if every[i] >= 0 {
			seen = append(seen, every[i])
		}
	}
	slices.Sort(seen)
	for i, v := range seen {
		if v != int64(i) {
			return fmt.Errorf("counter %d: fetched %v, want each of 0..%d once (%d where %d was due)", j, seen[:min(len(seen), 40)], len(seen)-1, v, i)
		}
	}
	if err := win.Lock(mpi.LockShared, target); err != nil {
		return err
	}
	last, err := mpi.FetchAndOp(win, T(0), target, disp, mpi.NoOp)
	if uerr := win.Unlock(target); err == nil {
		err = uerr
	}
	if err == nil && int(last) != len(seen) {
		err = fmt.Errorf("counter %d is %d after %d updates", j, last, len(seen))
	}
	return err
}
