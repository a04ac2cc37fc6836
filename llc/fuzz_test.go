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
	const ring, maxMsgs, maxSize = 1024, 48, 1600
	mode := RndvMode(data[0] & 1)
	self := data[0]&4 != 0
	n, dst := 2, 1
	if self {
		n, dst = 1, 0
	}
	c := newCluster(t, n, func(_ int, cfg *Config) {
		cfg.RingSize, cfg.EagerLimit, cfg.Rendezvous = ring, MaxEagerLimit(ring), mode
	})
	c.maxRounds = 100000
	c.paused[dst] = data[0]&2 != 0 && !self
	data = data[1:]

	type msg struct {
		tag  int32
		data []byte
	}
	var (
		msgs     []msg
		sends    []*SendOp
		recvs    []*RecvOp
		recvMsg  []int // the message each receive must get
		deferred []int // messages whose receive is posted at the end
		nextOf   = map[int32][]int{}
	)
	post := func(i int) {
		// Receives of a tag match that tag's messages in order: the k-th
		// receive of tag t gets the k-th message of tag t.
		tag := msgs[i].tag
		want := nextOf[tag][0]
		nextOf[tag] = nextOf[tag][1:]
		recvs = append(recvs, c.recv(dst, 0, tag, 0, maxSize))
		recvMsg = append(recvMsg, want)
	}
	for len(data) >= 3 && len(msgs) < maxMsgs {
		size := int(binary.LittleEndian.Uint16(data)) % maxSize
		b := data[2]
		data = data[3:]
		i := len(msgs)
		m := msg{tag: int32(b & 3), data: pattern(i, size)}
		msgs = append(msgs, m)
		nextOf[m.tag] = append(nextOf[m.tag], i)
		if b&4 != 0 {
			post(i)
		} else {
			deferred = append(deferred, i)
		}
		sends = append(sends, c.send(0, dst, m.tag, 0, m.data))
		if b&32 != 0 && !self {
			c.paused[dst] = !c.paused[dst]
		}
		c.rounds(int(b>>3) & 3)
	}
	c.paused[dst] = false
	for _, i := range deferred {
		post(i)
	}
	var all []Completion
	for i := range msgs {
		all = append(all, sends[i], recvs[i])
	}
	c.wait(all...)
	for k, r := range recvs {
		i := recvMsg[k]
		checkSent(t, fmt.Sprint("send ", i), sends[i])
		checkRecv(t, fmt.Sprintf("receive %d (message %d)", k, i), r, 0, msgs[i].tag, msgs[i].data)
	}
	c.noErrs()
	c.idle()
	want := 1 // the bootstrap area, and a ring once a message was sent
	if len(msgs) > 0 {
		want = 2
	}
	if got := c.net.regions(dst); got != want {
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
