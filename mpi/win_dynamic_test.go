package mpi_test

// Dynamic windows: memory attached concurrently by several goroutines of
// each process, reached by its address with every one-sided operation and
// every synchronization, detached and attached again; accesses to
// addresses nobody attached fail with ErrRMARange naming the address.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-dynamic"] = scenarioWinDynamic
}

func TestWinDynamic(t *testing.T) {
	t.Parallel()
	runAt(t, "win-dynamic", append([]int{1}, nps(true)...))
	runAt(t, "win-dynamic", []int{2, 3}, "-transport", "tcp")
	if !testing.Short() {
		runScenarioJob(t, 2, "win-dynamic", "-hosts", "a:1,b:1", "-launch", "env MARTINI_TEST_HOST={host}")
	}
}

// dynRegions is the number of regions each process attaches at once, from
// as many goroutines, and dynLen their elements.
const (
	dynRegions = 4
	dynLen     = 16
)

// scenarioWinDynamic runs the rounds of a dynamic window in turn.
func scenarioWinDynamic(w *mpi.Comm) error {
	win, err := mpi.WinCreateDynamic(w)
	if err != nil {
		return err
	}
	regions, addrs, err := attachAll(w, win)
	if err != nil {
		return fmt.Errorf("attaching: %w", err)
	}
	rounds := []struct {
		name string
		f    func(*mpi.Comm, *mpi.Win, [][]int64, []int) error
	}{
		{"fence", dynFence}, {"lock", dynLock}, {"unattached", dynUnattached},
		{"pscw", dynPSCW}, {"requests", dynRequests}, {"detach", dynDetach}, {"growth", dynGrowth},
		{"adjacent", dynAdjacent},
	}
	for _, r := range rounds {
		if err := r.f(w, win, regions, addrs); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
	}
	return win.Free()
}

// attachAll attaches dynRegions regions of int64 from as many goroutines
// at once, checks that attaching one again fails, and returns them and
// every rank's addresses: region k of rank r at addrs[r*dynRegions+k].
func attachAll(w *mpi.Comm, win *mpi.Win) ([][]int64, []int, error) {
	regions := make([][]int64, dynRegions)
	errs := make([]error, dynRegions)
	var wg sync.WaitGroup
	for k := range regions {
		// Bytes nobody attaches on either side: an access past the end
		// reaches no other attachment.
		regions[k] = make([]int64, dynLen+2)[1 : dynLen+1 : dynLen+1]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = mpi.Attach(win, regions[k])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if err := mpi.Attach(win, regions[0][:1]); !errors.Is(err, mpi.ErrRMAAttach) {
		return nil, nil, fmt.Errorf("attaching the same address again: %v, want ErrRMAAttach", err)
	}
	mine := make([]int, dynRegions)
	for k, r := range regions {
		mine[k] = mpi.Address(r)
	}
	addrs := make([]int, dynRegions*w.Size())
	if err := mpi.Allgather(w, mine, addrs); err != nil {
		return nil, nil, err
	}
	return regions, addrs, nil
}

// at returns the address of element i of region k of rank r.
func at(addrs []int, r, k, i int) int { return addrs[r*dynRegions+k] + 8*i }

// dynFence puts a pattern into every region of the right neighbour and
// gets the left neighbour's back, and sums into rank 0's region 0, under
// fences.
func dynFence(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	for k := range regions {
		clear(regions[k])
	}
	if err := win.Fence(); err != nil {
		return err
	}
	r, n := w.Rank(), w.Size()
	for k := range regions {
		if err := mpi.Put(win, pattern[int64](dynLen-1, r, k), right(w), at(addrs, right(w), k, 1)); err != nil {
			return err
		}
	}
	if err := mpi.Accumulate(win, []int64{int64(r + 1)}, 0, at(addrs, 0, 0, 0), mpi.Sum); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	got := make([]int64, dynLen-1)
	if err := mpi.Get(win, got, left(w), at(addrs, left(w), dynRegions-1, 1)); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	for k := range regions {
		if d := diff(regions[k][1:], pattern[int64](dynLen-1, left(w), k)); d != "" {
			return fmt.Errorf("region %d after the puts: %s", k, d)
		}
	}
	// The left neighbour's region holds what its own left neighbour put.
	if d := diff(got, pattern[int64](dynLen-1, (r-2+2*n)%n, dynRegions-1)); d != "" {
		return fmt.Errorf("get of the left neighbour's region: %s", d)
	}
	if want := int64(n * (n + 1) / 2); r == 0 && regions[0][0] != want {
		return fmt.Errorf("sum %d, want %d", regions[0][0], want)
	}
	return nil
}

// dynLock counts with FetchAndOp, GetAccumulate and a CompareAndSwap
// mutex on rank 0's region 1 under locks, and checks the counts.
func dynLock(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	clear(regions[1])
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	count, getacc, mutex := at(addrs, 0, 1, 0), at(addrs, 0, 1, 1), at(addrs, 0, 1, 2)
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		return err
	}
	if _, err := mpi.FetchAndOp(win, int64(1), 0, count, mpi.Sum); err != nil {
		return err
	}
	old := make([]int64, 1)
	if err := mpi.GetAccumulate(win, []int64{2}, old, 0, getacc, mpi.Sum); err != nil {
		return err
	}
	for {
		prev, err := mpi.CompareAndSwap(win, int64(0), int64(w.Rank()+1), 0, mutex)
		if err != nil {
			return err
		}
		if prev == 0 {
			break
		}
		if err := win.Flush(0); err != nil {
			return err
		}
	}
	if _, err := mpi.CompareAndSwap(win, int64(w.Rank()+1), int64(0), 0, mutex); err != nil {
		return err
	}
	if err := win.Unlock(0); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	n := int64(w.Size())
	if w.Rank() == 0 && (regions[1][0] != n || regions[1][1] != 2*n || regions[1][2] != 0) {
		return fmt.Errorf("counts %v, want [%d %d 0]", regions[1][:3], n, 2*n)
	}
	return nil
}

// dynUnattached checks that every operation at an address that no
// attachment of the target covers fails with ErrRMARange naming it.
func dynUnattached(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	t := right(w)
	if err := win.Lock(mpi.LockExclusive, t); err != nil {
		return err
	}
	buf := make([]int64, 2)
	ops := map[string]func(disp int) error{
		"Put": func(d int) error { return mpi.Put(win, buf, t, d) },
		"Get": func(d int) error { return mpi.Get(win, buf, t, d) },
		"Accumulate": func(d int) error {
			return mpi.Accumulate(win, buf, t, d, mpi.Sum)
		},
		"FetchAndOp": func(d int) error { _, err := mpi.FetchAndOp(win, int64(1), t, d, mpi.Sum); return err },
		"CompareAndSwap": func(d int) error {
			_, err := mpi.CompareAndSwap(win, int64(0), int64(1), t, d)
			return err
		},
	}
	// Past the end of a region (two elements of which one is outside:
	// Put, Get and Accumulate), and addresses nobody attached.
	for _, d := range []int{at(addrs, t, 0, dynLen-1), 8, -8} {
		for name, f := range ops {
			if d > 8 && (name == "FetchAndOp" || name == "CompareAndSwap") {
				continue
			}
			err := f(d)
			if !errors.Is(err, mpi.ErrRMARange) || !strings.Contains(err.Error(), fmt.Sprintf("%#x", uint64(d))) {
				return fmt.Errorf("%s at %#x: %v, want ErrRMARange naming the address", name, d, err)
			}
		}
	}
	if err := mpi.Put(win, []int64{}, t, 8); err != nil {
		return fmt.Errorf("a Put of nothing at an unattached address: %w", err)
	}
	if err := win.Unlock(t); err != nil {
		return err
	}
	if err := mpi.Detach(win, make([]int64, 1)); !errors.Is(err, mpi.ErrRMARange) {
		return fmt.Errorf("detaching unattached memory: %v, want ErrRMARange", err)
	}
	return nil
}

// dynPSCW puts into the right neighbour's region 2 in a post-start-
// complete-wait epoch.
func dynPSCW(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	clear(regions[2])
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	from, err := w.Group().Incl(left(w))
	if err != nil {
		return err
	}
	to, err := w.Group().Incl(right(w))
	if err != nil {
		return err
	}
	if err := win.Post(from); err != nil {
		return err
	}
	if err := win.Start(to); err != nil {
		return err
	}
	if err := mpi.Put(win, pattern[int64](dynLen, w.Rank(), 7), right(w), at(addrs, right(w), 2, 0)); err != nil {
		return err
	}
	if err := win.Complete(); err != nil {
		return err
	}
	if err := win.Wait(); err != nil {
		return err
	}
	if d := diff(regions[2], pattern[int64](dynLen, left(w), 7)); d != "" {
		return fmt.Errorf("region 2 after the epoch: %s", d)
	}
	return nil
}

// dynRequests reads the right neighbour's region 2 with Rget and writes
// its region 3 with Rput under LockAll.
func dynRequests(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	if err := win.LockAll(); err != nil {
		return err
	}
	got := make([]int64, dynLen)
	g, err := mpi.Rget(win, got, right(w), at(addrs, right(w), 2, 0))
	if err != nil {
		return err
	}
	p, err := mpi.Rput(win, pattern[int64](dynLen, w.Rank(), 9), right(w), at(addrs, right(w), 3, 0))
	if err != nil {
		return err
	}
	if _, err := mpi.Waitall([]*mpi.Request{g, p}); err != nil {
		return err
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	if d := diff(got, pattern[int64](dynLen, w.Rank(), 7)); d != "" {
		return fmt.Errorf("Rget: %s", d)
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if d := diff(regions[3], pattern[int64](dynLen, left(w), 9)); d != "" {
		return fmt.Errorf("region 3 after Rput: %s", d)
	}
	return nil
}

// dynDetach detaches region 3 everywhere, checks that the left
// neighbour's Get of it then fails, and attaches it again.
func dynDetach(w *mpi.Comm, win *mpi.Win, regions [][]int64, addrs []int) error {
	if err := mpi.Detach(win, regions[3]); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	t := right(w)
	if err := win.Lock(mpi.LockShared, t); err != nil {
		return err
	}
	err := mpi.Get(win, make([]int64, 1), t, at(addrs, t, 3, 0))
	if !errors.Is(err, mpi.ErrRMARange) {
		return fmt.Errorf("Get of detached memory: %v, want ErrRMARange", err)
	}
	if err := win.Unlock(t); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return mpi.Attach(win, regions[3])
}

// dynGrowth attaches more regions than the first table holds, and has
// the left neighbour put into the last.
func dynGrowth(w *mpi.Comm, win *mpi.Win, _ [][]int64, _ []int) error {
	more := make([][]int64, 40)
	for i := range more {
		more[i] = make([]int64, 2)
		if err := mpi.Attach(win, more[i]); err != nil {
			return fmt.Errorf("attachment %d: %w", i, err)
		}
	}
	last := make([]int, w.Size())
	if err := mpi.Allgather(w, []int{mpi.Address(more[len(more)-1])}, last); err != nil {
		return err
	}
	if err := win.Lock(mpi.LockExclusive, right(w)); err != nil {
		return err
	}
	if err := mpi.Put(win, []int64{int64(w.Rank()), 5}, right(w), last[right(w)]); err != nil {
		return err
	}
	if err := win.Unlock(right(w)); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if got := more[len(more)-1]; got[0] != int64(left(w)) || got[1] != 5 {
		return fmt.Errorf("last attachment %v, want [%d 5]", got, left(w))
	}
	for _, m := range more {
		if err := mpi.Detach(win, m); err != nil {
			return err
		}
	}
	return nil
}

// dynAdjacent attaches the two halves of a slice apart, and has the left
// neighbour put, accumulate and get across the boundary between them.
func dynAdjacent(w *mpi.Comm, win *mpi.Win, _ [][]int64, _ []int) error {
	whole := make([]int64, 8)
	for _, half := range [][]int64{whole[:4], whole[4:]} {
		if err := mpi.Attach(win, half); err != nil {
			return err
		}
	}
	addrs := make([]int, w.Size())
	if err := mpi.Allgather(w, []int{mpi.Address(whole)}, addrs); err != nil {
		return err
	}
	t := right(w)
	if err := win.Lock(mpi.LockExclusive, t); err != nil {
		return err
	}
	if err := mpi.Put(win, pattern[int64](8, w.Rank()), t, addrs[t]); err != nil {
		return err
	}
	if err := mpi.Accumulate(win, []int64{1, 1}, t, addrs[t]+3*8, mpi.Sum); err != nil {
		return err
	}
	got := make([]int64, 6)
	if err := mpi.Get(win, got, t, addrs[t]+8); err != nil {
		return err
	}
	if err := win.Unlock(t); err != nil {
		return err
	}
	want := pattern[int64](8, w.Rank())
	want[3]++
	want[4]++
	if d := diff(got, want[1:7]); d != "" {
		return fmt.Errorf("get across the boundary: %s", d)
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	want = pattern[int64](8, left(w))
	want[3]++
	want[4]++
	if d := diff(whole, want); d != "" {
		return fmt.Errorf("the halves after the left neighbour's put: %s", d)
	}
	for _, half := range [][]int64{whole[:4], whole[4:]} {
		if err := mpi.Detach(win, half); err != nil {
			return err
		}
	}
	return nil
}
