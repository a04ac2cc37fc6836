package llc

import (
	"fmt"
	"testing"
)

// A rendezvous send whose RTS waits at the receiver, unmatched, is
// withdrawn: the receiver forgets it, the sender releases its buffer and
// completes Cancelled, and later messages flow as before.
func TestWithdrawUnmatched(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		for _, mode := range []RndvMode{RndvPull, RndvPush, RndvSplit} {
			t.Run(fmt.Sprintf("%v/%v", eager, mode), func(t *testing.T) {
				c := newPair(t, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = mode }))
				regions := c.net.regions(0)
				s := c.send(0, 1, 3, 0, pattern(1, 5000))
				c.run("the RTS arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 3, 0); return ok })
				if withdrawSendOn(c.eng[0], s) {
					t.Fatal("a withdrawn send done before the receiver answered")
				}
				if withdrawSendOn(c.eng[0], s) {
					t.Fatal("a second withdrawal completed the send")
				}
				c.run("the withdrawal answered", s.Done)
				if !s.Cancelled() || s.Err() != nil {
					t.Fatalf("withdrawn send: cancelled %v, error %v", s.Cancelled(), s.Err())
				}
				if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); ok {
					t.Fatal("the receiver still holds the withdrawn message")
				}
				if got := c.eng[0].State().Stats.Withdrawn; got != 1 {
					t.Errorf("Withdrawn = %d, want 1", got)
				}
				later := c.send(0, 1, 4, 0, pattern(2, 5000))
				r := c.recv(1, 0, AnyTag, 0, 5000)
				c.wait(later, r)
				checkRecv(t, "the next message", r, 0, 4, pattern(2, 5000))
				c.noErrs()
				c.idle()
				if got := c.net.regions(0); got != regions {
					t.Errorf("the sender has %d regions registered, %d before", got, regions)
				}
			})
		}
	}
}

// A rendezvous send already matched when its withdrawal arrives goes on:
// the receiver gets the data and the send completes, not Cancelled. One
// not yet sent (its connection pending) is cancelled at once.
func TestWithdrawMatchedOrQueued(t *testing.T) {
	for _, mode := range []RndvMode{RndvPull, RndvPush, RndvSplit} {
		t.Run(mode.String(), func(t *testing.T) {
			c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
			r := c.recv(1, 0, 3, 0, 5000)
			s := c.send(0, 1, 3, 0, pattern(1, 5000))
			c.poll(1) // the receiver matches the RTS
			withdrawSendOn(c.eng[0], s)
			c.wait(s, r)
			if s.Cancelled() || s.Err() != nil {
				t.Fatalf("matched send: cancelled %v, error %v", s.Cancelled(), s.Err())
			}
			checkRecv(t, "the matched message", r, 0, 3, pattern(1, 5000))
			c.noErrs()
			c.idle()
		})
	}
	c := newCluster(t, 2, nil)
	c.hold[0] = true
	s := &SendOp{Peer: 1, Tag: 3, Data: pattern(1, 5000)}
	c.eng[0].Submit(s)
	c.drain(0)
	if !withdrawSendOn(c.eng[0], s) || !s.Cancelled() {
		t.Fatalf("withdrawing a send not yet sent: done %v, cancelled %v", s.Done(), s.Cancelled())
	}
}
