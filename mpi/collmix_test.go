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
	me, n := w.Rank(), w.Size()
	typed := me%2 == 1
	const k = 3 // elements a block
	wait := func(name string, q *mpi.Request, err error) error {
		if err == nil {
			_, err = q.Wait()
		}
		if err != nil {
			return fmt.Errorf("rank %d: %s: %w", me, name, err)
		}
		return nil
	}
	val := func(from, to, i int) int32 { return int32(from*1000 + to*10 + i) }
	block := func(from, to int) []int32 {
		b := make([]int32, k)
		for i := range b {
			b[i] = val(from, to, i)
		}
		return b
	}
	check := func(name string, got []int32, from, to int) error {
		for i, v := range got {
			if v != val(from, to, i) {
				return fmt.Errorf("rank %d: %s: block from %d element %d is %d, want %d", me, name, from, i, v, val(from, to, i))
			}
		}
		return nil
	}
	root := n - 1
	b := make([]int32, k)
	if me == root {
		b = block(root, 0)
	}
	var q *mpi.Request
	var err error
	if typed {
		q, err = mpi.IbcastType(w, b, k, mpi.Element, root)
	} else {
		q, err = mpi.Ibcast(w, b, root)
	}
	if err := wait("Ibcast", q, err); err != nil {
		return err
	}
	if err := check("Ibcast", b, root, 0); err != nil {
		return err
	}
	all := make([]int32, n*k)
	if typed {
		q, err = mpi.IgatherType(w, block(me, 0), k, mpi.Element, all, k, mpi.Element, root)
	} else {
		q, err = mpi.Igather(w, block(me, 0), all, root)
	}
	if err := wait("Igather", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := check("Igather", all[r*k:(r+1)*k], r, 0); me == root && err != nil {
			return err
		}
	}
	var send []int32
	for r := range n {
		send = append(send, block(root, r)...)
	}
	mine := make([]int32, k)
	if typed {
		q, err = mpi.IscatterType(w, send, k, mpi.Element, mine, k, mpi.Element, root)
	} else {
		q, err = mpi.Iscatter(w, send, mine, root)
	}
	if err := wait("Iscatter", q, err); err != nil {
		return err
	}
	if err := check("Iscatter", mine, root, me); err != nil {
		return err
	}
	if typed {
		q, err = mpi.IallgatherType(w, block(me, 1), k, mpi.Element, all, k, mpi.Element)
	} else {
		q, err = mpi.Iallgather(w, block(me, 1), all)
	}
	if err := wait("Iallgather", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := check("Iallgather", all[r*k:(r+1)*k], r, 1); err != nil {
			return err
		}
	}
	send = send[:0]
	for r := range n {
		send = append(send, block(me, r)...)
	}
	if typed {
		q, err = mpi.IalltoallType(w, send, k, mpi.Element, all, k, mpi.Element)
	} else {
		q, err = mpi.Ialltoall(w, send, all)
	}
	if err := wait("Ialltoall", q, err); err != nil {
		return err
	}
	for r := range n {
		if err := check("Ialltoall", all[r*k:(r+1)*k], r, me); err != nil {
			return err
		}
	}
	return nil
}
