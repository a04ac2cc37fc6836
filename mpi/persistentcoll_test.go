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

// scenarioPersistentColl: a persistent allreduce, a persistent broadcast
// and a persistent neighbourhood allgather on a ring, started round
// after round in an order that differs between processes, each round
// moving what the buffers hold when it starts; before its first Start a
// request completes at once with the empty status; an active one cannot
// start again. Then the failures, and many made and freed in turn, which
// would run out of context ids if freeing kept them.
func scenarioPersistentColl(w *mpi.Comm) error {
	size := w.Size()
	ring, err := w.CartCreate([]int{size}, []bool{true}, false)
	if err != nil {
		return err
	}
	mine, total := make([]int64, 3), make([]int64, 3)
	word, around := make([]int32, 2), make([]int64, 2)
	reqs := make([]*mpi.Request, 3)
	starts := []func() (*mpi.Request, error){
		func() (*mpi.Request, error) { return mpi.Iallreduce(w, mine, total, mpi.Sum) },
		func() (*mpi.Request, error) { return mpi.Ibcast(w, word, size-1) },
		func() (*mpi.Request, error) { return mpi.IneighborAllgather(ring, mine[:1], around) },
	}
	for i, start := range starts {
		c := w
		if i == 2 {
			c = ring
		}
		if reqs[i], err = mpi.PersistentCollective(c, start); err != nil {
			return err
		}
	}
	if st, err := reqs[0].Wait(); err != nil || st != (mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}) {
		return fmt.Errorf("Wait before the first Start: %+v %v", st, err)
	}
	for round := range 25 {
		if err := persistentRound(w, ring, reqs, round, mine, total, word, around); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
	}
	for _, r := range reqs {
		if err := r.Free(); err != nil {
			return err
		}
	}
	if err := reqs[0].Start(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Start of a freed persistent collective: %v, want ErrRequest", err)
	}
	if err := persistentCollErrors(w); err != nil {
		return err
	}
	return ring.Free()
}

// persistentRound runs one round of the requests of
// scenarioPersistentColl: odd ranks start them in the reverse order.
func persistentRound(w, ring *mpi.Comm, reqs []*mpi.Request, round int, mine, total []int64, word []int32, around []int64) error {
	rank, size := w.Rank(), w.Size()
	for i := range mine {
		mine[i] = int64(round*(rank+1) + i)
	}
	if rank == size-1 {
		word[0], word[1] = int32(round), int32(-round)
	}
	for k := range reqs {
		i := k
		if rank%2 == 1 {
			i = len(reqs) - 1 - k
		}
		if err := reqs[i].Start(); err != nil {
			return err
		}
	}
	if round == 0 {
		if err := reqs[0].Start(); !errors.Is(err, mpi.ErrRequest) {
			return fmt.Errorf("Start of an active persistent collective: %v, want ErrRequest", err)
		}
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		return err
	}
	for i := range total {
		if want := int64(round*size*(size+1)/2 + i*size); total[i] != want {
			return fmt.Errorf("sum %d is %d, want %d", i, total[i], want)
		}
	}
	if word[0] != int32(round) || word[1] != int32(-round) {
		return fmt.Errorf("broadcast %v", word)
	}
	left, right := (rank+size-1)%size, (rank+1)%size
	if around[0] != int64(round*(left+1)) || around[1] != int64(round*(right+1)) {
		return fmt.Errorf("neighbourhood allgather %v from ranks %d and %d", around, left, right)
	}
	return nil
}

// persistentCollErrors checks the failures of making persistent
// collectives, and makes and frees more of them than there are context
// ids.
func persistentCollErrors(w *mpi.Comm) error {
	if _, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) {
		return mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	}); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("a persistent collective that sends: %v, want ErrRequest", err)
	}
	two := func() (*mpi.Request, error) {
		if _, err := mpi.Ibarrier(w); err != nil {
			return nil, err
		}
		return mpi.Ibarrier(w)
	}
	if _, err := mpi.PersistentCollective(w, two); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("a persistent collective of two barriers: %v, want ErrRequest", err)
	}
	failing := errors.New("start failed")
	if _, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) { return nil, failing }); !errors.Is(err, failing) {
		return fmt.Errorf("a start function that fails: %v", err)
	}
	if _, err := mpi.PersistentCollective(w, nil); err == nil {
		return errors.New("a persistent collective without a start function")
	}
	for i := range 5000 {
		r, err := mpi.PersistentCollective(w, func() (*mpi.Request, error) { return mpi.Ibarrier(w) })
		if err != nil {
			return fmt.Errorf("persistent collective %d: %w", i, err)
		}
		if i%1000 == 0 {
			if err := r.Start(); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
		}
		if err := r.Free(); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}
