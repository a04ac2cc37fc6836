package mpi_test

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["free-any-order"] = scenarioFreeAnyOrder
	scenarios["idup-overlapping"] = scenarioIdupOverlapping
}

// TestFreeInAnyOrder frees communicators in orders that differ between
// processes, with waits for each other in between.
func TestFreeInAnyOrder(t *testing.T) {
	t.Parallel()
	runAt(t, "free-any-order", []int{2, 3, 4})
}

// TestIdupOverlapping duplicates overlapping communicators at once, and
// an intercommunicator whose processes call Idup at different times.
func TestIdupOverlapping(t *testing.T) {
	t.Parallel()
	runAt(t, "idup-overlapping", []int{2, 4})
}

// scenarioFreeAnyOrder: rank 1 frees a communicator with a receive
// pending on it and then waits in a barrier of World, which rank 0
// enters before it frees its own (MPICH's comm/cmfree2); every process
// frees two duplicates in an order of its own; and more communicators
// are made and freed than there are context ids, which would run out if
// freeing kept them.
func scenarioFreeAnyOrder(w *mpi.Comm) error {
	if err := freeWithReceivePending(w); err != nil {
		return err
	}
	rank := w.Rank()
	for i := range 2100 { // 4200 communicators: more than there are context ids
		a, err := w.Dup()
		if err != nil {
			return fmt.Errorf("duplicate %d: %w", i, err)
		}
		b, err := w.Dup()
		if err != nil {
			return fmt.Errorf("duplicate %d: %w", i, err)
		}
		first, second := a, b
		if rank%2 == 1 {
			first, second = b, a
		}
		if err := first.Free(); err != nil {
			return err
		}
		if err := second.Free(); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// freeWithReceivePending: MPICH's comm/cmfree2 (see scenarioFreeAnyOrder).
func freeWithReceivePending(w *mpi.Comm) error {
	c, err := w.Dup()
	if err != nil {
		return err
	}
	switch w.Rank() {
	case 0:
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		if err := mpi.Ssend(c, []int32{5}, 1, 0); err != nil {
			return err
		}
		if err := c.Free(); err != nil {
			return err
		}
	case 1:
		buf := make([]int32, 1)
		r, err := mpi.Irecv(c, buf, 0, 0)
		if err != nil {
			return err
		}
		if err := c.Free(); err != nil {
			return err
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		if _, err := r.Wait(); err != nil || buf[0] != 5 {
			return fmt.Errorf("receive pending on a freed communicator: %v, %v", buf, err)
		}
	default:
		if err := c.Free(); err != nil {
			return err
		}
		return mpi.Barrier(w)
	}
	return nil
}

// scenarioIdupOverlapping: each pair of neighbours shares a communicator,
// which each process duplicates with Idup in its own order (MPICH's
// comm/comm_idup_overlap: with blocking duplications this deadlocks);
// then the processes of an intercommunicator call Idup on it at
// different times, some only after the others have sent them a message
// (MPICH's comm/comm_idup).
func scenarioIdupOverlapping(w *mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	var primary, secondary *mpi.Comm
	for i := range size {
		color := 1
		if rank == i || rank == (i+1)%size {
			color = 0
		}
		c, err := w.Split(color, 0)
		if err != nil {
			return err
		}
		switch {
		case rank == i:
			primary = c
		case rank == (i+1)%size:
			secondary = c
		default:
			if err := c.Free(); err != nil {
				return err
			}
		}
	}
	p2, r1, err := primary.Idup()
	if err != nil {
		return err
	}
	s2, r2, err := secondary.Idup()
	if err != nil {
		return err
	}
	if _, err := mpi.Waitall([]*mpi.Request{r1, r2}); err != nil {
		return err
	}
	for _, c := range []*mpi.Comm{primary, secondary, p2, s2} {
		if err := c.Free(); err != nil {
			return err
		}
	}
	return staggeredInterIdup(w)
}

// staggeredInterIdup: the local rank 0 of each half of an
// intercommunicator calls Idup on it only after every other process of
// the other half has sent it a message, which those send after calling
// Idup.
func staggeredInterIdup(w *mpi.Comm) error {
	rank := w.Rank()
	local, err := w.Split(rank%2, rank)
	if err != nil {
		return err
	}
	ic, err := local.IntercommCreate(0, w, 1-rank%2, 1234)
	if err != nil {
		return err
	}
	rsize, err := ic.RemoteSize()
	if err != nil {
		return err
	}
	var nc *mpi.Comm
	var r *mpi.Request
	if ic.Rank() == 0 {
		buf := make([]int32, 1)
		for i := 1; i < rsize; i++ {
			if _, err := mpi.Recv(ic, buf, i, 0); err != nil {
				return err
			}
		}
		if nc, r, err = ic.Idup(); err != nil {
			return err
		}
	} else {
		if nc, r, err = ic.Idup(); err != nil {
			return err
		}
		if err := mpi.Ssend(ic, []int32{int32(rank)}, 0, 0); err != nil {
			return err
		}
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	for _, c := range []*mpi.Comm{nc, ic, local} {
		if err := c.Free(); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}
