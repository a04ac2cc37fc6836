package llc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

func TestNewEngineConfig(t *testing.T) {
	net := newMemNet(3)
	good := testConfig(net, 1, 3)
	tests := []struct {
		name string
		mod  func(c *Config)
		want string // substring of the error, "" for success
	}{
		{"valid", func(c *Config) {}, ""},
		{"size zero", func(c *Config) { c.Size, c.Self = 0, 0 }, "process"},
		{"negative self", func(c *Config) { c.Self = -1 }, "process -1 of 3"},
		{"self too large", func(c *Config) { c.Self = 3 }, "process 3 of 3"},
		{"boot too short", func(c *Config) { c.Boot = c.Boot[:2] }, "2 bootstrap regions for 3"},
		{"boot too long", func(c *Config) { c.Boot = append(c.Boot[:3:3], 9) }, "4 bootstrap regions for 3"},
		{"ring too small", func(c *Config) { c.RingSize, c.EagerLimit = 192, 0 }, "ring size 192"},
		{"ring not a multiple of a cell", func(c *Config) { c.RingSize = 4000 }, "ring size 4000"},
		{"ring not a power of two", func(c *Config) { c.RingSize = 4096 + 64 }, "ring size 4160"},
		{"smallest ring", func(c *Config) { c.RingSize, c.EagerLimit = 256, MaxEagerLimit(256) }, ""},
		{"negative eager limit", func(c *Config) { c.EagerLimit = -1 }, "eager limit -1"},
		{"eager limit too large", func(c *Config) { c.EagerLimit = 4096 }, "eager limit 4096 too large"},
		{"eager limit at most half a ring", func(c *Config) { c.EagerLimit = MaxEagerLimit(4096) + 1 }, "too large"},
		{"unknown rendezvous mode", func(c *Config) { c.Rendezvous = RndvSplit + 1 }, "rendezvous"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			cfg.Boot = append([]RegionID(nil), good.Boot...)
			tt.mod(&cfg)
			checkNewEngine(t, cfg, tt.want)
		})
	}
}

// MaxEagerLimit is the largest eager limit NewEngine accepts, and the
// error for a larger one names it.
func TestMaxEagerLimit(t *testing.T) {
	net := newMemNet(1)
	for _, ring := range []int{256, 512, 1024, 4096, 1 << 20} {
		max := MaxEagerLimit(ring)
		cfg := testConfig(net, 0, 1)
		cfg.RingSize, cfg.EagerLimit = ring, max
		if _, err := NewEngine(cfg); err != nil {
			t.Errorf("ring %d: MaxEagerLimit %d rejected: %v", ring, max, err)
		}
		cfg.EagerLimit = max + 1
		_, err := NewEngine(cfg)
		if err == nil {
			t.Errorf("ring %d: eager limit %d (MaxEagerLimit+1) accepted", ring, max+1)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("at most %d", max)) {
			t.Errorf("ring %d: error %q does not say at most %d", ring, err, max)
		}
	}
}

// cmdSig is the part of an issued command a test checks.
type cmdSig struct {
	Src     int
	Kind    CmdKind
	Peer    int
	Region  RegionID
	Off     uint64
	Len     int
	HeadLen uint8
	Signal  uint64
	SigOff  uint64
	Old     uint64
	New     uint64
	Size    int
	Rec     uint8
	Token   bool
}

func sigOf(c traced) cmdSig {
	return cmdSig{Src: c.src, Kind: c.Kind, Peer: c.Peer, Region: c.Region, Off: c.Off, Len: len(c.Data),
		HeadLen: c.HeadLen, Signal: c.Signal, SigOff: c.SigOff, Old: c.Old, New: c.New, Size: c.Size,
		Rec: c.recKind(), Token: c.Token != 0}
}

// checkTrace compares the commands issued since from with want.
func checkTrace(t *testing.T, c *cluster, from int, want []cmdSig) {
	t.Helper()
	got := c.trace[from:]
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = sigOf(got[i]) == want[i]
	}
	if ok {
		return
	}
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = fmt.Sprintf("%+v", sigOf(got[i]))
		}
		if i < len(want) {
			w = fmt.Sprintf("%+v", want[i])
		}
		mark := "  "
		if g != w {
			mark = "!!"
		}
		fmt.Fprintf(&b, "%s got  %s\n   want %s\n", mark, g, w)
	}
	t.Fatalf("commands differ:\n%s", b.String())
}

func bootWord(c *cluster, p int, off uint64) uint64 {
	return atomic.LoadUint64(word(c.net.mems[p], off))
}

// TestLazyConnect follows, command by command, the connection the first
// send from process 0 to 1 makes, and the records of the sends after it.
func TestLazyConnect(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.tracing = true
	data := pattern(1, 8)

	s := lazyConnectRequest(t, c, data)
	ring := lazyConnectReply(t, c)
	lazyConnectFirstRecord(t, c, s, ring, data)
	lazyConnectLaterSends(t, c, ring, data)
	c.noErrs()
	c.idle()
}

// lazyConnectRequest makes the first send of data, which takes the
// responder's common slot, watches its own transaction slot for the reply
// and writes the request, and nothing more until the responder polls.
func lazyConnectRequest(t *testing.T, c *cluster, data []byte) *SendOp {
	t.Helper()
	boot := c.net.boot
	e0 := c.eng[0]
	s := c.send(0, 1, 5, 0, data)
	if s.Done() {
		t.Fatal("send done before the connection exists")
	}
	checkTrace(t, c, 0, []cmdSig{
		{Src: 0, Kind: CmdCAS, Peer: 1, Region: boot[1], Off: bootLock, Old: 0, New: 1, Token: true},
		{Src: 0, Kind: CmdWatchSlot, Peer: 0, Region: boot[0], Off: txnOff(1), Size: txnSlot, Token: true},
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: boot[1], Signal: 1, SigOff: bootReq},
	})
	if got := bootWord(c, 1, bootLock); got != 1 {
		t.Fatalf("responder lock = %d, want 1", got)
	}
	if e0.peers[1].conn != connRequested || e0.State().Stats.Connections != 1 {
		t.Fatalf("initiator state %d, connections %d", e0.peers[1].conn, e0.State().Stats.Connections)
	}
	// Nothing more until the responder polls.
	c.poll(0)
	if len(c.trace) != 3 {
		t.Fatalf("initiator issued %v before the reply", c.trace[3:])
	}
	return s
}

// lazyConnectReply has the responder poll: it allocates a ring, watches
// it, replies and frees its slot by compare-and-swap. The job's only
// other process has asked, so it watches for no more requests. It
// returns the ring's region.
func lazyConnectReply(t *testing.T, c *cluster) RegionID {
	t.Helper()
	boot := c.net.boot
	e1 := c.eng[1]
	c.poll(1)
	ring := c.net.next // the region the allocation got
	checkTrace(t, c, 3, []cmdSig{
		{Src: 1, Kind: CmdAlloc, Peer: 0, Size: ringCtl + 4096, Token: true},
		{Src: 1, Kind: CmdWatchRing, Peer: 0, Region: ring},
		{Src: 1, Kind: CmdWrite, Peer: 0, Region: boot[0], Off: txnOff(1) + 8, HeadLen: 16, Signal: 1, SigOff: txnOff(1)},
		{Src: 1, Kind: CmdCAS, Peer: 1, Region: boot[1], Off: bootLock, Old: 1, New: 0},
	})
	if l, r := bootWord(c, 1, bootLock), bootWord(c, 1, bootReq); l != 0 || r != 0 {
		t.Fatalf("responder lock %d request %d after the reply, want 0 0", l, r)
	}
	if got := binary.LittleEndian.Uint64(c.net.mems[0][txnOff(1)+8:]); got != uint64(ring) {
		t.Fatalf("reply names region %d, want %d", got, ring)
	}
	if got := binary.LittleEndian.Uint64(c.net.mems[0][txnOff(1)+16:]); got != 4096 {
		t.Fatalf("reply names ring size %d, want 4096", got)
	}
	if st := e1.State().Stats; st.RingsGranted != 1 || st.RingBytes != ringCtl+4096 || st.Connections != 0 {
		t.Fatalf("responder counters %+v", st)
	}
	return ring
}

// lazyConnectFirstRecord has the initiator acknowledge the reply and write
// the record of the first send s into ring, and the responder receive it.
func lazyConnectFirstRecord(t *testing.T, c *cluster, s *SendOp, ring RegionID, data []byte) {
	t.Helper()
	boot := c.net.boot
	// The initiator acknowledges and writes the record.
	c.poll(0)
	checkTrace(t, c, 7, []cmdSig{
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: boot[1], Signal: 1, SigOff: bootTxn + cell*(2+0)},
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: ring, Off: ringCtl, HeadLen: recSignal,
			Signal: signal(1, cell), SigOff: ringCtl + recSignal, Rec: recEager},
	})
	checkSent(t, "first send", s)
	if bootWord(c, 0, txnOff(1)) != 0 {
		t.Fatal("initiator did not clear its transaction slot")
	}
	r := c.recv(1, 0, 5, 0, 8)
	if r.Done() {
		t.Fatal("receive done before the responder polled its ring")
	}
	c.poll(1)
	checkRecv(t, "first message", r, 0, 5, data)
}

// lazyConnectLaterSends checks that sends on the connection write into ring
// at once: one command for a record of one cell or of up to PackedRecords
// bytes, the payload cells first then the first cell for a longer one.
func lazyConnectLaterSends(t *testing.T, c *cluster, ring RegionID, data []byte) {
	t.Helper()
	// Later sends write at once: one command.
	n := len(c.trace)
	s := c.send(0, 1, 5, 0, data)
	checkSent(t, "second send", s)
	checkTrace(t, c, n, []cmdSig{
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: ring, Off: ringCtl + cell, HeadLen: recSignal,
			Signal: signal(2, cell), SigOff: ringCtl + cell + recSignal, Rec: recEager},
	})
	// A payload beyond the first cell, in a record of up to
	// PackedRecords bytes, is one write: meta and payload, then the
	// signal as the record's last word.
	n = len(c.trace)
	big := pattern(2, 100)
	s = c.send(0, 1, 6, 0, big)
	checkSent(t, "third send", s)
	checkTrace(t, c, n, []cmdSig{
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: ring, Off: ringCtl + 2*cell, Len: 100, HeadLen: recMeta,
			Signal: signal(3, 3*cell), SigOff: ringCtl + 5*cell - 8, Rec: recEager},
	})
	r := c.recv(1, 0, 6, 0, 100)
	c.poll(1)
	checkRecv(t, "third message", r, 0, 6, big)
	// In a longer record, the payload cells are written first, then the
	// first cell with the signal.
	n = len(c.trace)
	bigger := pattern(3, testPacked)
	s = c.send(0, 1, 7, 0, bigger)
	checkSent(t, "fourth send", s)
	checkTrace(t, c, n, []cmdSig{
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: ring, Off: ringCtl + 6*cell, Len: testPacked},
		{Src: 0, Kind: CmdWrite, Peer: 1, Region: ring, Off: ringCtl + 5*cell, HeadLen: recSignal,
			Signal: signal(4, 5*cell), SigOff: ringCtl + 5*cell + recSignal, Rec: recEager},
	})
	r = c.recv(1, 0, 7, 0, testPacked)
	c.poll(1)
	checkRecv(t, "fourth message", r, 0, 7, bigger)
	if st := c.eng[0].State().Stats; st.EagerSent != 4 || st.BytesSent != 116+testPacked || st.ConnectRetries != 0 || st.ControlSent != 0 {
		t.Fatalf("initiator counters %+v", st)
	}
}

// TestConnectRace checks connections that race: two initiators, two
// engines that connect to each other, and many initiators.
func TestConnectRace(t *testing.T) {
	t.Run("two initiators", testConnectTwoInitiators)
	t.Run("mutual", testConnectMutual)
	t.Run("many initiators", testConnectManyInitiators)
}

// testConnectTwoInitiators: two engines connect to a third at once; the
// loser of the slot retries of its own accord and both messages arrive.
func testConnectTwoInitiators(t *testing.T) {
	c := newCluster(t, 3, nil)
	d0, d1 := pattern(10, 40), pattern(11, 50)
	s0 := &SendOp{Peer: 2, Tag: 1, Data: d0}
	s1 := &SendOp{Peer: 2, Tag: 1, Data: d1}
	c.eng[0].Submit(s0)
	c.eng[1].Submit(s1)
	c.drain(0) // wins the slot
	c.drain(1) // loses it
	if got := c.eng[1].State().Stats.ConnectRetries; got != 1 {
		t.Fatalf("loser ConnectRetries = %d, want 1", got)
	}
	if c.eng[1].peers[2].conn != connIdle {
		t.Fatalf("loser state %d, want idle", c.eng[1].peers[2].conn)
	}
	if got := c.eng[0].State().Stats.ConnectRetries; got != 0 {
		t.Fatalf("winner ConnectRetries = %d", got)
	}
	// The loser retries on its next poll of its own accord: in
	// virtual time it does not wait for data meanwhile.
	if !c.eng[1].State().Retrying || c.eng[0].State().Retrying {
		t.Fatalf("Retrying: loser %v, winner %v; want true, false", c.eng[1].State().Retrying, c.eng[0].State().Retrying)
	}
	r0 := c.recv(2, 0, 1, 0, 64)
	r1 := c.recv(2, 1, 1, 0, 64)
	c.wait(s0, s1, r0, r1)
	checkSent(t, "s0", s0)
	checkSent(t, "s1", s1)
	checkRecv(t, "from 0", r0, 0, 1, d0)
	checkRecv(t, "from 1", r1, 1, 1, d1)
	for i := range 2 {
		if st := c.eng[i].State().Stats; st.Connections != 1 {
			t.Errorf("engine %d: %d connections", i, st.Connections)
		}
	}
	if st := c.eng[2].State().Stats; st.RingsGranted != 2 {
		t.Errorf("responder granted %d rings", st.RingsGranted)
	}
	c.noErrs()
	c.idle()
}

// testConnectMutual: two engines connect to each other at once, with no
// retry, one connection and one ring granted each.
func testConnectMutual(t *testing.T) {
	c := newCluster(t, 2, nil)
	s0 := &SendOp{Peer: 1, Tag: 2, Data: pattern(1, 3)}
	s1 := &SendOp{Peer: 0, Tag: 3, Data: pattern(2, 5)}
	c.eng[0].Submit(s0)
	c.eng[1].Submit(s1)
	r0 := c.recv(0, 1, 3, 0, 5)
	r1 := c.recv(1, 0, 2, 0, 3)
	c.wait(s0, s1, r0, r1)
	checkRecv(t, "at 0", r0, 1, 3, pattern(2, 5))
	checkRecv(t, "at 1", r1, 0, 2, pattern(1, 3))
	for i := range 2 {
		if st := c.eng[i].State().Stats; st.ConnectRetries != 0 || st.Connections != 1 || st.RingsGranted != 1 {
			t.Errorf("engine %d counters %+v", i, st)
		}
	}
	c.idle()
}

// testConnectManyInitiators: five engines connect to a sixth at once; at
// least one loses the slot, and every message arrives.
func testConnectManyInitiators(t *testing.T) {
	const n = 6
	c := newCluster(t, n, nil)
	var ops []Completion
	var recvs []*RecvOp
	for i := range n - 1 {
		ops = append(ops, c.send(i, n-1, 4, 0, pattern(i, i+1)))
	}
	for i := range n - 1 {
		r := c.recv(n-1, i, 4, 0, 16)
		recvs = append(recvs, r)
		ops = append(ops, r)
	}
	c.wait(ops...)
	var retries uint64
	for i := range n - 1 {
		checkRecv(t, fmt.Sprint("from ", i), recvs[i], i, 4, pattern(i, i+1))
		retries += c.eng[i].State().Stats.ConnectRetries
	}
	if retries == 0 {
		t.Error("no initiator lost the slot")
	}
	if st := c.eng[n-1].State().Stats; st.RingsGranted != n-1 {
		t.Errorf("responder granted %d rings", st.RingsGranted)
	}
	c.idle()
}

// A connection whose compare-and-swap fails fails the sends queued for
// it, and later ones, without stopping the engine.
func TestConnectError(t *testing.T) {
	c := newCluster(t, 3, nil)
	c.hook = func(src int, cmd Command) (Event, bool) {
		if src == 0 && cmd.Kind == CmdCAS && cmd.Peer == 1 {
			return Event{Kind: EvError, Token: cmd.Token, Err: errInjected}, true
		}
		return Event{}, false
	}
	for _, mode := range modes {
		c.eng[0].cfg.Rendezvous = mode
		before := c.net.regions(0)
		s1 := c.send(0, 1, 1, 0, pattern(1, 10))
		s2 := c.send(0, 1, 1, 0, pattern(2, 5000)) // rendezvous
		c.wait(s1, s2)
		for _, s := range []*SendOp{s1, s2} {
			if !errors.Is(s.Err(), errInjected) {
				t.Fatalf("%v: send error %v, want the CAS failure", mode, s.Err())
			}
		}
		c.idle()
		if got := c.net.regions(0); got != before {
			t.Fatalf("%v: %d regions registered, %d before", mode, got, before)
		}
	}
	if c.eng[0].State().Err != nil {
		t.Fatalf("engine failed: %v", c.eng[0].State().Err)
	}
	if c.eng[0].blocked != 0 {
		t.Fatalf("blocked = %d", c.eng[0].blocked)
	}
	// Other peers are unaffected.
	s := c.send(0, 2, 1, 0, pattern(3, 7))
	r := c.recv(2, 0, 1, 0, 7)
	c.wait(s, r)
	checkRecv(t, "to 2", r, 0, 1, pattern(3, 7))
}

// A responder with its ring cap reached refuses further senders.
func TestRingCap(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			const n = 4
			c := newCluster(t, n, func(i int, cfg *Config) {
				cfg.Rendezvous = mode
				if i == n-1 {
					cfg.RingCap = 2 * (ringCtl + cfg.RingSize)
				}
			})
			resp := n - 1
			for i := range 2 {
				s := c.send(i, resp, 1, 0, pattern(i, 100))
				r := c.recv(resp, i, 1, 0, 100)
				c.wait(s, r)
				checkRecv(t, fmt.Sprint("from ", i), r, i, 1, pattern(i, 100))
			}
			before := c.net.regions(2)
			s1 := c.send(2, resp, 1, 0, pattern(2, 100))
			s2 := c.send(2, resp, 1, 0, pattern(2, 5000)) // rendezvous, queued behind
			c.wait(s1, s2)
			for _, s := range []*SendOp{s1, s2} {
				if !errors.Is(s.Err(), ErrNoRing) {
					t.Fatalf("refused send: error %v, want ErrNoRing", s.Err())
				}
			}
			// Later sends fail at once.
			s3 := c.send(2, resp, 1, 0, pattern(3, 1))
			if !s3.Done() || !errors.Is(s3.Err(), ErrNoRing) {
				t.Fatalf("send after refusal: done %v err %v", s3.Done(), s3.Err())
			}
			// The refused process is otherwise fine, and nothing is left
			// in flight or registered.
			c.idle()
			if got := c.net.regions(2); got != before {
				t.Fatalf("refused sender has %d regions, had %d", got, before)
			}
			s4 := c.send(2, 0, 1, 0, pattern(4, 30))
			r4 := c.recv(0, 2, 1, 0, 30)
			// The accepted senders are unaffected.
			s5 := c.send(1, resp, 2, 0, pattern(5, 3000))
			r5 := c.recv(resp, 1, 2, 0, 3000)
			c.wait(s4, r4, s5, r5)
			checkRecv(t, "2 to 0", r4, 2, 1, pattern(4, 30))
			checkRecv(t, "1 to 3 after the refusal", r5, 1, 2, pattern(5, 3000))
			if st := c.eng[resp].State().Stats; st.RingsGranted != 2 {
				t.Fatalf("responder granted %d rings", st.RingsGranted)
			}
			if bootWord(c, resp, bootLock) != 0 {
				t.Fatal("responder slot still locked")
			}
			c.noErrs()
			c.idle()
		})
	}
}

// checkNewEngine checks that NewEngine accepts cfg (want "") or refuses it
// with an error that mentions want.
func checkNewEngine(t *testing.T, cfg Config, want string) {
	t.Helper()
	e, err := NewEngine(cfg)
	switch {
	case want == "" && (err != nil || e == nil):
		t.Fatalf("NewEngine: %v", err)
	case want == "":
	case err == nil:
		t.Fatal("NewEngine accepted the configuration")
	case !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not mention %q", err, want)
	}
}

// TestRequestWatchEnds checks that a process watches its request slot
// until every other process has connected to it, and again for its own
// connection to itself: in a job of 3, process 2 watches after process
// 0's request, not after process 1's, and a send to itself after that
// connects and arrives, with no watch left after its request.
func TestRequestWatchEnds(t *testing.T) {
	c := newCluster(t, 3, nil)
	watching := func(when string, want bool) {
		t.Helper()
		if got := c.eng[2].requests.watching; got != want {
			t.Fatalf("%s: process 2 watches its request slot: %v, want %v", when, got, want)
		}
	}
	watching("at the start", true)
	c.connect(0, 2)
	watching("after process 0's request", true)
	c.connect(1, 2)
	watching("after process 1's request", false)
	data := pattern(3, 8)
	s := c.send(2, 2, 5, 0, data)
	r := c.recv(2, 2, 5, 0, len(data))
	c.wait(s, r)
	checkRecv(t, "to itself", r, 2, 5, data)
	watching("after its own request", false)
	c.noErrs()
}
