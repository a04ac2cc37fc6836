package mpi_test

// Request-based one-sided operations: Rput, Rget, Raccumulate and
// RgetAccumulate, their order with Flush, their requests mixed with
// point-to-point ones, and their errors.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-request"] = scenarioWinRequest
	scenarios["win-request-errors"] = scenarioWinRequestErrors
}

func TestWinRequest(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"win-request", "win-request-errors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAt(t, name, append([]int{1}, nps(false)...))
			runAt(t, name, []int{2, 3}, "-transport", "tcp")
		})
	}
}

func scenarioWinRequest(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := requestFlushOrder(w, kind); err != nil {
			return fmt.Errorf("%s window, flush order: %w", kind, err)
		}
		if err := requestMixed(w, kind); err != nil {
			return fmt.Errorf("%s window, with point-to-point requests: %w", kind, err)
		}
		if err := requestAccumulate(w, kind); err != nil {
			return fmt.Errorf("%s window, accumulates: %w", kind, err)
		}
	}
	return nil
}

// requestFlushOrder puts by Rput into the right neighbour's window; after
// a Flush the Rput's request is complete and an Rget reads what it wrote.
func requestFlushOrder(w *mpi.Comm, kind winKind) error {
	win, _, err := makeWin[uint64](w, kind, w.Size())
	if err != nil {
		return err
	}
	target := right(w)
	if err := win.Lock(mpi.LockShared, target); err != nil {
		return err
	}
	for v := range uint64(20) {
		val := []uint64{v<<8 | uint64(w.Rank())}
		put, err := mpi.Rput(win, val, target, w.Rank())
		if err != nil {
			return err
		}
		if err := win.Flush(target); err != nil {
			return err
		}
		done, _, err := put.Test()
		if err != nil || !done {
			return fmt.Errorf("Rput after Flush: done %v, error %v; want done", done, err)
		}
		got := make([]uint64, 1)
		get, err := mpi.Rget(win, got, target, w.Rank())
		if err != nil {
			return err
		}
		if _, err := get.Wait(); err != nil {
			return err
		}
		if got[0] != val[0] {
			return fmt.Errorf("Rget after a flushed Rput read %#x, want %#x", got[0], val[0])
		}
	}
	if err := win.Unlock(target); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return win.Free()
}

// requestMixed waits for Rputs, Rgets, an Isend and an Irecv in one
// Waitall, under LockAll: each rank writes its pattern into the right
// neighbour's window and reads the left neighbour's own part.
func requestMixed(w *mpi.Comm, kind winKind) error {
	const n = 300
	me := w.Rank()
	win, local, err := makeWin[float64](w, kind, 2*n)
	if err != nil {
		return err
	}
	copy(local[n:], pattern[float64](n, me, 7))
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := win.LockAll(); err != nil {
		return err
	}
	got, msg := make([]float64, n), make([]int32, 5)
	var reqs []*mpi.Request
	add := func(r *mpi.Request, err error) error {
		reqs = append(reqs, r)
		return err
	}
	if err := errors.Join(
		add(mpi.Irecv(w, msg, left(w), 3)),
		add(mpi.Rput(win, pattern[float64](n, me), right(w), 0)),
		add(mpi.Rget(win, got, left(w), n)),
		add(mpi.Isend(w, pattern[int32](5, me), right(w), 3)),
		add(mpi.Rput(win, []float64{}, mpi.ProcNull, 0)),
	); err != nil {
		return err
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		return err
	}
	if d := diff(got, pattern[float64](n, left(w), 7)); d != "" {
		return fmt.Errorf("Rget of rank %d: %s", left(w), d)
	}
	if d := diff(msg, pattern[int32](5, left(w))); d != "" {
		return fmt.Errorf("Irecv from rank %d: %s", left(w), d)
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if d := diff(local[:n], pattern[float64](n, left(w))); d != "" {
		return fmt.Errorf("window after the Rput of rank %d: %s", left(w), d)
	}
	return win.Free()
}

// requestAccumulate has every rank add to rank 0's counters by
// Raccumulate and RgetAccumulate, waited for with Waitsome and Waitany.
func requestAccumulate(w *mpi.Comm, kind winKind) error {
	const rounds = 10
	win, local, err := makeWin[int64](w, kind, 2)
	if err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		return err
	}
	olds := make([]int64, rounds)
	var reqs []*mpi.Request
	for i := range rounds {
		r, err := mpi.Raccumulate(win, []int64{1}, 0, 0, mpi.Sum)
		if err != nil {
			return err
		}
		g, err := mpi.RgetAccumulate(win, []int64{2}, olds[i:i+1], 0, 1, mpi.Sum)
		if err != nil {
			return err
		}
		reqs = append(reqs, r, g)
	}
	for {
		idx, _, err := mpi.Waitsome(reqs)
		if err != nil {
			return err
		}
		if len(idx) == 0 {
			break
		}
	}
	for i, old := range olds {
		if old%2 != 0 || old < 0 || old >= int64(2*rounds*w.Size()) {
			return fmt.Errorf("RgetAccumulate %d returned %d: not a value the counter had", i, old)
		}
		if i > 0 && old <= olds[i-1] {
			return fmt.Errorf("RgetAccumulate %d returned %d after %d: not increasing", i, old, olds[i-1])
		}
	}
	if err := win.Unlock(0); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 0 {
		want := []int64{int64(rounds * w.Size()), int64(2 * rounds * w.Size())}
		if local[0] != want[0] || local[1] != want[1] {
			return fmt.Errorf("counters %v, want %v", local, want)
		}
	}
	return win.Free()
}

// scenarioWinRequestErrors checks that the request-based operations need
// a passive-target epoch, and their other errors.
func scenarioWinRequestErrors(w *mpi.Comm) error {
	win, _, err := mpi.WinAllocate[int64](w, 4)
	if err != nil {
		return err
	}
	buf := make([]int64, 2)
	if err := winRequestsOutside(win, buf, "outside an epoch"); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if err := winRequestsOutside(win, buf, "in a fence epoch"); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		return err
	}
	if err := winRequestsLocked(w, win, buf); err != nil {
		return err
	}
	if err := win.Unlock(0); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return win.Free()
}

// winRequestRefused checks that what gave no request r and an error err
// wrapping class.
func winRequestRefused(what string, r *mpi.Request, err, class error) error {
	if r != nil || !errors.Is(err, class) {
		return fmt.Errorf("%s: request %v, error %v; want no request and an error wrapping %v", what, r, err, class)
	}
	return nil
}

// winRequestsOutside checks that Rput, Rget, Raccumulate and
// RgetAccumulate are refused with ErrRMASync where no passive-target
// epoch is open (the epoch, or none, that where names).
func winRequestsOutside(win *mpi.Win, buf []int64, where string) error {
	r1, e1 := mpi.Rput(win, buf, 0, 0)
	r2, e2 := mpi.Rget(win, buf, 0, 0)
	r3, e3 := mpi.Raccumulate(win, buf, 0, 0, mpi.Sum)
	r4, e4 := mpi.RgetAccumulate(win, buf, buf, 0, 0, mpi.Sum)
	return errors.Join(winRequestRefused("Rput "+where, r1, e1, mpi.ErrRMASync), winRequestRefused("Rget "+where, r2, e2, mpi.ErrRMASync),
		winRequestRefused("Raccumulate "+where, r3, e3, mpi.ErrRMASync), winRequestRefused("RgetAccumulate "+where, r4, e4, mpi.ErrRMASync))
}

// winRequestsLocked checks, under a shared lock of rank 0, the errors of
// a request-based operation past the end, of another type, and at a rank
// not locked, and that an Rget cannot be cancelled but completes.
func winRequestsLocked(w *mpi.Comm, win *mpi.Win, buf []int64) error {
	r, err := mpi.Rput(win, buf, 0, 3)
	if err := winRequestRefused("Rput past the end", r, err, mpi.ErrRMARange); err != nil {
		return err
	}
	r, err = mpi.Raccumulate(win, []int32{1}, 0, 0, mpi.Sum)
	if err := winRequestRefused("Raccumulate of another type", r, err, mpi.ErrWin); err != nil {
		return err
	}
	if w.Size() > 1 {
		r, err = mpi.Rput(win, buf, 1, 0)
		if err := winRequestRefused("Rput at a rank not locked", r, err, mpi.ErrRMASync); err != nil {
			return err
		}
	}
	r, err = mpi.Rget(win, buf, 0, 0)
	if err != nil {
		return err
	}
	if err := r.Cancel(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Cancel of an Rget: %v, want ErrRequest", err)
	}
	_, err = r.Wait()
	return err
}
