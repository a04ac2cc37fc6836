package llc

import (
	"strings"
	"testing"
)

// Unsolicited messages need no posted receive: they are announced on the
// receiver's event queue in arrival order, next to completion
// notifications of operations that asked for them.
func TestUnsolicitedAndEventQueue(t *testing.T) {
	c := newCluster(t, 2, nil)
	var ops []Completion
	for i, n := range []int{0, 8, 100, 1024} {
		s := &SendOp{Peer: 1, Tag: int32(i), Data: pattern(i, n)}
		c.eng[0].Submit(Unsolicited{s})
		ops = append(ops, s)
	}
	notified := &SendOp{Peer: 1, Tag: 9, Data: pattern(9, 10), Notify: true}
	c.eng[0].Submit(notified)
	r := &RecvOp{Source: 0, Tag: 9, Buf: make([]byte, 10), Notify: true}
	c.eng[1].Submit(r)
	ops = append(ops, notified, r)
	c.wait(ops...)

	for i, n := range []int{0, 8, 100, 1024} {
		ev, ok := c.nextNote(1)
		if !ok || ev.Kind != NoteUnsolicited || ev.Source != 0 || ev.Tag != int32(i) || string(ev.Data) != string(pattern(i, n)) {
			t.Fatalf("event %d: %+v (ok %v), want unsolicited message of %d bytes with tag %d", i, ev, ok, n, i)
		}
		c.eng[1].Submit(ReleaseNote{ev})
	}
	if ev, ok := c.nextNote(1); !ok || ev.Kind != NoteRecvDone || ev.Recv != r {
		t.Fatalf("receiver's next event %+v (ok %v), want its receive's completion", ev, ok)
	}
	if _, ok := c.nextNote(1); ok {
		t.Fatal("receiver has more events than it should")
	}
	if ev, ok := c.nextNote(0); !ok || ev.Kind != NoteSendDone || ev.Send != notified {
		t.Fatalf("sender's event %+v (ok %v), want the notified send's completion", ev, ok)
	}
	if _, ok := c.nextNote(0); ok {
		t.Fatal("a send that did not ask for a notification got one")
	}
	checkRecv(t, "notified receive", r, 0, 9, pattern(9, 10))

	big := &SendOp{Peer: 1, Data: make([]byte, c.eng[0].Config().EagerLimit+1)}
	c.eng[0].Submit(Unsolicited{big})
	if !big.Done() || big.Err() == nil || !strings.Contains(big.Err().Error(), "eager limit") {
		t.Fatalf("oversized unsolicited send: done %v err %v", big.Done(), big.Err())
	}
}
