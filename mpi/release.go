package mpi

import (
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/percpu"
)

// requestCaches holds each processor's Requests: those given back by
// Release, for the next nonblocking call, and a batch of fresh ones; and
// the state of the nonblocking collectives among them (collRequest), for
// the next one (newCollRequest). Taking
// or giving one is a look at the processor's own cache with the
// goroutine pinned to it (internal/percpu): no locked instruction, where
// a pool of single Requests put several of them, as a round of
// nonblocking calls gives back, into its shared chain, at a locked
// instruction each way, and allocating each fresh one on its own costs
// the allocator some 300 instructions (callgrind). A cache keeps at most
// cachedGiven Requests given back, cachedGiven collRequests and one
// batch.
var requestCaches percpu.Values[requestCache]

// requestCache is one processor's Requests (requestCaches).
type requestCache struct {
	given []*Request // given back by Release, zeroed, at most cachedGiven
	// colls are the collRequests of nonblocking collectives whose
	// Requests were given back, zeroed, at most cachedGiven
	// (newCollRequest).
	colls []*collRequest
	// batch is the fresh Requests; next, the next to hand out. A batch
	// stays reachable while any of its Requests is: 7 KiB at most for a
	// Request kept long.
	batch *[requestBatch]Request
	next  int
}

const (
	// requestBatch is how many fresh Requests a cache allocates at once.
	requestBatch = 32
	// cachedGiven bounds the Requests given back that a cache keeps.
	cachedGiven = 64
)

// newRequest returns a zero Request: one given back if the processor's
// cache has one, else a fresh one from its batch. A new batch is
// allocated with the goroutine unpinned, where the collector can stop
// it.
func newRequest() *Request {
	r := requestCaches.Pin().take()
	requestCaches.Unpin()
	if r == nil {
		b := new([requestBatch]Request)
		requestCaches.Pin().refill(b)
		requestCaches.Unpin()
		r = &b[0]
	}
	return r
}

// take returns a zero Request: the last given back, else the next fresh
// one; nil if there is neither.
func (c *requestCache) take() *Request {
	if n := len(c.given); n > 0 {
		r := c.given[n-1]
		c.given[n-1] = nil
		c.given = c.given[:n-1]
		return r
	}
	if c.batch == nil || c.next == requestBatch {
		return nil
	}
	r := &c.batch[c.next]
	c.next++
	return r
}

// refill makes b the cache's batch, its first Request already handed
// out. (The goroutine that found the cache empty may have moved to
// another processor, whose cache has fresh ones left: they go to the
// collector.)
func (c *requestCache) refill(b *[requestBatch]Request) { c.batch, c.next = b, 1 }

// newCollRequest returns a zero collRequest for a nonblocking
// collective: one that Release gave back with its Request on this
// processor, else a fresh one.
func newCollRequest() *collRequest {
	cr := requestCaches.Pin().takeColl()
	requestCaches.Unpin()
	if cr == nil {
		cr = new(collRequest)
	}
	return cr
}

// takeColl returns the last collRequest kept (keepColl), or nil.
func (c *requestCache) takeColl() *collRequest {
	n := len(c.colls)
	if n == 0 {
		return nil
	}
	cr := c.colls[n-1]
	c.colls[n-1] = nil
	c.colls = c.colls[:n-1]
	return cr
}

// give keeps r, zeroed, for a later take, if the cache has room.
func (c *requestCache) give(r *Request) {
	*r = Request{}
	if c.given == nil {
		c.given = make([]*Request, 0, cachedGiven)
	}
	if len(c.given) < cachedGiven {
		c.given = append(c.given, r)
	}
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
	c := requestCaches.Pin()
	if r.coll != nil {
		c.keepColl(r.coll)
	}
	c.give(r)
	requestCaches.Unpin()
	return nil
}

// keepColl keeps cr, zeroed, for a later newCollRequest, if nothing
// touches it any more (its run is over and the worker pool has let go of
// it: collRequest.retired, inPool) and the cache has room.
func (c *requestCache) keepColl(cr *collRequest) {
	if atomic.LoadUint32(&cr.retired) == 0 || atomic.LoadUint32(&cr.inPool) != 0 || len(c.colls) == cachedGiven {
		return
	}
	*cr = collRequest{}
	if c.colls == nil {
		c.colls = make([]*collRequest, 0, cachedGiven)
	}
	c.colls = append(c.colls, cr)
}
