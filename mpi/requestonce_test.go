package mpi

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFinishOnce: goroutines that finish one request at once (Wait and
// Test of the same request) complete it once: its unpack runs once, the
// communicator counts it finished once, and every caller gets its result.
func TestFinishOnce(t *testing.T) {
	c := &Comm{}
	c.requestStarted()
	var unpacks atomic.Int32
	r := &Request{c: c, recv: true, pooled: true, harvested: 1, status: Status{Source: 3, Tag: 7, Count: 2}}
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
	for i, st := range sts {
		if st != r.status {
			t.Fatalf("caller %d got %+v, want %+v", i, st, r.status)
		}
	}
}

// freshRequest hands out zero Requests, each once, across its batches.
func TestFreshRequests(t *testing.T) {
	seen := make(map[*Request]bool)
	for i := range 5 * requestBatch {
		r := freshRequest()
		if seen[r] {
			t.Fatalf("request %d handed out twice", i)
		}
		if r.c != nil || r.recv || r.final != 0 || r.finishing != 0 {
			t.Fatalf("request %d not zero", i)
		}
		seen[r] = true
		r.recv, r.final = true, 1 // as a used one is
	}
}
