package llc

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// A read of a ring's consumer count says what the engine knows: the count
// it last read (Old), which it waits to see change (ReadChanged). A
// transport that holds the read until then (the martini network in
// virtual time) leaves the send waiting without further reads, however
// many polls pass, and the count it delivers resumes the sends.
func TestTailReadWaitsForChange(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM} {
		t.Run(eager.String(), func(t *testing.T) {
			c := newCluster(t, 2, func(i int, cfg *Config) { cfg.Eager = eager })
			var reads []Command
			c.hook = func(src int, cmd Command) (Event, bool) {
				if src != 0 || tokenKind(cmd) != tokTail {
					return Event{}, false
				}
				reads = append(reads, cmd)
				return Event{}, true // held: it completes later
			}
			c.connect(0, 1)
			c.paused[1] = true
			var sends []*SendOp
			for len(sends) == 0 || sends[len(sends)-1].Done() {
				sends = append(sends, c.send(0, 1, 1, 0, pattern(len(sends), 500)))
			}
			c.rounds(20)
			st := c.eng[0].State().Stats
			if len(reads) != 1 || st.TailReads != 1 || st.RingFull != 1 {
				t.Fatalf("after 20 rounds with the read held: %d reads issued, TailReads %d, RingFull %d", len(reads), st.TailReads, st.RingFull)
			}
			if c.eng[0].State().Retrying {
				t.Fatal("the engine retries while its read is held")
			}
			rd := reads[0]
			if rd.Kind != CmdRead || rd.Size != ReadChanged || rd.Old != 0 || len(rd.Data) != 8 || rd.Off != 0 {
				t.Fatalf("tail read %+v: want an 8-byte CmdRead of offset 0 with Size ReadChanged and Old 0 (the count not read yet)", rd)
			}
			// The receiver consumes; the held read then completes with the
			// new count, and the queued send goes.
			c.paused[1] = false
			var recvs []*RecvOp
			for i := range len(sends) - 1 {
				r := c.recv(1, 0, 1, 0, 500)
				c.wait(r)
				checkRecv(t, fmt.Sprint("message ", i), r, 0, 1, pattern(i, 500))
				recvs = append(recvs, r)
			}
			c.rounds(2) // the receiver publishes its count
			c.hook = nil
			c.deliver(0, rd)
			if got := binary.LittleEndian.Uint64(rd.Data); got == 0 {
				t.Fatal("the count did not change")
			}
			c.run("queued send written", func() bool { return sends[len(sends)-1].Done() })
			r := c.recv(1, 0, 1, 0, 500)
			c.wait(r)
			checkRecv(t, "the last message", r, 0, 1, pattern(len(sends)-1, 500))
			c.idle()
		})
	}
}
