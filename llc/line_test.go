package llc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc/layout"
)

// lineCluster is a cluster of n engines with shared lines and rings of
// ringSize bytes.
func lineCluster(t *testing.T, n, ringSize int) *cluster {
	t.Helper()
	return newCluster(t, n, func(_ int, cfg *Config) {
		cfg.SharedLines = true
		cfg.RingSize = ringSize
		cfg.EagerLimit = min(cfg.EagerLimit, MaxEagerLimit(ringSize))
	})
}

// TestLineSetup checks where the pair's line lies: in the ring that the
// lower-numbered process grants, each process watching the other's half,
// the higher-numbered one in its peer's memory.
func TestLineSetup(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.tracing = true
	c.connect(1, 0) // process 0 grants process 1 a ring: the line's
	c.connect(0, 1)
	var watches []Command
	for _, tr := range c.trace {
		if tr.Kind == CmdWatchLine {
			watches = append(watches, tr.Command)
			if tr.src == 0 && (tr.Peer != 1 || tr.Off != ringLine+LineHalf || tr.Size != 0) ||
				tr.src == 1 && (tr.Peer != 0 || tr.Off != ringLine || tr.Size != LineInPeer) {
				t.Errorf("process %d: %v of process %d at %d (size %d)", tr.src, tr.Kind, tr.Peer, tr.Off, tr.Size)
			}
		}
	}
	if len(watches) != 2 || watches[0].Region != watches[1].Region {
		t.Fatalf("line watches %+v, want one by each process of one region", watches)
	}
	if l := c.eng[1].peers[0].line; !l.ok || l.inPeer != LineInPeer || l.region != watches[0].Region || l.out != ringLine+LineHalf {
		t.Fatalf("process 1's line %+v", l)
	}
}

// TestLinePingPong runs small messages both ways, one at a time: after
// the connections, every one goes through the line, in order, and the
// ring's accounting (wrap markers included) stays right, past the 256
// records at which the byte of the acknowledgement in the signal wraps.
func TestLinePingPong(t *testing.T) {
	c := lineCluster(t, 2, 256) // 4 cells: a wrap every few messages
	c.connect(0, 1)
	c.connect(1, 0)
	before := [2]uint64{c.eng[0].State().Stats.LineSent, c.eng[1].State().Stats.LineSent}
	const rounds = 600
	for i := range rounds {
		for _, dir := range [][2]int{{0, 1}, {1, 0}} {
			data := pattern(i*2+dir[0], i%(min(lineBody, c.eng[0].cfg.EagerLimit)+1))
			r := c.recv(dir[1], dir[0], int32(i), 7, lineBody)
			s := c.send(dir[0], dir[1], int32(i), 7, data)
			c.wait(s, r)
			checkSent(t, "send", s)
			checkRecv(t, "round", r, dir[0], int32(i), data)
		}
	}
	c.noErrs()
	for p := range 2 {
		if st := c.eng[p].State().Stats; st.LineSent-before[p] != rounds || st.LineAcks != 0 {
			t.Errorf("process %d: %d line records, %d acks alone; want %d and 0", p, st.LineSent-before[p], st.LineAcks, rounds)
		}
	}
}

// TestLineMixedOrder sends bursts that mix line-sized messages, larger
// ones and synchronous ones (which the line does not carry) before the
// receiver looks: they arrive in the order sent, whichever way each took.
func TestLineMixedOrder(t *testing.T) {
	c := lineCluster(t, 2, 1024)
	c.connect(0, 1)
	c.connect(1, 0)
	var sends []*SendOp
	var want [][]byte
	for i := range 40 {
		n := []int{0, 3, 8, 9, 40, 200}[i%6]
		data := pattern(100+i, n)
		op := &SendOp{Peer: 1, Tag: 3, Ctx: 1, Data: data, Sync: i%7 == 3}
		c.eng[0].Submit(op)
		c.drain(0)
		sends = append(sends, op)
		want = append(want, data)
		if i%5 == 4 {
			c.poll(1) // the receiver consumes some, and says so in its line
			r := c.recv(0, 1, 99, 1, 0)
			s := c.send(1, 0, 99, 1, nil)
			c.wait(r, s)
		}
	}
	for _, data := range want {
		r := c.recv(1, 0, 3, 1, 256)
		c.wait(r)
		checkRecv(t, "message", r, 0, 3, data)
	}
	for _, s := range sends {
		c.wait(s)
		checkSent(t, "send", s)
	}
	c.noErrs()
	if st := c.eng[0].State().Stats; st.LineSent < 2 {
		t.Fatalf("%d line records: the mix never used the line", st.LineSent)
	}
}

// TestLineCrossed has both processes write into the line before either
// reads: each then acknowledges the other's record alone, and the next
// messages travel through the line again.
func TestLineCrossed(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0) // through the line: process 0 consumed it
	// Process 1 learns so, as process 0's next line record would tell
	// it: both halves are free.
	l1 := &c.eng[1].peers[0].line
	if l1.sent != 1 || c.eng[0].peers[1].line.recv != 1 {
		t.Fatalf("the connection's message: %d line records sent, %d consumed", l1.sent, c.eng[0].peers[1].line.recv)
	}
	l1.acked = l1.sent
	s0 := c.send(0, 1, 1, 0, pattern(1, 8))
	s1 := c.send(1, 0, 1, 0, pattern(2, 8))
	s0b := c.send(0, 1, 2, 0, pattern(3, 8)) // the line waits: by the ring
	r1 := c.recv(1, 0, 1, 0, 8)
	r1b := c.recv(1, 0, 2, 0, 8)
	r0 := c.recv(0, 1, 1, 0, 8)
	c.wait(s0, s1, s0b, r1, r1b, r0)
	checkRecv(t, "0 to 1", r1, 0, 1, pattern(1, 8))
	checkRecv(t, "0 to 1, second", r1b, 0, 2, pattern(3, 8))
	checkRecv(t, "1 to 0", r0, 1, 1, pattern(2, 8))
	st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
	if st0.LineAcks+st1.LineAcks == 0 {
		t.Fatal("no acknowledgement alone after crossed line records")
	}
	// One of the two learnt from the other's acknowledgement alone that
	// its half is free, and the other learns it from that one's next
	// record: a ping-pong goes through the line again, whoever starts.
	sent := st0.LineSent + st1.LineSent
	from := 0
	if l := c.eng[1].peers[0].line; l.acked == l.sent {
		from = 1
	}
	for i, dir := range [][2]int{{from, 1 - from}, {1 - from, from}} {
		r := c.recv(dir[1], dir[0], 5, 0, 8)
		s := c.send(dir[0], dir[1], 5, 0, pattern(4+i, 8))
		c.wait(r, s)
		checkRecv(t, "after", r, dir[0], 5, pattern(4+i, 8))
	}
	if got := c.eng[0].State().Stats.LineSent + c.eng[1].State().Stats.LineSent; got != sent+2 {
		t.Fatalf("the ping-pong after the crossing took the ring (line records %d, then %d)", sent, got)
	}
	c.noErrs()
}

// TestLineCrossedLate crosses records as TestLineCrossed does, but each
// process consumes the other's record before the other's acknowledgement
// alone has landed: both acknowledge alone, and each sees the other's
// acknowledgement though it carries no record, so that neither stays on
// its ring.
func TestLineCrossedLate(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	l1 := &c.eng[1].peers[0].line
	l1.acked = l1.sent // as in TestLineCrossed
	s0 := c.send(0, 1, 1, 0, pattern(1, 8))
	s1 := c.send(1, 0, 1, 0, pattern(2, 8))
	r0 := c.recv(0, 1, 1, 0, 8)
	r1 := c.recv(1, 0, 1, 0, 8)
	c.hold[0] = true
	c.poll(0) // consumes process 1's record; its acknowledgement waits
	c.hold[0] = false
	c.poll(1) // consumes process 0's record, sees no acknowledgement yet
	for _, cmd := range c.take(0) {
		c.deliver(0, cmd)
	}
	c.wait(s0, s1, r0, r1)
	checkRecv(t, "0 to 1", r1, 0, 1, pattern(1, 8))
	checkRecv(t, "1 to 0", r0, 1, 1, pattern(2, 8))
	if a0, a1 := c.eng[0].State().Stats.LineAcks, c.eng[1].State().Stats.LineAcks; a0 != 1 || a1 != 1 {
		t.Fatalf("acknowledgements alone: %d and %d, want 1 each", a0, a1)
	}
	c.rounds(4)
	for p := range 2 {
		if l := c.eng[p].peers[1-p].line; l.acked != l.sent {
			t.Fatalf("process %d's half still waits: %d line records sent, %d acknowledged", p, l.sent, l.acked)
		}
	}
	sent := c.eng[0].State().Stats.LineSent + c.eng[1].State().Stats.LineSent
	r := c.recv(1, 0, 5, 0, 8)
	s := c.send(0, 1, 5, 0, pattern(4, 8))
	c.wait(r, s)
	checkRecv(t, "after", r, 0, 5, pattern(4, 8))
	if got := c.eng[0].State().Stats.LineSent + c.eng[1].State().Stats.LineSent; got != sent+1 {
		t.Fatalf("the message after the crossing took the ring (line records %d, then %d)", sent, got)
	}
	c.noErrs()
}

// TestLineConfig checks that shared lines need rings for every peer.
func TestLineConfig(t *testing.T) {
	net := newMemNet(2)
	cfg := testConfig(net, 0, 2)
	cfg.SharedLines = true
	cfg.Eager = EagerPM
	if _, err := NewEngine(cfg); err == nil || !strings.Contains(err.Error(), "shared lines") {
		t.Fatalf("shared lines with EagerPM: %v", err)
	}
	cfg = testConfig(net, 0, 2)
	cfg.SharedLines = true
	cfg.QueuePeers = []bool{false, true}
	cfg.QueueSize = 1 << 16
	if _, err := NewEngine(cfg); err == nil || !strings.Contains(err.Error(), "shared lines") {
		t.Fatalf("shared lines with a queue peer: %v", err)
	}
}

// TestLineCorrupt checks that a line record with a body longer than a
// line and its extension carry fails the receiver.
func TestLineCorrupt(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	l := c.eng[1].peers[0].line
	half, err := c.net.region(0, l.region, ringLine, LineHalf) // process 0's half
	if err != nil {
		t.Fatal(err)
	}
	seq := c.eng[0].peers[1].out.seq + 1
	// A body one byte longer than a line carries.
	*word(half, lineSig) = layout.LineSignal(seq, recEager, 0, lineBody+1, 0)
	c.poll(1)
	if errs := c.errs(); errs[1] == nil || !strings.Contains(errs[1].Error(), "corrupt line record") {
		t.Fatalf("errors %v", errs)
	}
}

// TestPartialWord checks the word of every length below 8 bytes.
func TestPartialWord(t *testing.T) {
	for n := range 8 {
		b := pattern(n, n)
		var want [8]byte
		copy(want[:], b)
		if got := partialWord(b); got != binary.LittleEndian.Uint64(want[:]) {
			t.Errorf("%d bytes: %#x, want %#x", n, got, binary.LittleEndian.Uint64(want[:]))
		}
	}
}

// TestLineWords checks the packing of the start of a line record's body
// for every length the half carries and every split between control
// bytes and payload.
func TestLineWords(t *testing.T) {
	for n := 0; n <= lineHalfBody; n++ {
		body := pattern(n, n)
		var want [lineHalfBody]byte
		copy(want[:], body)
		w0, w1 := binary.LittleEndian.Uint64(want[:]), binary.LittleEndian.Uint64(want[8:])
		for split := 0; split <= n; split++ {
			if g0, g1 := lineWords(body[:split], body[split:]); g0 != w0 || g1 != w1 {
				t.Fatalf("%d bytes, %d of them control: %#x %#x, want %#x %#x", n, split, g0, g1, w0, w1)
			}
		}
	}
}

// TestLineExtension: a body longer than the half's word goes into the
// writer's extension line, up to lineBody bytes; a longer one takes the
// ring.
func TestLineExtension(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	for i, size := range []int{lineHalfBody + 1, 40, lineBody, lineBody + 1, 1, 9, lineHalfBody} {
		for _, dir := range [][2]int{{0, 1}, {1, 0}} {
			before := c.eng[dir[0]].State().Stats.LineSent
			data := pattern(i*2+dir[0], size)
			r := c.recv(dir[1], dir[0], int32(i), 7, lineBody+1)
			s := c.send(dir[0], dir[1], int32(i), 7, data)
			c.wait(s, r)
			checkRecv(t, fmt.Sprintf("%d bytes", size), r, dir[0], int32(i), data)
			want := uint64(0)
			if size <= lineBody {
				want = 1
			}
			if got := c.eng[dir[0]].State().Stats.LineSent - before; got != want {
				t.Errorf("%d bytes from %d: %d line records, want %d", size, dir[0], got, want)
			}
		}
	}
	c.noErrs()
}

// TestLineSeqZero: a record whose sequence number would be 0 (the ring's
// numbers wrap), which reads as an empty half, does not go into the line.
func TestLineSeqZero(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	c.eng[0].peers[1].out.seq = math.MaxUint32 - 1 // the next record's number, or a wrap marker's, is the last
	before := c.eng[0].State().Stats.LineSent
	c.send(0, 1, 1, 7, []byte{1, 2, 3})
	if got := c.eng[0].State().Stats.LineSent - before; got != 0 {
		t.Errorf("%d line records where the sequence number may wrap to 0", got)
	}
}

// TestStepLine feeds the engine scripted EvLine events, as the shared
// memory's poll delivers them: a record taken by a posted receive, the
// acknowledgement alone, and corrupt ones.
func TestStepLine(t *testing.T) {
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	e := c.eng[1]
	r := c.recv(1, 0, 5, 7, 8)
	e.Step(&Event{Kind: EvLine, Peer: 0, Token: 5 | 7<<32, Value: uint64(recEager) | 3<<16 | 1<<32, Data: []byte{1, 2, 3}})
	checkRecv(t, "line record", r, 0, 5, []byte{1, 2, 3})
	if got := e.peers[0].line.recv; got != 1 {
		t.Errorf("%d line records counted from process 0, want 1", got)
	}
	e.Step(&Event{Kind: EvLine, Peer: 0, Value: uint64(recLineAck) | 9<<32})
	if got := e.peers[0].line.acked; got != 9 {
		t.Errorf("acknowledgement %d, want 9", got)
	}
	e.Step(&Event{Kind: EvLine, Peer: 0, Token: 5 | 7<<32, Value: uint64(recEager) | 4<<16, Data: []byte{1, 2, 3}})
	if err := e.State().Err; err == nil || !strings.Contains(err.Error(), "body of 3 bytes, its meta says 4") {
		t.Errorf("a body shorter than its meta says: %v", err)
	}
	e2 := c.eng[0]
	e2.Step(&Event{Kind: EvLine, Peer: 2, Value: uint64(recEager)})
	if err := e2.State().Err; err == nil || !strings.Contains(err.Error(), "corrupt line record from process 2") {
		t.Errorf("a line record from a process out of range: %v", err)
	}
}
