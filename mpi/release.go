package mpi

import (
	"fmt"
	"sync"
)

// releasedRequests keeps the Requests given back by Release for the next
// Isend or Irecv.
var releasedRequests = sync.Pool{New: func() any { return new(Request) }}

// newRequest returns a zero Request, one given back if any.
func newRequest() *Request { return releasedRequests.Get().(*Request) }

// Release gives r back for reuse by a later Isend or Irecv once it has
// completed (its Wait, or a Test that reported true, has returned its
// result), so that a program that starts requests by the million spares
// the garbage collector theirs, as MPI's C interface frees a request that
// completes. The program must not use r after Release: a later call may
// have it. Release of a persistent request, or of one not completed,
// changes nothing and fails with ErrRequest.
func (r *Request) Release() error {
	if r == nil || !r.final.Load() {
		return fmt.Errorf("mpi: Release: a request not completed, or persistent: %w", ErrRequest)
	}
	*r = Request{}
	releasedRequests.Put(r)
	return nil
}
