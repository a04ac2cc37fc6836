package llc

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/cpuload"
)

// pinnedTransport is a memTransport that is a CPUPublisher, as the martini
// network is: pinned to CPU 0 with one mate, it records what the endpoint
// publishes and answers PeerUnpinned with peer.
type pinnedTransport struct {
	memTransport
	published atomic.Int64 // the CPU last published, plus 2 (0: none)
	peer      atomic.Bool
}

func (p *pinnedTransport) PublishCPU(cpu int)              { p.published.Store(int64(cpu) + 2) }
func (p *pinnedTransport) PeerUnpinned() bool              { return p.peer.Load() }
func (p *pinnedTransport) CPUMates() (cpu int, pids []int) { return 0, []int{10, 11} }

// fakeLoad makes the CPU's readings those of a CPU busy all the time, the
// share foreign of it with other programs, until the test ends.
func fakeLoad(t *testing.T, foreign float64) {
	start := time.Now()
	readCPULoad = func(cpu int, pids []int) (cpuload.Sample, error) {
		now := time.Now()
		ticks := now.Sub(start).Seconds() * cpuload.TicksPerSecond
		return cpuload.Sample{At: now, Busy: uint64(ticks), Ours: uint64(ticks * (1 - foreign))}, nil
	}
	t.Cleanup(func() { readCPULoad = cpuload.Take })
}

// newPinned returns an endpoint over a pinnedTransport that calls unpin as
// its Unpin, with the backoff of processes outnumbering cores: no
// spinning, then yields for at most a millisecond before each sleep.
func newPinned(t *testing.T, unpin func() bool) (*Endpoint, *pinnedTransport) {
	net := newMemNet(1)
	tr := &pinnedTransport{memTransport: memTransport{net: net}}
	ep := endpointOver(t, net, tr)
	ep.Spin, ep.Yield, ep.YieldFor = 0, 2000, time.Millisecond
	ep.Unpin = unpin
	return ep, tr
}

// waitFor waits on ep until d has passed.
func waitFor(t *testing.T, ep *Endpoint, d time.Duration) {
	end := time.Now().Add(d)
	within(t, 10*time.Second, func() { ep.WaitFunc(func() bool { return time.Now().After(end) }) })
}

// waitUntil waits on ep in waits of 5 ms until cond holds, for 5 seconds
// at most (a loaded machine may give a wait's yields more than its
// bound), and reports whether it held.
func waitUntil(t *testing.T, ep *Endpoint, cond func() bool) bool {
	for end := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(end) {
			return false
		}
		waitFor(t, ep, 5*time.Millisecond)
	}
	return true
}

// A waiter whose CPU other programs take crowdShare of or more unpins the
// process, once, at its second look at the CPU's load; the endpoint
// publishes that the process is pinned to no CPU and says so in its
// statistics. Where the job's processes use the CPU, nothing unpins it.
func TestEndpointUnpinsWhenCrowded(t *testing.T) {
	for _, c := range []struct {
		foreign float64
		want    int32
	}{{0.5, 1}, {0.05, 0}} {
		fakeLoad(t, c.foreign)
		var calls atomic.Int32
		ep, tr := newPinned(t, func() bool { calls.Add(1); return true })
		waitFor(t, ep, 2*crowdLookEvery+50*time.Millisecond)
		if c.want == 1 {
			waitUntil(t, ep, func() bool { return calls.Load() > 0 })
		}
		waitFor(t, ep, 10*time.Millisecond)
		if n := calls.Load(); n != c.want {
			t.Fatalf("a CPU %.0f%% busy with other programs: Unpin called %d times, want %d", 100*c.foreign, n, c.want)
		}
		if s := ep.WaitStats(); s.Unpinned != (c.want == 1) || (tr.published.Load()-2 == -1) != (c.want == 1) {
			t.Errorf("a CPU %.0f%% busy with other programs: %+v, published %d", 100*c.foreign, s, tr.published.Load()-2)
		}
	}
}

// A pinned process unpins itself at its next sleep once another process
// of its host has published that it unpinned (PeerUnpinned); an Unpin
// that finds the process not pinned publishes nothing.
func TestEndpointUnpinsAfterPeer(t *testing.T) {
	fakeLoad(t, 0)
	var calls atomic.Int32
	ep, tr := newPinned(t, func() bool { calls.Add(1); return true })
	waitFor(t, ep, 5*time.Millisecond)
	if calls.Load() != 0 {
		t.Fatal("unpinned before any peer did")
	}
	tr.peer.Store(true)
	waitUntil(t, ep, func() bool { return calls.Load() > 0 })
	waitFor(t, ep, 5*time.Millisecond)
	if n := calls.Load(); n != 1 || tr.published.Load()-2 != -1 {
		t.Fatalf("after a peer unpinned: Unpin called %d times, published %d; want 1 and -1", n, tr.published.Load()-2)
	}

	var asked atomic.Bool
	ep, tr = newPinned(t, func() bool { asked.Store(true); return false })
	tr.peer.Store(true)
	if !waitUntil(t, ep, asked.Load) {
		t.Fatal("after a peer unpinned: Unpin never called")
	}
	if tr.published.Load() != 0 || ep.WaitStats().Unpinned {
		t.Errorf("an Unpin that unpinned nothing: published %d, %+v", tr.published.Load()-2, ep.WaitStats())
	}
}

// Where the CPU's load cannot be read (no /proc), nothing unpins the
// process, and the waiter tries again only every crowdLookEvery.
func TestEndpointCPULoadUnread(t *testing.T) {
	var reads atomic.Int32
	readCPULoad = func(cpu int, pids []int) (cpuload.Sample, error) {
		reads.Add(1)
		return cpuload.Sample{}, errors.New("no /proc here")
	}
	t.Cleanup(func() { readCPULoad = cpuload.Take })
	var calls atomic.Int32
	ep, _ := newPinned(t, func() bool { calls.Add(1); return true })
	start := time.Now()
	waitFor(t, ep, crowdLookEvery+crowdLookEvery/2)
	most := int32(time.Since(start)/crowdLookEvery) + 1
	if n, r := calls.Load(), reads.Load(); n != 0 || r < 1 || r > most {
		t.Errorf("%v of waiting, the load unreadable: Unpin called %d times, %d reads; want none and 1 to %d", time.Since(start), n, r, most)
	}
}

// yieldCounter is a pinnedTransport that is a YieldAdvisor saying that
// yields help, counting the times a yielding waiter asks: once a yield.
type yieldCounter struct {
	pinnedTransport
	asked atomic.Int64
}

func (y *yieldCounter) YieldHelps() bool { y.asked.Add(1); return true }

// shiftingLoad makes the CPU's readings those of a CPU busy all the time,
// the share *foreign of it (in percent) with other programs, which the
// test may change between readings, until the test ends.
func shiftingLoad(t *testing.T, foreign *atomic.Int64) {
	var last time.Time
	var busy, ours float64
	readCPULoad = func(cpu int, pids []int) (cpuload.Sample, error) {
		now := time.Now()
		if !last.IsZero() {
			ticks := now.Sub(last).Seconds() * cpuload.TicksPerSecond
			busy += ticks
			ours += ticks * (1 - float64(foreign.Load())/100)
		}
		last = now
		return cpuload.Sample{At: now, Busy: uint64(busy), Ours: uint64(ours)}, nil
	}
	t.Cleanup(func() { readCPULoad = cpuload.Take })
}

// A process with a CPU of its own (no Unpin) whose CPU other programs take
// crowdShare of or more stops yielding it: its waiters sleep once their
// spinning ends, and its statistics say so; once the programs have gone,
// a sleep's look finds the CPU the job's again and the waiters yield
// again. Where the job's processes use the CPU, they keep yielding.
func TestEndpointSleepsBesideOtherPrograms(t *testing.T) {
	for _, foreign := range []int64{50, 5} {
		var share atomic.Int64
		share.Store(foreign)
		shiftingLoad(t, &share)
		net := newMemNet(1)
		tr := &yieldCounter{pinnedTransport: pinnedTransport{memTransport: memTransport{net: net}}}
		ep := endpointOver(t, net, tr)
		ep.Spin, ep.Yield, ep.YieldFor = 0, 2000, time.Millisecond
		waitFor(t, ep, 2*crowdLookEvery+50*time.Millisecond)
		beside := foreign >= 100*crowdShare
		if beside && !waitUntil(t, ep, func() bool { return ep.crowd.beside }) {
			t.Fatalf("a CPU %d%% busy with other programs: the waiters still yield", foreign)
		}
		asked := tr.asked.Load()
		waitFor(t, ep, 20*time.Millisecond)
		if yielded := tr.asked.Load() > asked; yielded == beside {
			t.Errorf("a CPU %d%% busy with other programs: yielded %v, want %v", foreign, yielded, !beside)
		}
		if s := ep.WaitStats(); s.Beside != beside || s.Unpinned || tr.published.Load() != 0 {
			t.Errorf("a CPU %d%% busy with other programs: %+v, published %d times", foreign, s, tr.published.Load())
		}
		if !beside {
			continue
		}
		share.Store(0)
		if !waitUntil(t, ep, func() bool { return !ep.crowd.beside }) {
			t.Fatal("the other programs gone: the waiters still sleep instead of yielding")
		}
		asked = tr.asked.Load()
		waitFor(t, ep, 20*time.Millisecond)
		if tr.asked.Load() == asked {
			t.Error("the other programs gone: no yields")
		}
	}
}
