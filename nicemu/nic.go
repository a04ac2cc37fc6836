package nicemu

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NIC is one process's view of the emulated Martini NIC: its Windows, its
// SID table, its translation caches and its counters. Requests are executed
// by the emulated hardware when a Window is kicked, in the calling process.
//
// A NIC is not safe for concurrent use, except for the doorbell methods
// (ArmDoorbell, WaitDoorbell, DisarmDoorbell, Wake) and those of the
// synchronisation network and multicast (AllocBarrier, FreeBarrier,
// BarrierArrive, BarrierReleased, BarrierPayload, TryMulticast,
// TryDeliver); the layer above serialises the other requests.
type NIC struct {
	seg  *Segment
	pid  int
	ent  *procEntry
	part int // partition base offset

	windows [NumWindows]*windowRegs
	local   [NumWindows][]byte // the local buffer named by each Window's request
	cont    *[NumWindows * 8]uint64
	issued  [NumWindows]uint64 // last request number kicked on each Window
	next    int                // round-robin Window cursor
	// botf is the Window BOTFBuffer handed out plus one, for KickBOTF to
	// send (0: none).
	botf int

	freeSIDs    []SID
	procRegions map[SID][]byte // own KindProcess regions, kept alive while registered
	segRegions  map[SID]extent // own KindSegment regions
	heap        heap
	aotf        *[NumAOTFPages]aotfHeader
	box         *mailbox

	rvatlb rvaTLB
	patlb  paTLB
	// mapped: the peers' segment regions this process has mapped in
	// whole (mapPeerRegion), with the SID state they were mapped at.
	mapped map[peerRegion]uint64
	stats  Stats

	timing  *timing    // nil under the native profile
	clock   *Clock     // nil unless the job runs in virtual time (set only with timing)
	visible int64      // virtual time: when the write being executed becomes visible
	rooms   []roomWait // virtual time: the VPUSH queues it waits to have room in (vroom.go)
	// ringWaits, in virtual time: the rings whose consumer count it
	// waits to see published (vring.go).
	ringWaits []ringWait
	tk        *tkState // the takeover mechanism's models, made on first use
	kicked    int      // the Window being kicked
	wantAck   bool     // the PUSH being kicked asked for an ack
	asVPUSH   bool     // the PUSH being kicked is timed as a VPUSH (PushAsVPUSH)
	otfPull   bool     // the PULL being kicked is a BOTF pull request

	cma   bool         // cross-memory attach permitted
	huge  *hugePages   // nil: the memory of cross-memory copies keeps its pages
	procs []*procEntry // PGIDTBL entries of every process, by PID
	// cpuMates, once every process has published its CPU, are the others
	// that may run on this one's CPU (cpushare.go); goroutines waiting at
	// once share it.
	cpuMates atomic.Pointer[cpuMates]

	eventsMu sync.Mutex
	events   []ErrorEvent
	scratch  [8]byte
	liov     [1]unix.Iovec
	riov     [1]unix.RemoteIovec
}

// Op is the kind of a NIC request.
type Op uint64

// Request kinds selected by the kick.
const (
	OpPush Op = iota + 1
	OpPull
	OpBOTF
	OpAOTF
	OpCAS
	OpFAA
)

func (o Op) String() string {
	switch o {
	case OpPush:
		return "PUSH"
	case OpPull:
		return "PULL"
	case OpBOTF:
		return "BOTF"
	case OpAOTF:
		return "AOTF"
	case OpCAS:
		return "CAS"
	case OpFAA:
		return "FAA"
	case OpBarrier:
		return "BARRIER"
	case OpMulticast:
		return "MULTICAST"
	case OpDeliver:
		return "DELIVER"
	}
	return fmt.Sprintf("Op(%d)", uint64(o))
}

// Open attaches the calling process to the NIC as process pid of the
// segment's job: it records the OS process id, maps the Windows reserved for
// pid and marks the slot ProcAttached. Set the environment variable
// MARTINI_NO_CMA=1 to forbid cross-memory attach (bounce buffers only),
// MARTINI_NO_HUGEPAGES=1 to keep the memory of cross-memory copies on the
// pages it has (see hugePages).
func Open(seg *Segment, pid int) (*NIC, error) {
	if pid < 0 || pid >= seg.NProcs() {
		return nil, fmt.Errorf("nicemu: open: PID %d outside the job's %d processes", pid, seg.NProcs())
	}
	n := &NIC{
		seg:         seg,
		pid:         pid,
		ent:         seg.proc(pid),
		part:        seg.partBase(pid),
		procRegions: make(map[SID][]byte),
		segRegions:  make(map[SID]extent),
		cma:         os.Getenv("MARTINI_NO_CMA") != "1",
	}
	n.procs = make([]*procEntry, seg.NProcs())
	for p := range n.procs {
		n.procs[p] = seg.proc(p)
	}
	n.mapRegisters()
	n.reclaimSIDs()
	if err := n.setTiming(); err != nil {
		return nil, fmt.Errorf("nicemu: open: %w", err)
	}
	if n.timing == nil && n.cma && os.Getenv(envNoHugePages) != "1" {
		n.huge = newHugePages(&n.stats)
	}
	hb := seg.heapBase(pid)
	n.heap = newHeap(hb, int(seg.hdr.heapSize))
	// Nothing published of an earlier user of the slot (PublishCPU).
	atomic.StoreUint64(&n.ent.cpu, cpuUnpublished)
	atomic.StoreUint64(&n.ent.waitOn, waitNone)
	atomic.StoreUint64(&n.ent.ospid, uint64(os.Getpid()))
	return n, nil
}

// mapRegisters maps the registers of the process's partition (its
// Windows, contflags, AOTF header buffer and bounce mailbox), and starts
// each Window's request count at its contflag, so that the Window counts
// as free and its numbering goes on from an earlier user of the slot.
func (n *NIC) mapRegisters() {
	mem := n.seg.mem
	for w := range n.windows {
		n.windows[w] = (*windowRegs)(unsafe.Pointer(&mem[n.part+partWindows+w*WindowSize]))
	}
	n.cont = (*[NumWindows * 8]uint64)(unsafe.Pointer(&mem[n.part+partCont]))
	n.aotf = (*[NumAOTFPages]aotfHeader)(unsafe.Pointer(&mem[n.part+partCtl+aotfOffset]))
	n.box = (*mailbox)(unsafe.Pointer(&mem[n.part+partCtl]))
	for w := range n.issued {
		n.issued[w] = atomic.LoadUint64(&n.cont[w*8])
	}
}

// reclaimSIDs makes every SID of the process free, invalidating the
// registrations an earlier user of the slot left, so that its peers can
// no longer reach that memory through them.
func (n *NIC) reclaimSIDs() {
	for s := NumSIDs - 1; s >= 1; s-- {
		if st := atomic.LoadUint64(&n.seg.sidEntry(n.pid, SID(s)).state); st&1 == 1 {
			// A previous user of the slot left it registered: invalidate.
			atomic.StoreUint64(&n.seg.sidEntry(n.pid, SID(s)).state, st+1)
		}
		n.freeSIDs = append(n.freeSIDs, SID(s))
	}
}

// setTiming sets up the timing of the job's profile, none under the
// native profile: the resources of every process's NIC whose use the
// model charges, and the clock it charges against, real time or, in
// virtual time, the process's virtual clock.
func (n *NIC) setTiming() error {
	seg, pid := n.seg, n.pid
	p, err := LookupProfile(seg.Profile())
	if err != nil || p == nil {
		return err
	}
	res := make([]*nicResources, seg.NProcs())
	for q := range res {
		res[q] = seg.resources(q)
	}
	n.timing = newTiming(p, res[pid], res, seg.Handoff())
	if seg.Clock() != ClockVirtual {
		// In virtual time only the arrivals that moved the clock
		// count (below): when data lands in real time must not
		// change the timing.
		n.timing.arrived = func() uint64 { return atomic.LoadUint64(&n.ent.arrivals) }
	} else {
		n.clock = newClock(seg, pid, seg.HostSpeed())
		n.timing.now, n.timing.wait, n.timing.gate = n.clock.now, n.clock.advance, func(t int64) { n.clock.gate(t) }
		n.timing.writing, n.timing.settled = n.clock.writing, n.clock.settled
		n.timing.arrived = n.clock.arrivals.Load
	}
	return nil
}

// Profile returns the timing profile the NIC runs under: nil for native.
// The profile is the job's, chosen when its segment was created.
func (n *NIC) Profile() *Profile {
	if n.timing == nil {
		return nil
	}
	return n.timing.p
}

// ChargeHost holds the caller for d under a timing profile: host work of a
// layer above (a message layer's library code) on the modelled host.
// Under native it does nothing.
func (n *NIC) ChargeHost(d time.Duration) {
	if n.timing != nil {
		n.timing.host(d)
	}
}

// arrive counts a timed remote write into process dst's memory, once its
// data is written, in real time (see timing.begin).
func (n *NIC) arrive(dst int) {
	if n.timing != nil && n.clock == nil && dst != n.pid {
		atomic.AddUint64(&n.procs[dst].arrivals, 1)
	}
}

// PID returns the process's id within the job.
func (n *NIC) PID() int { return n.pid }

// Segment returns the segment the NIC was opened on.
func (n *NIC) Segment() *Segment { return n.seg }

// DisableCMA forbids cross-memory attach from now on, as MARTINI_NO_CMA=1
// does at Open: transfers that would use it take the bounce buffers.
func (n *NIC) DisableCMA() { n.cma, n.huge = false, nil }

// DisableHugePages keeps the memory of cross-memory copies on the pages it
// has, as MARTINI_NO_HUGEPAGES=1 does at Open (see hugePages).
func (n *NIC) DisableHugePages() { n.huge = nil }

// NumProcs returns the number of processes in the job.
func (n *NIC) NumProcs() int { return n.seg.NProcs() }

// PGID returns the job key the NIC stamps on this process's requests.
func (n *NIC) PGID() uint64 { return n.ent.pgid }

// CMA reports whether transfers to process memory use cross-memory attach
// (single copy) rather than bounce buffers.
func (n *NIC) CMA() bool { return n.cma }

// Close releases every registration of the process. The segment stays
// mapped; the caller owns it.
func (n *NIC) Close() error {
	for sid := range n.procRegions {
		n.Deregister(sid)
	}
	for sid := range n.segRegions {
		n.Deregister(sid)
	}
	return nil
}

// RegisterMemory registers process memory (typically a Go slice) so that
// other processes can PUSH into it and PULL from it. The NIC keeps buf alive
// until Deregister.
func (n *NIC) RegisterMemory(buf []byte) (SID, error) {
	if len(buf) == 0 {
		return 0, fmt.Errorf("nicemu: register memory: empty buffer")
	}
	sid, err := n.register(KindProcess, uint64(uintptr(unsafe.Pointer(&buf[0]))), uint64(len(buf)))
	if err != nil {
		return 0, err
	}
	n.procRegions[sid] = buf
	n.huge.note(uintptr(unsafe.Pointer(&buf[0])), len(buf))
	return sid, nil
}

// RegisterSegment allocates size bytes of zeroed segment memory from the
// process's partition and registers it. The returned slice is the local
// view of the region.
func (n *NIC) RegisterSegment(size int) (SID, []byte, error) {
	if size <= 0 {
		return 0, nil, fmt.Errorf("nicemu: register segment memory: size %d", size)
	}
	off, err := n.heap.alloc(size)
	if err != nil {
		return 0, nil, fmt.Errorf("nicemu: register %d bytes of segment memory for PID %d: %w", size, n.pid, err)
	}
	mem := n.seg.mem[off : off+size : off+size]
	n.zero(off, mem)
	sid, err := n.register(KindSegment, uint64(off), uint64(size))
	if err != nil {
		n.heap.release(off, size)
		return 0, nil, err
	}
	n.segRegions[sid] = extent{off, size}
	return sid, mem, nil
}

// zero clears mem, segment memory just taken from the heap at offset off,
// where it may hold an earlier registration's data: below the heap's
// high-water mark (procEntry.heapTop), which it raises past mem. Memory
// above the mark still reads zero as the segment was created, and is not
// touched: every first touch of a page is a page fault, and a ring nobody
// has written yet would fault each of its pages twice, here and at the
// sender's first write.
func (n *NIC) zero(off int, mem []byte) {
	rel := uint64(off - n.seg.heapBase(n.pid))
	top := atomic.LoadUint64(&n.ent.heapTop)
	var written uint64 // the bytes of mem below the mark
	if rel < top {
		written = min(uint64(len(mem)), top-rel)
	}
	clear(mem[:written])
	if end := rel + uint64(len(mem)); end > top {
		atomic.StoreUint64(&n.ent.heapTop, end)
		populate(mem[written:])
	}
}

// Deregister removes a registration; segment memory returns to the heap.
func (n *NIC) Deregister(sid SID) error {
	if _, err := n.unregister(sid); err != nil {
		return err
	}
	if e, ok := n.segRegions[sid]; ok {
		n.heap.release(e.off, e.size)
		delete(n.segRegions, sid)
	}
	delete(n.procRegions, sid)
	return nil
}

// ospid returns the OS process id of a job process. It is read from the
// PGIDTBL entry every time, not cached: a slot may be taken over by a new
// process (see Open), and a stale OS pid would direct cross-memory copies at
// a dead process, or at an unrelated one that reused its pid.
func (n *NIC) ospid(p int) int {
	return int(atomic.LoadUint64(&n.procs[p].ospid))
}
