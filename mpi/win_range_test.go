package mpi_test

// Displacements outside the target's window, among them those whose byte
// offset wraps around 64 bits onto an element of the window: every
// one-sided operation refuses them with ErrRMARange and leaves the
// target's memory as it was.

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-range"] = scenarioWinRange
}

func TestWinRange(t *testing.T) {
	t.Parallel()
	runAt(t, "win-range", []int{1, 2, 3})
	runAt(t, "win-range", []int{2}, "-transport", "tcp")
	if !testing.Short() {
		runScenarioJob(t, 2, "win-range", "-hosts", "a:1,b:1", "-launch", "env MARTINI_TEST_HOST={host}")
	}
}

// scenarioWinRange runs rangeRound on windows of 8-byte and 4-byte
// elements of both kinds. Displacement 1<<61+k of an 8-byte element, or
// 1<<62+k of a 4-byte one, is byte offset 8k or 4k modulo 2^64.
func scenarioWinRange(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := rangeRound[int64](w, kind, 1<<61); err != nil {
			return fmt.Errorf("%s window of int64: %w", kind, err)
		}
		if err := rangeRound[int32](w, kind, 1<<62); err != nil {
			return fmt.Errorf("%s window of int32: %w", kind, err)
		}
	}
	return nil
}

// rangeRound has every rank apply each operation at each bad
// displacement to its right neighbour's window of 8 elements, under an
// exclusive lock, and checks that each fails with ErrRMARange and that
// no window and no result buffer changed.
func rangeRound[T int64 | int32](w *mpi.Comm, kind winKind, wrap int) error {
	const n = 8
	win, local, err := makeWin[T](w, kind, n)
	if err != nil {
		return err
	}
	want := pattern[T](n, w.Rank())
	copy(local, want)
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	target := right(w)
	if err := win.Lock(mpi.LockExclusive, target); err != nil {
		return err
	}
	disps := []int{-1, math.MinInt, math.MaxInt, n, math.MaxInt - 1}
	for k := range n {
		disps = append(disps, wrap+k)
	}
	for _, disp := range disps {
		if err := rangeOps[T](win, target, disp); err != nil {
			return err
		}
	}
	if err := win.Unlock(target); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if d := diff(local, want); d != "" {
		return fmt.Errorf("window after the refused operations of rank %d: %s", left(w), d)
	}
	return win.Free()
}

// rangeOps applies every one-sided operation to target at disp: each must
// fail with ErrRMARange and leave its result buffer as it was.
func rangeOps[T int64 | int32](win *mpi.Win, target, disp int) error {
	const mark = 77
	one, two := []T{mark}, []T{mark, mark}
	res := []T{mark}
	var errs []error
	add := func(what string, err error) {
		errs = append(errs, fmt.Errorf("%s: %w", what, err))
	}
	add("Put", mpi.Put(win, one, target, disp))
	add("Put of 2", mpi.Put(win, two, target, disp))
	add("Get", mpi.Get(win, res, target, disp))
	add("Accumulate", mpi.Accumulate(win, one, target, disp, mpi.Sum))
	add("Accumulate Replace", mpi.Accumulate(win, one, target, disp, mpi.Replace))
	add("GetAccumulate", mpi.GetAccumulate(win, one, res, target, disp, mpi.Sum))
	add("GetAccumulate NoOp", mpi.GetAccumulate(win, nil, res, target, disp, mpi.NoOp))
	v, err := mpi.FetchAndOp(win, T(1), target, disp, mpi.Sum)
	add("FetchAndOp", err)
	if v != 0 {
		add("FetchAndOp's result", fmt.Errorf("%d, want 0", v))
	}
	v, err = mpi.CompareAndSwap(win, T(0), T(mark), target, disp)
	add("CompareAndSwap", err)
	if v != 0 {
		add("CompareAndSwap's result", fmt.Errorf("%d, want 0", v))
	}
	_, err = mpi.Rput(win, one, target, disp)
	add("Rput", err)
	_, err = mpi.Rget(win, res, target, disp)
	add("Rget", err)
	_, err = mpi.Raccumulate(win, one, target, disp, mpi.Sum)
	add("Raccumulate", err)
	_, err = mpi.RgetAccumulate(win, one, res, target, disp, mpi.Sum)
	add("RgetAccumulate", err)
	if err := win.Flush(target); err != nil {
		return fmt.Errorf("Flush after the refused operations at displacement %d: %w", disp, err)
	}
	for _, err := range errs {
		if !errors.Is(err, mpi.ErrRMARange) {
			return fmt.Errorf("at displacement %d of rank %d: %v, want an error wrapping ErrRMARange", disp, target, err)
		}
	}
	if res[0] != mark {
		return fmt.Errorf("at displacement %d of rank %d: the result buffer changed to %d", disp, target, res[0])
	}
	return nil
}
