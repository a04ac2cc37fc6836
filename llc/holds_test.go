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
				c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = mode }))
				type held struct {
					eng int
					ctx uint32
					op  Completion
				}
				var ops []held
				check := func(what string) {
					t.Helper()
					for _, ctx := range []uint32{2, 4, 6, 8, 10} {
						for i := range c.eng {
							want := false
							for _, h := range ops {
								want = want || h.eng == i && h.ctx == ctx && !h.op.Done()
							}
							if got := c.eng[i].HoldsContext(ctx); got != want {
								t.Fatalf("%s: engine %d holds context %d: %v, want %v", what, i, ctx, got, want)
							}
						}
					}
				}
				check("nothing started")
				ops = append(ops, held{1, 2, c.recv(1, 0, 1, 2, 8)})
				check("a receive posted")
				ops = append(ops, held{0, 4, c.ssend(0, 1, 2, 4, pattern(1, 8))})
				c.rounds(20)
				check("a synchronous send unmatched")
				big := pattern(2, c.eng[0].Config().EagerLimit+1)
				ops = append(ops, held{0, 6, c.send(0, 1, 3, 6, big)})
				c.rounds(20)
				check("a rendezvous send unmatched")
				// A stream the paused receiver does not take: a ring fills
				// and the rest wait in the sender's queue (the receive
				// queue of EagerQueue holds them all).
				c.paused[1] = true
				var stream []*SendOp
				for k := range 64 {
					s := c.send(0, 1, 4, 8, pattern(k, 200))
					stream = append(stream, s)
					ops = append(ops, held{0, 8, s})
				}
				c.rounds(5)
				if eager != EagerQueue && stream[len(stream)-1].Done() {
					t.Fatal("every send of the stream done with the receiver paused")
				}
				check("sends queued behind a full ring")
				c.paused[1] = false
				var recvs []Completion
				for _, r := range []*RecvOp{c.recv(1, 0, 2, 4, 8), c.recv(1, 0, 3, 6, len(big))} {
					recvs = append(recvs, r)
					ops = append(ops, held{1, r.Ctx, r})
				}
				for range stream {
					r := c.recv(1, 0, 4, 8, 200)
					recvs = append(recvs, r)
					ops = append(ops, held{1, 8, r})
				}
				check("receives posted for all but the first")
				c.send(0, 1, 1, 2, pattern(3, 8))
				var all []Completion
				for _, h := range ops {
					all = append(all, h.op)
				}
				c.wait(append(all, recvs...)...)
				check("every operation done")
			})
		}
	}
}
