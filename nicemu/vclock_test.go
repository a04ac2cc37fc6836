package nicemu

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"
	"time"
)

// virtualSegment makes a martini segment of nprocs processes in virtual
// time.
func virtualSegment(t *testing.T, nprocs int, speed float64) *Segment {
	cfg := testConfig(nprocs)
	cfg.Profile, cfg.Clock, cfg.HostSpeed = ProfileMartini, ClockVirtual, speed
	seg := newSegment(t, cfg)
	if seg.Clock() != ClockVirtual || seg.HostSpeed() != speed || seg.Handoff() != 0 {
		t.Fatalf("segment: clock %s, host speed %v, handoff %v", seg.Clock(), seg.HostSpeed(), seg.Handoff())
	}
	return seg
}

// pingPong runs rounds of 8-byte ping-pongs by op between two NICs of a
// virtual segment, each side seeing the other's word (Arrived) before it
// answers, and returns both clocks at the end.
func pingPong(t *testing.T, seg *Segment, op Op, rounds int) (time.Duration, time.Duration) {
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sa, ma := mustRegisterSegment(t, a, 4096)
	sb, mb := mustRegisterSegment(t, b, 4096)
	buf := make([]byte, 8) // one source page: no PATLB misses after the first
	send := func(n *NIC, dst int, sid SID, v uint64) {
		var err error
		binary.LittleEndian.PutUint64(buf, v)
		if op == OpBOTF {
			err = n.BOTF(dst, sid, 64, buf)
		} else {
			err = n.Push(dst, sid, 64, buf, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := uint64(1); i <= uint64(rounds); i++ {
		send(a, 1, sb, i)
		if *wordAt(mb, 64) != i {
			t.Fatalf("round %d: ping not landed", i)
		}
		b.Arrived(sb, 64, 8)
		send(b, 0, sa, i)
		if *wordAt(ma, 64) != i {
			t.Fatalf("round %d: pong not landed", i)
		}
		a.Arrived(sa, 64, 8)
	}
	return a.Clock().Now(), b.Clock().Now()
}

// TestVirtualPingPong checks that in virtual time a ping-pong takes
// exactly the model's round trip, whatever the host did meanwhile, and
// that two runs give the same times.
func TestVirtualPingPong(t *testing.T) {
	const rounds = 50
	for _, c := range []struct {
		op  Op
		one time.Duration
	}{{OpPush, 2480 * time.Nanosecond}, {OpBOTF, 2136 * time.Nanosecond}} {
		ta, tb := pingPong(t, virtualSegment(t, 2, 1), c.op, rounds)
		// In virtual time a source page misses only after a flush
		// (vpatlb.go).
		if want := rounds * 2 * c.one; ta != want {
			t.Errorf("%v: clock %v after %d round trips, want %v", c.op, ta, rounds, want)
		}
		if ta2, tb2 := pingPong(t, virtualSegment(t, 2, 1), c.op, rounds); ta2 != ta || tb2 != tb {
			t.Errorf("%v: second run %v, %v; first %v, %v", c.op, ta2, tb2, ta, tb)
		}
	}
}

// TestVirtualClockCompute checks that a bound thread's computing advances
// the clock by its CPU time times the host speed, and that time spent
// inside the communication layer or asleep does not.
func TestVirtualClockCompute(t *testing.T) {
	for _, speed := range []float64{0, 1, 13} {
		seg := virtualSegment(t, 1, speed)
		c := openNIC(t, seg, 0).Clock()
		done := make(chan [3]time.Duration)
		go func() {
			c.Bind() // locks this goroutine's thread until it ends
			c.Enter()
			before := c.Now()
			time.Sleep(20 * time.Millisecond) // inside: not computing
			spin(30 * time.Millisecond)       // inside: not computing
			c.Leave()
			inside := c.Now()
			time.Sleep(20 * time.Millisecond) // asleep: no CPU time
			spin(30 * time.Millisecond)       // computing
			c.Enter()
			done <- [3]time.Duration{before, inside, c.Now()}
		}()
		r := <-done
		// Two intervals counted (from Bind to Enter, and the spin after
		// Leave), the longer of the spin's CPU time at most.
		if k := c.Computing(); k.Intervals != 2 || k.Longest <= 0 || k.Longest > 31*time.Millisecond || k.CPU < k.Longest {
			t.Errorf("speed %v: Computing %+v, want two intervals, the longer of at most 30 ms", speed, k)
		}
		if r[1] != r[0] {
			t.Errorf("speed %v: time inside the layer moved the clock by %v", speed, r[1]-r[0])
		}
		got := float64(r[2]-r[1]) / 1e6
		if speed == 0 && got != 0 {
			t.Errorf("speed 0: computing moved the clock by %v ms", got)
		}
		// The spin used at most 30 ms of CPU time (less when descheduled)
		// and the sleep none.
		if speed > 0 && (got <= 0 || got > 30*speed*1.05+1) {
			t.Errorf("speed %v: 30 ms of spinning after a 20 ms sleep moved the clock by %.2f ms", speed, got)
		}
	}
}

// spin burns CPU for about d of wall time.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

func TestParseHostSpeed(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "0": 0, "2.5": 2.5, HostP3: HostSpeedP3} {
		if got, err := ParseHostSpeed(in); err != nil || got != want {
			t.Errorf("ParseHostSpeed(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "fast", "NaN"} {
		if _, err := ParseHostSpeed(bad); err == nil {
			t.Errorf("ParseHostSpeed(%q) accepted", bad)
		}
	}
	cfg := testConfig(2)
	cfg.Clock = ClockVirtual
	if _, err := CreateSegment(cfg); err == nil {
		t.Error("virtual time without a timing profile accepted")
	}
	cfg.Profile, cfg.Clock = ProfileMartini, "sundial"
	if _, err := CreateSegment(cfg); err == nil {
		t.Error("unknown clock accepted")
	}
}

// TestVirtualHoldBack checks that data from a process's future is held
// back while another process could still act before it, and taken once
// none can. The data is stamped as process 2 (which takes no part) would
// stamp it.
func TestVirtualHoldBack(t *testing.T) {
	seg := virtualSegment(t, 3, 0)
	n0 := openNIC(t, seg, 0)
	c0, c1 := n0.Clock(), openNIC(t, seg, 1).Clock()
	sid, mem := mustRegisterSegment(t, n0, 4096)
	c0.Run()
	c1.Run()
	at := uint64(n0.segRegions[sid].off)
	seg.stamp(0, at, 8, int64(time.Millisecond))
	*wordAt(mem, 0) = 1
	seg.wrote(0, 2)
	c0.Look()
	if n0.Arrived(sid, 0, 8) {
		t.Fatalf("data from 1 ms taken at %v while process 1 runs at 0", c0.Now())
	}
	c0.Waiting(true)
	if c0.Now() != 0 || !c0.Holding() || seg.floor(0) != int64(time.Millisecond) {
		t.Errorf("holding back: clock %v, holding %v, floor %v", c0.Now(), c0.Holding(), time.Duration(seg.floor(0)))
	}
	c1.Waiting(true) // process 1 now waits with nothing arrived
	c0.Look()
	if !n0.Arrived(sid, 0, 8) {
		t.Fatal("data not taken once no process can act before it")
	}
	if c0.Now() != time.Millisecond || seg.floor(0) != int64(time.Millisecond) {
		t.Errorf("taken: clock %v, floor %v, want 1 ms", c0.Now(), time.Duration(seg.floor(0)))
	}
	if !n0.Arrived(sid, 0, 8) {
		t.Error("data from the clock's past held back")
	}
}

// TestVirtualLookWaits checks that a look for data at t waits until no
// other process may still act before t: then it finds every write whose
// data arrives by t, whatever the real order of the processes.
func TestVirtualLookWaits(t *testing.T) {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, a, 4096)
	ca, cb := a.Clock(), b.Clock()
	ca.Run()
	cb.Run()
	ca.Reach(100 * time.Microsecond)
	looked := make(chan uint64, 1)
	go func() {
		ca.Look()
		looked <- *wordAt(mem, 0)
	}()
	// However long process 0 had, its look may not end while process 1
	// runs at 0: process 1 may still write something that arrives before
	// 100 µs.
	time.Sleep(20 * time.Millisecond)
	select {
	case <-looked:
		t.Fatal("a look at 100 µs ended while another process ran at 0")
	default:
	}
	buf := make([]byte, 8)
	binary.LittleEndian.PutUint64(buf, 7)
	if err := b.Push(0, sid, 0, buf, nil); err != nil {
		t.Fatal(err)
	}
	cb.Waiting(true)
	if v := <-looked; v != 7 {
		t.Fatalf("the look found %d, want the write arriving before it (7)", v)
	}
	if !a.Arrived(sid, 0, 8) || ca.Now() != 100*time.Microsecond {
		t.Errorf("data from the past: clock %v, want 100 µs", ca.Now())
	}
}

// TestVirtualTakeRuns checks that a waiting process that takes data, even
// from its past, runs again: the others wait for its clock, since it may
// answer the data.
func TestVirtualTakeRuns(t *testing.T) {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, a, 4096)
	ca, cb := a.Clock(), b.Clock()
	ca.Run()
	cb.Run()
	ca.Reach(100 * time.Microsecond)
	if err := b.Push(0, sid, 0, make([]byte, 8), nil); err != nil {
		t.Fatal(err)
	}
	cb.Waiting(true)
	ca.Look()
	ca.Waiting(true) // as if this look had found nothing
	if f := seg.floor(0); f != math.MaxInt64 {
		t.Fatalf("waiting with nothing new: floor %d", f)
	}
	if !a.Arrived(sid, 0, 8) {
		t.Fatal("data from the past held back")
	}
	if f := seg.floor(0); f != int64(100*time.Microsecond) {
		t.Errorf("after taking data: floor %v, want the clock (100 µs)", time.Duration(f))
	}
}

// TestVirtualFence checks that every process leaves Fence at the latest
// clock any had when it entered, and takes part in the ordering.
func TestVirtualFence(t *testing.T) {
	seg := virtualSegment(t, 3, 0)
	var clocks []*Clock
	for p := range 3 {
		c := openNIC(t, seg, p).Clock()
		c.Reach(time.Duration(p+1) * time.Microsecond)
		clocks = append(clocks, c)
	}
	b := newBarrier(3)
	var done sync.WaitGroup
	for _, c := range clocks {
		done.Add(1)
		go func() {
			defer done.Done()
			if err := c.Fence(b.wait); err != nil {
				t.Error(err)
			}
		}()
	}
	done.Wait()
	for p, c := range clocks {
		if c.Now() != 3*time.Microsecond || seg.floor(p) != int64(3*time.Microsecond) {
			t.Errorf("process %d left the fence at %v (floor %d), want 3 µs, running", p, c.Now(), seg.floor(p))
		}
	}
}

// barrier is a reusable barrier of n goroutines.
type barrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n, in   int
	crossed int
}

func newBarrier(n int) *barrier {
	b := &barrier{n: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// wait returns once all n have called it (again).
func (b *barrier) wait() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	round := b.crossed
	if b.in++; b.in == b.n {
		b.in, b.crossed = 0, b.crossed+1
		b.cond.Broadcast()
		return nil
	}
	for b.crossed == round {
		b.cond.Wait()
	}
	return nil
}

// TestVirtualClockCountsNoCheck checks that the thread check of Enter (a
// system call) is not counted as computing: only the CPU time between
// Leave's reading and Enter's, less one reading's cost.
func TestVirtualClockCountsNoCheck(t *testing.T) {
	seg := virtualSegment(t, 1, 1)
	c := openNIC(t, seg, 0).Clock()
	var cpu int64 // the fake thread's CPU time, ns
	const read, check, work = 100, 1000, 5000
	c.cpu = func() int64 { cpu += read; return cpu }
	c.gettid = func() int64 { cpu += check; return 42 }
	done := make(chan Computing)
	go func() {
		c.Bind()
		c.Enter() // the interval from Bind: nothing but a reading
		c.Leave()
		cpu += work
		c.Enter()
		done <- c.Computing()
	}()
	k := <-done
	if c.cost != read {
		t.Errorf("reading cost %d ns, want %d", c.cost, read)
	}
	if k.Intervals != 1 || k.CPU != work*time.Nanosecond {
		t.Errorf("Computing %+v: want one interval of %d ns", k, work)
	}
}
