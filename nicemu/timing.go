package nicemu

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// nanotime is the runtime's monotonic clock (CLOCK_MONOTONIC on Linux): one
// time base for every process of the machine, read without a system call.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// nicResources are the parts of a process's emulated NIC that requests
// queue for under a timing profile, each the monotonic time (ns) at which
// it is next free. They live in the process's control page, each word on a
// cache line of its own, since the requests of every process reserve them.
type nicResources struct {
	initiator uint64 // request processing
	_         [56]byte
	link      uint64 // the outgoing link
	_         [56]byte
	rx        uint64 // the single receive FIFO, RFend and RBend
	_         [56]byte
	pci       uint64 // the PCI bus: free time << 1 | direction of its last transaction
	_         [56]byte
	replier   uint64 // pull replies and acks
	_         [56]byte
	// trunk are the links from this process's switch to the others, by
	// switch, used in the first process of each switch (Profile.SwitchNodes).
	trunk [maxSwitches]uint64
}

// maxSwitches is the most switches whose links between them are modelled:
// a job on more has its packets between switches cross no shared link.
const maxSwitches = 16

// timingOffset places the resources in the control page, after the AOTF
// header buffer.
const timingOffset = aotfOffset + NumAOTFPages*32

func (s *Segment) resources(p int) *nicResources {
	return (*nicResources)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl+timingOffset]))
}

// Directions of a PCI transaction, seen from the NIC.
const (
	busRead  = 0 // DMA read of host memory
	busWrite = 1 // DMA write into host memory
)

// reserve takes a resource for dur from the first moment at or after
// earliest that it is free, and returns that moment.
func reserve(w *uint64, earliest, dur int64) int64 {
	for {
		old := atomic.LoadUint64(w)
		start := max(earliest, int64(old))
		if atomic.CompareAndSwapUint64(w, old, uint64(start+dur)) {
			return start
		}
	}
}

// extend makes a resource busy until at least until.
func extend(w *uint64, until int64) {
	for {
		old := atomic.LoadUint64(w)
		if int64(old) >= until || atomic.CompareAndSwapUint64(w, old, uint64(until)) {
			return
		}
	}
}

// reserveBus takes the half-duplex PCI bus for a transaction of dir lasting
// dur, adding the turnaround when the bus last carried the other direction.
func reserveBus(w *uint64, earliest, dur int64, dir uint64, turnaround int64) int64 {
	for {
		old := atomic.LoadUint64(w)
		free := int64(old >> 1)
		if old != 0 && old&1 != dir {
			free += turnaround
		}
		start := max(earliest, free)
		if atomic.CompareAndSwapUint64(w, old, uint64(start+dur)<<1|dir) {
			return start
		}
	}
}

// timing is a NIC's state under a timing profile: the profile, the
// resources of every process and the host's emulated clock.
type timing struct {
	p     *Profile
	self  *nicResources
	procs []*nicResources
	id    int // self's index in procs

	// hostAt is when the host would have gone on after its last request
	// on the modelled hardware, returnedAt when the emulation let it go
	// on (later, since it holds a request until its data has landed).
	hostAt, returnedAt int64
	// issuedAt is when the host issued the current request (begin);
	// releaseAt is when the emulation lets it go on (settle); movedAt is
	// when the caller started to move its data.
	issuedAt, releaseAt, movedAt int64
	// excess is how much later than the hardware the emulation let the
	// host go on after its last request for its own reasons: the
	// modelled hold (releaseAt beyond hostAt) and the time it took to
	// move the data. Time lost otherwise (the process descheduled while
	// it waited) is not excess: it is lost, as it would be on the
	// modelled host.
	excess int64
	// takeover is the Initiator's time in firmware for the request being
	// kicked (PATLB refills, SOFT completion), added to its hardware work.
	takeover int64
	// handoff is how much before the modelled time a remote write's data
	// is moved, so that a program polling at the target sees it at that
	// time (handoff.go); at most the target's DMA write stage.
	handoff int64

	// windowDone holds when the Initiator read each Window's last BOTF
	// out, by the request's number windowSeq, with Profile.WriteWindows
	// above one.
	windowDone [8]int64
	windowSeq  uint64

	// arrived reads the count of remote writes into this process's
	// memory (procEntry.arrivals; in virtual time, of the data whose
	// arrival moved the clock, Clock.arrivals), and seen is its value
	// when the last request returned: a request after data arrived
	// answers that data and is not back to back (begin). arrived is nil
	// in the tests' models.
	arrived func() uint64
	seen    uint64

	now  func() int64      // the clock: nanotime
	wait func(until int64) // holds the caller until the clock reads until
	// In virtual time: gate holds the caller until the other processes
	// have reached its time (Clock.gate); writing holds it until it may
	// write data that becomes visible at t, and settled records that the
	// data is written (Clock.writing, Clock.settled). All nil in real
	// time.
	gate    func(t int64)
	writing func(t int64)
	settled func()
}

func newTiming(p *Profile, self *nicResources, procs []*nicResources, handoff time.Duration) *timing {
	t := &timing{p: p, self: self, procs: procs, now: nanotime, wait: spinUntil,
		handoff: int64(min(max(handoff, 0), p.DMAOverhead+p.DMAWriteLatency))}
	for i, r := range procs {
		if r == self {
			t.id = i
		}
	}
	return t
}

// modelWrite is the modelled latency of a lone write of n bytes by op
// under p, from the host's first store until the target sees the data: the
// model run on a virtual clock.
func (p *Profile) modelWrite(op Op, n int) time.Duration {
	res := []*nicResources{new(nicResources), new(nicResources)}
	t := newTiming(p, res[0], res, 0)
	const start = 1e9
	clock := int64(start)
	t.now = func() int64 { return clock }
	t.wait = func(until int64) { clock = max(clock, until) }
	t.begin()
	return time.Duration(t.write(op, 1, n, false) - start)
}

// WriteLatency is the modelled time of a lone write of n bytes by op under
// p, from the host's first store until the target sees the data.
func (p *Profile) WriteLatency(op Op, n int) time.Duration { return p.modelWrite(op, n) }

// spinUntil spins until the monotonic clock reads t.
func spinUntil(t int64) {
	for nanotime() < t {
	}
}

// begin records that the host issues a request now: at the start of the
// request's first PIO store. When the request follows the last one back to
// back, it is issued when the host would have reached this point on the
// modelled hardware: the emulation's excess is taken back. A request
// issued after another process's data arrived in this process's memory
// is not back to back, however soon: the host may have waited for that
// data (a ping-pong's answer), which the emulation's excess does not
// cover; taking the excess back would time the answer before the data it
// answers (with a large handoff, an AOTF ping-pong's wait fits in
// BackToBack).
func (t *timing) begin() {
	if t.gate != nil {
		t.gate(t.now())
	}
	now := t.now()
	if gap := now - t.returnedAt; t.returnedAt != 0 && gap <= int64(t.p.BackToBack) && !t.newArrival() {
		now -= min(t.excess, t.returnedAt-t.hostAt)
	}
	t.issuedAt = now
}

// newArrival reports whether data arrived from another process since the
// last request returned.
func (t *timing) newArrival() bool { return t.arrived != nil && t.arrived() != t.seen }

// finish records the end of a request's timing, when the caller is about
// to move the data: the hardware lets the host go on at hostAt, the
// emulation at release, once the data is moved (settle).
func (t *timing) finish(hostAt, release int64) {
	t.hostAt = hostAt
	t.releaseAt = max(hostAt, release)
	t.movedAt = t.now()
}

func (t *timing) pio(words int) int64 {
	return int64(t.p.PIOFirst) + int64(words-1)*int64(t.p.PIOPerWord)
}

func (t *timing) pciTime(bytes int) int64 { return bytesTime(bytes, t.p.PCIBytesPerSecond) }
func (t *timing) linkTime(bytes int) int64 {
	return bytesTime(t.p.HeaderBytes+bytes, t.p.LinkBytesPerSecond)
}

// packetSize is the payload of packet k of a transfer of n bytes.
func (t *timing) packetSize(n, k int) int {
	return min(n-k*t.p.MTU, t.p.MTU)
}

func (t *timing) packetCount(n int) int {
	return max(1, (n+t.p.MTU-1)/t.p.MTU)
}

// dmaRead reserves the bus of r for a DMA read of b bytes at or after
// earliest; it returns when the bus is free for the next transaction and
// when the data is in the NIC.
func (t *timing) dmaRead(r *nicResources, earliest int64, b int) (busFree, ready int64) {
	d := int64(t.p.DMAOverhead) + t.pciTime(b)
	s := reserveBus(&r.pci, earliest, d, busRead, int64(t.p.PCITurnaround))
	return s + d, s + d + int64(t.p.DMAReadLatency)
}

// dmaWrite reserves the bus of r for a DMA write of b bytes at or after
// earliest; it returns the end of the bus transaction and when a polling
// host sees the data.
func (t *timing) dmaWrite(r *nicResources, earliest int64, b int) (end, visible int64) {
	d := int64(t.p.DMAOverhead) + t.pciTime(b)
	s := reserveBus(&r.pci, earliest, d, busWrite, int64(t.p.PCITurnaround))
	return s + d, s + d + int64(t.p.DMAWriteLatency)
}

// trunk is the link between the switches of processes from and to
// (Profile.SwitchNodes), held by the first process of from's switch; nil
// when they share a switch, or the job's switches are not modelled.
func (t *timing) trunk(from, to int) *uint64 {
	k := t.p.SwitchNodes
	if k <= 0 || from/k == to/k || len(t.procs) > k*maxSwitches {
		return nil
	}
	return &t.procs[from/k*k].trunk[to/k]
}

// send takes the links of a packet of link time lt from process from to
// process to, ready to leave at ready: its outgoing link and, between
// switches, the link joining theirs, which it crosses at
// TrunkBytesPerSecond once free. It returns when the packet's head leaves
// its last shared link.
func (t *timing) send(from, to int, ready, lt int64, b int) int64 {
	send := reserve(&t.procs[from].link, ready, lt)
	if tr := t.trunk(from, to); tr != nil {
		tt := bytesTime(t.p.HeaderBytes+b, t.p.TrunkBytesPerSecond)
		send = reserve(tr, send, tt)
	}
	return send
}

// deliver sends a packet of b payload bytes from process from to process
// to, ready to leave at ready, and returns when its payload is visible in
// to's memory. The receive FIFO of the target is held from the packet's
// arrival until the DMA controller has drained the payload.
func (t *timing) deliver(from, to int, ready int64, b int) int64 {
	dst := t.procs[to]
	lt := t.linkTime(b)
	send := t.send(from, to, ready, lt, b)
	head := send + int64(t.p.WireLatency)
	tail := head + lt
	front := int64(t.p.RFend + t.p.RBend)
	dma := int64(t.p.DMAOverhead) + t.pciTime(b)
	r := reserve(&dst.rx, head, front+dma)
	end, visible := t.dmaWrite(dst, max(r+front, tail-dma), b)
	extend(&dst.rx, end)
	return visible
}

// writeWords is the number of 8-byte PIO stores that issue a write
// request of n bytes.
func writeWords(op Op, n int) int {
	switch op {
	case OpBOTF:
		return 6 + (n+7)/8 // the packet image: header, then the payload
	case OpAOTF:
		return 1
	}
	return 6 // PUSH: the Window's request registers
}

// write times a PUSH, BOTF or AOTF of n bytes to dst, issued at begin,
// with an ack when ack is set. It holds the caller until the data is due
// at the target, less the handoff, when the caller moves the data; settle
// then holds it until the host would have gone on on the modelled
// hardware: when it saw the Window's contflag (and the ack, with ack). It
// returns when the data became visible at the target.
func (t *timing) write(op Op, dst int, n int, ack bool) (visible int64) {
	p := t.p
	self, tgt := t.self, t.procs[dst]
	acc := t.issuedAt + t.pio(writeWords(op, n))
	var hostAt int64
	switch op {
	case OpPush:
		work := int64(p.InitiatorPush) + t.takeover
		t.takeover = 0
		next := reserve(&self.initiator, acc, work) + work
		var ready int64
		for k := range t.packetCount(n) {
			b := t.packetSize(n, k)
			next, ready = t.dmaRead(self, next, b)
			t.wait(ready)
			visible = t.deliver(t.id, dst, ready, b)
		}
		// The contflag is written once the source has been read.
		_, hostAt = t.dmaWrite(self, ready+int64(p.ContFlag), 8)
	default: // BOTF and AOTF: the packet image is already in the NIC
		work := t.otfWork(n)
		ready := reserve(&self.initiator, acc, work) + work
		t.wait(ready)
		for k := range t.packetCount(n) {
			visible = t.deliver(t.id, dst, ready, t.packetSize(n, k))
		}
		hostAt = acc // AOTF: a posted store
		if op == OpBOTF {
			_, done := t.dmaWrite(self, ready+int64(p.ContFlag), 8)
			hostAt = t.windowFree(acc, ready, done)
		}
	}
	done := visible
	if ack {
		// The target's Replier answers once the DMA write is done, and
		// the host waits for the ack: a request issued back to back
		// after this one starts no earlier.
		rp := reserve(&tgt.replier, visible-int64(p.DMAWriteLatency), int64(p.Replier)) + int64(p.Replier)
		done = t.deliver(dst, t.id, rp, 8)
		hostAt = max(hostAt, done)
	}
	t.due(visible)
	t.finish(hostAt, done)
	return visible
}

// vpush times a VPUSH of n bytes (at most one packet) to dst, issued at
// begin: a PUSH whose packet the target's firmware takes over (Fig 7.10).
// RFend stops at RVA; firmware picks the receive address and resumes it;
// RBend writes the payload while firmware goes on; the Replier stops at its
// breakpoint and firmware publishes the receive pointer, which a DMA write
// carries to host memory. The target's receive path is held from the
// packet's arrival until then. It holds the caller until the message is
// due to be published, less the handoff; settle then holds it until the
// host would have seen the Window's contflag. It returns when the
// published receive pointer became visible at the target.
func (t *timing) vpush(dst int, n int) (published int64) {
	p := t.p
	self, tgt := t.self, t.procs[dst]
	acc := t.issuedAt + t.pio(writeWords(OpPush, n))
	next := reserve(&self.initiator, acc, int64(p.InitiatorPush)) + int64(p.InitiatorPush)
	_, ready := t.dmaRead(self, next, n)
	_, hostAt := t.dmaWrite(self, ready+int64(p.ContFlag), 8)
	t.wait(ready)

	lt := t.linkTime(n)
	send := t.send(t.id, dst, ready, lt, n)
	head := send + int64(p.WireLatency)
	tail := head + lt
	dma := int64(p.DMAOverhead) + t.pciTime(n)
	taken := int64(p.RFend + p.VPUSHDispatch + p.VPUSHRFend)
	r := reserve(&tgt.rx, head, taken+int64(p.RBend)+dma)
	resume := r + taken
	end, _ := t.dmaWrite(tgt, max(resume+int64(p.RBend), tail-dma), n)
	handler := max(end, resume+int64(p.VPUSHOverlap)) + int64(p.VPUSHReplier)
	pend, published := t.dmaWrite(tgt, handler, 8)
	extend(&tgt.rx, pend)

	t.due(published)
	t.finish(hostAt, published)
	return published
}

// due holds the caller until a write's data, visible at the target at
// visible, is due to be moved: less the handoff in real time, until the
// others may see it in virtual time (Clock.writing).
func (t *timing) due(visible int64) {
	if t.writing != nil {
		t.writing(visible)
		return
	}
	t.wait(visible - t.handoff)
}

// host charges d of work by the host itself (a message layer's library
// code on the modelled host): the caller is held for d. That work is the
// modelled host's, not the emulation's: it does not count against
// BackToBack, so that a request that follows it and the last one with no
// other delay is still issued back to back, d after the host would have
// gone on (PM/RHiNET-VP's pmSends of the packets of one message, issued
// while the receiver's firmware takes the previous ones).
func (t *timing) host(d time.Duration) {
	if d > 0 {
		t.wait(t.now() + int64(d))
		if t.returnedAt != 0 {
			t.returnedAt += int64(d)
		}
	}
}

// settle holds the caller, after it moved a request's data, until the
// host would have gone on on the modelled hardware.
func (t *timing) settle() {
	if t.settled != nil {
		t.settled()
	}
	moving := t.now() - t.movedAt
	t.wait(t.releaseAt)
	t.returnedAt = t.now()
	if t.arrived != nil {
		t.seen = t.arrived()
	}
	t.excess = max(0, t.releaseAt-t.hostAt+moving)
}

// read times a PULL (or, with otf, a pull request sent as a BOTF packet
// image) of n bytes from src. It holds the caller until the data is
// visible, when the host goes on. With update, the target writes back the
// word it read (CAS, FAA). It returns when the data became visible.
func (t *timing) read(src int, n int, otf, update bool) (visible int64) {
	p := t.p
	self, tgt := t.self, t.procs[src]
	acc := t.issuedAt + t.pio(6)
	build := p.InitiatorPull
	if otf {
		build = p.InitiatorOTF
	}
	ready := reserve(&self.initiator, acc, int64(build)) + int64(build)
	t.wait(ready)
	// The request packet holds the target's receive FIFO for RFend only.
	lt := t.linkTime(0)
	head := t.send(t.id, src, ready, lt, 0) + int64(p.WireLatency)
	r := reserve(&tgt.rx, head, int64(p.RFend))
	next := reserve(&tgt.replier, r+int64(p.RFend), int64(p.Replier)) + int64(p.Replier)
	for k := range t.packetCount(n) {
		b := t.packetSize(n, k)
		var data int64
		next, data = t.dmaRead(tgt, next, b)
		if update {
			t.dmaWrite(tgt, data, b)
		}
		t.wait(data)
		visible = t.deliver(src, t.id, data, b)
	}
	t.finish(visible, visible)
	return visible
}

// The resources must fit in the control page.
var _ [PageSize - timingOffset - int(unsafe.Sizeof(nicResources{}))]byte

// otfWork is the Initiator's work on a packet image of n payload bytes.
func (t *timing) otfWork(n int) int64 {
	return int64(t.p.InitiatorOTF) + int64((n+7)/8)*int64(t.p.OTFPerWord)
}

// windowFree returns when the host may go on after a BOTF whose packet
// image it wrote by acc, which the Initiator had read out of its Window by
// ready, and whose completion the host sees at done: at done with one
// Window; with w Windows taken in turn, once the Window it writes next has
// been read out: when the Initiator had read the request w-1 before this
// one.
func (t *timing) windowFree(acc, ready, done int64) int64 {
	w := min(t.p.WriteWindows, len(t.windowDone))
	if w <= 1 {
		return done
	}
	t.windowSeq++
	t.windowDone[t.windowSeq%uint64(w)] = ready
	return max(acc, t.windowDone[(t.windowSeq+1)%uint64(w)])
}
