package mpi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["persistent-coll"] = scenarioPersistentColl
}

// TestPersistentCollective runs persistent collectives round after round.
func TestPersistentCollective(t *testing.T) {
	t.Parallel()
	runAt(t, "persistent-coll", []int{1, 2, 3, 4})
}

// scenarioPersistentColl: a persistent allreduce and a persistent
// broadcast, started together with Startall round after round, each
// round moving what the buffers hold when it starts; before its first
// Start a request completes at once with the empty status; an active
// one cannot start again; a start function that starts no collective
// fails Start; a freed request cannot start.
func scenarioPersistentColl(w *mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	mine, total := make([]int64, 3), make([]int64, 3)
	word := make([]int32, 2)
	red, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) {
		return mpi.Iallreduce(w, mine, total, mpi.Sum)
	})
	if err != nil {
		return err
	}
	bc, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) {
		return mpi.Ibcast(w, word, size-1)
	})
	if err != nil {
		return err
	}
	if st, err := red.Wait(); err != nil || st != (mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}) {
		return fmt.Errorf("Wait before the first Start: %+v %v", st, err)
	}
	reqs := []*mpi.Request{red, bc}
	for round := range 25 {
		for i := range mine {
			mine[i] = int64(round*(rank+1) + i)
		}
		if rank == size-1 {
			word[0], word[1] = int32(round), int32(-round)
		}
		if err := mpi.Startall(reqs); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if round == 0 {
			if err := red.Start(); !errors.Is(err, mpi.ErrRequest) {
				return fmt.Errorf("Start of an active persistent collective: %v, want ErrRequest", err)
			}
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		for i := range total {
			if want := int64(round*size*(size+1)/2 + i*size); total[i] != want {
				return fmt.Errorf("round %d: sum %d is %d, want %d", round, i, total[i], want)
			}
		}
		if word[0] != int32(round) || word[1] != int32(-round) {
			return fmt.Errorf("round %d: broadcast %v", round, word)
		}
	}
	return persistentCollErrors(w, reqs)
}

// persistentCollErrors checks the failures of persistent collectives and
// frees reqs.
func persistentCollErrors(w *mpi.Comm, reqs []*mpi.Request) error {
	p2p, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) {
		return mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	})
	if err != nil {
		return err
	}
	if err := p2p.Start(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Start of a persistent collective that sends: %v, want ErrRequest", err)
	}
	failing := errors.New("start failed")
	bad, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) { return nil, failing })
	if err != nil {
		return err
	}
	if err := bad.Start(); !errors.Is(err, failing) {
		return fmt.Errorf("Start whose start function fails: %v", err)
	}
	if _, err := mpi.PersistentCollective(w, nil); err == nil {
		return errors.New("a persistent collective without a start function")
	}
	for _, r := range append(reqs, p2p, bad) {
		if err := r.Free(); err != nil {
			return err
		}
	}
	if err := reqs[0].Start(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Start of a freed persistent collective: %v, want ErrRequest", err)
	}
	return mpi.Barrier(w)
}
