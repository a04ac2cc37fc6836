package llc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

var modes = []RndvMode{RndvPull, RndvPush, RndvSplit}

func TestEagerSizes(t *testing.T) {
	for _, size := range []int{0, 1, 8, 31, 32, 33, 63, 64, 65, 100, 1000, 1024} {
		for _, posted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d bytes/posted=%v", size, posted), func(t *testing.T) {
				c := newCluster(t, 2, nil)
				data := pattern(size, size)
				var r *RecvOp
				if posted {
					r = c.recv(1, 0, 3, 7, size)
				}
				s := c.send(0, 1, 3, 7, data)
				c.wait(s)
				if !posted {
					c.run("message arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 3, 7); return ok })
					r = c.recv(1, 0, 3, 7, size)
				}
				c.wait(r)
				checkSent(t, "send", s)
				checkRecv(t, "recv", r, 0, 3, data)
				st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
				if st0.EagerSent != 1 || st0.BytesSent != uint64(size) || st0.RndvSent != 0 {
					t.Errorf("sender counters %+v", st0)
				}
				if st1.EagerRecv != 1 || st1.BytesRecv != uint64(size) || st1.Truncated != 0 {
					t.Errorf("receiver counters %+v", st1)
				}
				if want := uint64(b2i(!posted)); st1.Unexpected != want {
					t.Errorf("Unexpected = %d, want %d", st1.Unexpected, want)
				}
				c.idle()
			})
		}
	}
}

func TestSendToSelf(t *testing.T) {
	for _, mode := range modes {
		for _, size := range []int{0, 1, 100, 1024, 1025, 10000} {
			t.Run(fmt.Sprintf("%v/%d", mode, size), func(t *testing.T) {
				c := newCluster(t, 1, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
				data := pattern(size, size)
				s := c.send(0, 0, 1, 0, data)
				r := c.recv(0, 0, 1, 0, size)
				c.wait(s, r)
				checkSent(t, "send", s)
				checkRecv(t, "recv", r, 0, 1, data)
				// posted first
				r = c.recv(0, AnySource, AnyTag, 0, size)
				s = c.send(0, 0, 2, 0, data)
				c.wait(s, r)
				checkRecv(t, "posted", r, 0, 2, data)
				c.noErrs()
				c.idle()
				if got := c.net.regions(0); got != 2 { // bootstrap and ring
					t.Fatalf("%d regions registered, want 2", got)
				}
			})
		}
	}
}

// Messages between one pair keep their order per (source, tag, ctx), while
// the ring wraps many times and the receiver lags behind.
func TestOrderRingWrap(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			const ring, nmsg = 4096, 200
			c := newCluster(t, 2, func(_ int, cfg *Config) {
				cfg.RingSize, cfg.EagerLimit, cfg.Rendezvous = ring, 1000, mode
			})
			c.connect(0, 1)
			c.paused[1] = true // the receiver consumes late
			msgs, sends, total := c.sendKeyed(nmsg)
			c.rounds(3 * nmsg)
			st := c.eng[0].State().Stats
			if st.RingFull == 0 || st.TailReads == 0 {
				t.Fatalf("sender never found the ring full: %+v", st)
			}
			if st.RingFull > nmsg {
				t.Fatalf("RingFull = %d for %d sends", st.RingFull, nmsg)
			}
			if sends[nmsg-1].Done() {
				t.Fatal("every send completed although the receiver did not poll")
			}
			c.paused[1] = false
			c.receiveByKey(t, msgs, sends)
			if head := c.eng[0].peers[1].out.head; head < 3*ring {
				t.Fatalf("ring wrapped only %d bytes", head)
			}
			if got := c.eng[1].State().Stats.BytesRecv; got != uint64(total) {
				t.Fatalf("BytesRecv = %d, want %d", got, total)
			}
			c.noErrs()
			c.idle()
		})
	}
}

// Unexpected messages are matched in arrival order.
func TestUnexpectedOrder(t *testing.T) {
	c := newCluster(t, 2, nil)
	tags := []int32{1, 2, 1, 2, 3}
	var sends []Completion
	for i, tag := range tags {
		sends = append(sends, c.send(0, 1, tag, 0, pattern(i, 10+i)))
	}
	c.wait(sends...)
	c.run("all unexpected", func() bool { return c.eng[1].State().Stats.Unexpected == 5 })
	steps := []struct {
		tag  int32
		want int // message index
	}{{2, 1}, {1, 0}, {AnyTag, 2}, {AnyTag, 3}, {3, 4}}
	for _, s := range steps {
		r := c.recv(1, 0, s.tag, 0, 100)
		checkRecv(t, fmt.Sprint("tag ", s.tag), r, 0, tags[s.want], pattern(s.want, 10+s.want))
	}
	if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); ok {
		t.Fatal("message left over")
	}
}

func TestWildcards(t *testing.T) {
	c := newCluster(t, 3, nil)
	// A posted wildcard receive takes the first message.
	r := c.recv(2, AnySource, AnyTag, 0, 16)
	s := c.send(1, 2, 7, 0, pattern(1, 5))
	c.wait(r, s)
	checkRecv(t, "posted any", r, 1, 7, pattern(1, 5))

	// Unexpected messages from two sources, in a known arrival order.
	s0 := c.send(0, 2, 8, 0, pattern(2, 6))
	c.wait(s0)
	c.run("first arrival", func() bool { _, ok := probeOn(c.eng[2], 0, 8, 0); return ok })
	s1 := c.send(1, 2, 8, 0, pattern(3, 7))
	s2 := c.send(1, 2, 9, 0, pattern(4, 8))
	c.wait(s1, s2)
	c.run("second arrival", func() bool { _, ok := probeOn(c.eng[2], 1, 9, 0); return ok })
	if st, ok := probeOn(c.eng[2], AnySource, AnyTag, 0); !ok || st.Source != 0 {
		t.Fatalf("probe any: %+v %v, want the message from 0", st, ok)
	}
	r = c.recv(2, 1, AnyTag, 0, 16)
	checkRecv(t, "source 1 any tag", r, 1, 8, pattern(3, 7))
	r = c.recv(2, AnySource, 9, 0, 16)
	checkRecv(t, "any source tag 9", r, 1, 9, pattern(4, 8))
	r = c.recv(2, AnySource, AnyTag, 0, 16)
	checkRecv(t, "any any", r, 0, 8, pattern(2, 6))

	// Posted receives match in posting order.
	ra := c.recv(2, AnySource, 5, 0, 16)
	rb := c.recv(2, 0, AnyTag, 0, 16)
	rc := c.recv(2, AnySource, AnyTag, 0, 16)
	c.send(1, 2, 6, 0, pattern(5, 1)) // only rc accepts it
	c.send(0, 2, 5, 0, pattern(6, 2)) // ra before rb
	c.send(0, 2, 5, 0, pattern(7, 3)) // rb
	c.wait(ra, rb, rc)
	checkRecv(t, "ra", ra, 0, 5, pattern(6, 2))
	checkRecv(t, "rb", rb, 0, 5, pattern(7, 3))
	checkRecv(t, "rc", rc, 1, 6, pattern(5, 1))
	c.idle()
}

func TestContextSeparation(t *testing.T) {
	c := newCluster(t, 2, nil)
	r2 := c.recv(1, 0, 1, 2, 16)
	r3 := c.recv(1, AnySource, AnyTag, 3, 16)
	s1 := c.send(0, 1, 1, 1, pattern(1, 4))
	s2 := c.send(0, 1, 1, 2, pattern(2, 4))
	c.wait(s1, s2, r2)
	checkRecv(t, "ctx 2", r2, 0, 1, pattern(2, 4))
	if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 3); ok {
		t.Fatal("probe in context 3 found a message")
	}
	if st, ok := probeOn(c.eng[1], 0, 1, 1); !ok || st.Len != 4 {
		t.Fatalf("probe in context 1: %+v %v", st, ok)
	}
	if r3.Done() {
		t.Fatal("receive in context 3 matched")
	}
	r1 := c.recv(1, 0, 1, 1, 16)
	checkRecv(t, "ctx 1", r1, 0, 1, pattern(1, 4))
	if !cancelRecvOn(c.eng[1], r3) {
		t.Fatal("cancel failed")
	}
}

func TestProbe(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.connect(0, 1)
	if _, ok := probeOn(c.eng[1], 0, 4, 0); ok {
		t.Fatal("probe found a message before any send")
	}
	s := c.send(0, 1, 4, 0, pattern(1, 100))
	sr := c.send(0, 1, 5, 0, pattern(2, 5000)) // rendezvous
	c.run("arrival", func() bool { _, ok := probeOn(c.eng[1], 0, 5, 0); return ok })
	for range 2 {
		st, ok := probeOn(c.eng[1], 0, 4, 0)
		if !ok || st != (Status{Source: 0, Tag: 4, Len: 100}) {
			t.Fatalf("probe: %+v %v", st, ok)
		}
	}
	if st, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); !ok || st.Tag != 4 {
		t.Fatalf("probe any gives %+v %v, want the earliest", st, ok)
	}
	if st, ok := probeOn(c.eng[1], 0, 5, 0); !ok || st.Len != 5000 {
		t.Fatalf("probe rendezvous: %+v %v", st, ok)
	}
	for _, p := range []struct {
		src int
		tag int32
		ctx uint32
	}{{0, 6, 0}, {0, 4, 1}, {1, 4, 0}} {
		if _, ok := probeOn(c.eng[1], p.src, p.tag, p.ctx); ok {
			t.Fatalf("probe %+v found a message", p)
		}
	}
	r := c.recv(1, 0, 4, 0, 100)
	checkRecv(t, "eager", r, 0, 4, pattern(1, 100))
	if _, ok := probeOn(c.eng[1], 0, 4, 0); ok {
		t.Fatal("probe found a received message")
	}
	rr := c.recv(1, 0, 5, 0, 5000)
	c.wait(s, sr, rr)
	checkRecv(t, "rendezvous", rr, 0, 5, pattern(2, 5000))
	if _, ok := probeOn(c.eng[1], AnySource, AnyTag, 0); ok {
		t.Fatal("probe found a message after all were received")
	}
	if st := c.eng[1].State().Stats; st.Unexpected != 2 {
		t.Fatalf("Unexpected = %d", st.Unexpected)
	}
}

func TestCancel(t *testing.T) {
	c := newCluster(t, 2, nil)
	r := c.recv(1, 0, 1, 0, 8)
	if r.Done() {
		t.Fatal("receive done early")
	}
	if !cancelRecvOn(c.eng[1], r) {
		t.Fatal("Cancel of a posted receive failed")
	}
	if !r.Done() || !r.Cancelled() || r.Err() != nil {
		t.Fatalf("cancelled receive: done %v cancelled %v err %v", r.Done(), r.Cancelled(), r.Err())
	}
	if cancelRecvOn(c.eng[1], r) {
		t.Fatal("second Cancel succeeded")
	}
	s := c.send(0, 1, 1, 0, pattern(1, 8))
	c.wait(s)
	c.run("arrival", func() bool { _, ok := probeOn(c.eng[1], 0, 1, 0); return ok })
	if !bytes.Equal(r.Buf, make([]byte, 8)) {
		t.Fatal("cancelled receive got data")
	}
	// The op can be reused; it is no longer cancelled.
	c.eng[1].Submit(r)
	checkRecv(t, "reused op", r, 0, 1, pattern(1, 8))
	if r.Cancelled() {
		t.Fatal("reused receive still reports Cancelled")
	}
	if cancelRecvOn(c.eng[1], r) {
		t.Fatal("Cancel of a completed receive succeeded")
	}
	// Cancelling one of several posted receives keeps the others in order.
	ra := c.recv(1, 0, 2, 0, 8)
	rb := c.recv(1, 0, 2, 0, 8)
	rc := c.recv(1, 0, 2, 0, 8)
	if !cancelRecvOn(c.eng[1], rb) {
		t.Fatal("cancel rb")
	}
	c.send(0, 1, 2, 0, pattern(2, 8))
	c.send(0, 1, 2, 0, pattern(3, 8))
	c.wait(ra, rc)
	checkRecv(t, "ra", ra, 0, 2, pattern(2, 8))
	checkRecv(t, "rc", rc, 0, 2, pattern(3, 8))
	// A matched rendezvous receive cannot be cancelled.
	c.hold[1] = true
	rr := c.recv(1, 0, 3, 0, 5000)
	c.send(0, 1, 3, 0, pattern(4, 5000))
	c.run("matched", func() bool { return len(c.held[1]) > 0 })
	if cancelRecvOn(c.eng[1], rr) {
		t.Fatal("Cancel of a matched rendezvous receive succeeded")
	}
	c.hold[1] = false
	for _, cmd := range c.take(1) {
		c.deliver(1, cmd)
	}
	c.wait(rr)
	checkRecv(t, "rendezvous", rr, 0, 3, pattern(4, 5000))
	c.idle()
}

func TestTruncation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		mode   RndvMode
		size   int
		posted bool
	}{
		{"eager posted", RndvPull, 100, true},
		{"eager unexpected", RndvPull, 100, false},
		{"pull posted", RndvPull, 3000, true},
		{"pull unexpected", RndvPull, 3000, false},
		{"push posted", RndvPush, 3000, true},
		{"push unexpected", RndvPush, 3000, false},
	} {
		for _, bufLen := range []int{40, 0} {
			t.Run(fmt.Sprintf("%s/buf=%d", tt.name, bufLen), func(t *testing.T) {
				c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.Rendezvous = tt.mode })
				c.connect(0, 1)
				c.connect(1, 0)
				regions := []int{c.net.regions(0), c.net.regions(1)}
				data := pattern(9, tt.size)
				s, r := c.sendRecv(data, bufLen, tt.posted)
				checkSent(t, "sender", s)
				err := r.Err()
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("receive error %v, want ErrTruncated", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, strconv.Itoa(tt.size)) || !strings.Contains(msg, strconv.Itoa(bufLen)+" bytes") {
					t.Fatalf("error %q does not give both sizes %d and %d", msg, tt.size, bufLen)
				}
				if r.Status != (Status{Source: 0, Tag: 2, Len: tt.size}) {
					t.Fatalf("status %+v", r.Status)
				}
				if !bytes.Equal(r.Buf, data[:bufLen]) {
					t.Fatal("buffer does not hold the prefix")
				}
				if got := c.eng[1].State().Stats.Truncated; got != 1 {
					t.Fatalf("Truncated = %d", got)
				}
				c.idle()
				if got := []int{c.net.regions(0), c.net.regions(1)}; got[0] != regions[0] || got[1] != regions[1] {
					t.Fatalf("regions %v after, %v before", got, regions)
				}
				// The pair still works.
				s = c.send(0, 1, 2, 0, data)
				r = c.recv(1, 0, 2, 0, tt.size)
				c.wait(s, r)
				checkRecv(t, "next", r, 0, 2, data)
			})
		}
	}
}

func TestInvalidPeer(t *testing.T) {
	c := newCluster(t, 2, nil)
	for _, p := range []int{-1, -2, 2, 100} {
		s := &SendOp{Peer: p, Data: []byte("x")}
		c.eng[0].Submit(s)
		if !s.Done() || s.Err() == nil || !strings.Contains(s.Err().Error(), strconv.Itoa(p)) {
			t.Errorf("send to %d: done %v err %v", p, s.Done(), s.Err())
		}
		if p == AnySource {
			continue
		}
		r := &RecvOp{Source: p, Buf: make([]byte, 1)}
		c.eng[0].Submit(r)
		if !r.Done() || r.Err() == nil || !strings.Contains(r.Err().Error(), strconv.Itoa(p)) {
			t.Errorf("receive from %d: done %v err %v", p, r.Done(), r.Err())
		}
	}
	if c.eng[0].sched.len() != 0 || !c.eng[0].State().Idle || c.eng[0].State().Err != nil {
		t.Fatal("invalid operations left work or failed the engine")
	}
	// AnySource is valid.
	r := c.recv(0, AnySource, 1, 0, 1)
	if r.Done() {
		t.Fatalf("AnySource receive done: %v", r.Err())
	}
	cancelRecvOn(c.eng[0], r)
}

// The schedule queue hands out batches in order, and commands pushed while
// a batch is out (growing the storage under it) follow it.
func TestScheduleQueue(t *testing.T) {
	var q schedQueue
	q.init(4)
	next, want := 0, 0
	push := func(n int) {
		for range n {
			q.push(&Command{Kind: CmdWrite, Off: uint64(next)})
			next++
		}
	}
	check := func(batch []Command) {
		for _, c := range batch {
			if c.Off != uint64(want) {
				t.Fatalf("batch holds command %d, want %d", c.Off, want)
			}
			want++
		}
	}
	push(3)
	b := q.take(2)
	push(5) // grows under the batch
	check(b)
	q.drop()
	check(q.take(1 << 30))
	push(20)
	q.drop()
	check(q.take(1 << 30))
	q.drop()
	if q.len() != 0 || want != next || len(q.take(1<<30)) != 0 {
		t.Fatal("queue not empty")
	}
	if len(q.buf) != 32 {
		t.Fatalf("queue grew to %d", len(q.buf))
	}

	// Through the engine: more commands than the initial queue holds.
	c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.RingSize = 16384 })
	c.connect(0, 1)
	var sends []*SendOp
	for i := range 150 {
		s := &SendOp{Peer: 1, Tag: 1, Data: pattern(i, 20)}
		c.eng[0].Submit(s) // not drained
		sends = append(sends, s)
	}
	if c.eng[0].sched.len() != 150 || len(c.eng[0].sched.buf) <= 64 {
		t.Fatalf("only %d commands queued", c.eng[0].sched.len())
	}
	for i := range 150 {
		r := c.recv(1, 0, 1, 0, 20)
		c.wait(r, sends[i])
		checkRecv(t, fmt.Sprint("message ", i), r, 0, 1, pattern(i, 20))
	}
	c.idle()
}

// RingFull counts each send that found the ring full once, however often
// it is retried; each retry while no read is in flight reads the consumer
// count again.
func TestRingFullCounting(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.connect(0, 1)
	c.paused[1] = true
	var sends []*SendOp
	fill := func() {
		for len(sends) == 0 || sends[len(sends)-1].Done() {
			sends = append(sends, c.send(0, 1, 1, 0, pattern(len(sends), 500)))
		}
	}
	fill()
	tail := c.eng[0].State().Stats.TailReads
	c.rounds(20)
	st := c.eng[0].State().Stats
	if st.RingFull != 1 || st.TailReads != tail+20 {
		t.Fatalf("after 20 retries: RingFull %d, TailReads %d (was %d)", st.RingFull, st.TailReads, tail)
	}
	c.paused[1] = false
	c.run("queued send written", func() bool { return sends[len(sends)-1].Done() })
	c.paused[1] = true
	fill()
	c.rounds(5)
	if got := c.eng[0].State().Stats.RingFull; got != 2 {
		t.Fatalf("RingFull = %d after the ring filled twice", got)
	}
	c.paused[1] = false
	for i, s := range sends {
		r := c.recv(1, 0, 1, 0, 500)
		c.wait(s, r)
		checkRecv(t, fmt.Sprint("message ", i), r, 0, 1, pattern(i, 500))
	}
	c.idle()
}
