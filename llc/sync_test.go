package llc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// ssend starts a synchronous send on engine i and issues its commands.
func (c *cluster) ssend(i, dst int, tag int32, ctx uint32, data []byte) *SendOp {
	op := &SendOp{Peer: dst, Tag: tag, Ctx: ctx, Data: data, Sync: true}
	c.eng[i].Submit(op)
	c.drain(i)
	return op
}

// A synchronous send of any size, on every eager transport and rendezvous
// variant, does not complete while its message waits unmatched at the
// receiver, and completes once a receive matches it.
func TestSyncSendWaitsForReceive(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		for _, mode := range modes {
			for _, size := range []int{0, 8, 100, 1024, 1025, 300 << 10} {
				t.Run(fmt.Sprintf("%v/%v/%d", eager, mode, size), func(t *testing.T) {
					c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = mode }))
					data := pattern(size, size)
					s := c.ssend(0, 1, 5, 0, data)
					c.run("message arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 5, 0); return ok })
					c.rounds(50)
					if s.Done() {
						t.Fatal("synchronous send completed before a receive matched it")
					}
					if got := c.eng[1].State().Unreceived; len(got) != 1 || got[0].Length != size {
						t.Fatalf("unreceived messages %+v, want the %d-byte one", got, size)
					}
					r := c.recv(1, 0, 5, 0, size)
					c.wait(s, r)
					checkSent(t, "ssend", s)
					checkRecv(t, "recv", r, 0, 5, data)
					c.noErrs()
					c.idle()
				})
			}
		}
	}
}

// A synchronous eager send to a posted receive completes once the
// receiver's acknowledgement has been delivered, and not before: the
// receiver's commands are held and delivered by the test.
func TestSyncSendAckScripted(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.connect(0, 1)
	c.connect(1, 0)
	r := c.recv(1, 0, 9, 0, 16)
	c.hold[1] = true
	s := c.ssend(0, 1, 9, 0, pattern(1, 16))
	c.run("delivered", r.Done)
	checkRecv(t, "recv", r, 0, 9, pattern(1, 16))
	held := c.take(1)
	acks := 0
	for _, cmd := range held {
		if (traced{1, cmd}).recKind() == recSyncAck {
			acks++
		}
	}
	if acks != 1 {
		t.Fatalf("receiver issued %d acknowledgements, want 1 (held: %v)", acks, held)
	}
	c.rounds(50)
	if s.Done() {
		t.Fatal("synchronous send completed before its acknowledgement was written")
	}
	c.hold[1] = false
	for _, cmd := range held {
		c.deliver(1, cmd)
	}
	c.wait(s)
	checkSent(t, "ssend", s)
	if st := c.eng[1].State().Stats; st.ControlSent != 1 {
		t.Fatalf("receiver sent %d control records, want the acknowledgement only", st.ControlSent)
	}
	c.idle()
}

// Ordinary eager sends carry no flag and draw no acknowledgement.
func TestStandardSendNoAck(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.connect(0, 1)
	before := c.eng[1].State().Stats.ControlSent
	s := c.send(0, 1, 1, 0, pattern(2, 8))
	checkSent(t, "send", s)
	r := c.recv(1, 0, 1, 0, 8)
	c.wait(r)
	c.idle()
	if got := c.eng[1].State().Stats.ControlSent; got != before {
		t.Fatalf("receiver sent %d control records for a standard send", got-before)
	}
}

// Synchronous sends to self complete when received.
func TestSyncSendToSelf(t *testing.T) {
	c := newCluster(t, 1, nil)
	s := c.ssend(0, 0, 1, 0, pattern(3, 10))
	c.rounds(20)
	if s.Done() {
		t.Fatal("synchronous send to self completed before its receive")
	}
	r := c.recv(0, 0, 1, 0, 10)
	c.wait(s, r)
	checkRecv(t, "recv", r, 0, 1, pattern(3, 10))
	c.idle()
}

// A synchronous send waiting for its acknowledgement completes with the
// engine's error when the engine fails, and keeps it from being idle
// until then.
func TestSyncSendFail(t *testing.T) {
	c := newCluster(t, 2, nil)
	s := c.ssend(0, 1, 1, 0, pattern(4, 10))
	c.run("arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 1, 0); return ok })
	if c.eng[0].State().Idle {
		t.Fatal("sender idle while its synchronous send waits")
	}
	c.eng[0].Step(&Event{Kind: EvError, Err: errInjected})
	if !s.Done() || !errors.Is(s.Err(), errInjected) {
		t.Fatalf("send done=%v err=%v, want the injected error", s.Done(), s.Err())
	}
	if len(c.eng[0].syncSends) != 0 {
		t.Fatal("failed engine still holds the synchronous send")
	}
}

// An acknowledgement for a send the engine does not know is corrupt.
func TestSyncAckUnknown(t *testing.T) {
	c := newCluster(t, 2, nil)
	var head [recMeta]byte
	m := meta{kind: recSyncAck, aux: 42}
	m.put(head[:])
	c.eng[0].Step(&Event{Kind: EvRecord, Peer: 1, Head: head[:]})
	if err := c.eng[0].State().Err; err == nil || !strings.Contains(err.Error(), "unknown synchronous send 42") {
		t.Fatalf("engine error %v, want one naming the unknown send", err)
	}
}
