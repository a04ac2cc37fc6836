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
