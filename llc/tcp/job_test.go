package tcp

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// job is a job of processes on loopback, each an engine driven by an
// endpoint over its transport.
type job struct {
	t   testing.TB
	trs []*Transport
	eps []*llc.Endpoint
}

// newJob starts a job of n processes in eager mode eager, with the
// transport's recommended thresholds unless mod changes them.
func newJob(t testing.TB, n int, eager llc.EagerMode, mod func(*llc.Config)) *job {
	t.Helper()
	j := &job{t: t, trs: listenAll(t, n, Options{Key: 99})}
	boot := make([]llc.RegionID, n)
	for i, tr := range j.trs {
		r, err := llc.AllocBoot(tr, i, n)
		if err != nil {
			t.Fatal(err)
		}
		boot[i] = r
	}
	for i, tr := range j.trs {
		cfg := config(tr, i, boot, eager)
		if mod != nil {
			mod(&cfg)
		}
		ep, err := endpoint(tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ep.Spin, ep.Yield = 200, 20 // waits sleep in poll(2) soon
		j.eps = append(j.eps, ep)
	}
	return j
}

// eagerLimit is the eager limit of the tests: every message one record
// carries, as package tuning takes it on a stream.
const eagerLimit = MaxRecord - llc.RecordMeta

// config returns the engine configuration of process self over tr, with
// the thresholds package tuning gives a stream: the eager limit above and
// the push rendezvous.
func config(tr *Transport, self int, boot []llc.RegionID, eager llc.EagerMode) llc.Config {
	caps := tr.Caps()
	return llc.Config{Self: self, Size: len(boot), Boot: boot, Eager: eager, EagerLimit: eagerLimit,
		Rendezvous: llc.RndvPush, RingSize: 256 << 10, RingCap: 1 << 30,
		QueueSize: llc.MinQueueSize(eagerLimit), MaxRecord: caps.MaxRecord}
}

// endpoint returns an endpoint driving an engine of cfg over tr, its
// start-up commands issued.
func endpoint(tr *Transport, cfg llc.Config) (*llc.Endpoint, error) {
	eng, err := llc.NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	ep := llc.NewEndpoint(eng, tr)
	ep.Start()
	return ep, nil
}

// run runs body for every process in a goroutine of its own. Each then
// keeps its endpoint going until every body has returned, as the end of
// a job does (a fence that still serves the peers), so that no process
// stops while another needs it. It fails the test with the bodies'
// errors.
func (j *job) run(body func(rank int, ep *llc.Endpoint) error) {
	j.t.Helper()
	n := len(j.eps)
	errs := make([]error, n)
	var left atomic.Int32
	left.Store(int32(n))
	within(j.t, func(wg *sync.WaitGroup) {
		for i, ep := range j.eps {
			wg.Go(func() {
				errs[i] = body(i, ep)
				left.Add(-1)
				for left.Load() > 0 {
					if !ep.Progress() {
						runtime.Gosched()
					}
				}
			})
		}
	})
	for i, err := range errs {
		if err != nil {
			j.t.Errorf("process %d: %v", i, err)
		}
	}
}

// within runs start, which starts goroutines in wg, and waits for them;
// it fails the test if they hang.
func within(t testing.TB, start func(wg *sync.WaitGroup)) {
	t.Helper()
	var wg sync.WaitGroup
	start(&wg)
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		buf := make([]byte, 1<<20)
		t.Fatalf("hung; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// echo receives a message of up to n bytes from peer and sends it back.
func echo(ep *llc.Endpoint, peer int, tag int32, n int) error {
	buf := make([]byte, n)
	st, err := ep.RecvWait(peer, tag, 0, buf)
	if err != nil {
		return fmt.Errorf("receiving %d bytes: %w", n, err)
	}
	return ep.SendWait(peer, tag, 0, buf[:st.Len])
}

// pingPong sends data to peer, receives it back and compares.
func pingPong(ep *llc.Endpoint, peer int, tag int32, data []byte) error {
	if err := ep.SendWait(peer, tag, 0, data); err != nil {
		return fmt.Errorf("sending %d bytes: %w", len(data), err)
	}
	back := make([]byte, len(data))
	st, err := ep.RecvWait(peer, tag, 0, back)
	switch {
	case err != nil:
		return fmt.Errorf("receiving %d bytes back: %w", len(data), err)
	case st.Len != len(data) || !bytes.Equal(back, data):
		return fmt.Errorf("%d bytes came back as %d, equal %v", len(data), st.Len, bytes.Equal(back, data))
	}
	return nil
}

// messageSizes are sizes around the eager limit and past it, up to
// several MiB.
func messageSizes() []int {
	l := eagerLimit
	return []int{0, 1, 8, 33, 1000, l - 1, l, l + 1, 100_000, llc.SplitMin + 5, 1 << 20, 5<<20 + 7}
}

// Every size, across the eager limit up to several MiB, goes there and
// back, with both eager transports a stream can carry (records, and rings
// over emulated remote writes with the connection protocol) and every
// rendezvous variant.
func TestPingPong(t *testing.T) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		for _, rndv := range []llc.RndvMode{llc.RndvPull, llc.RndvPush, llc.RndvSplit} {
			t.Run(fmt.Sprintf("%v/%v", eager, rndv), func(t *testing.T) {
				j := newJob(t, 2, eager, func(c *llc.Config) { c.Rendezvous = rndv })
				sizes := messageSizes()
				j.run(func(rank int, ep *llc.Endpoint) error {
					for i, n := range sizes {
						var err error
						if rank == 0 {
							err = pingPong(ep, 1, int32(i), pattern(i, n))
						} else {
							err = echo(ep, 0, int32(i), n)
						}
						if err != nil {
							return err
						}
					}
					return nil
				})
				s := j.eps[0].Stats()
				if s.EagerSent == 0 || s.RndvSent == 0 {
					t.Errorf("eager %d, rendezvous %d: want both", s.EagerSent, s.RndvSent)
				}
			})
		}
	}
}

// Messages that arrive before their receives, eager and rendezvous, wait
// as unexpected messages and are received in any order.
func TestUnexpected(t *testing.T) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		t.Run(eager.String(), func(t *testing.T) {
			j := newJob(t, 2, eager, nil)
			const n = 60
			size := func(i int) int {
				if i%10 == 9 {
					return 3*eagerLimit + i
				}
				return i * 311
			}
			j.run(func(rank int, ep *llc.Endpoint) error {
				if rank == 0 {
					ops := make([]*llc.SendOp, n)
					for i := range ops {
						ops[i] = &llc.SendOp{Peer: 1, Tag: int32(i), Data: pattern(i, size(i))}
						ep.Send(ops[i])
					}
					for i, op := range ops {
						if ep.Wait(op); op.Err() != nil {
							return fmt.Errorf("send %d: %w", i, op.Err())
						}
					}
					return nil
				}
				if _, err := ep.WaitProbe(0, n-1, 0); err != nil {
					return err
				}
				for i := n - 1; i >= 0; i-- {
					buf := make([]byte, size(i))
					if _, err := ep.RecvWait(0, int32(i), 0, buf); err != nil || !bytes.Equal(buf, pattern(i, size(i))) {
						return fmt.Errorf("message %d: %v, payload equal %v", i, err, bytes.Equal(buf, pattern(i, size(i))))
					}
				}
				if u := ep.Stats().Unexpected; u != n {
					return fmt.Errorf("%d unexpected messages, want %d", u, n)
				}
				return nil
			})
		})
	}
}

// A process sends to itself, eager and rendezvous, through the same
// engine: its transport serves itself.
func TestSelf(t *testing.T) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		t.Run(eager.String(), func(t *testing.T) {
			j := newJob(t, 1, eager, nil)
			j.run(func(_ int, ep *llc.Endpoint) error {
				for i, n := range messageSizes() {
					op := &llc.SendOp{Peer: 0, Tag: int32(i), Data: pattern(i, n)}
					ep.Send(op)
					buf := make([]byte, n)
					if _, err := ep.RecvWait(0, int32(i), 0, buf); err != nil || !bytes.Equal(buf, op.Data) {
						return fmt.Errorf("%d bytes to itself: %v, equal %v", n, err, bytes.Equal(buf, op.Data))
					}
					if ep.Wait(op); op.Err() != nil {
						return op.Err()
					}
				}
				return nil
			})
		})
	}
}

// Four processes send to each other at once, so that pairs dial each
// other simultaneously; every message arrives.
func TestAllToAll(t *testing.T) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		t.Run(eager.String(), func(t *testing.T) {
			const n = 4
			sizes := []int{10, 40_000, 300_000}
			j := newJob(t, n, eager, nil)
			j.run(func(rank int, ep *llc.Endpoint) error {
				var ops []*llc.SendOp
				for peer := range n {
					for k, size := range sizes {
						op := &llc.SendOp{Peer: peer, Tag: int32(k), Data: pattern(rank*100+peer*10+k, size)}
						ep.Send(op)
						ops = append(ops, op)
					}
				}
				for peer := range n {
					for k, size := range sizes {
						buf := make([]byte, size)
						if _, err := ep.RecvWait(peer, int32(k), 0, buf); err != nil || !bytes.Equal(buf, pattern(peer*100+rank*10+k, size)) {
							return fmt.Errorf("from %d, message %d: %v", peer, k, err)
						}
					}
				}
				for _, op := range ops {
					if ep.Wait(op); op.Err() != nil {
						return op.Err()
					}
				}
				return nil
			})
		})
	}
}

// A process whose peer dies while the job runs (its connections end
// without a goodbye) fails with an error naming the peer instead of
// waiting forever.
func TestPeerClosedMidJob(t *testing.T) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		t.Run(eager.String(), func(t *testing.T) {
			j := newJob(t, 2, eager, nil)
			var err0 error
			within(t, func(wg *sync.WaitGroup) {
				wg.Go(func() {
					if err0 = pingPong(j.eps[0], 1, 1, []byte("hello")); err0 != nil {
						return
					}
					_, err0 = j.eps[0].RecvWait(1, 2, 0, make([]byte, 10))
				})
				wg.Go(func() {
					if echo(j.eps[1], 0, 1, 10) == nil {
						j.eps[1].Exclusive(func() { crash(j.trs[1]) })
					}
				})
			})
			if err0 == nil || !strings.Contains(err0.Error(), "process 1") {
				t.Fatalf("receive from the closed process: %v, want an error naming it", err0)
			}
		})
	}
}

// Closing a job's transports leaves no descriptor open and no goroutine
// running.
func TestCloseLeavesNothing(t *testing.T) {
	fds, goroutines := openFDs(t), runtime.NumGoroutine()
	j := newJob(t, 3, llc.EagerQueue, nil)
	j.run(func(rank int, ep *llc.Endpoint) error {
		ops := make([]*llc.SendOp, 3)
		for peer := range ops {
			ops[peer] = &llc.SendOp{Peer: peer, Data: pattern(rank, 50_000)}
			ep.Send(ops[peer])
		}
		for peer := range ops {
			if _, err := ep.RecvWait(peer, 0, 0, make([]byte, 50_000)); err != nil {
				return err
			}
		}
		for _, op := range ops {
			if ep.Wait(op); op.Err() != nil {
				return op.Err()
			}
		}
		return nil
	})
	if openFDs(t) <= fds {
		t.Fatal("the job opened no descriptor")
	}
	for _, tr := range j.trs {
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := openFDs(t); got != fds {
		t.Errorf("%d descriptors open after Close, %d before the job", got, fds)
	}
	if got := settle(goroutines); got > goroutines {
		t.Errorf("%d goroutines after Close, %d before the job", got, goroutines)
	}
}

// Sleep returns when input arrives or Wake is called, and at once for a
// ticket that a Wake made stale.
func TestSleepWakes(t *testing.T) {
	x := newFabric(t, 2, Options{SleepTimeout: time.Hour})
	mem := make([]byte, 8)
	r := x.region(1, mem)
	x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1})
	tr := x.trs[1]
	asleep := func(wake func()) {
		t.Helper()
		before := tr.sleeper.Sleeps()
		within(t, func(wg *sync.WaitGroup) {
			wg.Go(func() { tr.Sleep(tr.Arm()) })
			for tr.sleeper.Sleeps() == before {
				runtime.Gosched()
			}
			wake()
		})
	}
	asleep(tr.Wake)
	asleep(func() { x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, HeadLen: 1}) })
	ticket := tr.Arm()
	tr.Wake()
	before := tr.sleeper.Sleeps()
	tr.Sleep(ticket)
	if tr.sleeper.Sleeps() != before {
		t.Fatal("Sleep with a stale ticket slept")
	}
}
