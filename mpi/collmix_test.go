package mpi_test

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["coll-typed-mix"] = scenarioTypedMix }

// TestCollectiveTypedMix: the processes call a nonblocking collective,
// some in its typed form (IbcastType ...), the others in its plain one,
// which MPI lets meet (the same type signature).
func TestCollectiveTypedMix(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-typed-mix", []int{2, 3, 5})
}

// scenarioTypedMix has the odd ranks call the typed form of Ibcast,
// Igather, Iscatter, Iallgather and Ialltoall and the others the plain
// one, and checks the data.
func scenarioTypedMix(w *mpi.Comm) error {
	all := make([]int32, w.Size()*mixK)
	if err := typedMixIbcast(w); err != nil {
		return err
	}
	if err := typedMixIgather(w, all); err != nil {
		return err
	}
	send, err := typedMixIscatter(w)
	if err != nil {
		return err
	}
	if err := typedMixIallgather(w, all); err != nil {
		return err
	}
	return typedMixIalltoall(w, send[:0], all)
}

// mixK is the number of elements in a block of scenarioTypedMix.
const mixK = 3

// mixVal is element i of the block that rank from sends to rank to.
func mixVal(from, to, i int) int32 { return int32(from*1000 + to*10 + i) }

// mixBlock is the block that rank from sends to rank to.
func mixBlock(from, to int) []int32 {
	b := make([]int32, mixK)
	for i := range b {
		b[i] = mixVal(from, to, i)
	}
	return b
}

// mixCheck checks that got is the block that rank from sends to rank to.
func mixCheck(me int, name string, got []int32, from, to int) error {
	for i, v := range got {
		if v != mixVal(from, to, i) {
			return fmt.Errorf("rank %d: %s: block from %d element %d is %d, want %d", me, name, from, i, v, mixVal(from, to, i))
		}
	}
	return nil
}

// mixWait waits for q unless err is already an error, and names the call
// in what it returns.
func mixWait(me int, name string, q *mpi.Request, err error) error {
	if err == nil {
		_, err = q.Wait()
	}
	if err != nil {
		return fmt.Errorf("rank %d: %s: %w", me, name, err)
	}
	return nil
}

// typedMixIbcast broadcasts a block from the last rank, typed on the odd
// ranks.
func typedMixIbcast(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	root := n - 1
	b := make([]int32, mixK)
	if me == root {
		b = mixBlock(root, 0)
	}
	var q *mpi.Request
	var err error
	if me%2 == 1 {
		q, err = mpi.IbcastType(w, b, mixK, mpi.Element, root)
	} else {
		q, err = mpi.Ibcast(w, b, root)
	}
	if err := mixWait(me, "Ibcast", q, err); err != nil {
		return err
	}
	return mixCheck(me, "Ibcast", b, root, 0)
}

// typedMixIgather gathers a block from each rank into all on the last
// rank, typed on the odd ranks.
func typedMixIgather(w *mpi.Comm, all []int32) error {
	me, n := w.Rank(), w.Size()
	root := n - 1
	var q *mpi.Request
	var err error
	if me%2 == 1 {
		q, err = mpi.IgatherType(w, mixBlock(me, 0), mixK, mpi.Element, all, mixK, mpi.Element, root)
	} else {
		q, err = mpi.Igather(w, mixBlock(me, 0), all, root)
	}
	if err := mixWait(me, "Igather", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := mixCheck(me, "Igather", all[r*mixK:(r+1)*mixK], r, 0); me == root && err != nil {
			return err
		}
	}
	return nil
}

// typedMixIscatter scatters a block to each rank from the last, typed on
// the odd ranks, and returns the buffer it sent from.
func typedMixIscatter(w *mpi.Comm) ([]int32, error) {
	me, n := w.Rank(), w.Size()
	root := n - 1
	var send []int32
	for r := range n {
		send = append(send, mixBlock(root, r)...)
	}
	mine := make([]int32, mixK)
	var q *mpi.Request
	var err error
	if me%2 == 1 {
		q, err = mpi.IscatterType(w, send, mixK, mpi.Element, mine, mixK, mpi.Element, root)
	} else {
		q, err = mpi.Iscatter(w, send, mine, root)
	}
	if err := mixWait(me, "Iscatter", q, err); err != nil {
		return nil, err
	}
	return send, mixCheck(me, "Iscatter", mine, root, me)
}

// typedMixIallgather gathers a block from each rank into all on every
// rank, typed on the odd ranks.
func typedMixIallgather(w *mpi.Comm, all []int32) error {
	me, n := w.Rank(), w.Size()
	var q *mpi.Request
	var err error
	if me%2 == 1 {
		q, err = mpi.IallgatherType(w, mixBlock(me, 1), mixK, mpi.Element, all, mixK, mpi.Element)
	} else {
		q, err = mpi.Iallgather(w, mixBlock(me, 1), all)
	}
	if err := mixWait(me, "Iallgather", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := mixCheck(me, "Iallgather", all[r*mixK:(r+1)*mixK], r, 1); err != nil {
			return err
		}
	}
	return nil
}

// typedMixIalltoall sends a block from every rank to every rank, built
// in send and received into all, typed on the odd ranks.
func typedMixIalltoall(w *mpi.Comm, send, all []int32) error {
	me, n := w.Rank(), w.Size()
	for r := range n {
		send = append(send, mixBlock(me, r)...)
	}
	var q *mpi.Request
	var err error
	if me%2 == 1 {
		q, err = mpi.IalltoallType(w, send, mixK, mpi.Element, all, mixK, mpi.Element)
	} else {
		q, err = mpi.Ialltoall(w, send, all)
	}
	if err := mixWait(me, "Ialltoall", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := mixCheck(me, "Ialltoall", all[r*mixK:(r+1)*mixK], r, me); err != nil {
			return err
		}
	}
	return nil
}
