package llc

import (
	"bytes"
	"testing"
)

// After warm-up, an eager send and receive on a connected pair allocate
// nothing: neither the engines nor the in-memory network, with any eager
// transport.
func TestSteadyStateAllocs(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		t.Run(eager.String(), func(t *testing.T) { testSteadyStateAllocs(t, eager) })
	}
}

// testSteadyStateAllocs checks that a send and its receive, posted first
// or unexpected, allocate nothing once the ring and the queues have grown.
func testSteadyStateAllocs(t *testing.T, eager EagerMode) {
	for _, tt := range []struct {
		name   string
		posted bool
		size   int
	}{
		{"posted/100", true, 100},
		{"unexpected/100", false, 100},
		{"posted/0", true, 0},
		{"unexpected/1000", false, 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newSteadyRound(t, eager, tt.posted, tt.size)
			for range 300 { // fill and wrap the ring, grow every queue
				r.round()
			}
			allocs := testing.AllocsPerRun(500, r.round)
			checkSteadyState(t, r, eager, allocs)
		})
	}
}

// steadyQueue is the queue size of TestSteadyStateAllocs's engines.
const steadyQueue = 4096

// steadyRound is a pair of engines that send a message of the same
// operations round after round, and the rounds that failed.
type steadyRound struct {
	c         *cluster
	posted    bool
	data, buf []byte
	sop       *SendOp
	rop       *RecvOp
	bad       int
}

// newSteadyRound connects two engines to send messages of size bytes,
// their receives posted first or not.
func newSteadyRound(t *testing.T, eager EagerMode, posted bool, size int) *steadyRound {
	t.Helper()
	c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.QueueSize = steadyQueue }))
	c.connect(0, 1)
	data := pattern(1, size)
	buf := make([]byte, size)
	sop := &SendOp{Peer: 1, Tag: 3, Ctx: 2, Data: data}
	rop := &RecvOp{Source: 0, Tag: 3, Ctx: 2, Buf: buf}
	return &steadyRound{c: c, posted: posted, data: data, buf: buf, sop: sop, rop: rop}
}

// round sends the message and receives it, posted before or after it
// arrives, and counts the round bad unless both completed and the data
// arrived.
func (r *steadyRound) round() {
	c, sop, rop := r.c, r.sop, r.rop
	clear(r.buf)
	if r.posted {
		c.eng[1].Submit(rop)
		c.drain(1)
	}
	c.eng[0].Submit(sop)
	c.drain(0)
	for k := 0; k < 100 && !sop.Done(); k++ {
		c.round()
	}
	if !r.posted {
		for k := 0; k < 100; k++ {
			if _, ok := probeOn(c.eng[1], 0, 3, 2); ok {
				break
			}
			c.round()
		}
		c.eng[1].Submit(rop)
		c.drain(1)
	}
	for k := 0; k < 100 && !rop.Done(); k++ {
		c.round()
	}
	if !sop.Done() || sop.Err() != nil || !rop.Done() || rop.Err() != nil || !bytes.Equal(r.buf, r.data) {
		r.bad++
	}
}

// checkSteadyState wants no round failed, no allocation, the ring to have
// needed a consumer-count read and the queue to have wrapped.
func checkSteadyState(t *testing.T, r *steadyRound, eager EagerMode, allocs float64) {
	t.Helper()
	c := r.c
	if r.bad != 0 {
		t.Fatalf("%d rounds failed", r.bad)
	}
	if allocs != 0 {
		t.Fatalf("%.2f allocations per send and receive, want 0", allocs)
	}
	if st := c.eng[0].State().Stats; st.TailReads == 0 && eager != EagerQueue {
		t.Fatalf("the ring never needed a consumer-count read: %+v", st)
	}
	if eager == EagerQueue && c.net.queues[1].released < 2*steadyQueue {
		t.Fatalf("the queue wrapped only %d bytes", c.net.queues[1].released)
	}
	c.noErrs()
}
