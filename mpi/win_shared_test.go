package mpi_test

// Shared-memory windows: a halo exchange by loads and stores, checked
// against the serial computation; the parts seen through SharedQuery are
// the window; the memory goes back when freed; the errors.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

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
	for _, f := range []func(*mpi.Comm, ...mpi.WinOption) error{sharedHalo, sharedParts, sharedReuse} {
		if err := f(host); err != nil {
			return err
		}
		if err := f(host, mpi.AllocSharedNoncontig); err != nil {
			return fmt.Errorf("AllocSharedNoncontig: %w", err)
		}
	}
	for _, f := range []func(*mpi.Comm) error{sharedErrors, sharedContig} {
		if err := f(host); err != nil {
			return err
		}
	}
	return host.Free()
}

// sharedHalo runs Jacobi sweeps on a 1-D rod split among the ranks: each
// rank reads its neighbours' edge cells straight from their parts of the
// window, between fences, and the rod is compared with the serial sweeps.
func sharedHalo(c *mpi.Comm, opts ...mpi.WinOption) error {
	const cells, sweeps = 10, 25
	me, n := c.Rank(), c.Size()
	win, local, err := mpi.WinAllocateShared[float64](c, cells, opts...)
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
func sharedParts(c *mpi.Comm, opts ...mpi.WinOption) error {
	me, n := c.Rank(), c.Size()
	size := 4 + me
	if me == 0 && n > 1 {
		size = 0
	}
	win, local, err := mpi.WinAllocateShared[int64](c, size, opts...)
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
	if err := sharedPutSeen(c, win, first, firstRank); err != nil {
		return err
	}
	if err := sharedStoresSeen(c, win, local); err != nil {
		return err
	}
	if err := mpi.Barrier(c); err != nil {
		return err
	}
	return win.Free()
}

// sharedPutSeen has every rank Put into the part first of rank target,
// and checks that the last rank's put shows in first.
func sharedPutSeen(c *mpi.Comm, win *mpi.Win, first []int64, target int) error {
	me, n := c.Rank(), c.Size()
	if err := win.Lock(mpi.LockExclusive, target); err != nil {
		return err
	}
	if err := mpi.Put(win, []int64{int64(100 + me)}, target, me%len(first)); err != nil {
		return err
	}
	if err := win.Unlock(target); err != nil {
		return err
	}
	if err := mpi.Barrier(c); err != nil {
		return err
	}
	if err := win.Sync(); err != nil {
		return err
	}
	if v := first[(n-1)%len(first)]; v != int64(100+n-1) {
		return fmt.Errorf("the put of rank %d, read through the shared part: %d", n-1, v)
	}
	return nil
}

// sharedStoresSeen has every rank store into the last element of its part
// local, and checks, after Sync and a barrier, every rank's part as
// SharedQuery gives it.
func sharedStoresSeen(c *mpi.Comm, win *mpi.Win, local []int64) error {
	me, n := c.Rank(), c.Size()
	if len(local) > 0 {
		local[len(local)-1] = int64(1000 + me)
	}
	if err := win.Sync(); err != nil {
		return err
	}
	if err := mpi.Barrier(c); err != nil {
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
	return nil
}

// sharedReuse allocates and frees windows that together far exceed a
// process's segment memory: each goes back when freed.
func sharedReuse(c *mpi.Comm, opts ...mpi.WinOption) error {
	for range 20 { // 160 MiB through a heap of 64
		win, local, err := mpi.WinAllocateShared[byte](c, 8<<20, opts...)
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
	if win, _, err := mpi.WinAllocateShared[int64](c, 2, mpi.WinOption(7)); win != nil || !errors.Is(err, mpi.ErrWin) {
		return fmt.Errorf("WinAllocateShared with an unknown option: window %v, error %v; want ErrWin", win, err)
	}
	if c.Size() == 1 {
		return nil
	}
	return sharedLayoutErrors(c)
}

// sharedLayoutErrors checks that processes that ask for different
// layouts all fail, and that parts too large for rank 0's share of the
// segment together are refused by every process when contiguous, and fit
// with AllocSharedNoncontig.
func sharedLayoutErrors(c *mpi.Comm) error {
	var opts []mpi.WinOption
	if c.Rank() == 0 {
		opts = append(opts, mpi.AllocSharedNoncontig)
	}
	win, _, err := mpi.WinAllocateShared[int64](c, 2, opts...)
	if win != nil || !errors.Is(err, mpi.ErrWin) || !strings.Contains(err.Error(), "rank 0 asked for AllocSharedNoncontig") {
		return fmt.Errorf("WinAllocateShared with AllocSharedNoncontig on rank 0 only: window %v, error %v; want ErrWin naming rank 0", win, err)
	}
	part := (64<<20)/c.Size() + 1<<20 // the heap of a process is 64 MiB
	if win, _, err := mpi.WinAllocateShared[byte](c, part); win != nil || err == nil {
		return fmt.Errorf("WinAllocateShared of %d contiguous parts of %d bytes: window %v, error %v; want every process to fail", c.Size(), part, win, err)
	}
	win, local, err := mpi.WinAllocateShared[byte](c, part, mpi.AllocSharedNoncontig)
	if err != nil {
		return fmt.Errorf("WinAllocateShared of %d parts of %d bytes apart: %w", c.Size(), part, err)
	}
	local[len(local)-1] = 1
	return win.Free()
}

// sharedContig checks that the parts of a shared-memory window lie one
// after the other in rank order (MPI's default layout), with sizes that
// differ by rank, some of them 0 and most not multiples of a page: each
// non-empty part starts where the non-empty part before it ends, a store
// of each process into its part is read through one slice over the whole
// window, and the one-sided operations on a part change that part.
func sharedContig(c *mpi.Comm) error {
	for _, sizes := range [][]int{{1027, 0, 5, 2049}, {0, 7, 1025, 0}, {3, 3, 3, 3}} {
		if err := contigRound[int32](c, sizes); err != nil {
			return fmt.Errorf("int32 parts of %v elements: %w", sizes[:min(c.Size(), len(sizes))], err)
		}
		if err := contigRound[int64](c, sizes); err != nil {
			return fmt.Errorf("int64 parts of %v elements: %w", sizes[:min(c.Size(), len(sizes))], err)
		}
	}
	return nil
}

func contigRound[T int32 | int64](c *mpi.Comm, sizes []int) error {
	me, n := c.Rank(), c.Size()
	size := func(r int) int { return sizes[r%len(sizes)] }
	win, local, err := mpi.WinAllocateShared[T](c, size(me))
	if err != nil {
		return err
	}
	whole, starts, err := contigView[T](win, n, size)
	if err != nil {
		return err
	}
	if got, want := win.Size(), len(local)*int(unsafe.Sizeof(T(0))); got != want || len(local) != size(me) {
		return fmt.Errorf("the local part: %d elements, Size %d bytes; want %d elements, %d bytes", len(local), got, size(me), want)
	}
	// Each process stores into its part; the others read it through the
	// whole window.
	for i := range local {
		local[i] = T(1000*me + i)
	}
	if err := win.Fence(); err != nil {
		return err
	}
	for r := range n {
		for i := range size(r) {
			if v := whole[starts[r]+i]; v != T(1000*r+i) {
				return fmt.Errorf("element %d of rank %d's part, read through the whole window: %d, want %d", i, r, v, 1000*r+i)
			}
		}
	}
	// One-sided operations on the right neighbour's part land in it.
	if err := win.Fence(); err != nil {
		return err
	}
	t := right(c)
	if k := size(t); k > 0 {
		if k > 1 {
			if err := mpi.Put(win, []T{-1}, t, k-1); err != nil {
				return err
			}
		}
		if err := mpi.Accumulate(win, []T{5}, t, 0, mpi.Sum); err != nil {
			return err
		}
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if k := size(me); k > 0 {
		if v := whole[starts[me]+k-1]; k > 1 && v != -1 {
			return fmt.Errorf("the put of rank %d into element %d of this part, read through the whole window: %d, want -1", left(c), k-1, v)
		}
		if want := T(1000*me + 5); local[0] != want {
			return fmt.Errorf("the sum of rank %d into element 0 of this part: %d, want %d", left(c), local[0], want)
		}
	}
	if err := win.Fence(); err != nil {
		return err
	}
	return win.Free()
}

// contigView returns the whole window as one slice, from the start of
// its first non-empty part, with each rank's start in it, after checking
// that each non-empty part starts where the parts before it end.
func contigView[T mpi.Type](win *mpi.Win, n int, size func(int) int) ([]T, []int, error) {
	first, err := mpi.SharedQuery[T](win, mpi.ProcNull)
	if err != nil {
		return nil, nil, err
	}
	starts := make([]int, n)
	total, firstRank := 0, -1
	for r := range n {
		part, err := mpi.SharedQuery[T](win, r)
		if err != nil {
			return nil, nil, err
		}
		if len(part) != size(r) {
			return nil, nil, fmt.Errorf("rank %d's part: %d elements, want %d", r, len(part), size(r))
		}
		if firstRank < 0 && len(part) > 0 {
			firstRank = r
		}
		starts[r] = total
		total += size(r)
		if len(part) == 0 {
			continue
		}
		got := uintptr(unsafe.Pointer(&part[0])) - uintptr(unsafe.Pointer(&first[0]))
		want := uintptr(starts[r]-starts[firstRank]) * unsafe.Sizeof(part[0])
		if got != want {
			return nil, nil, fmt.Errorf("rank %d's part starts %d bytes after rank %d's, want %d (the sizes of the parts between): the window is not contiguous", r, got, firstRank, want)
		}
	}
	if firstRank < 0 {
		return nil, starts, nil
	}
	// The parts before the first non-empty one are empty: it starts at 0.
	return unsafe.Slice(&first[0], total), starts, nil
}
