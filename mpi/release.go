package mpi

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/memorder"
)

// releasedRequests keeps the Requests given back by Release for the next
// Isend or Irecv.
var releasedRequests = sync.Pool{New: func() any { return new(Request) }}

// released counts the Requests given back by Release and not taken again
// since, as far as newRequest knows: a hint, which the collector's clearing
// of the pool and concurrent calls may leave off by a few. A program that
// never calls Release (most) then allocates its Requests without asking
// the empty pool, whose Get looks at every processor's share and at the
// collector's leftovers before it allocates: 130-150 instructions an
// Isend (callgrind). The count is loaded and stored, never added to in
// place: a locked instruction would wait for the stores of the last
// call's send into the peer's lines to land. Two calls at once may then
// lose a count, which costs an allocation or a look at the pool, never a
// Request; every stored value is one that was loaded, plus one, or minus
// one from above zero, so it never falls below zero.
var released uint64

// newRequest returns a zero Request, one given back if any.
func newRequest() *Request {
	n := atomic.LoadUint64(&released)
	if n == 0 {
		return freshRequest()
	}
	memorder.StoreRelease64(&released, n-1)
	return releasedRequests.Get().(*Request)
}

// requestBatch is how many Requests freshRequest allocates at once.
const requestBatch = 32

// requestBatches holds each processor's batch of fresh Requests, so that
// taking one is a look at the processor's own share of the pool, with no
// locked instruction, where allocating each on its own costs the
// allocator some 300 instructions (callgrind). A batch stays reachable
// while any of its Requests is: 7 KiB at most for a Request kept long.
var requestBatches = sync.Pool{New: func() any { return new(requestBatchOf) }}

// requestBatchOf is a batch of fresh Requests and the index of the next
// one to hand out.
type requestBatchOf struct {
	reqs [requestBatch]Request
	next int
}

// freshRequest returns a Request never used, from the processor's batch.
func freshRequest() *Request {
	b := requestBatches.Get().(*requestBatchOf)
	r := &b.reqs[b.next]
	if b.next++; b.next < requestBatch {
		requestBatches.Put(b)
	}
	return r
}

// Release gives r back for reuse by a later Isend or Irecv once it has
// completed (its Wait, or a Test that reported true, has returned its
// result), so that a program that starts requests by the million spares
// the garbage collector theirs, as MPI's C interface frees a request that
// completes. The program must not use r after Release: a later call may
// have it. Release of a persistent request, or of one not completed,
// changes nothing and fails with ErrRequest.
func (r *Request) Release() error {
	if r == nil || atomic.LoadUint32(&r.final) == 0 {
		return fmt.Errorf("mpi: Release: a request not completed, or persistent: %w", ErrRequest)
	}
	*r = Request{}
	releasedRequests.Put(r)
	memorder.StoreRelease64(&released, atomic.LoadUint64(&released)+1)
	return nil
}
