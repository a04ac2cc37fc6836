package llc

import (
	"errors"
	"testing"
)

// pending is a set of operations of engine 0 that are in flight.
type pending struct {
	posted   *RecvOp   // posted receive, never matched
	rndvSend *SendOp   // rendezvous send waiting for FIN
	queued   []*SendOp // eager sends behind a full ring
	all      []Completion
}

// setupPending connects 0<->1 and 0->2 and leaves engine 0 with
// operations of every kind in flight; engine 1 is paused.
func setupPending(t *testing.T, c *cluster) *pending {
	t.Helper()
	c.connect(0, 1)
	c.connect(1, 0)
	c.connect(0, 2)
	p := &pending{}
	p.posted = c.recv(0, 2, 9, 0, 8)
	p.rndvSend = c.send(0, 1, 10, 0, pattern(1, 5000))
	c.run("RTS arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 10, 0); return ok })
	c.paused[1] = true
	for i := 0; len(p.queued) < 5; i++ {
		if i > 100 {
			t.Fatal("the ring never filled")
		}
		if s := c.send(0, 1, 11, 0, pattern(i, 100)); !s.Done() {
			p.queued = append(p.queued, s)
		}
	}
	c.rounds(3)
	p.all = []Completion{p.posted, p.rndvSend}
	for _, s := range p.queued {
		p.all = append(p.all, s)
	}
	for i, op := range p.all {
		if op.Done() {
			t.Fatalf("operation %d done before the failure", i)
		}
	}
	return p
}

func opErr(op Completion) error {
	switch op := op.(type) {
	case *SendOp:
		return op.Err()
	case *RecvOp:
		return op.Err()
	}
	return nil
}

// A failed command without a token stops the engine; every pending
// operation completes with the error.
func TestFatalError(t *testing.T) {
	tests := []struct {
		name    string
		trigger func(c *cluster)
	}{
		{"scripted event", func(c *cluster) {
			c.eng[0].Step(&Event{Kind: EvError, Err: errInjected})
		}},
		{"record write fails", func(c *cluster) {
			c.hook, _ = failCmd(func(src int, cmd Command) bool { return src == 0 && cmd.Kind == CmdWrite && cmd.Peer == 2 })
			c.send(0, 2, 1, 0, nil)
		}},
		{"consumer count read fails", func(c *cluster) {
			c.hook, _ = failCmd(func(src int, cmd Command) bool { return src == 0 && tokenKind(cmd) == tokTail })
			c.poll(0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, 3, nil)
			p := setupPending(t, c)
			tt.trigger(c)
			e := c.eng[0]
			if !errors.Is(e.State().Err, errInjected) {
				t.Fatalf("engine error %v", e.State().Err)
			}
			for i, op := range p.all {
				if !op.Done() || !errors.Is(opErr(op), errInjected) {
					t.Fatalf("operation %d: done %v err %v", i, op.Done(), opErr(op))
				}
			}
			checkStopped(t, c, 0)
			// The other engines are not affected.
			c.paused[1] = false
			c.hook = nil
			s := c.send(1, 2, 1, 0, pattern(1, 10))
			r := c.recv(2, 1, 1, 0, 10)
			c.wait(s, r)
			checkRecv(t, "1 to 2", r, 1, 1, pattern(1, 10))
			if c.eng[1].State().Err != nil || c.eng[2].State().Err != nil {
				t.Fatalf("other engines failed: %v", c.errs())
			}
		})
	}
}

// checkStopped checks that failed engine i holds nothing and completes new
// operations at once with its error.
func checkStopped(t *testing.T, c *cluster, i int) {
	t.Helper()
	e := c.eng[i]
	c.drain(i)
	if e.Poll() || e.sched.len() != 0 {
		t.Fatal("a failed engine still works")
	}
	if !e.State().Idle {
		t.Fatalf("failed engine not idle: blocked %d, %d sends, %d receives",
			e.blocked, len(e.rndvSends), len(e.rndvRecvs))
	}
	s := &SendOp{Peer: 1, Data: []byte("x")}
	e.Submit(s)
	r := &RecvOp{Source: 1, Buf: make([]byte, 1)}
	e.Submit(r)
	if !s.Done() || s.Err() != e.State().Err || !r.Done() || r.Err() != e.State().Err {
		t.Fatalf("operations on a failed engine: %v %v", s.Err(), r.Err())
	}
	if e.sched.len() != 0 {
		t.Fatal("a failed engine emitted commands")
	}
}

// Completions that arrive after the engine failed change nothing: the
// operations keep the engine's error, and no command is emitted.
func TestFailIgnoresLateEvents(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := newCluster(t, 3, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
			c.connect(0, 1)
			c.connect(1, 0)
			// A rendezvous receive whose read (pull) or registration (push)
			// is in flight, and a connection whose CAS is in flight.
			c.send(1, 0, 11, 0, pattern(1, 5000))
			c.run("RTS arrived", func() bool { _, ok := probeOn(c.eng[0], 1, 11, 0); return ok })
			c.hold[0] = true
			r := c.recv(0, 1, 11, 0, 5000)
			sc := c.send(0, 2, 1, 0, pattern(2, 10))
			// A rendezvous send whose registration (pull) is in flight.
			sr := c.send(0, 1, 12, 0, pattern(3, 6000))
			held := c.take(0)
			if len(held) < 2 {
				t.Fatalf("held %d commands", len(held))
			}
			c.hold[0] = false
			c.eng[0].Step(&Event{Kind: EvError, Err: errInjected})
			for i, op := range []Completion{r, sc, sr} {
				if !op.Done() || !errors.Is(opErr(op), errInjected) {
					t.Fatalf("op %d: done %v err %v", i, op.Done(), opErr(op))
				}
			}
			for _, cmd := range held {
				c.deliver(0, cmd)
			}
			for i, op := range []Completion{r, sc, sr} {
				if !errors.Is(opErr(op), errInjected) {
					t.Fatalf("op %d: error became %v after a late completion", i, opErr(op))
				}
			}
			checkStopped(t, c, 0)
		})
	}
}

// An error on a command whose continuation is per peer does not touch
// the pending operations of other peers.
func TestRingAllocError(t *testing.T) {
	c := newCluster(t, 3, nil)
	hook, n := failCmd(func(src int, cmd Command) bool { return src == 2 && cmd.Kind == CmdAlloc })
	c.hook = hook
	s0 := c.send(0, 2, 1, 0, pattern(1, 10))
	c.wait(s0)
	if *n != 1 || !errors.Is(s0.Err(), ErrNoRing) {
		t.Fatalf("send after a failed allocation: %v (failed %d)", s0.Err(), *n)
	}
	// The memory was given back: another sender gets a ring.
	s1 := c.send(1, 2, 1, 0, pattern(2, 10))
	r := c.recv(2, 1, 1, 0, 10)
	c.wait(s1, r)
	checkRecv(t, "second sender", r, 1, 1, pattern(2, 10))
	if st := c.eng[2].State().Stats; st.RingsGranted != 1 {
		t.Fatalf("RingsGranted %d", st.RingsGranted)
	}
	if c.eng[2].granted != ringCtl+4096 {
		t.Fatalf("granted %d", c.eng[2].granted)
	}
	c.noErrs()
	c.idle()
}
