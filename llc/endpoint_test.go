package llc

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
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
// in all the ways an Endpoint offers. Run with -race.
func TestEndpointConcurrent(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			const workers, msgs = 4, 30
			eps := newEndpoints(t, 2, func(cfg *Config) {
				cfg.Rendezvous, cfg.RingSize, cfg.EagerLimit = mode, 8192, 1024
			})
			errc := make(chan error, 100)
			report := func(format string, args ...any) {
				select {
				case errc <- fmt.Errorf(format, args...):
				default:
				}
			}
			worker := func(i, g int) {
				ep, peer := eps[i], 1-i
				tag := int32(g)
				for k := range msgs {
					data := epMessage(i, g, k)
					want := epMessage(peer, g, k)
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
						report("endpoint %d worker %d message %d: %v, %v", i, g, k, s.Err(), r.Err())
						return
					}
					if r.Status != (Status{Source: peer, Tag: tag, Len: len(want)}) || !bytes.Equal(r.Buf[:len(want)], want) {
						report("endpoint %d worker %d message %d: status %+v, want len %d; data intact %v",
							i, g, k, r.Status, len(want), bytes.Equal(r.Buf[:min(len(want), r.Status.Len)], want[:min(len(want), r.Status.Len)]))
						return
					}
				}
			}
			// prober receives what it probed first, and cancels a receive.
			prober := func(i int) {
				ep, peer := eps[i], 1-i
				const tag = 100
				for k := range 10 {
					s := &SendOp{Peer: peer, Tag: tag, Data: epMessage(i, tag, k)}
					ep.Send(s)
					want := epMessage(peer, tag, k)
					st, _ := ep.WaitProbe(peer, tag, 0)
					if st != (Status{Source: peer, Tag: tag, Len: len(want)}) {
						report("endpoint %d probe %d: %+v, want len %d", i, k, st, len(want))
						return
					}
					r := &RecvOp{Source: AnySource, Tag: tag, Buf: make([]byte, st.Len)}
					ep.Recv(r)
					ep.Wait(r)
					ep.Wait(s)
					if r.Err() != nil || s.Err() != nil || !bytes.Equal(r.Buf, want) {
						report("endpoint %d probed message %d: %v %v", i, k, r.Err(), s.Err())
						return
					}
					c := &RecvOp{Source: peer, Tag: 999, Buf: make([]byte, 1)}
					ep.Recv(c)
					if !ep.Cancel(c) || !c.Cancelled() {
						report("endpoint %d: cancel failed", i)
						return
					}
				}
			}
			within(t, 60*time.Second, func() {
				var all sync.WaitGroup
				for i := range eps {
					all.Add(1)
					go func() {
						defer all.Done()
						var wg sync.WaitGroup
						for g := range workers {
							wg.Go(func() { worker(i, g) })
						}
						wg.Go(func() { prober(i) })
						wg.Wait()
						// Control records may still be queued once this
						// endpoint's own operations are done.
						eps[i].WaitIdle()
					}()
				}
				all.Wait()
			})
			close(errc)
			for err := range errc {
				t.Error(err)
			}
			for i, ep := range eps {
				if err := ep.Err(); err != nil {
					t.Fatalf("endpoint %d: %v", i, err)
				}
				idle := false
				ep.Locked(func(e *Engine) { idle = e.Idle() })
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
		})
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
