package llc

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bellTransport is a memTransport whose Sleep blocks until Ring or a
// timeout, counting the goroutines asleep at once.
type bellTransport struct {
	memTransport
	mu       sync.Mutex
	bell     chan struct{}
	sleeping int
	most     int // the most goroutines asleep at once
}

func (b *bellTransport) Sleep(uint32) {
	b.mu.Lock()
	b.sleeping++
	b.most = max(b.most, b.sleeping)
	bell := b.bell
	b.mu.Unlock()
	select {
	case <-bell:
	case <-time.After(20 * time.Millisecond):
	}
	b.mu.Lock()
	b.sleeping--
	b.mu.Unlock()
}

// Ring wakes every sleeper.
func (b *bellTransport) Ring() {
	b.mu.Lock()
	close(b.bell)
	b.bell = make(chan struct{})
	b.mu.Unlock()
}

// Of several goroutines of a process waiting at once, one polls and sleeps
// on the doorbell; the others park until the poller finds their
// operations done, in any order, the poller's own among them.
func TestEndpointOnePoller(t *testing.T) {
	const waiters = 8
	net := newMemNet(1)
	e, err := NewEngine(testConfig(net, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	tr := &bellTransport{memTransport: memTransport{net: net}, bell: make(chan struct{})}
	ep := NewEndpoint(e, tr)
	ep.Spin, ep.Yield = 0, 0 // straight to the doorbell
	var flags [waiters]atomic.Bool
	var returned [waiters]atomic.Bool
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ep.WaitFunc(flags[i].Load)
			returned[i].Store(true)
		}()
	}
	// Long enough for every waiter to have reached its sleep, had each
	// its own.
	time.Sleep(100 * time.Millisecond)
	tr.mu.Lock()
	most := tr.most
	tr.mu.Unlock()
	if most != 1 {
		t.Errorf("%d goroutines asleep on the doorbell at once; want 1 (the poller)", most)
	}
	for _, i := range []int{5, 0, 7, 2, 1, 6, 3, 4} {
		flags[i].Store(true)
		tr.Ring()
		within(t, 10*time.Second, func() {
			for !returned[i].Load() {
				time.Sleep(time.Millisecond)
			}
		})
	}
	within(t, 10*time.Second, wg.Wait)
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.polling || len(ep.parked) != 0 {
		t.Fatalf("after every wait: polling %v, %d parked; want neither", ep.polling, len(ep.parked))
	}
}

// While operations run in the background, a poll's spinning and yielding
// are bounded by SpinBusy and YieldBusyFor where those are more, and by
// Spin and YieldFor again once they are done.
func TestEndpointBusyBounds(t *testing.T) {
	ep := newEndpoints(t, 1, nil)[0]
	ep.Spin, ep.YieldFor, ep.SpinBusy, ep.YieldBusyFor = 0, time.Millisecond, 50, 5*time.Millisecond
	quiet := waitBounds{spin: 0, yieldFor: time.Millisecond}
	if got := ep.bounds(); got != quiet {
		t.Fatalf("bounds with nothing in the background %+v, want %+v", got, quiet)
	}
	ep.StartBackground()
	ep.StartBackground()
	if got, want := ep.bounds(), (waitBounds{spin: 50, yieldFor: 5 * time.Millisecond}); got != want {
		t.Fatalf("bounds with operations in the background %+v, want %+v", got, want)
	}
	ep.EndBackground()
	ep.EndBackground()
	if got := ep.bounds(); got != quiet {
		t.Fatalf("bounds once they are done %+v, want %+v", got, quiet)
	}
	// Where the waiter spins and yields more anyway, or yields without a
	// bound in time, the busy bounds change nothing.
	ep.Spin, ep.YieldFor = 4000, 0
	ep.StartBackground()
	if got, want := ep.bounds(), (waitBounds{spin: 4000}); got != want {
		t.Fatalf("bounds of a spinning waiter with operations in the background %+v, want %+v", got, want)
	}
}
