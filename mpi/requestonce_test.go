package mpi

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// TestFinishOnce: goroutines that finish one request at once (Wait and
// Test of the same request) complete it once: its unpack runs once, the
// communicator counts it finished once, and every caller gets its result.
// The request is a counted receive (not pooled) left to finish to
// complete, as a nonblocking collective's or a one-sided one's is (a
// pooled one completes in Done, under the endpoint's lock); its slow
// unpack holds the others in the window.
func TestFinishOnce(t *testing.T) {
	c := &Comm{}
	c.requestStarted()
	var unpacks atomic.Int32
	op := &llc.RecvOp{Buf: make([]byte, 16), Status: llc.Status{Source: 3, Tag: 7, Len: 16}}
	r := &Request{c: c, recv: true, rop: op, elem: 8, harvested: 1}
	r.unpack = func(Status) {
		unpacks.Add(1)
		time.Sleep(10 * time.Millisecond) // the others reach finish meanwhile
	}
	const callers = 8
	sts := make([]Status, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { sts[i], _ = r.finish() })
	}
	wg.Wait()
	if n := unpacks.Load(); n != 1 {
		t.Fatalf("unpack ran %d times", n)
	}
	if n := c.pending.Load(); n != 0 {
		t.Fatalf("the communicator counts %d requests pending", n)
	}
	if want := (Status{Source: 3, Tag: 7, Count: 2, Bytes: 16}); r.status != want {
		t.Fatalf("status %+v, want %+v", r.status, want)
	}
	for i, st := range sts {
		if st != r.status {
			t.Fatalf("caller %d got %+v, want %+v", i, st, r.status)
		}
	}
}

// A processor's cache hands out zero Requests, each once, across its
// batches of fresh ones; one given back comes out again, zeroed, before
// any fresh one; and it keeps at most cachedGiven.
func TestRequestCache(t *testing.T) {
	var c requestCache
	// take is newRequest's on c: a new batch when c has no Request.
	take := func() *Request {
		r := c.take()
		if r == nil {
			b := new([requestBatch]Request)
			c.refill(b)
			r = &b[0]
		}
		return r
	}
	seen := make(map[*Request]bool)
	var all []*Request
	for i := range 5 * requestBatch {
		r := take()
		if seen[r] {
			t.Fatalf("request %d handed out twice", i)
		}
		if !zeroRequest(r) {
			t.Fatalf("request %d not zero", i)
		}
		seen[r] = true
		all = append(all, r)
		r.recv, r.final, r.peer = true, 1, 3 // as a completed one is
	}
	c.give(all[7])
	c.give(all[40])
	for _, want := range []*Request{all[40], all[7]} {
		if r := c.take(); r != want || !zeroRequest(r) {
			t.Fatalf("took %p (zero: %v), want %p given back", r, zeroRequest(r), want)
		}
	}
	if r := take(); seen[r] {
		t.Fatal("a Request handed out twice once those given back were taken")
	}
	for _, r := range all[:2*cachedGiven] {
		c.give(r)
	}
	if len(c.given) != cachedGiven {
		t.Fatalf("the cache keeps %d Requests given back, want %d", len(c.given), cachedGiven)
	}
}

// zeroRequest reports whether r is a zero Request, as far as the fields
// that a completed request sets go.
func zeroRequest(r *Request) bool {
	return r.c == nil && r.peer == 0 && !r.recv && !r.pooled && r.final == 0 && r.harvested == 0 &&
		r.finishing == 0 && r.sop == nil && r.rop == nil && r.status == (Status{}) && r.err == nil
}

// A processor's cache keeps the collRequest of a nonblocking collective
// whose run is over (retired) and which the worker pool has let go of
// (inPool clear), zeroed, for the next one, and at most cachedGiven; not
// one still being completed (its runner may yet touch it), nor one the
// pool holds (a worker may yet take it from its queue).
func TestCollRequestCache(t *testing.T) {
	var c requestCache
	used := func(queued, retired, inPool bool) *collRequest {
		cr := &collRequest{queued: queued, op: "Ibcast", tag: 9, err: ErrRequest}
		cr.done.Store(true)
		if retired {
			cr.retired = 1
		}
		if inPool {
			cr.inPool = 1
		}
		return cr
	}
	c.keepColl(used(true, false, false))
	c.keepColl(used(false, true, true))
	if cr := c.takeColl(); cr != nil {
		t.Fatalf("kept %+v: not retired, or held by the pool", cr)
	}
	for _, queued := range []bool{true, false} {
		kept := used(queued, true, false)
		c.keepColl(kept)
		if cr := c.takeColl(); cr != kept || cr.queued || cr.done.Load() || cr.retired != 0 || cr.op != "" || cr.err != nil || cr.tag != 0 {
			t.Fatalf("took %p (%+v), want %p kept (queued %v), zeroed", cr, cr, kept, queued)
		}
	}
	if cr := c.takeColl(); cr != nil {
		t.Fatal("a collRequest taken twice")
	}
	for range 2 * cachedGiven {
		c.keepColl(used(true, true, false))
	}
	if len(c.colls) != cachedGiven {
		t.Fatalf("the cache keeps %d collRequests, want %d", len(c.colls), cachedGiven)
	}
}
