package nicemu

import (
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The ordering of virtual time: a conservative parallel discrete-event
// simulation (Chandy, Misra and Bryant; SimGrid's SMPI orders its actors
// the same way from one thread). A process acts at its virtual time t (it
// issues a request, or it looks for data that arrived) only once no other
// process may still act before t (its floor), and takes data that arrived
// in its future only while it waits and nothing earlier can come. Since a
// request's data arrives after it is issued, a look at t then finds all the
// data that arrives by t and nothing that arrives later, and the NIC
// resources are reserved in virtual-time order, whatever the real order of
// the processes and however the host schedules them.

// States of a process's clock, as the other processes' requests see it.
const (
	// clockIdle: the process takes no part in the ordering (not started,
	// or done).
	clockIdle = iota
	// clockRunning: it may issue requests at its clock or later; the
	// others' requests at later virtual times wait for it.
	clockRunning
	// clockWaiting: it waits for data, and issues nothing until some
	// arrives, which moves its clock to the arrival's time.
	clockWaiting
)

// floor is the earliest virtual time at which process q may still act
// (issue a request or look for data), as the others can tell: q's clock
// while it runs (just before the arrival of the data it is about to write,
// if that is earlier: see Clock.writing) or has data written since it last
// looked and found nothing to take; the arrival of the data that look held
// back (see Clock.take); and never while it waits with nothing new or
// takes no part (the maximum int64).
func (s *Segment) floor(q int) int64 {
	w := s.clockWord(q)
	now := int64(atomic.LoadUint64(&w.now))
	switch atomic.LoadUint64(&w.state) {
	case clockRunning:
		if v := atomic.LoadUint64(&w.busy); v != 0 {
			return min(now, int64(v)-1)
		}
		return now
	case clockWaiting:
		for src := range s.NProcs() {
			if atomic.LoadUint64(s.writesWord(q, src)) != atomic.LoadUint64(s.seenWord(q, src)) {
				return now
			}
		}
		if h := int64(atomic.LoadUint64(&w.held)); h != 0 {
			return max(h, now)
		}
	}
	return math.MaxInt64
}

// clear reports whether no other process may still act before the
// caller acts at t: whether every other process's floor is later than t,
// or at t with a higher process id (ties go to the lower id, so that of two
// processes at the same time exactly one goes first). It also returns the
// earliest floor.
func (c *Clock) clear(t int64) (bool, int64) {
	h, q := c.horizon()
	return t < h || t == h && c.pid < q, h
}

// horizon returns the earliest floor of the other processes, and the
// lowest process id with that floor. It reads one consistent view of the
// floors: a floor lowers only when data is written into a waiting
// process's memory, so the view holds if no process wrote any (the
// segment's write count) while it was read.
func (c *Clock) horizon() (int64, int) {
	for {
		writes := atomic.LoadUint64(&c.seg.hdr.vwrites)
		h, hq := int64(math.MaxInt64), c.seg.NProcs()
		for q := range c.seg.NProcs() {
			if f := c.seg.floor(q); q != c.pid && f < h {
				h, hq = f, q
			}
		}
		if atomic.LoadUint64(&c.seg.hdr.vwrites) == writes {
			return h, hq
		}
	}
}

// escapeLimit bounds how long (real time) a process waits for the others'
// clocks, or holds back data from its future: only a process blocked where
// the ordering cannot see it (outside the communication layer's waits) can
// make it wait that long, and the job must not hang on it. Past it the
// process goes on in real order, which may differ from run to run: every
// escape is counted (Clock.Escapes), and the first reported on standard
// error.
const escapeLimit = 5 * time.Second

// gate holds the caller until no other process may still act before t
// (clear), or escapeLimit has passed, and returns the others' earliest
// floor then. It spins briefly, then yields the processor, then sleeps:
// the processes it waits for may need the processor (more processes than
// cores).
func (c *Clock) gate(t int64) int64 {
	var deadline int64
	for n := 0; ; n++ {
		ok, h := c.clear(t)
		if ok {
			return h
		}
		switch {
		case n < 64:
		case n < 128:
			yield()
		default:
			now := nanotime()
			if deadline == 0 {
				deadline = now + int64(escapeLimit)
			} else if now > deadline {
				c.escape("a request or look at %v waited for the other processes' clocks", t)
				return h
			}
			nap(n - 128)
		}
	}
}

// nap sleeps the n-th time a gate sleeps: from 1 µs, doubling, up to
// 64 µs.
func nap(n int) {
	d := int64(time.Microsecond) << min(n, 6)
	unix.Nanosleep(&unix.Timespec{Nsec: d}, nil)
}

// EscapeNotice ends the line a process writes on standard error at its
// first escape from the ordering of virtual time (Clock.Escapes), so that
// a program running jobs can tell the runs that escaped.
const EscapeNotice = "and went on: the virtual times of this run may differ from another's"

// escape counts and reports a wait for the ordering given up.
func (c *Clock) escape(format string, t int64) {
	if c.escapes.Add(1) == 1 {
		fmt.Fprintf(os.Stderr, "nicemu: virtual time: process %d: "+format+" for %v "+EscapeNotice+"\n",
			c.pid, time.Duration(t), escapeLimit)
	}
}

// Escapes returns how many times the process gave up waiting for the
// ordering of virtual time (after a few seconds of real time) and went on
// in real order; a run without any is ordered as any other would be.
func (c *Clock) Escapes() int64 { return c.escapes.Load() }

// take reports whether data that arrived at virtual time t may be taken
// now, and if so moves the clock to t. Data from the clock's past or
// present may; data from its future only while the process waits (it
// would act before t otherwise) and no other process could still act
// before t when the process began to look (Look: then every write that
// arrives by t had been made, and the look finds them all), or after
// escapeLimit of deferring. A process that takes no part takes any data.
// Taking data makes the process run again (until it waits again): it may
// answer it.
func (c *Clock) take(t int64) bool {
	if st := atomic.LoadUint64(&c.w.state); t > c.now() && (st == clockRunning || st == clockWaiting && t > c.complete) {
		if h := atomic.LoadUint64(&c.w.held); h == 0 || int64(h) > t {
			atomic.StoreUint64(&c.w.held, uint64(t))
		}
		if f := c.found.Load(); f == 0 || f > t {
			c.found.Store(t)
		}
		now := nanotime()
		first := c.deferred.Load()
		if first == 0 {
			c.deferred.CompareAndSwap(0, now)
			return false
		}
		if now-first < int64(escapeLimit) {
			return false
		}
		c.escape("data that arrived at %v was held back", t)
	}
	c.deferred.Store(0)
	// The process goes on (from t if that is later): it runs, and may
	// issue requests, until it waits again.
	atomic.CompareAndSwapUint64(&c.w.state, clockWaiting, clockRunning)
	if t > c.now() {
		c.arrivals.Add(1)
	}
	c.reach(t)
	return true
}

// Holding reports whether the process has found data that arrived in its
// future and held it back: it must look again soon rather than sleep
// until a peer writes to it.
func (c *Clock) Holding() bool { return atomic.LoadUint64(&c.w.held) != 0 }

// Deadlocked reports whether every process of the job waits for data with
// nothing in flight: each takes part in the ordering and waits, nothing has
// been written into its memory since its last look found nothing, and it
// holds back no data from its future. No process can then act, so none
// can write what another waits for: only a goroutine outside the ordering
// (not the bound thread) could. A process that computes or sleeps outside
// the communication layer runs, and one that has stopped (in Finalize, in
// a fence) takes no part: neither is deadlocked. It reads one consistent
// view of the clocks, as horizon does.
func (c *Clock) Deadlocked() bool {
	for {
		writes := atomic.LoadUint64(&c.seg.hdr.vwrites)
		all := true
		for q := range c.seg.NProcs() {
			if atomic.LoadUint64(&c.seg.clockWord(q).state) != clockWaiting || c.seg.floor(q) != math.MaxInt64 {
				all = false
				break
			}
		}
		if atomic.LoadUint64(&c.seg.hdr.vwrites) == writes {
			return all
		}
	}
}
