package llc

import (
	"fmt"
	"testing"
)

// A transport may complete a command after Execute returns (TCP and
// InfiniBand do): on a network whose completions all come from a later
// poll, every eager transport and rendezvous variant still delivers
// every message, in order, and the engines end idle.
func TestLateCompletions(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		for _, rndv := range []RndvMode{RndvPull, RndvPush, RndvSplit} {
			t.Run(fmt.Sprintf("%v/%v", eager, rndv), func(t *testing.T) {
				net := newMemNet(2)
				net.late = true
				c := newClusterOn(t, net, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = rndv }))
				msgs, sends, _ := c.sendKeyed(300)
				c.receiveByKey(t, msgs, sends)
				c.noErrs()
				c.idle()
				if len(net.pending[0])+len(net.pending[1]) != 0 {
					t.Fatalf("completions left undelivered: %d and %d", len(net.pending[0]), len(net.pending[1]))
				}
			})
		}
	}
}

// With late completions an eager send into the queue completes only when
// its enqueue's completion arrives, not when Execute returns.
func TestLateEnqueueCompletion(t *testing.T) {
	net := newMemNet(2)
	net.late = true
	c := newClusterOn(t, net, withEager(EagerQueue, nil))
	s := c.send(0, 1, 3, 0, pattern(3, 40))
	if s.Done() {
		t.Fatal("the send completed before its enqueue's completion was delivered")
	}
	c.poll(0)
	checkSent(t, "send", s)
	r := c.recv(1, 0, 3, 0, 40)
	c.wait(r)
	checkRecv(t, "receive", r, 0, 3, pattern(3, 40))
}
