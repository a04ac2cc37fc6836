package mpi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["release"] = scenarioRelease
}

// TestRequestRelease: Release refuses a request not yet completed and a
// persistent one; requests given back are reused by later Isends and
// Irecvs, which deliver the right data; a ring of Isend, Irecv,
// WaitallInto and Release allocates nothing.
func TestRequestRelease(t *testing.T) {
	t.Parallel()
	runAt(t, "release", []int{2, 3})
}

func scenarioRelease(w *mpi.Comm) error {
	const tag = 31
	out, in := []int64{0}, []int64{0}
	reqs := make([]*mpi.Request, 2)
	sts := make([]mpi.Status, 2)
	round := func(i int) error {
		out[0] = int64(w.Rank()*1000 + i)
		var err error
		if reqs[0], err = mpi.Irecv(w, in, left(w), tag); err != nil {
			return err
		}
		if i == 0 { // not completed: no Wait or Test has returned its result
			if err := reqs[0].Release(); !errors.Is(err, mpi.ErrRequest) {
				return fmt.Errorf("Release of a receive not completed: %v, want ErrRequest", err)
			}
		}
		if reqs[1], err = mpi.Isend(w, out, right(w), tag); err != nil {
			return err
		}
		if err := mpi.WaitallInto(reqs, sts); err != nil {
			return err
		}
		if want := int64(left(w)*1000 + i); in[0] != want || sts[0].Source != left(w) {
			return fmt.Errorf("round %d: got %d from %d, want %d from %d", i, in[0], sts[0].Source, want, left(w))
		}
		for _, r := range reqs {
			if err := r.Release(); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range 100 {
		if err := round(i); err != nil {
			return err
		}
	}
	if err := w.Barrier(); err != nil {
		return err
	}
	i := 100
	// The race detector's pools drop a share of what they are given.
	if allocs := testing.AllocsPerRun(200, func() {
		if err := round(i); err != nil {
			panic(err)
		}
		i++
	}); allocs != 0 && !raceEnabled {
		return fmt.Errorf("Isend, Irecv, WaitallInto and Release: %v allocations a round, want 0", allocs)
	}
	p, err := mpi.SendInit(w, out, right(w), tag)
	if err != nil {
		return err
	}
	if err := p.Release(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Release of a persistent request: %v, want ErrRequest", err)
	}
	return p.Free()
}
