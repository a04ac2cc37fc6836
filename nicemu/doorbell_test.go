package nicemu

import (
	"sync/atomic"
	"testing"
	"time"
)

// sleeper arms n's doorbell, re-checks the flag word and sleeps for up to
// timeout. It reports on armed once armed, and returns how long it slept
// and whether it found the flag set before sleeping.
func sleeper(n *NIC, flag *uint64, timeout time.Duration, armed chan<- struct{}) (slept time.Duration, early bool) {
	seen := n.ArmDoorbell()
	armed <- struct{}{}
	if atomic.LoadUint64(flag) != 0 {
		n.DisarmDoorbell()
		return 0, true
	}
	start := time.Now()
	n.WaitDoorbell(seen, timeout)
	return time.Since(start), false
}

func TestDoorbellWakesOnPush(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 64)
	flag := wordAt(mem, 0)
	psid := mustRegisterMemory(t, n1, make([]byte, 64))

	wake := []struct {
		name string
		ring func() error
	}{
		{"PUSH to segment memory", func() error { return n0.Push(1, sid, 0, u64(1), nil) }},
		{"PUSH to process memory", func() error { return n0.Push(1, psid, 0, []byte("hello"), nil) }},
		{"BOTF", func() error { return n0.BOTF(1, sid, 8, []byte("x")) }},
		{"FAA", func() error { _, err := n0.FetchAndAdd(1, sid, 16, 1); return err }},
		{"CAS", func() error { _, err := n0.CompareAndSwap(1, sid, 24, 0, 1); return err }},
	}
	for _, w := range wake {
		t.Run(w.name, func(t *testing.T) {
			atomic.StoreUint64(flag, 0)
			armed := make(chan struct{}, 1)
			type result struct {
				slept time.Duration
				early bool
			}
			res := make(chan result, 1)
			go func() {
				var r result
				// The flag is never set by the ring (except for the segment
				// PUSH, which sets it): only the doorbell ends the sleep.
				r.slept, r.early = sleeper(n1, new(uint64), 5*time.Second, armed)
				res <- r
			}()
			<-armed
			wakeups := n0.Stats().Wakeups
			start := time.Now()
			if err := w.ring(); err != nil {
				t.Fatal(err)
			}
			r := <-res
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("sleeper woke %v after the request (slept %v)", elapsed, r.slept)
			}
			if d := n0.Stats().Wakeups - wakeups; d != 1 {
				t.Errorf("Stats.Wakeups +%d, want +1", d)
			}
			if s := atomic.LoadUint32(&seg.proc(1).sleepers); s != 0 {
				t.Errorf("%d sleepers left armed", s)
			}
		})
	}
}

func TestDoorbellTimeout(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, n0, 64)

	// Nobody rings PID 1: the wait lasts the timeout. Requests to PID 0
	// do not ring PID 1.
	armed := make(chan struct{}, 1)
	done := make(chan time.Duration, 1)
	go func() {
		d, _ := sleeper(n1, new(uint64), 100*time.Millisecond, armed)
		done <- d
	}()
	<-armed
	if err := n0.Push(0, sid, 0, u64(1), nil); err != nil {
		t.Fatal(err)
	}
	if d := <-done; d < 90*time.Millisecond || d > 2*time.Second {
		t.Errorf("WaitDoorbell(100ms) returned after %v", d)
	}
	if n0.Stats().Wakeups != 0 {
		t.Errorf("a request to PID 0 rang somebody")
	}
	if s := atomic.LoadUint32(&seg.proc(1).sleepers); s != 0 {
		t.Errorf("%d sleepers left armed after the timeout", s)
	}

	// A process that is not armed is not rung: no futex call, no count.
	bell := atomic.LoadUint32(&seg.proc(0).bell)
	for range 10 {
		if err := n1.Push(0, sid, 0, u64(2), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n1.Stats().Wakeups != 0 || atomic.LoadUint32(&seg.proc(0).bell) != bell {
		t.Errorf("unarmed process rung: %d wakeups", n1.Stats().Wakeups)
	}

	// A ring between ArmDoorbell and WaitDoorbell is not lost: the wait
	// returns at once.
	seen := n0.ArmDoorbell()
	if err := n1.Push(0, sid, 0, u64(3), nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n0.WaitDoorbell(seen, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("ring before the wait lost: waited %v", d)
	}
	// Arm and disarm balance.
	n0.ArmDoorbell()
	n0.ArmDoorbell()
	n0.DisarmDoorbell()
	n0.DisarmDoorbell()
	if s := atomic.LoadUint32(&seg.proc(0).sleepers); s != 0 {
		t.Errorf("sleepers = %d after balanced arm/disarm", s)
	}
}

// TestDoorbellBounce: a target asleep on its doorbell is woken by a bounce
// request posted to its mailbox, serves it, and the initiator is woken in
// turn.
func TestDoorbellBounce(t *testing.T) {
	_, nics := bounceJob(t, 2, PageSize)
	n0, n1 := nics[0], nics[1]
	region := make([]byte, 4*PageSize)
	sid := mustRegisterMemory(t, n1, region)
	stop := make(chan struct{})
	exited := make(chan int)
	go func() {
		sleeps := 0
		defer func() { exited <- sleeps }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			seen := n1.ArmDoorbell()
			if n1.Service() {
				n1.DisarmDoorbell()
				continue
			}
			sleeps++
			n1.WaitDoorbell(seen, 5*time.Second)
			n1.Service()
		}
	}()
	// Give the target time to fall asleep, so that the transfer depends on
	// the rings.
	deadline := time.Now().Add(5 * time.Second)
	for atomic.LoadUint32(&n1.ent.sleepers) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	src := pattern(len(region), 9)
	if err := n0.Push(1, sid, 0, src, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("bounce to a sleeping target took %v", d)
	}
	close(stop)
	var sleeps int
	for waiting := true; waiting; {
		select {
		case sleeps = <-exited:
			waiting = false
		case <-time.After(time.Millisecond):
			n0.notify(1) // wake the target so it sees stop
		}
	}
	checkBytes(t, "bounced into a sleeping target", region, src)
	if sleeps == 0 {
		t.Errorf("target never slept")
	}
	if n0.Stats().Wakeups == 0 {
		t.Errorf("initiator never rang the target")
	}
}

// TestAwaitStopsAtFirstTrue: await must return as soon as done says true,
// also when that happens in the check before a doorbell sleep; done may
// act (the bounce lock is a compare-and-swap that succeeds once), so
// asking it again would wait forever for what the caller already has.
//
// done keeps saying true once it has, so that an await that asks again
// still returns and the test counts the extra calls instead of waiting
// for a hang with a timeout (under heavy load the 1792 yields alone took
// longer than one, and the test then ended while await still ran on its
// segment).
func TestAwaitStopsAtFirstTrue(t *testing.T) {
	seg := newSegment(t, testConfig(1))
	n := openNIC(t, seg, 0)
	for _, at := range []int{1, 300, 2049, 2050, 2052} {
		calls := 0
		n.await(func() bool { calls++; return calls >= at })
		if calls != at {
			t.Errorf("true at call %d: done was called %d times", at, calls)
		}
	}
}
