package llc

import (
	"fmt"
	"testing"
)

// A send that waits for its connection can be cancelled, eager or
// rendezvous: it never reaches the receiver, and the engines end idle.
func TestCancelQueuedSend(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerQueue} {
		for _, size := range []int{8, 5000} {
			for _, sync := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%d/sync=%v", eager, size, sync), func(t *testing.T) {
					c := newCluster(t, 2, withEager(eager, nil))
					c.hold[0] = true // the connection (or enqueue) does not happen yet
					s := &SendOp{Peer: 1, Tag: 3, Data: pattern(1, size), Sync: sync}
					c.eng[0].Submit(s)
					c.drain(0)
					if eager == EagerQueue && size <= 1024 {
						// Its enqueue is in flight: too late.
						if cancelSendOn(c.eng[0], s) {
							t.Fatal("cancelled a send whose record is being enqueued")
						}
						return
					}
					if !cancelSendOn(c.eng[0], s) || !s.Done() || !s.Cancelled() || s.Err() != nil {
						t.Fatalf("CancelSend: done=%v cancelled=%v err=%v", s.Done(), s.Cancelled(), s.Err())
					}
					if cancelSendOn(c.eng[0], s) {
						t.Fatal("cancelled a send twice")
					}
					c.hold[0] = false
					for _, cmd := range c.take(0) {
						c.deliver(0, cmd)
					}
					later := c.send(0, 1, 4, 0, pattern(2, 8))
					r := c.recv(1, 0, AnyTag, 0, size)
					c.wait(later, r)
					checkRecv(t, "the next message", r, 0, 4, pattern(2, 8))
					if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); ok {
						t.Fatal("the cancelled message arrived")
					}
					c.noErrs()
					c.idle()
				})
			}
		}
	}
}

// A message that has left cannot be cancelled.
func TestCancelSentSend(t *testing.T) {
	c := newCluster(t, 2, nil)
	s := c.send(0, 1, 1, 0, pattern(1, 8))
	c.wait(s)
	if cancelSendOn(c.eng[0], s) || s.Cancelled() {
		t.Fatal("cancelled a completed send")
	}
	ss := c.ssend(0, 1, 2, 0, pattern(2, 8))
	c.run("arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 2, 0); return ok })
	if cancelSendOn(c.eng[0], ss) || ss.Done() {
		t.Fatal("cancelled a synchronous send whose message has left")
	}
	r := c.recv(1, 0, AnyTag, 0, 8)
	r2 := c.recv(1, 0, AnyTag, 0, 8)
	c.wait(ss, r, r2)
	c.idle()
}

// A cancelled send op started again (a persistent request) is not
// cancelled any more, and its message is delivered.
func TestCancelledSendReused(t *testing.T) {
	c := newCluster(t, 2, nil)
	s := &SendOp{Peer: 1, Tag: 3, Data: pattern(1, 8)}
	cancelBeforeConnecting(t, c, s, nil)
	c.eng[0].Submit(s)
	c.drain(0)
	r := c.recv(1, 0, 3, 0, 8)
	c.wait(s, r)
	if s.Cancelled() {
		t.Fatal("the send started again still reports Cancelled")
	}
	checkRecv(t, "recv", r, 0, 3, pattern(1, 8))
	c.idle()
}

// A cancelled send's op may be reused at once: reset and sent again (as
// a pool of ops does), it leaves once, and the place it had in the queue
// sends nothing.
func TestCancelledSendRecycled(t *testing.T) {
	for _, size := range []int{8, 5000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := newCluster(t, 2, nil)
			s := &SendOp{Peer: 1, Tag: 3, Data: pattern(1, size)}
			cancelBeforeConnecting(t, c, s, func() { *s = SendOp{} }) // recycled, as mpi's pool does
			*s = SendOp{Peer: 1, Tag: 4, Data: pattern(2, size)}
			c.eng[0].Submit(s)
			r := c.recv(1, 0, AnyTag, 0, size)
			c.wait(s, r)
			checkRecv(t, "the reused op's message", r, 0, 4, pattern(2, size))
			c.rounds(20)
			if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); ok {
				t.Fatal("a second message arrived: the cancelled place in the queue was sent")
			}
			c.noErrs()
			c.idle()
		})
	}
}

// cancelBeforeConnecting starts s from process 0 while its connection is
// held back, cancels it, calls then (if not nil), and lets the connection
// happen.
func cancelBeforeConnecting(t *testing.T, c *cluster, s *SendOp, then func()) {
	t.Helper()
	c.hold[0] = true
	c.eng[0].Submit(s)
	c.drain(0)
	if !cancelSendOn(c.eng[0], s) {
		t.Fatal("CancelSend of a send waiting for its connection failed")
	}
	if then != nil {
		then()
	}
	c.hold[0] = false
	for _, cmd := range c.take(0) {
		c.deliver(0, cmd)
	}
}
