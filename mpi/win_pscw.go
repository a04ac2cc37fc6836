package mpi

import (
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc"
)

// Generalized active-target synchronization (post-start-complete-wait):
// Post adds one to a word of each origin's control memory (the word of
// the posting target), which the origin's Start waits for and takes back;
// Complete flushes and adds one to each target's completion word, which
// the target's Wait waits for until every origin has come.

// ranksOf returns the ranks in w's communicator of g's members.
func (w *Win) ranksOf(op string, g Group) ([]int, error) {
	ranks := make([]int, g.Size())
	for i, wr := range g.world {
		if !w.c.hasWorld(wr) {
			return nil, fmt.Errorf("mpi: %s: World rank %d of the group is not a process of the window: %w", op, wr, ErrRank)
		}
		ranks[i] = w.c.fromWorld(wr)
	}
	return ranks, nil
}

// Post opens an exposure epoch to the origins of g (MPI_Win_post): each
// may Start its access epoch to this process.
func (w *Win) Post(g Group) error {
	if err := w.check("Win.Post"); err != nil {
		return err
	}
	origins, err := w.ranksOf("Win.Post", g)
	if err != nil {
		return err
	}
	w.mu.Lock()
	open := w.sync.exposing
	if !open {
		w.sync.exposing, w.sync.origins = true, len(origins)
	}
	w.mu.Unlock()
	if open {
		return fmt.Errorf("mpi: Win.Post: an exposure epoch is open (Post without Wait): %w", ErrRMASync)
	}
	for _, o := range origins {
		if err := w.do(w.ctlOp(o, llc.RMAFetchAdd, ctlPost+w.c.rank, 0, 1)); err != nil {
			return fmt.Errorf("mpi: Win.Post to rank %d: %w", o, err)
		}
	}
	return nil
}

// Start opens an access epoch to the targets of g (MPI_Win_start): it
// waits until each has posted.
func (w *Win) Start(g Group) error {
	if err := w.check("Win.Start"); err != nil {
		return err
	}
	targets, err := w.ranksOf("Win.Start", g)
	if err != nil {
		return err
	}
	access := make([]bool, w.c.size)
	for _, t := range targets {
		access[t] = true
	}
	w.mu.Lock()
	open := w.sync.access != nil
	if !open {
		w.sync.access = access
	}
	w.mu.Unlock()
	if open {
		return fmt.Errorf("mpi: Win.Start: an access epoch is open (Start without Complete): %w", ErrRMASync)
	}
	for _, t := range targets {
		word := w.localCtl(ctlPost + t)
		w.ep.WaitFunc(func() bool { return atomic.LoadUint64(word) > 0 })
		atomicAdd(word, ^uint64(0))
	}
	return nil
}

// Complete closes the access epoch of Start (MPI_Win_complete): every
// operation of it is complete at its target, and the targets are told.
func (w *Win) Complete() error {
	if err := w.check("Win.Complete"); err != nil {
		return err
	}
	w.mu.Lock()
	access := w.sync.access
	w.mu.Unlock()
	if access == nil {
		return fmt.Errorf("mpi: Win.Complete: no Start: %w", ErrRMASync)
	}
	var err error
	for t, in := range access {
		if !in {
			continue
		}
		if err = w.flush(t); err != nil {
			break
		}
		if err = w.do(w.ctlOp(t, llc.RMAFetchAdd, ctlComplete, 0, 1)); err != nil {
			break
		}
	}
	w.mu.Lock()
	w.sync.access = nil
	w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("mpi: Win.Complete: %w", err)
	}
	return nil
}

// Wait closes the exposure epoch of Post (MPI_Win_wait): it returns once
// every origin has completed its access epoch.
func (w *Win) Wait() error {
	if err := w.check("Win.Wait"); err != nil {
		return err
	}
	n, err := w.exposure("Win.Wait")
	if err != nil {
		return err
	}
	word := w.localCtl(ctlComplete)
	w.ep.WaitFunc(func() bool { return atomic.LoadUint64(word) >= n })
	w.endExposure(n)
	return nil
}

// Test is the nonblocking Wait (MPI_Win_test): it makes progress once and
// reports whether the exposure epoch is closed.
func (w *Win) Test() (bool, error) {
	if err := w.check("Win.Test"); err != nil {
		return false, err
	}
	n, err := w.exposure("Win.Test")
	if err != nil {
		return false, err
	}
	w.ep.Progress()
	if atomic.LoadUint64(w.localCtl(ctlComplete)) < n {
		return false, nil
	}
	w.endExposure(n)
	return true, nil
}

// exposure returns the number of origins of the open exposure epoch.
func (w *Win) exposure(op string) (uint64, error) {
	w.mu.Lock()
	open, n := w.sync.exposing, w.sync.origins
	w.mu.Unlock()
	if !open {
		return 0, fmt.Errorf("mpi: %s: no Post: %w", op, ErrRMASync)
	}
	return uint64(n), nil
}

// endExposure takes the n completions of the exposure epoch and closes it.
func (w *Win) endExposure(n uint64) {
	atomicAdd(w.localCtl(ctlComplete), -n)
	w.mu.Lock()
	w.sync.exposing = false
	w.mu.Unlock()
}
