package llc

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newEndpoints(t *testing.T, n int, mod func(cfg *Config)) []*Endpoint {
	t.Helper()
	net := newMemNet(n)
	var eps []*Endpoint
	for i := range n {
		cfg := testConfig(net, i, n)
		if mod != nil {
			mod(&cfg)
		}
		e, err := NewEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ep := NewEndpoint(e, &memTransport{net: net, self: i})
		ep.Spin, ep.Yield = 50, 10
		eps = append(eps, ep)
	}
	// Issue the start-up commands (EagerQueue queues) before any send.
	for _, ep := range eps {
		ep.Exclusive(func() {})
	}
	return eps
}

// within runs f and fails the test if it does not return in d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("not done after %v; goroutines:\n%s", d, buf[:runtime.Stack(buf, true)])
	}
}

func epMessage(from, g, k int) []byte {
	size := (from*7 + g*131 + k*977) % 1500
	if k%5 == 4 {
		size = 2000 + 1000*g + k // rendezvous
	}
	return pattern(from<<16|g<<8|k, size)
}

// Several goroutines per endpoint send and receive concurrently, waiting
// in all the ways an Endpoint offers, with every eager transport. Run with
// -race.
func TestEndpointConcurrent(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%v/%v", eager, mode), func(t *testing.T) { testEndpointConcurrent(t, eager, mode) })
		}
	}
}

// testEndpointConcurrent runs TestEndpointConcurrent's workers and probers
// on two Endpoints with eager transport eager and rendezvous mode mode, and
// checks that both Endpoints end healthy and idle.
func testEndpointConcurrent(t *testing.T, eager EagerMode, mode RndvMode) {
	eps := newEndpoints(t, 2, func(cfg *Config) {
		cfg.Rendezvous, cfg.RingSize, cfg.EagerLimit = mode, 8192, 1024
		cfg.Eager, cfg.QueueSize = eager, 8192
	})
	ec := &endpointConcurrency{eps: eps, errc: make(chan error, 100)}
	within(t, 60*time.Second, ec.run)
	close(ec.errc)
	for err := range ec.errc {
		t.Error(err)
	}
	checkEndpointsSettled(t, eps)
}

// Each Endpoint of testEndpointConcurrent has epConcWorkers workers, each
// exchanging epConcMsgs messages with its peer. Workers 3 and up make the
// blocking calls, so that two of them wait in RecvWait at once.
const epConcWorkers, epConcMsgs = 5, 30

// endpointConcurrency is the goroutines of testEndpointConcurrent: on each
// of eps, workers that exchange messages with the peer and a prober. They
// report the first errors on errc.
type endpointConcurrency struct {
	eps  []*Endpoint
	errc chan error
}

// report sends an error to errc unless errc is full.
func (ec *endpointConcurrency) report(format string, args ...any) {
	select {
	case ec.errc <- fmt.Errorf(format, args...):
	default:
	}
}

// run starts, for each Endpoint, its workers and prober, and waits for
// them and then for the Endpoint to go idle.
func (ec *endpointConcurrency) run() {
	var all sync.WaitGroup
	for i := range ec.eps {
		all.Add(1)
		go func() {
			defer all.Done()
			var wg sync.WaitGroup
			for g := range epConcWorkers {
				wg.Go(func() { ec.worker(i, g) })
			}
			wg.Go(func() { ec.prober(i) })
			wg.Wait()
			// Control records may still be queued once this
			// endpoint's own operations are done.
			ec.eps[i].WaitIdle()
		}()
	}
	all.Wait()
}

// worker g of Endpoint i exchanges its messages with the peer's worker g
// (tag g), waiting for them in one of four ways, and checks what it
// receives.
func (ec *endpointConcurrency) worker(i, g int) {
	ep, peer := ec.eps[i], 1-i
	tag := int32(g)
	for k := range epConcMsgs {
		data := epMessage(i, g, k)
		want := epMessage(peer, g, k)
		if g >= 3 {
			if !ec.blocking(i, g, k, data, want) {
				return
			}
			continue
		}
		r := &RecvOp{Source: peer, Tag: tag, Buf: make([]byte, 8000)}
		ep.Recv(r)
		s := &SendOp{Peer: peer, Tag: tag, Data: data}
		ep.Send(s)
		switch g % 3 {
		case 0:
			ep.Wait(s)
			ep.Wait(r)
		case 1:
			for !ep.Test(s) || !ep.Test(r) {
				runtime.Gosched()
			}
		case 2:
			ep.WaitFunc(func() bool { return s.Done() && r.Done() })
		}
		if s.Err() != nil || r.Err() != nil {
			ec.report("endpoint %d worker %d message %d: %v, %v", i, g, k, s.Err(), r.Err())
			return
		}
		if r.Status != (Status{Source: peer, Tag: tag, Len: len(want)}) || !bytes.Equal(r.Buf[:len(want)], want) {
			ec.report("endpoint %d worker %d message %d: status %+v, want len %d; data intact %v",
				i, g, k, r.Status, len(want), bytes.Equal(r.Buf[:min(len(want), r.Status.Len)], want[:min(len(want), r.Status.Len)]))
			return
		}
	}
}

// blocking is worker g's exchange of its k-th messages by SendWait and
// RecvWait, in a ping-pong's order (Endpoint 0 sends first, so that a
// rendezvous send does not wait for a peer that sends too). It reports
// whether the exchange went well.
func (ec *endpointConcurrency) blocking(i, g, k int, data, want []byte) bool {
	ep, peer, tag := ec.eps[i], 1-i, int32(g)
	buf := make([]byte, 8000)
	var st Status
	var err error
	if i == 0 {
		if err = ep.SendWait(peer, tag, 0, data); err == nil {
			st, err = ep.RecvWait(peer, tag, 0, buf)
		}
	} else if st, err = ep.RecvWait(peer, tag, 0, buf); err == nil {
		err = ep.SendWait(peer, tag, 0, data)
	}
	if err != nil || st != (Status{Source: peer, Tag: tag, Len: len(want)}) || !bytes.Equal(buf[:len(want)], want) {
		ec.report("endpoint %d blocking worker %d message %d: %v, status %+v, want len %d", i, g, k, err, st, len(want))
		return false
	}
	return true
}

// prober of Endpoint i receives what it probed first, and cancels a
// receive.
func (ec *endpointConcurrency) prober(i int) {
	ep, peer := ec.eps[i], 1-i
	const tag = 100
	for k := range 10 {
		s := &SendOp{Peer: peer, Tag: tag, Data: epMessage(i, tag, k)}
		ep.Send(s)
		want := epMessage(peer, tag, k)
		st, _ := ep.WaitProbe(peer, tag, 0)
		if st != (Status{Source: peer, Tag: tag, Len: len(want)}) {
			ec.report("endpoint %d probe %d: %+v, want len %d", i, k, st, len(want))
			return
		}
		r := &RecvOp{Source: AnySource, Tag: tag, Buf: make([]byte, st.Len)}
		ep.Recv(r)
		ep.Wait(r)
		ep.Wait(s)
		if r.Err() != nil || s.Err() != nil || !bytes.Equal(r.Buf, want) {
			ec.report("endpoint %d probed message %d: %v %v", i, k, r.Err(), s.Err())
			return
		}
		c := &RecvOp{Source: peer, Tag: 999, Buf: make([]byte, 1)}
		ep.Recv(c)
		if !ep.Cancel(c) || !c.Cancelled() {
			ec.report("endpoint %d: cancel failed", i)
			return
		}
	}
}

// checkEndpointsSettled checks that each of eps has no error, is idle, sent
// both rendezvous and eager messages, and waited.
func checkEndpointsSettled(t *testing.T, eps []*Endpoint) {
	t.Helper()
	for i, ep := range eps {
		if err := ep.Err(); err != nil {
			t.Fatalf("endpoint %d: %v", i, err)
		}
		idle := false
		ep.WaitState(func(st State) bool { idle = st.Idle; return true })
		if !idle {
			t.Fatalf("endpoint %d not idle", i)
		}
		st := ep.Stats()
		if st.RndvSent == 0 || st.EagerSent == 0 {
			t.Fatalf("endpoint %d counters %+v", i, st)
		}
		if ws := ep.WaitStats(); ws.Waits == 0 {
			t.Fatalf("endpoint %d wait stats %+v", i, ws)
		}
	}
}

// chargeCounter is a memTransport that counts the host work charged to it,
// without allocating.
type chargeCounter struct {
	memTransport
	n WorkCounts
}

func (c *chargeCounter) Charge(w HostWork, n int) { c.n[w] += n }

// A blocking send and receive through Endpoints allocate nothing, host
// work charging included.
func TestEndpointAllocs(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		t.Run(eager.String(), func(t *testing.T) {
			eps, trs := newChargedEndpoints(t, eager)
			settleChargedEndpoints(t, eps)
			checkEndpointRoundAllocs(t, eps)
			for i, tr := range trs {
				charged := tr.n[WorkSend] > 0
				if i == 1 {
					charged = tr.n[WorkRecv] > 0 && tr.n[WorkPoll] > 0
				}
				if charged != (eager != EagerRings) {
					t.Fatalf("endpoint %d charged %v", i, tr.n)
				}
			}
		})
	}
}

// Two goroutines wait in RecvWait at once on one Endpoint, so that one
// has the Endpoint's own operation and the other a recycled one; their
// messages come in the opposite order of the receives, eager and by
// rendezvous, and each receive gets its own.
func TestEndpointRecvWaitConcurrent(t *testing.T) {
	eps := newEndpoints(t, 2, func(cfg *Config) { cfg.EagerLimit = 1024 })
	for round, size := range []int{8, 100, 5000} {
		within(t, 10*time.Second, func() {
			before := eps[1].WaitStats().Waits
			var wg sync.WaitGroup
			got := make([][]byte, 2)
			for k := range 2 {
				wg.Go(func() {
					buf := make([]byte, size)
					st, err := eps[1].RecvWait(0, int32(k), 0, buf)
					if err != nil || st != (Status{Source: 0, Tag: int32(k), Len: size}) {
						t.Errorf("round %d receive %d: %v, %+v", round, k, err, st)
					}
					got[k] = buf
				})
			}
			for eps[1].WaitStats().Waits < before+2 { // both receives posted and waiting
				time.Sleep(time.Millisecond)
			}
			for k := 1; k >= 0; k-- {
				if err := eps[0].SendWait(1, int32(k), 0, pattern(round<<8|k, size)); err != nil {
					t.Errorf("round %d send %d: %v", round, k, err)
				}
			}
			wg.Wait()
			for k := range 2 {
				if !bytes.Equal(got[k], pattern(round<<8|k, size)) {
					t.Errorf("round %d: receive %d got another message's data", round, k)
				}
			}
		})
	}
}

// newChargedEndpoints makes two exclusive Endpoints in eager mode, each on
// a transport that counts the host work charged to it.
func newChargedEndpoints(t *testing.T, eager EagerMode) ([]*Endpoint, []*chargeCounter) {
	t.Helper()
	net := newMemNet(2)
	var eps []*Endpoint
	var trs []*chargeCounter
	for i := range 2 {
		cfg := testConfig(net, i, 2)
		cfg.Eager, cfg.QueueSize = eager, 4096
		e, err := NewEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr := &chargeCounter{memTransport: memTransport{net: net, self: i}}
		eps, trs = append(eps, NewEndpoint(e, tr)), append(trs, tr)
	}
	for _, ep := range eps {
		ep.Exclusive(func() {})
	}
	return eps, trs
}

// settleChargedEndpoints connects 0 -> 1 (and settles PM's start-up):
// both poll until both are idle, since a process serves the connections
// of others while it polls.
func settleChargedEndpoints(t *testing.T, eps []*Endpoint) {
	t.Helper()
	within(t, 10*time.Second, func() {
		var wg sync.WaitGroup
		var idle atomic.Int32
		settle := func(ep *Endpoint) {
			ep.WaitIdle()
			idle.Add(1)
			ep.WaitFunc(func() bool { return idle.Load() == 2 })
		}
		wg.Go(func() { eps[0].SendWait(1, 1, 0, []byte("x")); settle(eps[0]) })
		wg.Go(func() { eps[1].RecvWait(0, 1, 0, make([]byte, 1)); settle(eps[1]) })
		wg.Wait()
	})
}

// checkEndpointRoundAllocs sends and receives 100 bytes 100 times, then
// wants a blocking send and receive to allocate nothing and none to fail.
func checkEndpointRoundAllocs(t *testing.T, eps []*Endpoint) {
	t.Helper()
	data, buf := pattern(1, 100), make([]byte, 100)
	bad := 0
	round := func() {
		if eps[0].SendWait(1, 2, 0, data) != nil {
			bad++
		}
		if _, err := eps[1].RecvWait(0, 2, 0, buf); err != nil || !bytes.Equal(buf, data) {
			bad++
		}
	}
	for range 100 {
		round()
	}
	if allocs := testing.AllocsPerRun(200, round); allocs != 0 || bad != 0 {
		t.Fatalf("%.2f allocations per send and receive, %d failures", allocs, bad)
	}
}

// Endpoint calls on a single goroutine: send to self and Progress.
func TestEndpointSelf(t *testing.T) {
	eps := newEndpoints(t, 1, nil)
	ep := eps[0]
	data := pattern(1, 5000)
	s := &SendOp{Peer: 0, Tag: 1, Data: data}
	if ep.Send(s) {
		t.Fatal("rendezvous send to self done at once")
	}
	r := &RecvOp{Source: 0, Tag: 1, Buf: make([]byte, len(data))}
	ep.Recv(r)
	within(t, 10*time.Second, func() {
		ep.Wait(r)
		ep.Wait(s)
		ep.WaitIdle()
	})
	checkRecv(t, "self", r, 0, 1, data)
	if ep.Progress() {
		t.Fatal("Progress did something on an idle endpoint")
	}
	// An eager send completes at once now that the ring exists.
	if !ep.Send(&SendOp{Peer: 0, Tag: 2, Data: []byte("x")}) {
		t.Fatal("eager send to self not done at once")
	}
	if st, ok := ep.Probe(0, 2, 0); !ok || st.Len != 1 {
		t.Fatalf("probe %+v %v", st, ok)
	}
	r = &RecvOp{Source: 0, Tag: 2, Buf: make([]byte, 1)}
	if !ep.Recv(r) || string(r.Buf) != "x" {
		t.Fatal("receive of an unexpected message not done at once")
	}
}

// SendEager sends at once what can go out eagerly now, with no operation
// of the caller's and no allocation, and leaves alone what cannot: a
// message to a peer not yet connected, one above the packed record's
// size, any after the engine has failed.
func TestEndpointSendEager(t *testing.T) {
	eps := newEndpoints(t, 2, nil)
	probe := func(tag int32) bool {
		eps[1].Progress()
		_, ok := eps[1].Probe(0, tag, 0)
		return ok
	}
	if eps[0].SendEager(1, 1, 0, []byte("early")) {
		t.Fatal("SendEager sent to a peer not connected")
	}
	within(t, 10*time.Second, func() {
		var wg sync.WaitGroup
		wg.Go(func() { eps[0].SendWait(1, 2, 0, []byte("x")) })
		wg.Go(func() { eps[1].RecvWait(0, 2, 0, make([]byte, 1)) })
		wg.Wait()
	})
	if probe(1) {
		t.Fatal("the message SendEager refused was sent")
	}
	for i, size := range []int{0, 8, 100, testPacked - recHeader} {
		data := pattern(i, size)
		if !eps[0].SendEager(1, 3, 0, data) {
			t.Fatalf("SendEager refused %d bytes to a connected peer", size)
		}
		buf := make([]byte, size)
		if st, err := eps[1].RecvWait(0, 3, 0, buf); err != nil || st.Len != size || !bytes.Equal(buf, data) {
			t.Fatalf("%d bytes: received %+v %v", size, st, err)
		}
	}
	if eps[0].SendEager(1, 4, 0, pattern(9, testPacked)) || probe(4) {
		t.Fatal("SendEager sent a message above the packed record's size")
	}
	// A stream: where the sender's view of the ring finds it full
	// (ring full, until a send's look at the tail), SendEager refuses
	// and the send takes the operation's way.
	small, buf := pattern(7, 8), make([]byte, 8)
	eager := 0
	allocs := testing.AllocsPerRun(200, func() {
		if eps[0].SendEager(1, 5, 0, small) {
			eager++
		} else if err := eps[0].SendWait(1, 5, 0, small); err != nil {
			t.Fatal(err)
		}
		if _, err := eps[1].RecvWait(0, 5, 0, buf); err != nil || !bytes.Equal(buf, small) {
			t.Fatalf("received %q, %v", buf, err)
		}
	})
	if allocs != 0 || eager < 100 {
		t.Fatalf("SendEager and its receive allocate %.1f times; %d of 201 sent by SendEager", allocs, eager)
	}
	eps[0].Shutdown(fmt.Errorf("stopped"))
	if eps[0].SendEager(1, 6, 0, small) {
		t.Fatal("SendEager sent after the engine failed")
	}
}

// RecvKept posts a receive through an operation of the endpoint's own:
// a receive whose message came first is done at once, its result in the
// caller's copy and nothing to give back; a pending one returns the
// operation, which completes as any receive does and goes back to the
// free list, and the next RecvKept takes it again without allocating.
func TestEndpointRecvKept(t *testing.T) {
	eps := newEndpoints(t, 2, nil)
	within(t, 10*time.Second, func() {
		var wg sync.WaitGroup
		wg.Go(func() { eps[0].SendWait(1, 1, 0, []byte("x")) })
		wg.Go(func() { eps[1].RecvWait(0, 1, 0, make([]byte, 1)) })
		wg.Wait()
	})
	data := pattern(3, 40)
	if err := eps[0].SendWait(1, 2, 0, data); err != nil {
		t.Fatal(err)
	}
	eps[1].Progress()
	op := RecvOp{Source: 0, Tag: 2, Buf: make([]byte, 40)}
	if kept := eps[1].RecvKept(&op); kept != nil {
		t.Fatal("a receive whose message was there returned a pending operation")
	}
	checkRecv(t, "done at once", &op, 0, 2, data)

	op = RecvOp{Source: 0, Tag: 3, Buf: make([]byte, 40)}
	kept := eps[1].RecvKept(&op)
	if kept == nil || kept.Done() {
		t.Fatal("a receive without its message is not pending")
	}
	if err := eps[0].SendWait(1, 3, 0, data); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, func() { eps[1].Wait(kept) })
	checkRecv(t, "pending", kept, 0, 3, data)
	eps[1].Exclusive(func() { eps[1].ReturnKept(kept) })
	again := eps[1].RecvKept(&RecvOp{Source: 0, Tag: 4, Buf: make([]byte, 1)})
	if again != kept || again.Done() || again.Tag != 4 {
		t.Fatalf("the next RecvKept took %p (tag %d, done %v), not the operation given back, %p", again, again.Tag, again.Done(), kept)
	}
	if !eps[1].Cancel(again) {
		t.Fatal("the pending receive was not cancelled")
	}
	eps[1].Exclusive(func() { eps[1].ReturnKept(again) })
}

// The free list keeps at most keptMax operations given back, so that a
// burst of nonblocking receives is not held for the process's life.
func TestFreeListKeepBounded(t *testing.T) {
	var f freeList[RecvOp]
	for range 3 * keptMax {
		f.keep(new(RecvOp))
	}
	if len(f.items) != keptMax {
		t.Fatalf("kept %d operations, want %d", len(f.items), keptMax)
	}
}

// SpinFor and YieldFor end a waiter's spinning and yielding in time,
// whatever Spin and Yield say: a process whose peer shares its processor
// must not spin Spin polls per message, and a process that waits for long
// must not take turns from those it shares a core with for Yield yields
// before it sleeps.
func TestEndpointWaitPhasesBounded(t *testing.T) {
	const bound = 100 * time.Microsecond
	for _, tc := range []struct {
		name              string
		spin, yield       int
		spinFor, yieldFor time.Duration
	}{
		{name: "SpinFor", spin: 1 << 40, spinFor: bound},
		{name: "YieldFor", yield: 1 << 40, yieldFor: bound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep := newEndpoints(t, 1, nil)[0]
			ep.Spin, ep.Yield, ep.SpinFor, ep.YieldFor = tc.spin, tc.yield, tc.spinFor, tc.yieldFor
			var done atomic.Bool
			go func() {
				// Long enough for a few yields' turns on a loaded machine.
				time.Sleep(200 * time.Millisecond)
				done.Store(true)
			}()
			within(t, 10*time.Second, func() { ep.WaitFunc(done.Load) })
			if s := ep.WaitStats(); s.Sleeps == 0 {
				t.Fatalf("a wait of 200 ms with %s %v never slept: %+v", tc.name, bound, s)
			}
		})
	}
}

// advisedTransport is a memTransport that is a YieldAdvisor answering
// helps, counting the questions.
type advisedTransport struct {
	memTransport
	helps bool
	asked atomic.Int64
}

func (a *advisedTransport) YieldHelps() bool {
	a.asked.Add(1)
	return a.helps
}

// endpointOver returns the endpoint of a job of one process over tr, a
// transport of the in-memory network net.
func endpointOver(t *testing.T, net *memNet, tr Transport) *Endpoint {
	t.Helper()
	e, err := NewEngine(testConfig(net, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	return NewEndpoint(e, tr)
}

// A waiter asks its transport, where it is a YieldAdvisor, before each
// yield; an answer that no yield helps does not keep it from ending its
// yielding in time (YieldFor) and sleeping, and a Mux passes the question
// to its first network that is an advisor.
func TestEndpointYieldAdvisor(t *testing.T) {
	net := newMemNet(1)
	tr := &advisedTransport{memTransport: memTransport{net: net}}
	ep := endpointOver(t, net, tr)
	ep.Spin, ep.Yield, ep.YieldFor = 0, 1<<40, 100*time.Microsecond
	var done atomic.Bool
	go func() {
		time.Sleep(50 * time.Millisecond)
		done.Store(true)
	}()
	within(t, 10*time.Second, func() { ep.WaitFunc(done.Load) })
	if s := ep.WaitStats(); tr.asked.Load() == 0 || s.Sleeps == 0 {
		t.Fatalf("a wait of 50 ms asked the advisor %d times and slept %d times; want both > 0", tr.asked.Load(), s.Sleeps)
	}

	m, err := NewTestMux(2, []Transport{&memTransport{net: net}, tr}, [][]int{{0}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, helps := range []bool{false, true} {
		tr.helps = helps
		if got := m.YieldHelps(); got != helps {
			t.Errorf("Mux.YieldHelps %v, its advisor's answer %v", got, helps)
		}
	}
}

// The endpoint's event queue is the notes its engine's batches carried:
// NextEvent takes unsolicited messages in arrival order and a notified
// send's completion, and Release hands a message's buffer back.
func TestEndpointNextEvent(t *testing.T) {
	eps := newEndpoints(t, 2, nil)
	var sends []*SendOp
	for i := range 3 {
		sends = append(sends, &SendOp{Peer: 1, Tag: int32(i), Data: pattern(i, 8+i)})
		eps[0].SendUnsolicited(sends[i])
	}
	s := &SendOp{Peer: 1, Tag: 9, Data: []byte("x"), Notify: true}
	eps[0].Send(s)
	for i := range 3 {
		var n Notification
		within(t, 10*time.Second, func() {
			for ok := false; !ok; n, ok = eps[1].NextEvent() {
				eps[0].Progress()
			}
		})
		if n.Kind != NoteUnsolicited || n.Tag != int32(i) || !bytes.Equal(n.Data, pattern(i, 8+i)) {
			t.Fatalf("event %d: %+v, want unsolicited message %d", i, n, i)
		}
		eps[1].Release(n)
	}
	for _, op := range sends {
		if !op.Done() || op.Err() != nil {
			t.Fatalf("unsolicited send: done %v, %v", op.Done(), op.Err())
		}
	}
	if n, ok := eps[0].NextEvent(); !ok || n.Kind != NoteSendDone || n.Send != s {
		t.Fatalf("sender's event %+v (ok %v), want the notified send's completion", n, ok)
	}
	if n, ok := eps[0].NextEvent(); ok {
		t.Fatalf("sender has another event %+v", n)
	}
}

// sleepRecorder is a memTransport that is a TimedSleeper, counting its
// plain sleeps while held is set and its timed ones, and the longest bound
// asked of these.
type sleepRecorder struct {
	memTransport
	held         atomic.Bool
	plain, timed atomic.Int64
	longest      atomic.Int64 // nanoseconds
}

func (s *sleepRecorder) Sleep(t uint32) {
	if s.held.Load() {
		s.plain.Add(1)
	}
	s.memTransport.Sleep(t)
}

func (s *sleepRecorder) SleepFor(_ uint32, d time.Duration) {
	s.timed.Add(1)
	if int64(d) > s.longest.Load() {
		s.longest.Store(int64(d))
	}
	time.Sleep(min(d, 20*time.Microsecond))
}

// A sender whose connection waits for a common slot that another process
// holds sleeps at most retrySleep at a time: the holder frees the slot
// without ringing anyone, so that an unbounded sleep lasted the
// transport's safety-net timeout (half a second under martini) before the
// retry, at the first send of all but one of the processes that start
// talking to a common peer at once.
func TestEndpointRetrySleepsBounded(t *testing.T) {
	net := newMemNet(3)
	var eps [2]*Endpoint
	rec := &sleepRecorder{memTransport: memTransport{net: net, self: 1}}
	for i := range eps {
		e, err := NewEngine(testConfig(net, i, 3))
		if err != nil {
			t.Fatal(err)
		}
		var tr Transport = &memTransport{net: net, self: i}
		if i == 1 {
			tr = rec
		}
		eps[i] = NewEndpoint(e, tr)
		eps[i].Spin, eps[i].Yield = 0, 0
	}
	// Process 2 holds process 0's common slot.
	hold := func(old, new uint64) {
		t.Helper()
		if ev := net.exec(2, &Command{Kind: CmdCAS, Peer: 0, Region: net.boot[0], Off: bootLock, Old: old, New: new, Token: 1}); ev.Value != old {
			t.Fatalf("slot of process 0 held by %d, want %d", ev.Value, old)
		}
	}
	hold(0, 3)
	rec.held.Store(true)
	go func() {
		time.Sleep(20 * time.Millisecond)
		rec.held.Store(false)
		hold(3, 0) // freed, and no one rung
	}()
	var got []byte
	within(t, 10*time.Second, func() {
		done := make(chan error, 1)
		go func() {
			buf := make([]byte, 2)
			_, err := eps[0].RecvWait(1, 5, 0, buf)
			got = buf
			done <- err
		}()
		if err := eps[1].SendWait(0, 5, 0, []byte("hi")); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if string(got) != "hi" {
		t.Fatalf("received %q, want hi", got)
	}
	if rec.plain.Load() != 0 || rec.timed.Load() == 0 || time.Duration(rec.longest.Load()) > retrySleep {
		t.Fatalf("while the slot was held: %d unbounded sleeps; %d timed ones of at most %v; want none, some, at most %v",
			rec.plain.Load(), rec.timed.Load(), time.Duration(rec.longest.Load()), retrySleep)
	}
}
