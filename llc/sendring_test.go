package llc

import (
	"bytes"
	"fmt"
	"testing"
)

// TestSendRing checks the ring's fast path against send's way: for every
// size it takes, with the pair's line absent or busy, sendRing issues the
// command that writeRecord issues for the same send, byte for byte, and
// the message arrives whole.
func TestSendRing(t *testing.T) {
	const packed = 1152
	limit := packedBody(packed)
	for _, lines := range []bool{false, true} {
		for _, n := range []int{0, 1, 8, 31, recInline, recInline + 1, 64, 100, 1000, limit} {
			t.Run(fmt.Sprintf("lines=%v/%d", lines, n), func(t *testing.T) {
				var got [2][]traced
				for k, fast := range []bool{true, false} {
					c := newCluster(t, 2, func(_ int, cfg *Config) {
						cfg.PackedRecords, cfg.EagerLimit, cfg.SharedLines = packed, 1536, lines
					})
					c.connect(0, 1)
					c.connect(1, 0)
					if lines {
						// A message in the line, not acknowledged: the line is busy.
						c.send(0, 1, 1, 7, []byte{1})
					}
					data := pattern(n, n)
					op := &SendOp{Peer: 1, Tag: 2, Ctx: 7, Data: data}
					c.tracing = true
					if fast {
						if !c.eng[0].sendRing(op) {
							t.Fatalf("sendRing refused %d bytes", n)
						}
					} else {
						c.eng[0].send(op, false)
					}
					c.drain(0)
					c.tracing = false
					got[k] = c.trace
					checkSent(t, "send", op)
					if lines {
						r := c.recv(1, 0, 1, 7, 1)
						c.wait(r)
						checkRecv(t, "line", r, 0, 1, []byte{1})
					}
					r := c.recv(1, 0, 2, 7, n)
					c.wait(r)
					checkRecv(t, "ring", r, 0, 2, data)
					c.noErrs()
				}
				if len(got[0]) != 1 || len(got[1]) != 1 || !sameWrite(&got[0][0].Command, &got[1][0].Command) {
					t.Fatalf("sendRing issued %v, send's way %v", got[0], got[1])
				}
			})
		}
	}
}

// TestSendRingRefuses checks that sendRing leaves to send's way, having
// changed nothing, what it does not cover: a synchronous send, one above
// its limit, one whose record needs a wrap marker first, one the line
// takes, and every send once the engine has failed.
func TestSendRingRefuses(t *testing.T) {
	c := lineCluster(t, 2, 256) // 4 cells
	c.connect(0, 1)
	c.connect(1, 0)
	e := c.eng[0]
	refused := func(what string, op *SendOp) {
		t.Helper()
		before := e.peers[1].out
		if e.sendRing(op) || op.Done() || e.peers[1].out != before {
			t.Errorf("%s: sendRing took it (done %v), or changed the ring: %+v, was %+v", what, op.Done(), e.peers[1].out, before)
		}
	}
	refused("the line's", &SendOp{Peer: 1, Data: make([]byte, 8)})
	c.send(0, 1, 1, 7, []byte{1}) // the line is busy from here
	refused("synchronous", &SendOp{Peer: 1, Data: make([]byte, 8), Sync: true})
	refused("above the limit", &SendOp{Peer: 1, Data: make([]byte, e.ringLimit+1)})
	refused("no such process", &SendOp{Peer: 2, Data: make([]byte, 8)})
	for e.peers[1].out.head&(e.peers[1].out.size-1) != 3*cell {
		if !e.sendRing(&SendOp{Peer: 1, Data: make([]byte, 8)}) {
			t.Fatal("sendRing refused a cell in an empty ring")
		}
		c.drain(0)
	}
	refused("a wrap first", &SendOp{Peer: 1, Data: make([]byte, recInline+1)})
	e.fail(fmt.Errorf("test"))
	refused("failed", &SendOp{Peer: 1, Data: make([]byte, 8)})
}

// sameWrite reports whether two CmdWrites write the same bytes to the
// same place.
func sameWrite(a, b *Command) bool {
	return a.Kind == b.Kind && a.Peer == b.Peer && a.Region == b.Region && a.Off == b.Off &&
		bytes.Equal(a.Head[:a.HeadLen], b.Head[:b.HeadLen]) && bytes.Equal(a.Data, b.Data) &&
		a.Signal == b.Signal && a.SigOff == b.SigOff && a.Token == b.Token
}
