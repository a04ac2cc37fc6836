package nicemu

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Virtual time.
//
// Under a timing profile the emulated NIC runs in real time by default
// (ClockReal): every request holds its caller until the modelled time has
// passed on the machine's monotonic clock, so the host's own cross-core
// latency, its scheduler and its load come on top of the model. In virtual
// time (ClockVirtual), as SimGrid's SMPI runs MPI programs, every process
// has a clock of its own that nothing but the model and the process's own
// computing moves:
//
//   - a request advances the issuing process's clock by what the profile
//     says it takes, against the virtual times at which the NIC resources
//     (Initiator, link, receive FIFO, PCI bus, Replier) are next free,
//     which are virtual times too; nothing waits in real time;
//   - every write into segment memory stamps the 64-byte cells it covers
//     with the virtual time at which its data became visible (a stamp area
//     beside the partitions); a process that finds the data calls
//     Arrived, and its clock moves to the later of its own time and the
//     stamp;
//   - the time a process computes between calls into the communication
//     layer advances its clock by the CPU time of its thread (not wall
//     time) times the job's host speed (see HostSpeed); time spent
//     polling, spinning or sleeping while it waits does not count.
//
// A result then depends on the program and the model only: not on the
// host's cross-core latency, the number of cores or other load.

// Clock modes of a job (mpirun -clock).
const (
	// ClockReal runs the timing profile in real time (the default).
	ClockReal = "real"
	// ClockVirtual runs it in virtual time.
	ClockVirtual = "virtual"
)

// Clocks lists the clock modes.
func Clocks() []string { return []string{ClockReal, ClockVirtual} }

func clockCode(name string) (uint64, error) {
	switch name {
	case "", ClockReal:
		return 0, nil
	case ClockVirtual:
		return 1, nil
	}
	return 0, fmt.Errorf("nicemu: unknown clock %q (want %s)", name, strings.Join(Clocks(), " or "))
}

// HostP3 names the host-speed preset of the thesis's hosts, Pentium III
// 933 MHz (mpirun -host-speed p3-933).
const HostP3 = "p3-933"

// HostSpeedP3 is the host speed of preset HostP3: a second of CPU time on
// the reference machine (a 2-core AMD EPYC, Zen 5, 2.1 GHz nominal, about
// 4 GHz when busy) counts as HostSpeedP3 seconds on a Pentium III
// 933 MHz. It is an estimate, not a measurement: the clock ratio (about
// 4.3) times the ratio of the cores' work per cycle on scalar
// double-precision loops like NPB's (the P6 core retires about one x87
// floating-point operation per cycle with a 32 KB L1 and a 256 KB L2 on a
// 133 MHz front-side bus; a Zen 5 core about three scalar SSE2 operations
// per cycle with far larger caches and memory bandwidth), 4.3 × 3 ≈ 13.
// The thesis gives no single-node figure against which to calibrate it
// (its NPB results, Fig 8.11-8.18, are plots); EP, which does not
// communicate, is the kernel to calibrate it against when those are read.
const HostSpeedP3 = 13.0

// ParseHostSpeed reads a host speed: a preset name (HostP3) or a
// non-negative number, the modelled host's seconds per second of this
// machine's CPU time (1: as fast as this machine; 0: computing takes no
// time, only communication moves the clocks).
func ParseHostSpeed(s string) (float64, error) {
	if s == HostP3 {
		return HostSpeedP3, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != f || f > 1e6 {
		return 0, fmt.Errorf("nicemu: host speed %q: want %s or a number of at least 0", s, HostP3)
	}
	return f, nil
}

// clockWord is a process's virtual clock in its control page, after the
// VPUSH registers, on a cache line of its own.
type clockWord struct {
	now   uint64 // virtual time, ns
	state uint64 // clockIdle, clockRunning or clockWaiting
	// held is the earliest arrival of the data the process found but
	// held back since it last took some (0: none).
	held uint64
	_    [40]byte
}

// floor is the earliest virtual time at which process q may still issue a
// request, as process self can tell: q's clock while it runs or has data
// written by a process other than self since it last looked and found
// nothing to take (data from self does not count: self may be in the
// middle of writing it); the arrival of the data it found and held back
// (see Clock.take); and never while it waits with nothing new or takes no
// part (the maximum int64).
func (s *Segment) floor(q, self int) int64 {
	w := s.clockWord(q)
	now := int64(atomic.LoadUint64(&w.now))
	switch atomic.LoadUint64(&w.state) {
	case clockRunning:
		return now
	case clockWaiting:
		for src := range s.NProcs() {
			if src != self && atomic.LoadUint64(s.writesWord(q, src)) != atomic.LoadUint64(s.seenWord(q, src)) {
				return now
			}
		}
		if h := int64(atomic.LoadUint64(&w.held)); h != 0 {
			return max(h, now)
		}
	}
	return math.MaxInt64
}

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

// gateLimit bounds how long (real time) a request waits for the other
// processes' clocks to reach its own, and data from the future is held
// back: a process blocked where no clock can see it (a data store fence, a
// sleep outside MPI) must not stop the job. Past it the request goes on
// in the real order, which may differ from run to run.
const gateLimit = 10 * time.Millisecond

// clockOffset places the clock in the control page.
const clockOffset = vpushOffset + int(unsafe.Sizeof(vpushRegs{}))

// The clock must fit in the control page.
var _ [PageSize - clockOffset - int(unsafe.Sizeof(clockWord{}))]byte

func (s *Segment) clockWord(p int) *clockWord {
	return (*clockWord)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl+clockOffset]))
}

// Clock is a process's virtual clock in virtual time (ClockVirtual). Its
// time starts at 0 when the job starts. Now and Reach are safe for
// concurrent use; Bind, Enter and Leave act only on the bound thread.
type Clock struct {
	w     *clockWord
	seg   *Segment
	pid   int
	speed float64
	// tid is the bound thread (0: none); mark its CPU time when the
	// caller left the communication layer (-1: inside it).
	tid  atomic.Int64
	mark int64
	// cost is what reading the thread's CPU time costs, subtracted from
	// every interval measured.
	cost int64
	// deferred is when take first deferred data from the future since
	// it last took some (monotonic ns; 0: none deferred).
	deferred atomic.Int64
	// looked is how many writes each process had made into this one's
	// memory when it last began to look for data (Look).
	looked []uint64
}

func newClock(seg *Segment, pid int, speed float64) *Clock {
	return &Clock{w: seg.clockWord(pid), seg: seg, pid: pid, speed: speed, mark: -1, looked: make([]uint64, seg.NProcs())}
}

// Run makes the process take part in the ordering of requests in virtual
// time: a request of another process at a later virtual time waits (a
// little, in real time) until this clock has reached it, or this process
// waits for data, so that the NIC resources they share are reserved in
// virtual-time order. Bind does it too.
func (c *Clock) Run() { atomic.StoreUint64(&c.w.state, clockRunning) }

// Stop takes the process out of the ordering (at the end of its job).
func (c *Clock) Stop() { atomic.StoreUint64(&c.w.state, clockIdle) }

// Look records that the process begins to look for data that arrived.
// The network calls it at the start of every poll.
func (c *Clock) Look() {
	for src := range c.looked {
		c.looked[src] = atomic.LoadUint64(c.seg.writesWord(c.pid, src))
	}
}

// Waiting tells the ordering that the process waits for data (true: its
// last look, Look, found nothing to take) or goes on (false); a process
// that does not take part stays out. Once the clock is bound, only the
// bound thread's waits count.
func (c *Clock) Waiting(w bool) {
	if c.tid.Load() != 0 && !c.onThread() {
		return // a goroutine of a nonblocking operation, not the process
	}
	if w {
		// What was written before the look that found nothing has been
		// seen: only later writes make the others wait for this clock.
		for src, n := range c.looked {
			atomic.StoreUint64(c.seg.seenWord(c.pid, src), n)
		}
	}
	old, st := uint64(clockWaiting), uint64(clockRunning)
	if w {
		old, st = st, old
	}
	atomic.CompareAndSwapUint64(&c.w.state, old, st)
}

// advance moves the clock to t and holds the caller until every other
// process taking part has reached t or waits for data, or gateLimit has
// passed.
func (c *Clock) advance(t int64) {
	c.reach(t)
	c.gate(c.now())
}

// take reports whether data that arrived at virtual time t may be taken
// now, and if so moves the clock to t. Data from the clock's past or
// present may; data from its future only while the process waits (it
// would act before t otherwise) and no other process may still issue a
// request before t (none can send it anything that arrives earlier), or
// after gateLimit of deferring. Taking data from its future makes the
// process run again (until it waits again).
func (c *Clock) take(t int64) bool {
	if t > c.now() && (atomic.LoadUint64(&c.w.state) == clockRunning || c.behind(t)) {
		if h := atomic.LoadUint64(&c.w.held); h == 0 || int64(h) > t {
			atomic.StoreUint64(&c.w.held, uint64(t))
		}
		now := nanotime()
		first := c.deferred.Load()
		if first == 0 {
			c.deferred.CompareAndSwap(0, now)
			return false
		}
		if now-first < int64(gateLimit) {
			return false
		}
	}
	c.deferred.Store(0)
	atomic.StoreUint64(&c.w.held, 0)
	if t > c.now() {
		// The process goes on from t: it runs until it waits again.
		atomic.CompareAndSwapUint64(&c.w.state, clockWaiting, clockRunning)
		c.reach(t)
	}
	return true
}

// Holding reports whether the process has found data that arrived in its
// future and held it back: it must look again soon rather than sleep
// until a peer writes to it.
func (c *Clock) Holding() bool { return atomic.LoadUint64(&c.w.held) != 0 }

// behind reports whether another process may still issue a request
// before t (its floor).
func (c *Clock) behind(t int64) bool {
	for q := range c.seg.NProcs() {
		if q != c.pid && c.seg.floor(q, c.pid) < t {
			return true
		}
	}
	return false
}

// gate holds the caller until no other process may still issue a request
// before t (see floor), or gateLimit has passed.
func (c *Clock) gate(t int64) {
	var deadline int64
	for q := range c.seg.NProcs() {
		for spins := 0; q != c.pid && c.seg.floor(q, c.pid) < t; spins++ {
			if spins < 64 {
				continue
			}
			if deadline == 0 {
				deadline = nanotime() + int64(gateLimit)
			} else if nanotime() > deadline {
				return
			}
			yield()
		}
	}
}

// Now returns the process's virtual time.
func (c *Clock) Now() time.Duration { return time.Duration(atomic.LoadUint64(&c.w.now)) }

// HostSpeed returns the modelled host's seconds per second of this
// machine's CPU time.
func (c *Clock) HostSpeed() float64 { return c.speed }

// Reach moves the clock to t unless it is already later.
func (c *Clock) Reach(t time.Duration) { c.reach(int64(t)) }

func (c *Clock) reach(t int64) {
	for {
		old := atomic.LoadUint64(&c.w.now)
		if int64(old) >= t || atomic.CompareAndSwapUint64(&c.w.now, old, uint64(t)) {
			return
		}
	}
}

func (c *Clock) now() int64 { return int64(atomic.LoadUint64(&c.w.now)) }

// Bind locks the calling goroutine to its OS thread and makes that
// thread's CPU time the computing the clock counts (with Enter and Leave);
// the process takes part in the ordering from now on (Run).
// The caller is then outside the communication layer. Calls of Enter and
// Leave on other threads (goroutines of nonblocking operations) count
// nothing.
func (c *Clock) Bind() {
	runtime.LockOSThread()
	c.cost = cpuReadCost()
	c.tid.Store(int64(unix.Gettid()))
	c.mark = threadCPU()
	c.Run()
}

// Enter tells the clock that the bound thread enters the communication
// layer: the CPU time it spent since Leave, times the host speed, is
// computing, and advances the clock.
func (c *Clock) Enter() {
	if !c.onThread() || c.mark < 0 {
		return
	}
	d := threadCPU() - c.mark - c.cost
	c.mark = -1
	if d > 0 && c.speed > 0 {
		atomic.AddUint64(&c.w.now, uint64(float64(d)*c.speed))
	}
}

// Leave tells the clock that the bound thread leaves the communication
// layer: from now on its CPU time is computing.
func (c *Clock) Leave() {
	if c.onThread() {
		c.mark = threadCPU()
	}
}

func (c *Clock) onThread() bool {
	tid := c.tid.Load()
	return tid != 0 && int64(unix.Gettid()) == tid
}

// threadCPU returns the calling thread's CPU time in ns.
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// cpuReadCost is the smallest difference between two readings of the
// thread's CPU time with a thread check between them: what Enter and Leave
// add to an interval.
func cpuReadCost() int64 {
	best := int64(1 << 62)
	for range 64 {
		a := threadCPU()
		unix.Gettid()
		b := threadCPU()
		best = min(best, b-a)
	}
	return max(best, 0)
}
