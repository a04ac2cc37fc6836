package llc

import (
	"fmt"
	"testing"
)

// HoldsContext reports an operation of a context for as long as it is not
// done, whichever state holds it (a receive posted, a synchronous send
// waiting for its match, a rendezvous send and its receive, sends queued
// behind a full ring), and nothing of a context with no such operation.
func TestHoldsContext(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%v/%v", eager, mode), func(t *testing.T) {
				h := &heldOps{c: newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = mode }))}
				h.check(t, "nothing started")
				big := h.startUnmatched(t)
				stream := h.startStream(t, eager)
				h.finish(t, big, stream)
			})
		}
	}
}

// heldOp is an operation of context ctx on engine eng.
type heldOp struct {
	eng int
	ctx uint32
	op  Completion
}

// heldOps is a cluster and the operations started on it.
type heldOps struct {
	c   *cluster
	ops []heldOp
}

// check wants each engine to hold each context for as long as one of its
// operations of that context is not done.
func (h *heldOps) check(t *testing.T, what string) {
	t.Helper()
	c := h.c
	for _, ctx := range []uint32{2, 4, 6, 8, 10} {
		for i := range c.eng {
			want := false
			for _, o := range h.ops {
				want = want || o.eng == i && o.ctx == ctx && !o.op.Done()
			}
			if got := c.eng[i].HoldsContext(ctx); got != want {
				t.Fatalf("%s: engine %d holds context %d: %v, want %v", what, i, ctx, got, want)
			}
		}
	}
}

// startUnmatched posts a receive, a synchronous send and a rendezvous
// send that nothing matches, and returns the rendezvous' data.
func (h *heldOps) startUnmatched(t *testing.T) []byte {
	t.Helper()
	c := h.c
	h.ops = append(h.ops, heldOp{1, 2, c.recv(1, 0, 1, 2, 8)})
	h.check(t, "a receive posted")
	h.ops = append(h.ops, heldOp{0, 4, c.ssend(0, 1, 2, 4, pattern(1, 8))})
	c.rounds(20)
	h.check(t, "a synchronous send unmatched")
	big := pattern(2, c.eng[0].Config().EagerLimit+1)
	h.ops = append(h.ops, heldOp{0, 6, c.send(0, 1, 3, 6, big)})
	c.rounds(20)
	h.check(t, "a rendezvous send unmatched")
	return big
}

// startStream sends a stream the paused receiver does not take: a ring
// fills and the rest wait in the sender's queue (the receive queue of
// EagerQueue holds them all).
func (h *heldOps) startStream(t *testing.T, eager EagerMode) []*SendOp {
	t.Helper()
	c := h.c
	c.paused[1] = true
	var stream []*SendOp
	for k := range 64 {
		s := c.send(0, 1, 4, 8, pattern(k, 200))
		stream = append(stream, s)
		h.ops = append(h.ops, heldOp{0, 8, s})
	}
	c.rounds(5)
	if eager != EagerQueue && stream[len(stream)-1].Done() {
		t.Fatal("every send of the stream done with the receiver paused")
	}
	h.check(t, "sends queued behind a full ring")
	return stream
}

// finish resumes the receiver, posts receives for all but the first
// receive's message, sends that, and waits for every operation.
func (h *heldOps) finish(t *testing.T, big []byte, stream []*SendOp) {
	t.Helper()
	c := h.c
	c.paused[1] = false
	var recvs []Completion
	for _, r := range []*RecvOp{c.recv(1, 0, 2, 4, 8), c.recv(1, 0, 3, 6, len(big))} {
		recvs = append(recvs, r)
		h.ops = append(h.ops, heldOp{1, r.Ctx, r})
	}
	for range stream {
		r := c.recv(1, 0, 4, 8, 200)
		recvs = append(recvs, r)
		h.ops = append(h.ops, heldOp{1, 8, r})
	}
	h.check(t, "receives posted for all but the first")
	c.send(0, 1, 1, 2, pattern(3, 8))
	var all []Completion
	for _, o := range h.ops {
		all = append(all, o.op)
	}
	c.wait(append(all, recvs...)...)
	h.check(t, "every operation done")
}
