package nicemu

import (
	"fmt"
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
// the reference machine counts as HostSpeedP3 seconds on a Pentium III
// 933 MHz. It is an estimate from the clock ratio and the cores' work per
// cycle (docs/decisions.md, HostSpeedP3), not a measurement; EP, which does
// not communicate, is the kernel to calibrate it against.
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
	// held back in its last look before it began to wait (0: none).
	held uint64
	// busy is the virtual time at which the data the process is about to
	// write becomes visible (0: none; see Clock.writing).
	busy uint64
	_    [32]byte
}

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
	// cpu reads the calling thread's CPU time (threadCPU) and tid names
	// the calling thread (gettid); tests replace them.
	cpu, gettid func() int64
	// deferred is when take first deferred data from the future since
	// it last took some (monotonic ns; 0: none deferred).
	deferred atomic.Int64
	// looked is how many writes each process had made into this one's
	// memory when it last began to look for data (Look).
	looked []uint64
	// complete is the others' earliest floor when the process last
	// began to look for data (Look): every write that arrives by then
	// had been made.
	complete int64
	// found is the earliest arrival of the data held back since the
	// last Look (0: none); Waiting(true) makes it held.
	found atomic.Int64
	// arrivals counts the data taken that moved the clock (take): a
	// request after one answers that data and is not back to back
	// (timing.begin).
	arrivals atomic.Uint64
	// escapes counts the waits for the ordering given up (escape).
	escapes atomic.Int64
	// computed counts the computing intervals (Computing).
	computed computeCount
	// decl is the declared computing (ComputeDeclared), which replaces
	// the thread's CPU time.
	decl declared
}

func newClock(seg *Segment, pid int, speed float64) *Clock {
	return &Clock{w: seg.clockWord(pid), seg: seg, pid: pid, speed: speed, mark: -1, looked: make([]uint64, seg.NProcs()),
		cpu: threadCPU, gettid: gettid, decl: newDeclared(seg)}
}

// Run makes the process take part in the ordering of requests in virtual
// time: a request of another process at a later virtual time waits (a
// little, in real time) until this clock has reached it, or this process
// waits for data, so that the NIC resources they share are reserved in
// virtual-time order. Bind does it too.
func (c *Clock) Run() { atomic.StoreUint64(&c.w.state, clockRunning) }

// Stop takes the process out of the ordering (at the end of its job).
func (c *Clock) Stop() {
	c.settled()
	atomic.StoreUint64(&c.w.state, clockIdle)
}

// Fence runs fence, a barrier of every process of the job (the job's data
// store fence), as a wait the ordering of virtual time sees: in it the
// process takes no part (the others' requests do not wait for its clock,
// which they would until the end of the barrier), and every process
// leaves it at the latest of the clocks they had when they entered it, as
// from a barrier that takes no time. It runs fence twice: each process
// reads the clocks after the first, and takes part in the ordering again
// (Run), at that time, before the second, so that none goes on before all
// do.
func (c *Clock) Fence(fence func() error) error {
	c.Stop()
	if err := fence(); err != nil {
		return err
	}
	var t int64
	for q := range c.seg.NProcs() {
		t = max(t, int64(atomic.LoadUint64(&c.seg.clockWord(q).now)))
	}
	c.reach(t)
	c.Run()
	return fence()
}

// Look records that the process begins to look for data that arrived,
// once every other process has reached the process's time or waits (see
// gate): the look then finds every write whose data arrives by then. The
// network calls it at the start of every poll.
func (c *Clock) Look() {
	c.settled()
	c.found.Store(0)
	c.complete = c.gate(c.now())
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
		// What was written before the look that found nothing to take
		// has been seen: only later writes make the others wait for this
		// clock, or the data that look held back.
		for src, n := range c.looked {
			atomic.StoreUint64(c.seg.seenWord(c.pid, src), n)
		}
		atomic.StoreUint64(&c.w.held, uint64(c.found.Load()))
	}
	old, st := uint64(clockWaiting), uint64(clockRunning)
	if w {
		old, st = st, old
	}
	atomic.CompareAndSwapUint64(&c.w.state, old, st)
}

// advance moves the clock to t and holds the caller until no other
// process may still act before t (gate).
func (c *Clock) advance(t int64) {
	c.reach(t)
	c.gate(c.now())
}

// writing moves the clock to v, at which data the caller is about to write
// becomes visible, and holds the caller until no other process may still
// act before v-1 ns. Until the data is written (settled), the others see
// the clock at v-1 ns: a process that looks for data at v waits for it.
func (c *Clock) writing(v int64) {
	atomic.StoreUint64(&c.w.busy, uint64(v))
	c.reach(v)
	c.gate(v - 1)
}

// settled records that the data of the request being executed has been
// written (see writing).
func (c *Clock) settled() { atomic.StoreUint64(&c.w.busy, 0) }

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
	c.cost = readCost(c.cpu)
	c.tid.Store(c.gettid())
	c.mark = c.cpu()
	c.Run()
}

// Enter tells the clock that the bound thread enters the communication
// layer: the CPU time it spent since Leave, times the host speed, is
// computing, and advances the clock. It reads the CPU time before it
// checks the thread, so that the check (a system call) is not counted.
// Under declared computing (Declared) it does nothing.
func (c *Clock) Enter() {
	if c.decl.on {
		return
	}
	now := c.cpu()
	if !c.onThread() || c.mark < 0 {
		return
	}
	d := now - c.mark - c.cost
	c.mark = -1
	if d > 0 {
		c.computed.add(d)
	}
	if d > 0 && c.speed > 0 {
		atomic.AddUint64(&c.w.now, uint64(float64(d)*c.speed))
	}
}

// Leave tells the clock that the bound thread leaves the communication
// layer: from now on its CPU time is computing (not under declared
// computing).
func (c *Clock) Leave() {
	if !c.decl.on && c.onThread() {
		c.mark = c.cpu()
	}
}

func (c *Clock) onThread() bool {
	tid := c.tid.Load()
	return tid != 0 && c.gettid() == tid
}

func gettid() int64 { return int64(unix.Gettid()) }

// threadCPU returns the calling thread's CPU time in ns.
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// readCost is the smallest difference between two readings of the
// thread's CPU time by cpu: what Leave's reading and Enter's add to an
// interval.
func readCost(cpu func() int64) int64 {
	best := int64(1 << 62)
	for range 64 {
		a := cpu()
		b := cpu()
		best = min(best, b-a)
	}
	return max(best, 0)
}
