package mpi_test

// Many windows open at once, as MPICH's rma/window_creation makes them (a
// thousand): each takes two registrations of each network it uses, not
// one for each rank, so that a process's table of registrations (2047
// entries on martini) holds them.

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-many"] = scenarioWinMany
}

func TestWinMany(t *testing.T) {
	t.Parallel()
	runAt(t, "win-many", []int{2, 3})
}

// manyWins is how many windows scenarioWinMany holds open at once: with a
// registration of each window's memory for each rank, as before, three
// ranks took 4 entries a window and ran out of the table at about 500.
const manyWins = 900

// scenarioWinMany creates manyWins windows over memory of the caller,
// puts into the last, and frees them all.
func scenarioWinMany(w *mpi.Comm) error {
	wins := make([]*mpi.Win, 0, manyWins)
	defer func() {
		for _, win := range wins {
			_ = win.Free()
		}
	}()
	var last []int32
	for i := range manyWins {
		last = make([]int32, 4)
		win, err := mpi.WinCreate(w, last)
		if err != nil {
			return fmt.Errorf("window %d: %w", i, err)
		}
		wins = append(wins, win)
	}
	win := wins[len(wins)-1]
	if err := win.Fence(); err != nil {
		return err
	}
	if err := mpi.Put(win, []int32{int32(w.Rank())}, right(w), 1); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if last[1] != int32(left(w)) {
		return fmt.Errorf("the last window holds %d, want %d", last[1], left(w))
	}
	for len(wins) > 0 {
		if err := wins[len(wins)-1].Free(); err != nil {
			return err
		}
		wins = wins[:len(wins)-1]
	}
	return nil
}
