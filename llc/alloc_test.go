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
			const queue = 4096
			c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.QueueSize = queue }))
			c.connect(0, 1)
			data := pattern(1, tt.size)
			buf := make([]byte, tt.size)
			sop := &SendOp{Peer: 1, Tag: 3, Ctx: 2, Data: data}
			rop := &RecvOp{Source: 0, Tag: 3, Ctx: 2, Buf: buf}
			bad := 0
			round := func() {
				clear(buf)
				if tt.posted {
					c.eng[1].Submit(rop)
					c.drain(1)
				}
				c.eng[0].Submit(sop)
				c.drain(0)
				for k := 0; k < 100 && !sop.Done(); k++ {
					c.round()
				}
				if !tt.posted {
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
				if !sop.Done() || sop.Err() != nil || !rop.Done() || rop.Err() != nil || !bytes.Equal(buf, data) {
					bad++
				}
			}
			for range 300 { // fill and wrap the ring, grow every queue
				round()
			}
			allocs := testing.AllocsPerRun(500, round)
			if bad != 0 {
				t.Fatalf("%d rounds failed", bad)
			}
			if allocs != 0 {
				t.Fatalf("%.2f allocations per send and receive, want 0", allocs)
			}
			if st := c.eng[0].State().Stats; st.TailReads == 0 && eager != EagerQueue {
				t.Fatalf("the ring never needed a consumer-count read: %+v", st)
			}
			if eager == EagerQueue && c.net.queues[1].released < 2*queue {
				t.Fatalf("the queue wrapped only %d bytes", c.net.queues[1].released)
			}
			c.noErrs()
		})
	}
}
