package nicemu

import (
	"encoding/binary"
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
		// The first PUSH of each side misses in its PATLB (a new source page).
		miss := time.Duration(0)
		if c.op == OpPush {
			miss = 2 * Martini.PATLBRefill
		}
		if want := rounds*2*c.one + miss; ta != want {
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
// back while another process could still send it something earlier, and
// taken once none can.
func TestVirtualHoldBack(t *testing.T) {
	seg := virtualSegment(t, 3, 0)
	nics := []*NIC{openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)}
	sid, _ := mustRegisterSegment(t, nics[0], 4096)
	for _, n := range nics {
		n.Clock().Run()
	}
	nics[2].Clock().Reach(time.Millisecond) // process 2 is far ahead
	buf := make([]byte, 8)
	if err := nics[2].Push(0, sid, 0, buf, nil); err != nil {
		t.Fatal(err)
	}
	c0 := nics[0].Clock()
	c0.Waiting(true)
	if nics[0].Arrived(sid, 0, 8) {
		t.Fatalf("data from 1 ms taken at %v while process 1 runs at 0", c0.Now())
	}
	if c0.Now() != 0 || !c0.Holding() {
		t.Errorf("holding back: clock %v, holding %v", c0.Now(), c0.Holding())
	}
	nics[1].Clock().Waiting(true) // process 1 now waits with nothing arrived
	if !nics[0].Arrived(sid, 0, 8) {
		t.Fatal("data not taken once no process can send anything earlier")
	}
	if c0.Now() <= time.Millisecond || c0.Holding() {
		t.Errorf("taken: clock %v (want past 1 ms), holding %v", c0.Now(), c0.Holding())
	}
	if nics[0].Arrived(sid, 0, 8) != true {
		t.Error("data from the clock's past held back")
	}
}
