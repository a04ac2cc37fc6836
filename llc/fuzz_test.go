package llc

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// runRingSequence decodes a sequence of messages from data, sends them from
// engine 0 to engine 1 through a small ring while the receiver posts its
// receives early or late and polls or lags, and checks that every message
// arrives intact, in order per tag.
//
// data[0]: bit 0 rendezvous mode, bit 1 receiver starts paused,
// bit 2 self-send (one engine). Then 3 bytes per message: a 16-bit size
// and a byte whose low 2 bits are the tag, bit 2 "post the receive
// early", bits 3-4 rounds to run after the send, bit 5 toggles the pause.
func runRingSequence(t *testing.T, data []byte) {
	if len(data) < 1 {
		return
	}
	s := newRingSequence(t, data[0])
	s.play(data[1:])
	s.postDeferred()
	s.check(t)
}

// ringSequenceMsg is a message of a ring sequence: its tag and data.
type ringSequenceMsg struct {
	tag  int32
	data []byte
}

// ringSequence is the state of runRingSequence: the cluster, the
// receiver, and the messages, sends and receives so far.
type ringSequence struct {
	c        *cluster
	dst      int
	self     bool
	msgs     []ringSequenceMsg
	sends    []*SendOp
	recvs    []*RecvOp
	recvMsg  []int // the message each receive must get
	deferred []int // messages whose receive is posted at the end
	nextOf   map[int32][]int
}

// The sizes of a ring sequence: the ring, and the most messages and
// bytes in a message.
const ringSeqRing, ringSeqMaxMsgs, ringSeqMaxSize = 1024, 48, 1600

// newRingSequence sets up the cluster for the mode byte of a sequence
// (data[0]).
func newRingSequence(t *testing.T, mode0 byte) *ringSequence {
	mode := RndvMode(mode0 & 1)
	self := mode0&4 != 0
	n, dst := 2, 1
	if self {
		n, dst = 1, 0
	}
	c := newCluster(t, n, func(_ int, cfg *Config) {
		cfg.RingSize, cfg.EagerLimit, cfg.Rendezvous = ringSeqRing, MaxEagerLimit(ringSeqRing), mode
	})
	c.maxRounds = 100000
	c.paused[dst] = mode0&2 != 0 && !self
	return &ringSequence{c: c, dst: dst, self: self, nextOf: map[int32][]int{}}
}

// post posts the receive of message i. Receives of a tag match that
// tag's messages in order: the k-th receive of tag t gets the k-th
// message of tag t.
func (s *ringSequence) post(i int) {
	tag := s.msgs[i].tag
	want := s.nextOf[tag][0]
	s.nextOf[tag] = s.nextOf[tag][1:]
	s.recvs = append(s.recvs, s.c.recv(s.dst, 0, tag, 0, ringSeqMaxSize))
	s.recvMsg = append(s.recvMsg, want)
}

// play sends the messages data describes, 3 bytes each, posting their
// receives early or deferring them, toggling the pause and running rounds.
func (s *ringSequence) play(data []byte) {
	c := s.c
	for len(data) >= 3 && len(s.msgs) < ringSeqMaxMsgs {
		size := int(binary.LittleEndian.Uint16(data)) % ringSeqMaxSize
		b := data[2]
		data = data[3:]
		i := len(s.msgs)
		m := ringSequenceMsg{tag: int32(b & 3), data: pattern(i, size)}
		s.msgs = append(s.msgs, m)
		s.nextOf[m.tag] = append(s.nextOf[m.tag], i)
		if b&4 != 0 {
			s.post(i)
		} else {
			s.deferred = append(s.deferred, i)
		}
		s.sends = append(s.sends, c.send(0, s.dst, m.tag, 0, m.data))
		if b&32 != 0 && !s.self {
			c.paused[s.dst] = !c.paused[s.dst]
		}
		c.rounds(int(b>>3) & 3)
	}
}

// postDeferred resumes the receiver and posts the deferred receives.
func (s *ringSequence) postDeferred() {
	s.c.paused[s.dst] = false
	for _, i := range s.deferred {
		s.post(i)
	}
}

// check waits for every send and receive, checks that every message
// arrived intact, and that the receiver holds the bootstrap area and a
// ring once a message was sent.
func (s *ringSequence) check(t *testing.T) {
	t.Helper()
	c := s.c
	var all []Completion
	for i := range s.msgs {
		all = append(all, s.sends[i], s.recvs[i])
	}
	c.wait(all...)
	for k, r := range s.recvs {
		i := s.recvMsg[k]
		checkSent(t, fmt.Sprint("send ", i), s.sends[i])
		checkRecv(t, fmt.Sprintf("receive %d (message %d)", k, i), r, 0, s.msgs[i].tag, s.msgs[i].data)
	}
	c.noErrs()
	c.idle()
	want := 1 // the bootstrap area, and a ring once a message was sent
	if len(s.msgs) > 0 {
		want = 2
	}
	if got := c.net.regions(s.dst); got != want {
		t.Fatalf("receiver has %d regions, want %d", got, want)
	}
}

func ringSeed(flags byte, msgs ...[3]int) []byte {
	b := []byte{flags}
	for _, m := range msgs {
		b = binary.LittleEndian.AppendUint16(b, uint16(m[0]))
		b = append(b, byte(m[1]|m[2]<<2))
	}
	return b
}

func ringSeeds() [][]byte {
	var seeds [][]byte
	// Every flag combination with a mix of eager sizes, the eager limit,
	// rendezvous and zero-length messages.
	mix := [][3]int{
		{0, 0, 1}, {448, 1, 0}, {449, 2, 1 | 2<<1}, {100, 3, 8 | 1},
		{1599, 0, 0}, {64, 1, 1}, {32, 2, 4 | 1}, {1, 3, 0},
		{900, 0, 2 << 1}, {33, 1, 1}, {447, 2, 0}, {0, 3, 6 << 1},
	}
	for flags := range byte(8) {
		seeds = append(seeds, ringSeed(flags, mix...))
	}
	// Many records that fill and wrap the ring while the receiver lags.
	var many [][3]int
	for i := range 48 {
		many = append(many, [3]int{(i * 97) % 500, i % 4, (i % 2) | (i%3)<<1 | b2i(i%7 == 0)<<3})
	}
	seeds = append(seeds, ringSeed(2, many...), ringSeed(3, many...), ringSeed(0, many...))
	// One tag, sizes that end exactly at the ring's end.
	var exact [][3]int
	for i := range 30 {
		exact = append(exact, [3]int{[]int{448, 160, 96, 32, 0, 33}[i%6], 0, i % 2})
	}
	seeds = append(seeds, ringSeed(0, exact...), ringSeed(2, exact...))
	return seeds
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRingSequences(t *testing.T) {
	for i, seed := range ringSeeds() {
		t.Run(fmt.Sprint(i), func(t *testing.T) { runRingSequence(t, seed) })
	}
}

func FuzzRingRecords(f *testing.F) {
	for _, seed := range ringSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { runRingSequence(t, data) })
}
