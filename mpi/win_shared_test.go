package mpi_test

// Shared-memory windows: a halo exchange by loads and stores, checked
// against the serial computation; the parts seen through SharedQuery are
// the window; the memory goes back when freed; the errors.

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-shared"] = scenarioWinShared
}

func TestWinShared(t *testing.T) {
	t.Parallel()
	runAt(t, "win-shared", []int{1, 2, 3, 4})
	runAt(t, "win-shared", []int{2}, "-transport", "tcp") // no shared memory: ErrWin
	if !testing.Short() {
		runScenarioJob(t, 4, "win-shared", "-hosts", "a:2,b:2", "-launch", "env MARTINI_TEST_HOST={host}")
	}
}

// scenarioWinShared runs the shared-memory tests on the processes of each
// host, and checks that a communicator across hosts, or a network without
// shared memory, is refused on every process.
func scenarioWinShared(w *mpi.Comm) error {
	host, err := w.SplitType(mpi.CommTypeShared, 0)
	if err != nil {
		return err
	}
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	if st.Network == "tcp" {
		win, _, err := mpi.WinAllocateShared[float64](host, 4)
		if win != nil || !errors.Is(err, mpi.ErrWin) {
			return fmt.Errorf("WinAllocateShared over TCP: window %v, error %v; want ErrWin", win, err)
		}
		return host.Free()
	}
	if host.Size() < w.Size() {
		win, _, err := mpi.WinAllocateShared[float64](w, 4)
		if win != nil || !errors.Is(err, mpi.ErrWin) {
			return fmt.Errorf("WinAllocateShared across hosts: window %v, error %v; want ErrWin", win, err)
		}
	}
	for _, f := range []func(*mpi.Comm) error{sharedHalo, sharedParts, sharedReuse, sharedErrors} {
		if err := f(host); err != nil {
			return err
		}
	}
	return host.Free()
}

// sharedHalo runs Jacobi sweeps on a 1-D rod split among the ranks: each
// rank reads its neighbours' edge cells straight from their parts of the
// window, between fences, and the rod is compared with the serial sweeps.
func sharedHalo(c *mpi.Comm) error {
	const cells, sweeps = 10, 25
	me, n := c.Rank(), c.Size()
	win, local, err := mpi.WinAllocateShared[float64](c, cells)
	if err != nil {
		return err
	}
	parts := make([][]float64, n)
	for r := range parts {
		if parts[r], err = mpi.SharedQuery[float64](win, r); err != nil {
			return err
		}
	}
	rod := make([]float64, n*cells) // the serial computation
	for i := range rod {
		rod[i] = float64(i * i % 17)
	}
	copy(local, rod[me*cells:])
	next := make([]float64, cells)
	for range sweeps {
		if err := win.Fence(); err != nil { // every part written
			return err
		}
		for i := range next {
			lo, hi := 0.0, 0.0 // fixed ends
			switch {
			case i > 0:
				lo = local[i-1]
			case me > 0:
				lo = parts[me-1][cells-1]
			}
			switch {
			case i < cells-1:
				hi = local[i+1]
			case me < n-1:
				hi = parts[me+1][0]
			}
			next[i] = (lo + local[i] + hi) / 3
		}
		if err := win.Fence(); err != nil { // every halo read
			return err
		}
		copy(local, next)
		rod = serialSweep(rod)
	}
	if err := win.Fence(); err != nil {
		return err
	}
	for r, part := range parts {
		for i, v := range part {
			if want := rod[r*cells+i]; math.Abs(v-want) > 1e-12 {
				return fmt.Errorf("halo exchange: cell %d of rank %d is %v, serially %v", i, r, v, want)
			}
		}
	}
	return win.Free()
}

func serialSweep(rod []float64) []float64 {
	next := make([]float64, len(rod))
	for i := range rod {
		lo, hi := 0.0, 0.0
		if i > 0 {
			lo = rod[i-1]
		}
		if i < len(rod)-1 {
			hi = rod[i+1]
		}
		next[i] = (lo + rod[i] + hi) / 3
	}
	return next
}

// sharedParts checks that the parts SharedQuery gives are the window: a
// Put lands in them, a store in them is what Get reads, and Sync with a
// barrier orders a store of one process and a load of another. Rank 0's
// part is empty, so ProcNull names rank 1's.
func sharedParts(c *mpi.Comm) error {
	me, n := c.Rank(), c.Size()
	size := 4 + me
	if me == 0 && n > 1 {
		size = 0
	}
	win, local, err := mpi.WinAllocateShared[int64](c, size)
	if err != nil {
		return err
	}
	first, err := mpi.SharedQuery[int64](win, mpi.ProcNull)
	if err != nil {
		return err
	}
	firstRank := min(1, n-1)
	if len(first) != 4+firstRank {
		return fmt.Errorf("SharedQuery(ProcNull): %d elements, want rank %d's %d", len(first), firstRank, 4+firstRank)
	}
	target := firstRank
	if err := win.Lock(mpi.LockExclusive, target); err != nil {
		return err
	}
	if err := mpi.Put(win, []int64{int64(100 + me)}, target, me%len(first)); err != nil {
		return err
	}
	if err := win.Unlock(target); err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	if err := win.Sync(); err != nil {
		return err
	}
	if v := first[(n-1)%len(first)]; v != int64(100+n-1) {
		return fmt.Errorf("the put of rank %d, read through the shared part: %d", n-1, v)
	}
	if len(local) > 0 {
		local[len(local)-1] = int64(1000 + me)
	}
	if err := win.Sync(); err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	if err := win.Sync(); err != nil {
		return err
	}
	for r := range n {
		part, err := mpi.SharedQuery[int64](win, r)
		if err != nil {
			return err
		}
		if r == 0 && n > 1 {
			if part != nil {
				return fmt.Errorf("rank 0's empty part: %d elements", len(part))
			}
			continue
		}
		if len(part) != 4+r || part[len(part)-1] != int64(1000+r) {
			return fmt.Errorf("rank %d's part: %v, want %d elements ending with %d", r, part, 4+r, 1000+r)
		}
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	return win.Free()
}

// sharedReuse allocates and frees windows that together far exceed a
// process's segment memory: each goes back when freed.
func sharedReuse(c *mpi.Comm) error {
	for range 20 { // 160 MiB through a heap of 64
		win, local, err := mpi.WinAllocateShared[byte](c, 8<<20)
		if err != nil {
			return err
		}
		local[len(local)-1] = 1
		if err := win.Free(); err != nil {
			return err
		}
	}
	return nil
}

// sharedErrors checks SharedQuery's errors.
func sharedErrors(c *mpi.Comm) error {
	plain, _, err := mpi.WinAllocate[int64](c, 2)
	if err != nil {
		return err
	}
	if _, err := mpi.SharedQuery[int64](plain, 0); !errors.Is(err, mpi.ErrWin) {
		return fmt.Errorf("SharedQuery of a window not shared: %v, want ErrWin", err)
	}
	if err := plain.Free(); err != nil {
		return err
	}
	win, _, err := mpi.WinAllocateShared[int64](c, 2)
	if err != nil {
		return err
	}
	if _, err := mpi.SharedQuery[float64](win, 0); !errors.Is(err, mpi.ErrWin) {
		return fmt.Errorf("SharedQuery of another element type: %v, want ErrWin", err)
	}
	if _, err := mpi.SharedQuery[int64](win, c.Size()); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("SharedQuery of rank %d: %v, want ErrRank", c.Size(), err)
	}
	if err := win.Free(); err != nil {
		return err
	}
	if _, err := mpi.SharedQuery[int64](win, 0); !errors.Is(err, mpi.ErrWin) {
		return fmt.Errorf("SharedQuery of a freed window: %v, want ErrWin", err)
	}
	return nil
}
