package llc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// step is an expected command in a rendezvous exchange.
type step struct {
	src  int
	kind CmdKind
	peer int
	n    int   // len(Data)
	rec  uint8 // ring record kind, 0 for none
}

func (s step) String() string {
	return fmt.Sprintf("%d:%v->%d len=%d rec=%d", s.src, s.kind, s.peer, s.n, s.rec)
}

func stepOf(c traced) step {
	return step{c.src, c.Kind, c.Peer, len(c.Data), c.recKind()}
}

func checkSteps(t *testing.T, what string, got []traced, want []step) {
	t.Helper()
	var g, w []string
	for _, c := range got {
		g = append(g, stepOf(c).String())
	}
	for _, s := range want {
		w = append(w, s.String())
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Fatalf("%s: commands\n%s\nwant\n%s", what, strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

// newPair returns two connected engines (both directions).
func newPair(t *testing.T, mod func(i int, cfg *Config)) *cluster {
	c := newCluster(t, 2, mod)
	c.connect(0, 1)
	c.connect(1, 0)
	return c
}

// TestRendezvousCommands checks the commands each side of a rendezvous
// transfer issues, pull and push, for receive buffers of every fit.
func TestRendezvousCommands(t *testing.T) {
	for _, bufLen := range []int{rndvCmdSize, rndvCmdSize + 100, 3000, 0} {
		t.Run(fmt.Sprintf("pull/buf=%d", bufLen), func(t *testing.T) { testPullCommands(t, bufLen) })
		t.Run(fmt.Sprintf("push/buf=%d", bufLen), func(t *testing.T) { testPushCommands(t, bufLen) })
	}
}

// rndvCmdSize is the message size of TestRendezvousCommands.
const rndvCmdSize = 5000

// testPullCommands checks a pull rendezvous into a buffer of bufLen bytes:
// the sender registers its data and sends an RTS, the receiver reads the
// data and sends a FIN, and the sender releases the registration.
func testPullCommands(t *testing.T, bufLen int) {
	const size = rndvCmdSize
	n := min(size, bufLen)
	c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = RndvPull })
	c.tracing = true
	data := pattern(3, size)
	r := c.recv(1, 0, 3, 0, bufLen)
	s := c.send(0, 1, 3, 0, data)
	reg := c.net.next
	checkSteps(t, "send", c.trace, []step{
		{0, CmdRegister, 1, size, 0},
		{0, CmdWrite, 1, 0, recRTS},
	})
	if c.trace[0].Token == 0 || c.trace[1].Token != 0 {
		t.Fatal("tokens: want one on the registration only")
	}
	c.poll(1)
	want := []step{{1, CmdRead, 0, n, 0}, {1, CmdWrite, 0, 0, recFIN}}
	if n == 0 {
		want = want[1:] // nothing to read
	} else if c.trace[2].Region != reg || c.trace[2].Off != 0 {
		t.Fatalf("read of region %d at %d, want region %d at 0", c.trace[2].Region, c.trace[2].Off, reg)
	}
	checkSteps(t, "receiver", c.trace[2:], want)
	if !r.Done() || s.Done() {
		t.Fatalf("after the read: receive done %v, send done %v", r.Done(), s.Done())
	}
	m := len(c.trace)
	c.poll(0)
	checkSteps(t, "sender on FIN", c.trace[m:], []step{{0, CmdRelease, 0, 0, 0}})
	if c.trace[m].Region != reg {
		t.Fatalf("released region %d, want %d", c.trace[m].Region, reg)
	}
	checkSent(t, "send", s)
	checkRendezvousRecv(t, r, data, bufLen)
	st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
	if st0.RndvSent != 1 || st0.ControlSent != 1 || st1.RndvRecv != 1 || st1.ControlSent != 1 || st1.BytesRecv != size {
		t.Fatalf("counters %+v / %+v", st0, st1)
	}
	c.idle()
	if c.net.regions(0) != 2 || c.net.regions(1) != 2 {
		t.Fatal("registration left behind")
	}
}

// testPushCommands checks a push rendezvous into a buffer of bufLen bytes:
// the sender sends an RTS, the receiver registers its buffer and sends a
// CTS, the sender writes the data and a PUT, and the receiver releases the
// registration.
func testPushCommands(t *testing.T, bufLen int) {
	const size = rndvCmdSize
	n := min(size, bufLen)
	c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = RndvPush })
	c.tracing = true
	data := pattern(4, size)
	r := c.recv(1, 0, 3, 0, bufLen)
	s := c.send(0, 1, 3, 0, data)
	checkSteps(t, "send", c.trace, []step{{0, CmdWrite, 1, 0, recRTS}})
	c.poll(1)
	reg := c.net.next
	want := []step{{1, CmdRegister, 0, n, 0}, {1, CmdWrite, 0, 0, recCTS}}
	if n == 0 {
		want = want[1:] // nothing to grant
	}
	checkSteps(t, "receiver", c.trace[1:], want)
	m := len(c.trace)
	c.poll(0)
	want = []step{{0, CmdWrite, 1, n, 0}, {0, CmdWrite, 1, 0, recPUT}}
	if n == 0 {
		want = want[1:]
	} else if w := c.trace[m]; w.Region != reg || w.Off != 0 || w.Signal != 0 || w.HeadLen != 0 || w.Token == 0 {
		t.Fatalf("data write %v, want region %d", w, reg)
	}
	checkSteps(t, "sender on CTS", c.trace[m:], want)
	checkSent(t, "send", s)
	if r.Done() {
		t.Fatal("receive done before PUT")
	}
	m = len(c.trace)
	c.poll(1)
	want = []step{{1, CmdRelease, 0, 0, 0}}
	if n == 0 {
		want = nil
	} else if c.trace[m].Region != reg {
		t.Fatalf("released region %d, want %d", c.trace[m].Region, reg)
	}
	checkSteps(t, "receiver on PUT", c.trace[m:], want)
	checkRendezvousRecv(t, r, data, bufLen)
	st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
	if st0.RndvSent != 1 || st0.ControlSent != 2 || st1.RndvRecv != 1 || st1.ControlSent != 1 {
		t.Fatalf("counters %+v / %+v", st0, st1)
	}
	c.idle()
	if c.net.regions(0) != 2 || c.net.regions(1) != 2 {
		t.Fatal("registration left behind")
	}
}

func checkRendezvousRecv(t *testing.T, r *RecvOp, data []byte, bufLen int) {
	t.Helper()
	if bufLen >= len(data) {
		checkRecv(t, "receive", r, 0, 3, data)
		return
	}
	if !r.Done() || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("receive: done %v err %v, want ErrTruncated", r.Done(), r.Err())
	}
	if r.Status.Len != len(data) || string(r.Buf) != string(data[:bufLen]) {
		t.Fatalf("truncated receive: status %+v, prefix intact %v", r.Status, string(r.Buf) == string(data[:bufLen]))
	}
}

// A rendezvous message keeps its place among eager messages.
func TestRendezvousOrder(t *testing.T) {
	sizes := []int{100, 5000, 50, 2000, 0, 1025, 1024}
	for _, mode := range modes {
		for _, posted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v/posted=%v", mode, posted), func(t *testing.T) {
				c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
				var ops []Completion
				var recvs []*RecvOp
				post := func() {
					for range sizes {
						r := c.recv(1, 0, AnyTag, 0, 6000)
						recvs = append(recvs, r)
						ops = append(ops, r)
					}
				}
				if posted {
					post()
				}
				for i, n := range sizes {
					ops = append(ops, c.send(0, 1, 5, 0, pattern(i, n)))
				}
				if !posted {
					c.run("all arrived", func() bool { return c.eng[1].State().Stats.Unexpected == uint64(len(sizes)) })
					post()
				}
				c.wait(ops...)
				for i, n := range sizes {
					checkRecv(t, fmt.Sprint("message ", i), recvs[i], 0, 5, pattern(i, n))
				}
				if st := c.eng[0].State().Stats; st.RndvSent != 3 || st.EagerSent != 4 {
					t.Fatalf("sender counters %+v", st)
				}
				c.idle()
			})
		}
	}
}

// An unexpected rendezvous message is matched by a receive posted later,
// also through the wildcards, and the sender completes only then.
func TestRendezvousUnexpected(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
			data := pattern(1, 20000)
			s := c.send(0, 1, 8, 4, data)
			c.rounds(20)
			if s.Done() {
				t.Fatal("rendezvous send done without a receive")
			}
			if st, ok := probeOn(c.eng[1], AnySource, AnyTag, 4); !ok || st.Len != len(data) {
				t.Fatalf("probe %+v %v", st, ok)
			}
			r := c.recv(1, AnySource, AnyTag, 4, len(data))
			c.wait(s, r)
			checkRecv(t, "receive", r, 0, 8, data)
			c.idle()
		})
	}
}

// failCmd returns a hook that fails the first command for which match
// holds, and a pointer to how many it failed.
func failCmd(match func(src int, c Command) bool) (func(int, Command) (Event, bool), *int) {
	n := new(int)
	return func(src int, c Command) (Event, bool) {
		if *n == 0 && match(src, c) {
			*n++
			return Event{Kind: EvError, Token: c.Token, Err: errInjected}, true
		}
		return Event{}, false
	}, n
}

func tokenKind(c Command) tokKind { k, _ := splitToken(c.Token); return k }

// TestRendezvousErrors: a failed command of a rendezvous, pulled or
// pushed, fails the side it should, and the engines carry on.
func TestRendezvousErrors(t *testing.T) {
	runRndvErrorCases(t, append(rndvPullErrorCases(), rndvPushErrorCases()...))
}

// rndvErrorCase is a rendezvous whose matching command fails.
type rndvErrorCase struct {
	name  string
	mode  RndvMode
	match func(src int, c Command) bool
	// which side reports the error
	sendErr, recvErr bool
	// the message never reaches the receiver (the receive is cancelled)
	lost bool
	// the receiver learns of the failure from the sender's PUT, not
	// from its own command
	remote bool
}

// rndvPullErrorCases fail the receiver's read or the sender's
// registration of a pulled rendezvous.
func rndvPullErrorCases() []rndvErrorCase {
	return []rndvErrorCase{
		{"pull read fails", RndvPull,
			func(src int, c Command) bool { return src == 1 && tokenKind(c) == tokPullDone }, false, true, false, false},
		{"pull send registration fails", RndvPull,
			func(src int, c Command) bool { return src == 0 && c.Kind == CmdRegister }, true, false, true, false},
	}
}

// rndvPushErrorCases fail the receiver's registration or the sender's
// write of a pushed rendezvous.
func rndvPushErrorCases() []rndvErrorCase {
	return []rndvErrorCase{
		{"push receive registration fails", RndvPush,
			func(src int, c Command) bool { return src == 1 && c.Kind == CmdRegister }, false, true, false, false},
		{"push write fails", RndvPush,
			func(src int, c Command) bool { return src == 0 && tokenKind(c) == tokPushDone }, true, true, false, true},
	}
}

// runRndvErrorCases runs each case as a subtest: a rendezvous whose
// command fails, an eager message behind it, then the engines carry on.
func runRndvErrorCases(t *testing.T, tests []rndvErrorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = tt.mode })
			hook, failed := failCmd(tt.match)
			c.hook = hook
			data := pattern(5, 8000)
			r := c.recv(1, 0, 2, 0, len(data))
			s := c.send(0, 1, 2, 0, data)
			after := c.send(0, 1, 3, 0, pattern(6, 10)) // an eager message behind it
			if tt.lost {
				c.wait(s)
			} else {
				c.wait(s, r)
			}
			if *failed != 1 {
				t.Fatal("the command was not failed")
			}
			checkRndvErrors(t, tt, s, r)
			if tt.lost {
				if !cancelRecvOn(c.eng[1], r) {
					t.Fatal("receive of a lost message could not be cancelled")
				}
			}
			checkRndvCarriesOn(t, c, after, data)
		})
	}
}

// checkRndvErrors checks that the send and the receive fail as tt says:
// with the injected failure, the sender's, or not at all.
func checkRndvErrors(t *testing.T, tt rndvErrorCase, s *SendOp, r *RecvOp) {
	t.Helper()
	for _, x := range []struct {
		what string
		err  error
		want bool
	}{{"send", s.Err(), tt.sendErr}, {"receive", r.Err(), tt.recvErr}} {
		if !x.want {
			if x.err != nil {
				t.Fatalf("%s error: %v", x.what, x.err)
			}
			continue
		}
		if x.what == "receive" && tt.remote {
			if x.err == nil || errors.Is(x.err, ErrTruncated) || !strings.Contains(x.err.Error(), "process 0 failed to write") {
				t.Fatalf("receive error %v, want the sender's failure", x.err)
			}
			continue
		}
		if !errors.Is(x.err, errInjected) || errors.Is(x.err, ErrTruncated) {
			t.Fatalf("%s error %v, want the injected failure", x.what, x.err)
		}
	}
}

// checkRndvCarriesOn: the engines carry on: the eager message after and
// another rendezvous of data arrive, and no registration is left.
func checkRndvCarriesOn(t *testing.T, c *cluster, after *SendOp, data []byte) {
	t.Helper()
	r2 := c.recv(1, 0, 3, 0, 10)
	c.wait(after, r2)
	checkRecv(t, "message after", r2, 0, 3, pattern(6, 10))
	s3 := c.send(0, 1, 2, 0, data)
	r3 := c.recv(1, 0, 2, 0, len(data))
	c.wait(s3, r3)
	checkRecv(t, "rendezvous after", r3, 0, 2, data)
	c.noErrs()
	c.idle()
	if c.net.regions(0) != 2 || c.net.regions(1) != 2 {
		t.Fatalf("registrations left: %d, %d", c.net.regions(0), c.net.regions(1))
	}
}

// Scripted completions: two rendezvous receives whose reads (pull) or
// registrations (push) complete in reverse order, the first one failing.
func TestScriptedCompletionOrder(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
			d1, d2 := pattern(1, 3000), pattern(2, 4000)
			s1 := c.send(0, 1, 1, 0, d1)
			s2 := c.send(0, 1, 2, 0, d2)
			c.run("both RTS arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 2, 0); return ok })
			c.hold[1] = true
			r1 := c.recv(1, 0, 1, 0, len(d1))
			r2 := c.recv(1, 0, 2, 0, len(d2))
			held := c.take(1)
			c.hold[1] = false
			want := CmdRead
			if mode == RndvPush {
				want = CmdRegister
			}
			if len(held) != 2 || held[0].Kind != want || held[1].Kind != want || len(held[0].Data) != len(d1) {
				t.Fatalf("held %v", held)
			}
			c.deliver(1, held[1])
			c.failHeld(1, held[0], errInjected)
			if mode == RndvPull && (!r1.Done() || !r2.Done()) {
				t.Fatal("pull receives not done when their reads completed")
			}
			c.wait(s1, s2, r1, r2)
			checkSent(t, "s1", s1)
			checkSent(t, "s2", s2)
			checkRecv(t, "r2", r2, 0, 2, d2)
			if !errors.Is(r1.Err(), errInjected) {
				t.Fatalf("r1 error %v", r1.Err())
			}
			c.noErrs()
			c.idle()
			if c.net.regions(0) != 2 || c.net.regions(1) != 2 {
				t.Fatalf("registrations left: %d, %d", c.net.regions(0), c.net.regions(1))
			}
		})
	}
}

// TestRendezvousSplit: a split rendezvous delivers the message, truncated
// where the buffer is short, in either direction; the higher-ranked
// process copies the leading part and the lower-ranked the trailing one,
// whichever sends; nothing stays registered.
func TestRendezvousSplit(t *testing.T) {
	for _, tc := range []struct{ msg, buf int }{
		{SplitMin, SplitMin},
		{1<<20 + 3, 1<<20 + 3},
		{1 << 20, SplitMin + 4096},
		{SplitMin - 1, SplitMin}, // below SplitMin: read whole
	} {
		for _, from := range []int{0, 1} {
			to := 1 - from
			t.Run(fmt.Sprintf("%d_into_%d_from_%d", tc.msg, tc.buf, from), func(t *testing.T) {
				c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.Rendezvous = RndvSplit })
				c.tracing = true
				data := pattern(7, tc.msg)
				r := c.recv(to, from, 3, 0, tc.buf)
				s := c.send(from, to, 3, 0, data)
				c.wait(s, r)
				checkSent(t, "split send", s)
				if tc.msg > tc.buf {
					if !errors.Is(r.Err(), ErrTruncated) || string(r.Buf) != string(data[:tc.buf]) {
						t.Fatalf("truncated split receive: err %v, prefix intact %v", r.Err(), string(r.Buf) == string(data[:tc.buf]))
					}
				} else {
					checkRecv(t, "split receive", r, from, 3, data)
				}
				c.idle()
				if got := c.net.regions(0) + c.net.regions(1); got != 4 {
					t.Fatalf("%d regions registered after the transfer, want 4 (the bootstrap areas and rings only)", got)
				}
				n := min(tc.msg, tc.buf)
				k := splitPoint(n)
				var read, write span // what the receiver reads, the sender writes
				switch {
				case k == n:
					read = span{0, n} // read whole
				case to > from: // the receiver, rank 1, copies the leading part
					read, write = span{0, k}, span{k, n}
				default:
					read, write = span{k, n}, span{0, k}
				}
				reads, writes := copiedSpans(c, from, to)
				if reads != read || writes != write {
					t.Fatalf("receiver %d read %v and sender %d wrote %v, want %v and %v", to, reads, from, writes, read, write)
				}
			})
		}
	}
}

// span is a part [from, to) of a message.
type span struct{ from, to int }

// copiedSpans returns the parts of the message that c's traced rendezvous
// copies from process src to dst moved: what the receiver read, what the
// sender wrote (each one command at most).
func copiedSpans(c *cluster, src, dst int) (reads, writes span) {
	for _, cmd := range c.trace {
		switch k, _ := splitToken(cmd.Token); {
		case k == tokPullDone && cmd.src == dst:
			reads = span{int(cmd.Off), int(cmd.Off) + len(cmd.Data)}
		case k == tokPushDone && cmd.src == src:
			writes = span{int(cmd.Off), int(cmd.Off) + len(cmd.Data)}
		}
	}
	return reads, writes
}

// TestRendezvousConsume: a receive marked Consume reads a split rendezvous
// of up to ConsumePullMax bytes whole, one marked Whole up to WholePullMax,
// and either splits a larger one; an unmarked one splits.
func TestRendezvousConsume(t *testing.T) {
	for _, mark := range []string{"consume", "whole", "none"} {
		for _, n := range []int{SplitMin, ConsumePullMax, ConsumePullMax + 64, WholePullMax, WholePullMax + 64} {
			t.Run(fmt.Sprint(mark, n), func(t *testing.T) { testConsume(t, mark, n) })
		}
	}
}

func testConsume(t *testing.T, mark string, n int) {
	c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.Rendezvous = RndvSplit })
	c.tracing = true
	data := pattern(5, n)
	r := c.recv(1, 0, 3, 0, n)
	// Marked before the request to send matches it.
	r.Consume, r.Whole = mark == "consume", mark == "whole"
	s := c.send(0, 1, 3, 0, data)
	c.wait(s, r)
	checkSent(t, "send", s)
	checkRecv(t, "consuming receive", r, 0, 3, data)
	reads, writes := copiedSpans(c, 0, 1)
	wantReads := n
	limit := map[string]int{"consume": ConsumePullMax, "whole": WholePullMax}[mark]
	if n > limit {
		wantReads = splitPoint(n)
	}
	if reads.to-reads.from != wantReads || writes.to-writes.from != n-wantReads {
		t.Fatalf("receiver read %v and sender wrote %v, want %d and %d bytes", reads, writes, wantReads, n-wantReads)
	}
}

// TestRendezvousRequested: a send that asks for a rendezvous goes by one
// below the eager limit (an RTS, no eager record), and arrives whole.
func TestRendezvousRequested(t *testing.T) {
	c := newPair(t, nil)
	if sentEager(t, c, &SendOp{Peer: 1, Tag: 4, Data: pattern(3, 1000), Rendezvous: true}) {
		t.Fatal("a 1000-byte send that asked for a rendezvous went eagerly")
	}
}

// TestEagerRequested: a send marked Eager above the eager limit goes
// eagerly up to EagerHintLimit, and by rendezvous above it or without one.
func TestEagerRequested(t *testing.T) {
	for _, tc := range []struct {
		hint, n int
		eager   bool
	}{
		{0, 3000, false},
		{4096, 3000, true},
		{4096, 5000, false},
	} {
		c := newPair(t, func(_ int, cfg *Config) { cfg.RingSize, cfg.EagerLimit, cfg.EagerHintLimit = 16384, 1024, tc.hint })
		if eager := sentEager(t, c, &SendOp{Peer: 1, Tag: 2, Data: pattern(9, tc.n), Eager: true}); eager != tc.eager {
			t.Errorf("hint %d, %d bytes: eager %v, want %v", tc.hint, tc.n, eager, tc.eager)
		}
	}
}

// sentEager sends op from process 0 of c to a receive posted at 1, checks
// that it arrives whole, and reports whether it went by the eager path
// (one eager send and no rendezvous; else one rendezvous and no eager).
func sentEager(t *testing.T, c *cluster, op *SendOp) bool {
	t.Helper()
	before := c.eng[0].State().Stats
	r := c.recv(1, 0, op.Tag, 0, len(op.Data))
	c.eng[0].Submit(op)
	c.drain(0)
	c.wait(op, r)
	checkSent(t, "marked send", op)
	checkRecv(t, "marked send", r, 0, op.Tag, op.Data)
	st := c.eng[0].State().Stats
	eager, rndv := st.EagerSent-before.EagerSent, st.RndvSent-before.RndvSent
	if eager+rndv != 1 {
		t.Fatalf("%d eager and %d rendezvous sends for one message", eager, rndv)
	}
	return eager == 1
}

// TestCTSEncoding: grants and split points past 4 GiB travel whole (they
// were 32-bit fields, so a 4 GiB message was granted 0 bytes and a larger
// one a wrapped count), and a short record is an error, not a panic.
func TestCTSEncoding(t *testing.T) {
	for _, n := range []uint64{0, 5000, 1<<32 - 1, 1 << 32, 1<<32 + 4096, 5<<30 + 123, 1 << 40} {
		in := cts{recvID: 1<<40 + 7, region: 1<<31 + 5, grant: n, split: uint64(splitPoint(int(n))), lead: n%2 == 0}
		var b [ctsSize]byte
		if got := in.put(b[:]); got != ctsSize {
			t.Fatalf("put wrote %d bytes, want %d", got, ctsSize)
		}
		var out cts
		if err := out.get(b[:]); err != nil || out != in {
			t.Errorf("%d bytes: decoded %+v (%v), want %+v", n, out, err, in)
		}
		if n >= 1<<32 && (out.split < 1<<31 || out.split > n) {
			t.Errorf("%d bytes: split point %d", n, out.split)
		}
	}
	var short cts
	if err := short.get(make([]byte, ctsSize-1)); err == nil {
		t.Error("a short CTS record decoded")
	}
	var r rts
	if err := r.get(make([]byte, rtsSize-1)); err == nil {
		t.Error("a short RTS record decoded")
	}
}

// An exchange of pull-rendezvous messages from ExchangePushMin up to
// ExchangePushMax bytes (each process sends to the other while receiving
// from it) moves by push: each receiver grants its buffer and the senders
// write; one-way messages, smaller ones and larger ones are still read,
// and a larger exchange is read whole under the split variant too, where
// a one-way message is split. Data arrive intact, truncated receives fail
// as such, and nothing stays registered.
func TestRendezvousExchangePush(t *testing.T) {
	for _, mode := range []RndvMode{RndvPull, RndvSplit} {
		t.Run(mode.String(), func(t *testing.T) { testExchangePush(t, mode) })
	}
}

// testExchangePush runs each case of TestRendezvousExchangePush with the
// rendezvous mode.
func testExchangePush(t *testing.T, mode RndvMode) {
	for _, tc := range []exchangePushCase{
		{"exchange", ExchangePushMin, ExchangePushMin, true, true},
		{"exchange_truncated", 1 << 20, ExchangePushMin + 4096, true, true},
		{"exchange_small", ExchangePushMin - 1, ExchangePushMin, true, false},
		{"exchange_large", ExchangePushMax + 4096, ExchangePushMax + 4096, true, false},
		{"one_way", 1 << 20, 1 << 20, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newPair(t, func(_ int, cfg *Config) { cfg.Rendezvous, cfg.ExchangePush = mode, ExchangePushMin })
			c.tracing = true
			data := [2][]byte{pattern(8, tc.msg), pattern(9, tc.msg)}
			sends, recvs := startExchange(c, tc, data)
			checkExchangeDelivered(t, c, tc, data, sends, recvs)
			checkExchangeCommands(t, c, mode, tc, len(sends))
		})
	}
}

// exchangePushCase is a message of msg bytes into receives of buf, sent
// both ways or one way, and whether its data should be written.
type exchangePushCase struct {
	name          string
	msg, buf      int
	both, written bool
}

// startExchange posts the receives and sends data from 0 to 1 and, where
// tc says both, from 1 to 0.
func startExchange(c *cluster, tc exchangePushCase, data [2][]byte) ([]*SendOp, [2]*RecvOp) {
	var sends []*SendOp
	var recvs [2]*RecvOp
	for i := range 2 {
		if i == 0 || tc.both {
			recvs[1-i] = c.recv(1-i, i, 3, 0, tc.buf)
			sends = append(sends, c.send(i, 1-i, 3, 0, data[i]))
		}
	}
	return sends, recvs
}

// checkExchangeDelivered waits for the sends and receives: data arrive
// intact, truncated receives fail as such, and nothing stays registered.
func checkExchangeDelivered(t *testing.T, c *cluster, tc exchangePushCase, data [2][]byte, sends []*SendOp, recvs [2]*RecvOp) {
	t.Helper()
	for _, s := range sends {
		c.wait(s)
		checkSent(t, "send", s)
	}
	for i, r := range recvs {
		if r == nil {
			continue
		}
		c.wait(r)
		if tc.msg > tc.buf {
			if !errors.Is(r.Err(), ErrTruncated) || string(r.Buf) != string(data[1-i][:tc.buf]) {
				t.Fatalf("truncated receive of %d: err %v, prefix intact %v", i, r.Err(), string(r.Buf) == string(data[1-i][:tc.buf]))
			}
		} else {
			checkRecv(t, "receive", r, 1-i, 3, data[1-i])
		}
	}
	c.idle()
	if got := c.net.regions(0) + c.net.regions(1); got != 4 {
		t.Fatalf("%d regions registered after the exchange, want 4 (the bootstrap areas and rings only)", got)
	}
}

// checkExchangeCommands counts the reads and writes of data the engines
// commanded: the nsends messages written where tc says so, split in two
// one way, and read otherwise.
func checkExchangeCommands(t *testing.T, c *cluster, mode RndvMode, tc exchangePushCase, nsends int) {
	t.Helper()
	reads, writes := 0, 0
	for _, cmd := range c.trace {
		switch k, _ := splitToken(cmd.Token); k {
		case tokPullDone:
			reads++
		case tokPushDone:
			writes++
		}
	}
	wantReads, wantWrites := nsends, 0
	switch {
	case tc.written:
		wantReads, wantWrites = 0, nsends
	case mode == RndvSplit && min(tc.msg, tc.buf) >= SplitMin && !tc.both:
		wantWrites = nsends // split in two
	}
	if reads != wantReads || writes != wantWrites {
		t.Fatalf("%d reads and %d writes of data, want %d and %d", reads, writes, wantReads, wantWrites)
	}
}
