package mpi_test

// Accumulates longer than the piece the accumulate lock's read, combine
// and write-back moves at a time (16 KiB), and than a combination the
// target applies over TCP (64 KiB): every piece is combined once, the
// fetched values come back in place, and an access across two
// attachments of a dynamic window splits where they meet.

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["win-acc-pieces"] = scenarioWinAccPieces }

// TestWinAccPieces runs the long accumulates on the martini network and
// on TCP, whose operations complete after the call that starts them.
func TestWinAccPieces(t *testing.T) {
	t.Parallel()
	runAt(t, "win-acc-pieces", []int{2, 3})
	t.Run("tcp", func(t *testing.T) {
		t.Parallel()
		runAt(t, "win-acc-pieces", []int{2}, "-transport", "tcp")
	})
}

// accPiecesLen is the vector's length: 160,004 bytes of int32, nine whole
// pieces of the lock's and part of a tenth, two whole combinations and
// part of a third.
const accPiecesLen = 40001

// accAdd is what rank r adds to element i.
func accAdd(r, i int) int32 { return int32(r + 1 + i%5) }

func accAdds(r int) []int32 {
	v := make([]int32, accPiecesLen)
	for i := range v {
		v[i] = accAdd(r, i)
	}
	return v
}

// scenarioWinAccPieces: every rank adds its vector at the last rank under
// a shared lock; the last rank checks the sums; rank 0 then adds again
// with GetAccumulate and reads the values before its update, and once
// more with NoOp; last, rank 0 adds across two attachments of a dynamic
// window at the last rank.
func scenarioWinAccPieces(w *mpi.Comm) error {
	n, last := w.Size(), w.Size()-1
	mem := make([]int32, accPiecesLen)
	for i := range mem {
		mem[i] = int32(i % 11)
	}
	win, err := mpi.WinCreate(w, mem)
	if err != nil {
		return err
	}
	want := make([]int32, accPiecesLen)
	for i := range want {
		want[i] = int32(i % 11)
		for r := range n {
			want[i] += accAdd(r, i)
		}
	}
	// On an error the rank returns at once, without the collective
	// Free: mpirun stops the others.
	if err := accPiecesStatic(w, win, mem, want); err != nil {
		return err
	}
	if err := win.Free(); err != nil {
		return err
	}
	if err := accPiecesDynamic(w, last); err != nil {
		return fmt.Errorf("dynamic window: %w", err)
	}
	return nil
}

func accPiecesStatic(w *mpi.Comm, win *mpi.Win, mem, want []int32) error {
	last := w.Size() - 1
	if err := accAddAt(win, accAdds(w.Rank()), last, 0); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == last {
		if err := win.Lock(mpi.LockExclusive, last); err != nil {
			return err
		}
		d := diff(mem, want)
		if err := win.Unlock(last); err != nil {
			return err
		}
		if d != "" {
			return fmt.Errorf("the sums of every rank's Accumulate: %s", d)
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 0 {
		if err := win.Lock(mpi.LockExclusive, last); err != nil {
			return err
		}
		before := make([]int32, accPiecesLen)
		if err := mpi.GetAccumulate(win, accAdds(0), before, last, 0, mpi.Sum); err != nil {
			return err
		}
		after := make([]int32, accPiecesLen)
		if err := mpi.GetAccumulate(win, nil, after, last, 0, mpi.NoOp); err != nil {
			return err
		}
		if err := win.Unlock(last); err != nil {
			return err
		}
		if d := diff(before, want); d != "" {
			return fmt.Errorf("GetAccumulate's values before it: %s", d)
		}
		for i := range want {
			want[i] += accAdd(0, i)
		}
		if d := diff(after, want); d != "" {
			return fmt.Errorf("GetAccumulate NoOp after a GetAccumulate: %s", d)
		}
	}
	return mpi.Barrier(w)
}

// accAddAt adds v at disp of target's window under a shared lock.
func accAddAt(win *mpi.Win, v []int32, target, disp int) error {
	if err := win.Lock(mpi.LockShared, target); err != nil {
		return err
	}
	if err := mpi.Accumulate(win, v, target, disp, mpi.Sum); err != nil {
		return err
	}
	return win.Unlock(target)
}

// accPiecesDynamic: the last rank attaches a vector in two parts, the
// first 20,000 bytes (not a whole number of pieces) and the rest; rank 0
// adds across both.
func accPiecesDynamic(w *mpi.Comm, last int) error {
	win, err := mpi.WinCreateDynamic(w)
	if err != nil {
		return err
	}
	mem := make([]int32, accPiecesLen)
	if w.Rank() == last {
		for _, part := range [][]int32{mem[:5000], mem[5000:]} {
			if err := mpi.Attach(win, part); err != nil {
				return err
			}
		}
	}
	addr := []int{mpi.Address(mem)}
	if err := mpi.Bcast(w, addr, last); err != nil {
		return err
	}
	if w.Rank() == 0 {
		if err := accAddAt(win, accAdds(0), last, addr[0]); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == last {
		if d := diff(mem, accAdds(0)); d != "" {
			return fmt.Errorf("an Accumulate across two attachments: %s", d)
		}
	}
	return win.Free()
}
