package llc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests of the eager transports EagerPM and EagerQueue that hold for both;
// pm_test.go and queue_test.go test what is particular to each.

var eagerModes = []EagerMode{EagerPM, EagerQueue}

// testQueueSize is the receive queue of the tests' EagerQueue engines.
const testQueueSize = 16 << 10

// withEager returns a cluster configuration for eager transport mode,
// applied after mod (if any).
func withEager(mode EagerMode, mod func(i int, cfg *Config)) func(i int, cfg *Config) {
	return func(i int, cfg *Config) {
		cfg.Eager = mode
		if mode == EagerQueue {
			cfg.QueueSize = testQueueSize
		}
		if mod != nil {
			mod(i, cfg)
		}
	}
}

// Eager and rendezvous messages of every size, posted and unexpected, to
// a peer and to self.
func TestEagerModeSizes(t *testing.T) {
	for _, eager := range eagerModes {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%v/%v", eager, mode), func(t *testing.T) {
				c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = mode }))
				sizes := []int{0, 1, 8, 31, 32, 33, 100, 1023, 1024, 1025, 5000, 300 << 10}
				total := c.transferAll(t, sizes)
				c.noErrs()
				c.idle()
				st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
				if got := st0.BytesSent; got != uint64(total) {
					t.Errorf("BytesSent %d, want %d", got, total)
				}
				if st0.EagerSent == 0 || st0.RndvSent == 0 || st1.EagerRecv == 0 || st1.RndvRecv == 0 {
					t.Errorf("counters: sender %+v, receiver %+v", st0, st1)
				}
			})
		}
	}
}

// transferAll transfers each of sizes (the k-th with tag k) to a peer and
// to self, posted and unexpected, and returns the bytes sent.
func (c *cluster) transferAll(t *testing.T, sizes []int) (total int) {
	t.Helper()
	for k, size := range sizes {
		for _, dst := range []int{1, 0} {
			for _, posted := range []bool{true, false} {
				c.transfer(t, k, size, dst, posted)
				total += size
			}
		}
	}
	return total
}

// transfer sends size bytes with tag k from process 0 to dst in context
// 7, the receive posted before the send or, when not posted, after the
// message arrived (its probed length checked), and checks both ends. It
// returns the test's name for the transfer.
func (c *cluster) transfer(t *testing.T, k, size, dst int, posted bool) string {
	t.Helper()
	what := fmt.Sprintf("%d bytes to %d posted=%v", size, dst, posted)
	tag, data := int32(k), pattern(k*4+dst*2+b2i(posted), size)
	var r *RecvOp
	if posted {
		r = c.recv(dst, 0, tag, 7, size)
	}
	s := c.send(0, dst, tag, 7, data)
	if !posted {
		c.run(what+": arrival", func() bool { _, ok := probeOn(c.eng[dst], 0, tag, 7); return ok })
		if st, _ := probeOn(c.eng[dst], 0, tag, 7); st.Len != size {
			t.Fatalf("%s: probed %d bytes", what, st.Len)
		}
		r = c.recv(dst, 0, tag, 7, size)
	}
	c.wait(s, r)
	checkSent(t, what, s)
	checkRecv(t, what, r, 0, tag, data)
	return what
}

// MPI matching over the eager transports: any source, any tag, posting
// order, arrival order, contexts.
func TestEagerModeWildcards(t *testing.T) {
	for _, eager := range eagerModes {
		for _, size := range []int{5, 3000} { // eager, rendezvous
			t.Run(fmt.Sprintf("%v/%d", eager, size), func(t *testing.T) {
				c := newCluster(t, 3, withEager(eager, nil))
				msg := func(seed int) []byte { return pattern(seed, size+seed) }
				// A posted wildcard receive takes the first message.
				r := c.recv(2, AnySource, AnyTag, 0, size+20)
				s := c.send(1, 2, 7, 0, msg(1))
				c.wait(r, s)
				checkRecv(t, "posted any", r, 1, 7, msg(1))

				// Unexpected messages from two sources, in a known order.
				s0 := c.send(0, 2, 8, 0, msg(2))
				c.run("first arrival", func() bool { _, ok := probeOn(c.eng[2], 0, 8, 0); return ok })
				s1 := c.send(1, 2, 8, 0, msg(3))
				s2 := c.send(1, 2, 9, 0, msg(4))
				c.run("second arrival", func() bool { _, ok := probeOn(c.eng[2], 1, 9, 0); return ok })
				if st, ok := probeOn(c.eng[2], AnySource, AnyTag, 0); !ok || st.Source != 0 {
					t.Fatalf("probe any: %+v %v, want the message from 0", st, ok)
				}
				r1 := c.recv(2, 1, AnyTag, 0, size+20)
				r2 := c.recv(2, AnySource, 9, 0, size+20)
				r3 := c.recv(2, AnySource, AnyTag, 0, size+20)
				c.wait(s0, s1, s2, r1, r2, r3)
				checkRecv(t, "source 1 any tag", r1, 1, 8, msg(3))
				checkRecv(t, "any source tag 9", r2, 1, 9, msg(4))
				checkRecv(t, "any any", r3, 0, 8, msg(2))

				// Posted receives match in posting order; contexts apart.
				ra := c.recv(2, AnySource, 5, 0, size+20)
				rb := c.recv(2, 0, AnyTag, 0, size+20)
				rc := c.recv(2, AnySource, AnyTag, 0, size+20)
				rx := c.recv(2, AnySource, AnyTag, 1, size+20)
				c.send(1, 2, 6, 0, msg(5)) // only rc accepts it
				c.send(0, 2, 5, 0, msg(6)) // ra before rb
				c.send(0, 2, 5, 0, msg(7)) // rb
				c.wait(ra, rb, rc)
				checkRecv(t, "ra", ra, 0, 5, msg(6))
				checkRecv(t, "rb", rb, 0, 5, msg(7))
				checkRecv(t, "rc", rc, 1, 6, msg(5))
				if rx.Done() {
					t.Fatal("a receive in context 1 matched")
				}
				c.send(1, 2, 1, 1, msg(8))
				c.wait(rx)
				checkRecv(t, "context 1", rx, 1, 1, msg(8))
				c.noErrs()
				c.idle()
			})
		}
	}
}

// Messages between one pair keep their order per (source, tag, ctx) while
// the receiver lags, the ring or queue fills, and sends are retried.
func TestEagerModeOrder(t *testing.T) {
	for _, eager := range eagerModes {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%v/%v", eager, mode), func(t *testing.T) {
				const space, nmsg = 8192, 200
				c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) {
					cfg.RingSize, cfg.QueueSize, cfg.EagerLimit, cfg.Rendezvous = space, space, 1000, mode
				}))
				c.idle() // PM: connected
				c.paused[1] = true
				msgs, sends, _ := c.sendKeyed(nmsg)
				c.rounds(3 * nmsg)
				st := c.eng[0].State().Stats
				full := st.RingFull
				if eager == EagerQueue {
					full = st.QueueFull
				}
				if full == 0 {
					t.Fatalf("the sender never found the receiver full: %+v", st)
				}
				if sends[nmsg-1].Done() {
					t.Fatal("every send completed although the receiver did not poll")
				}
				c.paused[1] = false
				c.receiveByKey(t, msgs, sends)
				var wrapped uint64
				if eager == EagerQueue {
					wrapped = c.net.queues[1].released
				} else {
					wrapped = c.eng[0].peers[1].out.head
				}
				if wrapped < 3*space {
					t.Fatalf("the receiver's space wrapped only %d bytes", wrapped)
				}
				c.noErrs()
				c.idle()
			})
		}
	}
}

func TestEagerModeTruncation(t *testing.T) {
	for _, eager := range eagerModes {
		for _, tt := range []struct {
			mode   RndvMode
			size   int
			posted bool
		}{
			{RndvPull, 100, true}, {RndvPull, 100, false},
			{RndvPull, 3000, true}, {RndvPush, 3000, false}, {RndvSplit, 300 << 10, true},
		} {
			t.Run(fmt.Sprintf("%v/%v/%d/posted=%v", eager, tt.mode, tt.size, tt.posted), func(t *testing.T) {
				const bufLen = 40
				c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.Rendezvous = tt.mode }))
				data := pattern(9, tt.size)
				s, r := c.sendRecv(data, bufLen, tt.posted)
				checkSent(t, "sender", s)
				if err := r.Err(); !errors.Is(err, ErrTruncated) ||
					!strings.Contains(err.Error(), strconv.Itoa(tt.size)) || !strings.Contains(err.Error(), "40 bytes") {
					t.Fatalf("receive error %v, want ErrTruncated with both sizes", r.Err())
				}
				if r.Status != (Status{Source: 0, Tag: 2, Len: tt.size}) || !bytes.Equal(r.Buf, data[:bufLen]) {
					t.Fatalf("status %+v, prefix intact %v", r.Status, bytes.Equal(r.Buf, data[:bufLen]))
				}
				if got := c.eng[1].State().Stats.Truncated; got != 1 {
					t.Fatalf("Truncated = %d", got)
				}
				c.idle()
				// The pair still works.
				s = c.send(0, 1, 2, 0, data)
				r = c.recv(1, 0, 2, 0, tt.size)
				c.wait(s, r)
				checkRecv(t, "next", r, 0, 2, data)
			})
		}
	}
}

// Unsolicited messages and completion notifications travel as in the
// rings.
func TestEagerModeUnsolicited(t *testing.T) {
	for _, eager := range eagerModes {
		t.Run(eager.String(), func(t *testing.T) {
			c := newCluster(t, 2, withEager(eager, nil))
			var ops []Completion
			for i, n := range []int{0, 8, 100, 1024} {
				s := &SendOp{Peer: 1, Tag: int32(i), Data: pattern(i, n)}
				c.eng[0].Submit(Unsolicited{s})
				ops = append(ops, s)
			}
			c.wait(ops...)
			for i, n := range []int{0, 8, 100, 1024} {
				var ev Notification
				c.run("notification", func() bool {
					var ok bool
					ev, ok = c.nextNote(1)
					return ok
				})
				if ev.Kind != NoteUnsolicited || ev.Source != 0 || ev.Tag != int32(i) || !bytes.Equal(ev.Data, pattern(i, n)) {
					t.Fatalf("event %d: %+v, want unsolicited message of %d bytes with tag %d", i, ev, n, i)
				}
				c.eng[1].Submit(ReleaseNote{ev})
			}
			big := &SendOp{Peer: 1, Data: make([]byte, c.eng[0].Config().EagerLimit+1)}
			c.eng[0].Submit(Unsolicited{big})
			if !big.Done() || big.Err() == nil || !strings.Contains(big.Err().Error(), "eager limit") {
				t.Fatalf("oversized unsolicited send: done %v err %v", big.Done(), big.Err())
			}
			c.noErrs()
			c.idle()
		})
	}
}

// NewEngine checks the configuration of each eager transport.
func TestEagerModeConfig(t *testing.T) {
	net := newMemNet(2)
	tests := []struct {
		name string
		mod  func(c *Config)
		want string // substring of the error, "" for success
	}{
		{"unknown mode", func(c *Config) { c.Eager = EagerQueue + 1 }, "unknown eager mode 3"},
		{"pm", func(c *Config) { c.Eager = EagerPM }, ""},
		{"pm smallest ring", func(c *Config) { c.Eager, c.RingSize, c.EagerLimit = EagerPM, 2*PMAlign, PMAlign-cell }, ""},
		{"pm ring of one record", func(c *Config) { c.Eager, c.RingSize, c.EagerLimit = EagerPM, 2048, 0 }, "fewer than 2 PM records"},
		{"pm ring of one small record", func(c *Config) { c.Eager, c.RingSize, c.EagerLimit = EagerPM, 1024, 100 }, "use rings of at least 4096 bytes"},
		{"pm large", func(c *Config) { c.Eager, c.RingSize, c.EagerLimit = EagerPM, 1<<16, MaxEagerLimit(1<<16) }, ""},
		{"pm ring checks still apply", func(c *Config) { c.Eager, c.RingSize = EagerPM, 5000 }, "ring size 5000"},
		{"queue", func(c *Config) { c.Eager, c.QueueSize = EagerQueue, 1<<16 }, ""},
		{"queue ignores rings", func(c *Config) { c.Eager, c.QueueSize, c.RingSize = EagerQueue, 1<<16, 0 }, ""},
		{"queue largest eager limit", func(c *Config) {
			c.Eager, c.QueueSize, c.EagerLimit = EagerQueue, MinQueueSize(MaxQueueEagerLimit), MaxQueueEagerLimit
		}, ""},
		{"queue eager limit too large", func(c *Config) { c.Eager, c.QueueSize, c.EagerLimit = EagerQueue, 1<<16, MaxQueueEagerLimit+1 },
			fmt.Sprintf("eager limit %d too large for the receive queue", MaxQueueEagerLimit+1)},
		{"queue error names the largest", func(c *Config) { c.Eager, c.QueueSize, c.EagerLimit = EagerQueue, 1<<16, 1<<20 },
			fmt.Sprintf("at most %d", MaxQueueEagerLimit)},
		{"queue eager limit of several records", func(c *Config) { c.Eager, c.QueueSize, c.EagerLimit = EagerQueue, 1<<16, 4096 }, ""},
		{"queue eager limit of one large record", func(c *Config) {
			c.Eager, c.QueueSize, c.EagerLimit, c.MaxRecord = EagerQueue, 1<<18, 60000, 60000+recMeta
		}, ""},
		{"queue error names one large record", func(c *Config) {
			c.Eager, c.QueueSize, c.EagerLimit, c.MaxRecord = EagerQueue, 1<<18, 60001, 60000+recMeta
		}, "at most 60000"},
		{"queue negative eager limit", func(c *Config) { c.Eager, c.QueueSize, c.EagerLimit = EagerQueue, 1<<16, -1 }, "eager limit -1"},
		{"queue not a power of two", func(c *Config) { c.Eager, c.QueueSize = EagerQueue, 3<<12 }, "queue size 12288"},
		{"queue unset", func(c *Config) { c.Eager = EagerQueue }, "queue size 0"},
		{"queue smaller than two records", func(c *Config) {
			c.Eager, c.EagerLimit, c.QueueSize = EagerQueue, 1000, MinQueueSize(1000)/2
		}, "at least " + strconv.Itoa(MinQueueSize(1000))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(net, 0, 2)
			tt.mod(&cfg)
			checkNewEngine(t, cfg, tt.want)
		})
	}
	// MinQueueSize holds two of the largest records wherever they land.
	for _, limit := range []int{0, 100, 1000, MaxQueueEagerLimit} {
		size := MinQueueSize(limit)
		if size&(size-1) != 0 || uint64(size) < 2*QueueSpan(recMeta+max(limit, maxControlBody)) || uint64(size/2) >= 2*QueueSpan(recMeta+max(limit, maxControlBody)) {
			t.Errorf("MinQueueSize(%d) = %d", limit, size)
		}
	}
}

// chargeRec is one Charge call.
type chargeRec struct {
	w HostWork
	n int
}

// chargingTransport is a memTransport that records the host work charged
// to it.
type chargingTransport struct {
	memTransport
	charges []chargeRec
}

func (c *chargingTransport) Charge(w HostWork, n int) { c.charges = append(c.charges, chargeRec{w, n}) }

// The engine counts the host work of PM's library calls per eager
// transport, and an Endpoint charges it to a HostCharger transport in
// order; EagerRings reports none.
func TestHostWork(t *testing.T) {
	t.Run("engine", func(t *testing.T) {
		for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
			checkEngineHostWork(t, eager)
		}
	})
	t.Run("endpoint", func(t *testing.T) {
		for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
			checkEndpointHostWork(t, eager)
		}
	})
}

// checkEngineHostWork sends one eager and one rendezvous message from
// process 0 to 1 of a 3-process cluster with the eager transport, and
// checks the host work each engine counts along the way.
func checkEngineHostWork(t *testing.T, eager EagerMode) {
	t.Helper()
	const n = 3
	c := newCluster(t, n, withEager(eager, func(_ int, cfg *Config) { cfg.RingSize = 1 << 14 }))
	c.idle()
	for i := range n {
		c.connect(i, 1)
	}
	clear(c.work[0][:])
	clear(c.work[1][:])
	// One eager message 0 -> 1, one rendezvous message (RTS; FIN
	// back).
	s := c.send(0, 1, 1, 0, pattern(1, 100))
	c.wait(s)
	sr := c.send(0, 1, 2, 0, pattern(2, 5000))
	checkSenderWork(t, c, eager)
	c.poll(1)
	checkFirstPollWork(t, c, eager, n)
	r := c.recv(1, 0, 1, 0, 100)
	rr := c.recv(1, 0, 2, 0, 5000)
	c.wait(r, rr, sr)
	checkReceiverWork(t, c, eager)
}

// checkSenderWork checks process 0's work for the two sends, each a copy
// from the user's buffer (the rendezvous message as the PM messages
// MPICH-SCore would send it in); none with EagerRings.
func checkSenderWork(t *testing.T, c *cluster, eager EagerMode) {
	t.Helper()
	want0 := WorkCounts{WorkSend: 2, WorkCopies: 2, WorkCopy: 5100}
	if eager == EagerRings {
		want0 = WorkCounts{}
	}
	if c.work[0] != want0 {
		t.Errorf("%v: sender's work %v, want %v", eager, c.work[0], want0)
	}
}

// checkFirstPollWork checks process 1's work after its first poll of an
// n-process cluster: two records taken, the eager message copied out (the
// RTS copies nothing until it is matched); PM/RHiNET zeroes both records.
func checkFirstPollWork(t *testing.T, c *cluster, eager EagerMode, n int) {
	t.Helper()
	var want1 WorkCounts
	switch eager {
	case EagerPM:
		want1 = WorkCounts{WorkPoll: n, WorkRecv: 2, WorkCopies: 1, WorkCopy: 100, // every inbound ring
			WorkZero: 2*recMeta + 100 + rtsSize}
	case EagerQueue:
		want1 = WorkCounts{WorkPoll: 1, WorkRecv: 2, WorkCopies: 1, WorkCopy: 100} // one queue
	}
	if c.work[1] != want1 {
		t.Errorf("%v: receiver's work after one poll %v, want %v", eager, c.work[1], want1)
	}
}

// checkReceiverWork checks process 1's work once both messages are
// received: the FIN sent and both messages copied out; with EagerRings, no
// engine counted any work.
func checkReceiverWork(t *testing.T, c *cluster, eager EagerMode) {
	t.Helper()
	if eager != EagerRings && c.work[1][WorkSend] != 1 { // FIN
		t.Errorf("%v: receiver's sends %d, want 1 (FIN)", eager, c.work[1][WorkSend])
	}
	if eager != EagerRings && (c.work[1][WorkCopies] != 2 || c.work[1][WorkCopy] != 5100) {
		t.Errorf("%v: receiver's copies %d of %d bytes, want 2 of 5100", eager, c.work[1][WorkCopies], c.work[1][WorkCopy])
	}
	if eager == EagerRings {
		for i, e := range c.eng {
			if e.work != (WorkCounts{}) {
				t.Errorf("rings: engine %d counted host work %v", i, e.work)
			}
		}
	}
}

// checkEndpointHostWork sends one eager message between two Endpoints on
// charging transports with the eager transport, and checks what each
// Endpoint charged for it.
func checkEndpointHostWork(t *testing.T, eager EagerMode) {
	t.Helper()
	eps, trs := newChargingEndpoints(t, eager)
	within(t, 10*time.Second, func() {
		settleEndpoints(t, eps)
		trs[0].charges, trs[1].charges = nil, nil
		if err := eps[0].SendWait(1, 3, 0, pattern(1, 50)); err != nil {
			t.Error(err)
		}
		if _, err := eps[1].RecvWait(0, 3, 0, make([]byte, 50)); err != nil {
			t.Error(err)
		}
	})
	checkCharges(t, eager, trs)
}

// newChargingEndpoints makes two Endpoints on a memNet with the eager
// transport, each on a chargingTransport, and has each take its engine
// once.
func newChargingEndpoints(t *testing.T, eager EagerMode) ([]*Endpoint, []*chargingTransport) {
	t.Helper()
	net := newMemNet(2)
	var eps []*Endpoint
	var trs []*chargingTransport
	for i := range 2 {
		cfg := withEager(eager, nil)
		config := testConfig(net, i, 2)
		cfg(i, &config)
		e, err := NewEngine(config)
		if err != nil {
			t.Fatal(err)
		}
		tr := &chargingTransport{memTransport: memTransport{net: net, self: i}}
		ep := NewEndpoint(e, tr)
		ep.Spin, ep.Yield = 50, 10
		eps, trs = append(eps, ep), append(trs, tr)
	}
	for _, ep := range eps {
		ep.Exclusive(func() {})
	}
	return eps, trs
}

// settleEndpoints connects (rings) and settles (PM) the two Endpoints with
// a message each way, concurrently, and waits for both to go idle.
func settleEndpoints(t *testing.T, eps []*Endpoint) {
	t.Helper()
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Go(func() {
			r := &RecvOp{Source: 1 - i, Tag: 9, Buf: make([]byte, 1)}
			ep.Recv(r)
			if err := ep.SendWait(1-i, 9, 0, []byte{1}); err != nil {
				t.Error(err)
			}
			ep.Wait(r)
			ep.WaitIdle()
		})
	}
	wg.Wait()
}

// checkCharges checks what the Endpoints charged to their transports for
// one 50-byte eager message: nothing with EagerRings.
func checkCharges(t *testing.T, eager EagerMode, trs []*chargingTransport) {
	t.Helper()
	var want0, want1 []chargeRec
	switch eager {
	case EagerPM:
		want0 = []chargeRec{{WorkSend, 1}, {WorkCopies, 1}, {WorkCopy, 50}}
		want1 = []chargeRec{{WorkPoll, 2}, {WorkRecv, 1}, {WorkCopies, 1}, {WorkCopy, 50}, {WorkZero, recMeta + 50}}
	case EagerQueue:
		want0 = []chargeRec{{WorkSend, 1}, {WorkCopies, 1}, {WorkCopy, 50}}
		want1 = []chargeRec{{WorkPoll, 1}, {WorkRecv, 1}, {WorkCopies, 1}, {WorkCopy, 50}}
	}
	if fmt.Sprint(trs[0].charges) != fmt.Sprint(want0) || fmt.Sprint(trs[1].charges) != fmt.Sprint(want1) {
		t.Errorf("%v: charged %v to the sender and %v to the receiver, want %v and %v",
			eager, trs[0].charges, trs[1].charges, want0, want1)
	}
}
