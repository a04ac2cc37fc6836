package mpi_test

// Accumulates from several goroutines of one origin at once, some the
// target applies (Sum) and some under the accumulate lock taken from the
// origin (a user operation, which the target cannot apply): over TCP a
// combination waiting at the target for the lock must not stand in the
// way of the holder's own reads and writes on the same connection.

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["win-acc-goroutines"] = scenarioWinAccGoroutines }

func TestWinAccGoroutines(t *testing.T) {
	t.Parallel()
	runAt(t, "win-acc-goroutines", []int{2})
	t.Run("tcp", func(t *testing.T) {
		t.Parallel()
		runAt(t, "win-acc-goroutines", []int{2, 3}, "-transport", "tcp")
	})
}

// accGoroutineRounds is the number of accumulates of each goroutine.
const accGoroutineRounds = 100

// scenarioWinAccGoroutines: every rank but the last adds 1 to the last
// rank's counters from two goroutines at once, one with Sum and one with
// a user operation that adds, each accumulate flushed; the last rank
// checks the counters.
func scenarioWinAccGoroutines(w *mpi.Comm) error {
	const counters = 4
	mem := make([]int32, counters)
	win, err := mpi.WinCreate(w, mem)
	if err != nil {
		return err
	}
	last := w.Size() - 1
	add := mpi.NewOp("add", func(in, inout []int32) {
		for i := range in {
			inout[i] += in[i]
		}
	}, true)
	if w.Rank() != last {
		if err := win.Lock(mpi.LockShared, last); err != nil {
			return err
		}
		one := []int32{1, 1, 1, 1}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for g, op := range []mpi.Op{mpi.Sum, add} {
			wg.Go(func() {
				for i := 0; i < accGoroutineRounds && errs[g] == nil; i++ {
					errs[g] = errors.Join(mpi.Accumulate(win, one, last, 0, op), win.Flush(last))
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errors.Join(errs...), win.Unlock(last)); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == last {
		want := int32(2 * accGoroutineRounds * last)
		for i, v := range mem {
			if v != want {
				return fmt.Errorf("counter %d is %d, want %d", i, v, want)
			}
		}
	}
	return win.Free()
}
