package martini

import (
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// pair builds two endpoints of one job in this process, as ranks 0 and 1,
// with their bootstrap areas registered and exchanged, shared lines on
// and records packed as the translator allows, as under the native
// profile.
func pair(tb testing.TB, mode llc.RndvMode) [2]*llc.Endpoint {
	tb.Helper()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 2, PGID: 42})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { seg.Close() })
	var trs [2]*Translator
	var boot [2]llc.RegionID
	for i := range trs {
		nic, err := nicemu.Open(seg, i)
		if err != nil {
			tb.Fatal(err)
		}
		trs[i] = New(nic)
		if boot[i], err = llc.AllocBoot(trs[i], i, 2); err != nil {
			tb.Fatal(err)
		}
	}
	var eps [2]*llc.Endpoint
	for i := range eps {
		eng, err := llc.NewEngine(llc.Config{Self: i, Size: 2, Boot: boot[:],
			EagerLimit: 32 << 10, RingSize: 256 << 10, RingCap: 8 << 20, Rendezvous: mode, SharedLines: true,
			PackedRecords: trs[i].Caps().PackedRecords})
		if err != nil {
			tb.Fatal(err)
		}
		eps[i] = llc.NewEndpoint(eng, trs[i])
	}
	return eps
}

// exchange sends buf from 0 to 1 and receives it, in one goroutine.
func exchange(tb testing.TB, eps [2]*llc.Endpoint, s *llc.SendOp, r *llc.RecvOp) {
	transfer(eps, s, r)
	if s.Err() != nil || r.Err() != nil {
		tb.Fatal(s.Err(), r.Err())
	}
}

// transfer is exchange's calls, without its checks.
func transfer(eps [2]*llc.Endpoint, s *llc.SendOp, r *llc.RecvOp) {
	eps[1].Recv(r)
	if !eps[0].Send(s) {
		for !eps[0].Test(s) {
			eps[1].Progress()
		}
	}
	for !eps[1].Test(r) {
		eps[0].Progress()
	}
}

func benchExchange(b *testing.B, size int, mode llc.RndvMode) {
	eps := pair(b, mode)
	src := make([]byte, size)
	dst := make([]byte, size)
	// The operations, made once and submitted again (the engine resets an
	// operation it is given), and exchange's calls without its checks of
	// the send on every message, as in benchLine: the count is the
	// runtime's alone.
	s := &llc.SendOp{Peer: 1, Tag: 1, Data: src}
	r := &llc.RecvOp{Source: 0, Tag: 1, Buf: dst}
	exchange(b, eps, s, r)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		transfer(eps, s, r)
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
	b.StopTimer()
	if s.Err() != nil || r.Status.Len != size {
		b.Fatal(s.Err(), r.Status.Len)
	}
}

// BenchmarkEager8Unexpected is BenchmarkEager8 with the message there
// before its receive: the receiver's poll takes it into the engine's
// unexpected messages, and the receive posted after matches it there, as
// a receive does that follows another in an exchange (IMB's Exchange and
// PingPing, where the first receive's poll takes both of the peer's
// messages).
func BenchmarkEager8Unexpected(b *testing.B) {
	eps := pair(b, llc.RndvPull)
	src, dst := make([]byte, 8), make([]byte, 8)
	s := &llc.SendOp{Peer: 1, Tag: 1, Data: src}
	r := &llc.RecvOp{Source: 0, Tag: 1, Buf: dst}
	exchange(b, eps, s, r) // the connection, opened by the first message
	b.SetBytes(8)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !eps[0].Send(s) { // the ring full: its tail read first
			for !eps[0].Test(s) {
				eps[1].Progress()
			}
		}
		eps[1].Progress()
		if !eps[1].Recv(r) {
			b.Fatal("the receive did not find its message among the unexpected")
		}
	}
	b.StopTimer()
	if s.Err() != nil || r.Err() != nil || r.Status.Len != 8 {
		b.Fatal(s.Err(), r.Err(), r.Status.Len)
	}
}

// BenchmarkEager8 is the software cost of one 8-byte eager message (send,
// poll, match, deliver) with both processes' memory in this core's cache,
// in a stream in one direction: the pair's line, once written, awaits an
// acknowledgement that no answer brings, and the messages go through the
// ring.
func BenchmarkEager8(b *testing.B) { benchExchange(b, 8, llc.RndvPull) }

// BenchmarkEager8Line is the software cost of one 8-byte eager message
// through the pair's shared line, the default between two processes of a
// host: the messages alternate direction, so each one's reply finds the
// line acknowledged and free, as in a ping-pong. Per iteration one message.
func BenchmarkEager8Line(b *testing.B) { benchLine(b, 8) }

// BenchmarkEager16Line is BenchmarkEager8Line's of a 16-byte message, the
// most the half carries without the extension line.
func BenchmarkEager16Line(b *testing.B) { benchLine(b, 16) }

// BenchmarkEager32Line is BenchmarkEager8Line's of a 32-byte message,
// whose body takes the writer's half of the shared extension line as
// well.
func BenchmarkEager32Line(b *testing.B) { benchLine(b, 32) }

// BenchmarkEager64Line is BenchmarkEager8Line's of a 64-byte message,
// whose body takes the first of the writer's own extension lines as well.
func BenchmarkEager64Line(b *testing.B) { benchLine(b, 64) }

// BenchmarkEager128Line is BenchmarkEager8Line's of a 128-byte message,
// whose body takes both of the writer's own extension lines.
func BenchmarkEager128Line(b *testing.B) { benchLine(b, 128) }

// BenchmarkEager8LineWait is BenchmarkEager8Line through the blocking
// calls that MPI's Send and Recv make (Endpoint.SendWait and RecvWait):
// each message is sent, then received by a RecvWait whose first poll
// finds it, the messages alternating direction. Per iteration one
// message.
func BenchmarkEager8LineWait(b *testing.B) {
	eps := pair(b, llc.RndvPull)
	bufs := [2][]byte{make([]byte, 8), make([]byte, 8)}
	for i := range 2 { // the connections, opened by a first message each way
		exchange(b, [2]*llc.Endpoint{eps[i], eps[1-i]}, &llc.SendOp{Peer: 1 - i, Tag: 1, Data: bufs[i]},
			&llc.RecvOp{Source: i, Tag: 1, Buf: bufs[1-i]})
	}
	sent := eps[0].Stats().LineSent + eps[1].Stats().LineSent
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		from, to := i&1, 1-i&1
		if err := eps[from].SendWait(to, 1, 0, bufs[from]); err != nil {
			b.Fatal(err)
		}
		if st, err := eps[to].RecvWait(from, 1, 0, bufs[to]); err != nil || st.Len != 8 {
			b.Fatal(err, st.Len)
		}
	}
	b.StopTimer()
	if got := eps[0].Stats().LineSent + eps[1].Stats().LineSent - sent; got != uint64(b.N) {
		b.Fatalf("%d of %d messages went through the shared line", got, b.N)
	}
}

func benchLine(b *testing.B, size int) {
	eps := pair(b, llc.RndvPull)
	bufs := [2][]byte{make([]byte, size), make([]byte, size)}
	// The operations of each direction, made once and submitted again
	// (the engine resets an operation it is given, as the endpoint's
	// recycled ones are), so that the count is the runtime's alone.
	var s [2]llc.SendOp
	var r [2]llc.RecvOp
	for i := range 2 {
		s[i] = llc.SendOp{Peer: 1 - i, Tag: 1, Data: bufs[i]}
		r[i] = llc.RecvOp{Source: i, Tag: 1, Buf: bufs[1-i]}
		exchange(b, [2]*llc.Endpoint{eps[i], eps[1-i]}, &s[i], &r[i])
	}
	sent := eps[0].Stats().LineSent + eps[1].Stats().LineSent
	// exchange's calls, for each direction, without its arguments made
	// and its checks on every message: what the loop adds to a message's
	// count is the loop's alone.
	type direction struct {
		from, to *llc.Endpoint
		s        *llc.SendOp
		r        *llc.RecvOp
	}
	dirs := [2]direction{{eps[0], eps[1], &s[0], &r[0]}, {eps[1], eps[0], &s[1], &r[1]}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := &dirs[i&1]
		d.to.Recv(d.r)
		if !d.from.Send(d.s) {
			for !d.from.Test(d.s) {
				d.to.Progress()
			}
		}
		for !d.to.Test(d.r) {
			d.from.Progress()
		}
		if d.r.Err() != nil {
			b.Fatal(d.r.Err())
		}
	}
	b.StopTimer()
	if s[0].Err() != nil || s[1].Err() != nil {
		b.Fatal(s[0].Err(), s[1].Err())
	}
	if got := eps[0].Stats().LineSent + eps[1].Stats().LineSent - sent; got != uint64(b.N) {
		b.Fatalf("%d of %d messages went through the shared line", got, b.N)
	}
}

// BenchmarkEager1K is BenchmarkEager8's of a 1 KiB message: one packed
// ring record, whatever the line's state. The rendezvous benchmarks move
// 1 MiB by a pull and by a push.
func BenchmarkEager1K(b *testing.B)    { benchExchange(b, 1024, llc.RndvPull) }
func BenchmarkRndvPull1M(b *testing.B) { benchExchange(b, 1<<20, llc.RndvPull) }
func BenchmarkRndvPush1M(b *testing.B) { benchExchange(b, 1<<20, llc.RndvPush) }

func TestEagerZeroAllocs(t *testing.T) {
	eps := pair(t, llc.RndvPull)
	src, dst := make([]byte, 8), make([]byte, 8)
	s := &llc.SendOp{Peer: 1, Tag: 1, Data: src}
	r := &llc.RecvOp{Source: 0, Tag: 1, Buf: dst}
	exchange(t, eps, s, r)
	allocs := testing.AllocsPerRun(1000, func() {
		*s = llc.SendOp{Peer: 1, Tag: 1, Data: src}
		*r = llc.RecvOp{Source: 0, Tag: 1, Buf: dst}
		exchange(t, eps, s, r)
	})
	if allocs != 0 {
		t.Fatalf("eager send+receive allocates %.1f times per message, want 0", allocs)
	}
}

// BenchmarkPingPongWait8 is the software cost of a ping-pong of 8-byte
// messages through the blocking calls (SendWait, RecvWait), both
// processes' memory in this core's cache: per iteration two messages, each
// sent, polled, matched and delivered, with the endpoint's locking and
// waiting around them.
func BenchmarkPingPongWait8(b *testing.B) {
	eps := pair(b, llc.RndvPull)
	a, c := make([]byte, 8), make([]byte, 8)
	// Connect both directions first: a blocking send that has to connect
	// waits for the peer, which this goroutine also drives.
	exchange(b, eps, &llc.SendOp{Peer: 1, Tag: 1, Data: a}, &llc.RecvOp{Source: 0, Tag: 1, Buf: c})
	exchange(b, [2]*llc.Endpoint{eps[1], eps[0]}, &llc.SendOp{Peer: 0, Tag: 1, Data: c}, &llc.RecvOp{Source: 1, Tag: 1, Buf: a})
	b.ReportAllocs()
	for b.Loop() {
		if err := eps[0].SendWait(1, 1, 0, a); err != nil {
			b.Fatal(err)
		}
		if _, err := eps[1].RecvWait(0, 1, 0, c); err != nil {
			b.Fatal(err)
		}
		if err := eps[1].SendWait(0, 1, 0, c); err != nil {
			b.Fatal(err)
		}
		if _, err := eps[0].RecvWait(1, 1, 0, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProgressIdle is one round of the I/O loop with nothing to do:
// the cost of one poll of a waiting process.
func BenchmarkProgressIdle(b *testing.B) {
	eps := pair(b, llc.RndvPull)
	s := &llc.SendOp{Peer: 1, Tag: 1, Data: make([]byte, 8)}
	r := &llc.RecvOp{Source: 0, Tag: 1, Buf: make([]byte, 8)}
	exchange(b, eps, s, r)
	b.ReportAllocs()
	for b.Loop() {
		eps[1].Progress()
	}
}
