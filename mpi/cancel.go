package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// Cancel asks for the operation to be cancelled (MPI_Cancel) and returns
// at once; complete the request with Wait or Test as usual, whose
// Status.Cancelled tells whether it was cancelled. A receive is cancelled
// if it has not matched a message yet. A send is cancelled only while it
// has not left this process (waiting for its connection or for room at
// the receiver): a message that has left is delivered, as MPI allows, and
// its request completes normally. A completed or inactive request is left
// as it is; a nonblocking collective or a one-sided operation (Rput, ...)
// cannot be cancelled.
func (r *Request) Cancel() error {
	if err := r.checkOp("Cancel"); err != nil {
		return err
	}
	switch {
	case r.coll != nil && r.name == generalizedName:
		// The program cancels its own operation.
	case r.coll != nil:
		return fmt.Errorf("mpi: Cancel: a nonblocking collective cannot be cancelled: %w", ErrRequest)
	case r.rma != nil:
		return fmt.Errorf("mpi: Cancel: a one-sided operation cannot be cancelled: %w", ErrRequest)
	case r.null || r.inert():
	default:
		// Under the endpoint's lock, where Done harvests a pooled
		// operation: one already harvested is done, and gone.
		r.c.rt.ep.CancelCurrent(func() (*llc.RecvOp, *llc.SendOp) {
			if r.recv {
				return r.rop, nil
			}
			return nil, r.sop
		})
	}
	return nil
}

// Free releases the request (MPI_Request_free): the caller will not
// complete it, and any later use of it is an error wrapping ErrRequest. A
// pending operation still completes in the background (a receive still
// fills its buffer, which must be left alone until the data is known to
// be there by other means), and a persistent request is not started again.
func (r *Request) Free() error {
	if err := r.checkOp("Free"); err != nil {
		return err
	}
	if !r.freed.CompareAndSwap(false, true) {
		return fmt.Errorf("mpi: Free: request used after Free: %w", ErrRequest)
	}
	switch {
	case r.coll != nil:
		go func() {
			r.coll.awaitDone()
			r.finish()
		}()
	case r.null || r.inert():
		r.finish()
	case r.c.rt.ep.Test((*pending)(r)):
		r.finish()
	default:
		// Complete it in the background, so that its communicator's count
		// of pending requests comes down; Finalize completes it at the
		// latest.
		go func() {
			r.c.rt.ep.Wait((*pending)(r))
			r.finish()
		}()
	}
	if r.restart != nil {
		r.c.freeLocal() // a persistent collective's private communicator
	}
	return nil
}
