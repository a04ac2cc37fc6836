package nicemu

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"
)

// The synchronisation network is a second, small network beside the data
// network (ETL's sync/comm controller, Cenju-4's in-network barrier): a job
// claims a barrier controller by id, and the members of a group arrive at it
// with a few bytes each; the controller releases a generation when the last
// member arrives and rings every member's doorbell. Multicast (multicast.go)
// sends one message to a bitmap of destinations.
//
// A controller is emulated by a line per member rather than by a shared
// counter: an arriving member writes its generation, key and data word into
// its own line for that generation (an entry of its arrival ring), and the
// generation is released once every member's entry holds it. A shared
// counter would need a fetch-and-add per arrival and a release store, each
// moving one contended line between the members' caches in turn; the lines
// move in parallel, which halves the cost of a barrier between two cores
// (BenchmarkBarrierController).
//
// Both live in the job's sync area: a region of syncRegionSize bytes in
// every partition, between the SID table and the bounce buffer. Offsets
// below are relative to the region; every structure starts on a 64-byte
// cache line, hot words on lines of their own.
//
//	syncCountersOff  this slot's sync/multicast counters (two lines)
//	syncMcSeqOff     this slot's multicast sequence counter (one line)
//	syncMcMetaOff    MulticastSlots × mcMeta: tag/length/seq line, pending line
//	syncMcBitmapOff  MulticastSlots pages: destination bitmap of each slot
//	syncCtlOff       NumBarriers × barrierCtl: the owner line (used in
//	                 partition 0 only: the controllers' home)
//	syncLastOff      NumBarriers × barrierLast: member m's last generation
//	syncPayloadOff   NumBarriers × 2 parities × barrierSlotSize: the payload
//	                 slots of member m (in partition m)
//	syncArriveOff    NumBarriers × barrierArrival: the arrival area of
//	                 member m (in partition m): its rings of entries
//	                 (generation, key, data word) and of records
//	                 (BarrierArriveRecord)
//	syncMcDataOff    MulticastSlots × MulticastSize: this slot's multicast data
//
// The segment is a sparse memory file: pages of the area that are never used
// (the controller table outside partition 0, payload slots of unused
// controllers, idle multicast slots) never materialise.

const (
	// NumBarriers is the number of barrier controllers in a job's sync
	// network.
	NumBarriers = 256
	// BarrierPayloadSize is the most bytes a member publishes with an
	// arrival: a payload slot of 16 KiB and a cache line, minus its
	// 8-byte header, which holds the generation and the length.
	// Collectives publish their inputs in it (a broadcast's message, a
	// reduction's vector, an alltoall's blocks), followed by their
	// 32-byte key: the members read each other's slots once the barrier
	// is released, instead of sending messages. The line beyond 16 KiB
	// holds the key of a 16 KiB input (an alltoall of 1 KiB blocks at 16
	// processes).
	BarrierPayloadSize = barrierSlotSize - slotHeaderSize
	// DatumSize is the size of the data word a member passes with an
	// arrival (BarrierArriveData): its first DatumLine bytes travel in
	// the line that says the member has arrived, which the others read
	// anyway, and the rest in the line after it, which a reader of a
	// longer word loads once it has seen the arrival.
	DatumSize = DatumLine + lineSize
	// DatumLine is how much of the data word shares the arrival's line.
	DatumLine = 40

	barrierSlotSize = 16<<10 + 64
	slotHeaderSize  = 8  // a payload slot's header: generation and length
	lineSize        = 64 // the cache line the layout is planned in

	// RecordRingDepth is how many generations of keys, data words and
	// records a member's arrival area keeps. The collectives run up to
	// half of them ahead of the slowest member; 32 is where broadcasts at
	// 16 processes stopped gaining (docs/decisions.md).
	RecordRingDepth = 32
	// RecordSize is the size of the record BarrierArriveRecord publishes.
	RecordSize = 32

	barrierCtlSize = 64
	arrivalSize    = RecordRingDepth*ringEntrySize + RecordRingDepth*RecordSize
	lastSize       = 64
	ringEntrySize  = 2 * lineSize

	// ctlFreeing marks a controller that FreeBarrier is resetting.
	ctlFreeing = math.MaxUint64

	// payloadGenShift places the generation above the length in a payload
	// slot header; generations are compared modulo 2^48.
	payloadGenShift = 16
	payloadLenMask  = 1<<payloadGenShift - 1
)

// Layout of a partition's sync region (see above).
const (
	syncCountersOff = 0
	syncMcSeqOff    = syncCountersOff + syncCountersSize
	syncMcMetaOff   = syncMcSeqOff + 64
	syncMcBitmapOff = PageSize
	syncCtlOff      = syncMcBitmapOff + MulticastSlots*mcBitmapSize
	syncLastOff     = syncCtlOff + (NumBarriers*barrierCtlSize+PageSize-1)/PageSize*PageSize
	syncPayloadOff  = syncLastOff + (NumBarriers*lastSize+PageSize-1)/PageSize*PageSize
	syncArriveOff   = syncPayloadOff + NumBarriers*2*barrierSlotSize
	syncMcDataOff   = syncArriveOff + NumBarriers*arrivalSize
	syncRegionSize  = syncMcDataOff + MulticastSlots*MulticastSize

	syncCountersSize = 128
	mcMetaSize       = 128
	mcBitmapSize     = PageSize
	mcBitmapWords    = mcBitmapSize / 8

	// MaxProcs is the most processes a job may have: one bit each in a
	// multicast destination bitmap.
	MaxProcs = mcBitmapWords * 64
)

// Requests of the sync network and of multicast, as reported in
// AccessError.Op. (Op.String does not know them yet: they print as Op(7),
// Op(8), Op(9); the AccessError's Detail names the request.)
const (
	OpBarrier   Op = OpFAA + 1 + iota // AllocBarrier, FreeBarrier, BarrierArrive
	OpMulticast                       // TryMulticast
	OpDeliver                         // TryDeliver
)

// ErrNoBarrier is matched by errors.Is when AllocBarrier finds every
// barrier controller of the job in use.
var ErrNoBarrier = errors.New("nicemu: no free barrier controller")

// syncCounters are the Stats counters of the sync network and multicast of
// one process slot, updated atomically by any goroutine of any NIC opened on
// the slot.
type syncCounters struct {
	arrivals   uint64
	releases   uint64
	multicasts uint64
	mcBytes    uint64
	deliveries uint64
	wakeups    uint64
	_          [2]uint64
	refusedBy  [numViolations]uint64
}

// barrierCtl is one barrier controller's home: its claim.
type barrierCtl struct {
	// owner is 0 while the controller is free, the claimer's PID+1 while it
	// is allocated (the claimer's PGID is that of its PGIDTBL entry, which
	// only the launcher writes), and ctlFreeing while FreeBarrier resets it.
	owner uint64
	_     [56]byte
}

// barrierArrival is a member's arrival area at a controller, written by
// that member only: the ring of its arrivals.
type barrierArrival struct {
	// ring holds the key and data word of each of the last
	// RecordRingDepth generations (by gen mod RecordRingDepth), and recs
	// their records (BarrierArriveRecord's). An entry also holds its
	// generation, the last store of an arrival: a reader of a release
	// (BarrierReleased, BarrierSum, BarrierDatum) or of one member's
	// arrival (BarrierArrived) reads that member's entry of the
	// generation alone, its first line (and the second for a data word
	// past DatumLine bytes), whatever the member has done since.
	ring [RecordRingDepth]ringEntry
	recs [RecordRingDepth][RecordSize]byte
}

// barrierLast is a member's last generation at a controller: where its
// next arrival starts, and what BarrierLastReleased reads. It lies in a
// region of its own, away from the arrival rings: the other members read
// those while they wait, and where it lay beside them, their loads took
// its line from the member's cache before each arrival's store into it,
// which the arrival's fence then waited for (a barrier between two cores
// took a quarter longer; docs/decisions.md, DatumSize).
type barrierLast struct {
	gen uint64
	_   [56]byte
}

// ringEntry is one generation's key and data word in a member's arrival
// ring, with the generation: a reader finds that the member has arrived,
// its key and the first DatumLine bytes of its data word on the same
// line. window is the member's key window at the generation (putEntry).
//
// An entry fills two cache lines, so that the member's next arrivals
// write lines other than the ones the readers of this generation read.
// With the generation read from a line of its own and two entries a line,
// the root of a small broadcast, at its next arrival, waited for the other
// core to give both lines back; with an entry a line and the generation
// read from it, small broadcasts got slightly faster (docs/decisions.md,
// ringEntry). The generation, the key and the window open the first line,
// and the data word fills the rest of it (DatumLine bytes) and the second
// line: a word of up to DatumLine bytes travels with the arrival, a
// longer one a line more (docs/decisions.md, DatumSize).
type ringEntry struct {
	gen    uint64
	key    uint64
	window uint64
	datum  [DatumSize]byte
}

// KeyWindow is how many generations' keys a member's key window covers
// (BarrierKeyWindow): as many as the collectives run ahead, half the
// ring, so that one window covers the calls a process settles at once.
const KeyWindow = RecordRingDepth / 2

// keyWindowBase is the base of the key windows' polynomial hash (odd, so
// that a difference in one key always shows), and keyWindowTop its
// KeyWindow-th power, the weight of the key that leaves the window.
const keyWindowBase = 0x9e3779b97f4a7c15

var keyWindowTop = func() uint64 {
	p := uint64(1)
	for range KeyWindow {
		p *= keyWindowBase
	}
	return p
}()

// putEntry writes a's ring entry of generation gen: *datum (left as it
// was if datum is nil), key (masked), the member's key window at gen, and
// gen itself, last. The key window is the sum of key_j * keyWindowBase^(gen-j)
// over the generations j of gen-KeyWindow+1 to gen (keys of generations
// before 1 counting as 0), modulo 2^64, found from the window at gen-1.
// Every arrival writes it, so that the windows of members that passed
// the same keys for the last KeyWindow generations are equal: a reader
// compares KeyWindow generations' keys in one word a member.
// Generations before 1 are not read: a controller freed and claimed
// again starts at generation 1 with the last user's ring.
func putEntry(a *barrierArrival, gen, key uint64, datum *[DatumSize]byte) {
	key &= 1<<KeyBits - 1
	var prev, old uint64
	if gen > 1 {
		prev = a.ring[(gen-1)%RecordRingDepth].window
	}
	if gen > KeyWindow {
		old = a.ring[(gen-KeyWindow)%RecordRingDepth].key
	}
	e := &a.ring[gen%RecordRingDepth]
	if datum != nil {
		// The word's second line is stored only where it changes: a
		// short word leaves it as the entry's last arrival did, so
		// that the arrival writes no line but the one its readers read
		// (which the processor may have fetched beside it).
		*(*[DatumLine]byte)(e.datum[:]) = [DatumLine]byte(datum[:DatumLine])
		rest, ext := (*[DatumSize - DatumLine]byte)(e.datum[DatumLine:]), (*[DatumSize - DatumLine]byte)(datum[DatumLine:])
		if *rest != *ext {
			*rest = *ext
		}
	}
	e.key = key
	e.window = prev*keyWindowBase + key - old*keyWindowTop
	publishGen(&e.gen, gen) // after the arrival's other stores: see BarrierArrived
}

func (s *Segment) syncBase(p int) int { return s.partBase(p) + partSync }

func (s *Segment) syncCounters(p int) *syncCounters {
	return (*syncCounters)(unsafe.Pointer(&s.mem[s.syncBase(p)+syncCountersOff]))
}

func (s *Segment) barrierCtl(id int) *barrierCtl {
	return (*barrierCtl)(unsafe.Pointer(&s.mem[s.syncBase(0)+syncCtlOff+id*barrierCtlSize]))
}

// barrierSlot returns the payload slot of member for generations of the
// given parity: an 8-byte header (generation<<8 | length) and the payload.
func (s *Segment) barrierSlot(id, member int, parity uint64) []byte {
	off := s.syncBase(member) + syncPayloadOff + (id*2+int(parity))*barrierSlotSize
	return s.mem[off : off+barrierSlotSize : off+barrierSlotSize]
}

func slotHeader(slot []byte) *uint64 { return (*uint64)(unsafe.Pointer(&slot[0])) }

// arrival returns member's arrival area at controller id.
func (s *Segment) arrival(id, member int) *barrierArrival {
	return (*barrierArrival)(unsafe.Pointer(&s.mem[s.syncBase(member)+syncArriveOff+id*arrivalSize]))
}

// last returns the word of member's last generation at controller id.
func (s *Segment) last(id, member int) *uint64 {
	return &(*barrierLast)(unsafe.Pointer(&s.mem[s.syncBase(member)+syncLastOff+id*lastSize])).gen
}

// addSyncStats adds the slot's sync-network counters to s.
func (n *NIC) addSyncStats(s *Stats) {
	c := n.seg.syncCounters(n.pid)
	s.BarrierArrivals = atomic.LoadUint64(&c.arrivals)
	s.BarrierReleases = atomic.LoadUint64(&c.releases)
	s.Multicasts = atomic.LoadUint64(&c.multicasts)
	s.MulticastBytes = atomic.LoadUint64(&c.mcBytes)
	s.Deliveries = atomic.LoadUint64(&c.deliveries)
	s.Wakeups += atomic.LoadUint64(&c.wakeups)
	for v := range c.refusedBy {
		r := atomic.LoadUint64(&c.refusedBy[v])
		s.RefusedBy[v] += r
		s.Refused += r
	}
}

// syncRefuse is refuse for the methods that may run concurrently: it counts
// the refusal atomically (in the slot's counters, the segment and the
// target's PGIDTBL entry), records an ErrorEvent and returns the
// *AccessError.
func (n *NIC) syncRefuse(op Op, v Violation, dst int, off uint64, length int, detail string) error {
	n.recordEvent(ErrorEvent{Op: op, Violation: v, Target: dst, Offset: off, Length: length})
	atomic.AddUint64(&n.seg.syncCounters(n.pid).refusedBy[v], 1)
	atomic.AddUint64(&n.seg.hdr.refused, 1)
	if dst >= 0 && dst < len(n.procs) {
		atomic.AddUint64(&n.procs[dst].refused, 1)
	}
	return &AccessError{Op: op, Violation: v, Target: dst, Offset: off, Length: length, Detail: detail}
}

// ownsCtl reports whether the owner word w names a claimer of this job.
func (n *NIC) ownsCtl(w uint64) bool {
	return w != 0 && w <= uint64(len(n.procs)) && n.procs[w-1].pgid == n.ent.pgid
}

// claimedCtl checks that id names a controller claimed by this job and
// returns it; otherwise the request is refused.
func (n *NIC) claimedCtl(id, length int, what string) (*barrierCtl, error) {
	if uint(id) >= NumBarriers {
		return nil, n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), length,
			fmt.Sprintf("%s: barrier id %d outside 0..%d", what, id, NumBarriers-1))
	}
	c := n.seg.barrierCtl(id)
	w := atomic.LoadUint64(&c.owner)
	if w == 0 || w == ctlFreeing {
		return nil, n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), length,
			fmt.Sprintf("%s: barrier %d is not allocated", what, id))
	}
	if !n.ownsCtl(w) {
		return nil, n.syncRefuse(OpBarrier, ViolationForeignJob, -1, uint64(id), length,
			fmt.Sprintf("%s: barrier %d belongs to another job", what, id))
	}
	return c, nil
}

// AllocBarrier claims a free barrier controller for the caller's job and
// returns its id. The claim is recorded in the controller with a
// compare-and-swap, so concurrent callers in any process get distinct ids;
// when every controller is in use the error wraps ErrNoBarrier. A new
// controller's last released generation is 0. Safe for concurrent use.
func (n *NIC) AllocBarrier() (id int, err error) {
	me := uint64(n.pid) + 1
	for id := range NumBarriers {
		c := n.seg.barrierCtl(id)
		if atomic.LoadUint64(&c.owner) == 0 && atomic.CompareAndSwapUint64(&c.owner, 0, me) {
			return id, nil
		}
	}
	return -1, fmt.Errorf("nicemu: PID %d: alloc barrier: all %d controllers in use: %w", n.pid, NumBarriers, ErrNoBarrier)
}

// FreeBarrier releases controller id, which any process of the claimer's
// job may do; the request is refused for a free controller or one of
// another job. The members' arrival lines, and the generations in their
// rings, reset to 0 before the controller becomes free. No member may be
// using it. Safe for concurrent use.
func (n *NIC) FreeBarrier(id int) error {
	for {
		c, err := n.claimedCtl(id, 0, "free")
		if err != nil {
			return err
		}
		w := atomic.LoadUint64(&c.owner)
		if !n.ownsCtl(w) || !atomic.CompareAndSwapUint64(&c.owner, w, ctlFreeing) {
			continue // freed (or freed and claimed again) meanwhile: check again
		}
		for m := range n.procs {
			a := n.seg.arrival(id, m)
			atomic.StoreUint64(n.seg.last(id, m), 0)
			for i := range a.ring {
				atomic.StoreUint64(&a.ring[i].gen, 0)
			}
		}
		atomic.StoreUint64(&c.owner, 0)
		return nil
	}
}

// BarrierArrive enters controller id as member member (0..len(procs)-1) of
// the group whose processes (job-wide PIDs) are procs, publishing payload
// (at most BarrierPayloadSize bytes), and returns the generation whose
// release to wait for (see BarrierReleased, and the doorbell). Every
// arrival at a controller must come with the same group.
//
// A group has at most NProcs members. procs[member] must be the caller's
// PID (several members may be goroutines of one process); the other entries
// serve only to ring doorbells, and entries outside the job are not rung.
// Members arrive at generation g+1 only after they saw g released (the
// caller guarantees this), except by BarrierArriveRecord, which leaves the
// payloads' double buffers alone. Payloads are double-buffered by
// generation parity, and keys and data words kept for RecordRingDepth
// generations, so a fast member's next arrival cannot overwrite what a
// slow member still reads.
//
// The member writes its entry of the generation in its arrival ring,
// publishing the generation last; the generation is released when every
// member's entry of it holds it. An arrival that finds every member
// arrived (the last one, or each of the last ones when they arrive at
// once) counts the release and rings the doorbell of every other member. A
// request on a controller not claimed by the caller's job, with a bad id
// or member, or with an oversized payload is refused: counted in
// Stats.Refused and RefusedBy and in Segment.Refused, and returned as an
// *AccessError (Op OpBarrier, Target -1, Offset the id). Safe for
// concurrent use.
func (n *NIC) BarrierArrive(id, member int, procs []int, payload []byte) (gen uint64, err error) {
	return n.BarrierArriveData(id, member, procs, 0, nil, payload)
}

// BarrierArriveKey is BarrierArrive contributing key to a sum the
// controller combines over the members, like a combining network:
// BarrierSum reads it. Members that pass equal keys learn that they agree
// without reading each other's payloads. Keys and sums have KeyBits bits
// (higher bits of key are dropped).
func (n *NIC) BarrierArriveKey(id, member int, procs []int, key uint64, payload []byte) (gen uint64, err error) {
	return n.BarrierArriveData(id, member, procs, key, nil, payload)
}

// BarrierArriveData is BarrierArriveKey also contributing *datum, DatumSize
// bytes of data that travel in the line the barrier moves anyway (the
// member's ring entry of the generation), where BarrierDatum reads them:
// a small reduction or broadcast costs what a barrier costs. A nil datum
// contributes none: the member's data word of the generation is then
// undefined, as BarrierArrive and BarrierArriveKey leave it.
func (n *NIC) BarrierArriveData(id, member int, procs []int, key uint64, datum *[DatumSize]byte, payload []byte) (gen uint64, err error) {
	return n.BarrierArriveParts(id, member, procs, key, datum, payload, nil)
}

// BarrierArriveParts is BarrierArriveData with the payload given in two
// parts, head then tail, which the slot holds joined: the caller need not
// join them first.
func (n *NIC) BarrierArriveParts(id, member int, procs []int, key uint64, datum *[DatumSize]byte, head, tail []byte) (gen uint64, err error) {
	if err := n.checkArrival(id, member, procs, len(head)+len(tail)); err != nil {
		return 0, err
	}
	last := n.seg.last(id, member)
	gen = atomic.LoadUint64(last) + 1
	writeArrival(n.seg.arrival(id, member), n.seg.barrierSlot(id, member, gen&1), gen, key, datum, head, tail)
	n.publishArrival(id, member, procs, last, gen)
	return gen, nil
}

// writeArrival writes what an arrival at generation gen publishes into the
// member's arrival area a and payload slot, the payload head then tail:
// plain stores into lines only this member writes, published by the
// store of the generation into its ring entry (putEntry's publishGen, then
// the fence of countArrival, which the doorbell check relies on).
func writeArrival(a *barrierArrival, slot []byte, gen, key uint64, datum *[DatumSize]byte, head, tail []byte) {
	if n := copy(slot[slotHeaderSize:], head); len(tail) > 0 { // (most payloads come whole)
		copy(slot[slotHeaderSize+n:], tail)
	}
	*slotHeader(slot) = gen<<payloadGenShift | uint64(len(head)+len(tail))
	putEntry(a, gen, key, datum)
}

// BarrierArriveRecord enters controller id as BarrierArriveData does, but
// publishes rec, a record, instead of a payload in the double-buffered
// slots: BarrierKey, BarrierRecord and BarrierDatum read what it
// publishes, and BarrierPayload does not.
// With it a member may run ahead: it may arrive at generation g before
// g-1 is released, as long as every member has read what it needs of
// generation g-RecordRingDepth (the caller guarantees this), and it
// leaves the double-buffered slots of earlier generations alone, so their
// readers are undisturbed. Since a member may wait for this one's arrival
// alone (BarrierArrived), the arrival rings the members that may be
// asleep whether or not it releases the generation; so it does not look
// whether it does (the look reads the other members' ring entries, which
// they write at every call: two lines moved from another cache an arrival,
// about a sixth of a small broadcast's time at 4 processes on 2 cores),
// and its releases are not counted in Stats.BarrierReleases. Safe for
// concurrent use.
func (n *NIC) BarrierArriveRecord(id, member int, procs []int, key uint64, rec [RecordSize]byte, datum *[DatumSize]byte) (gen uint64, err error) {
	if err := n.checkArrival(id, member, procs, 0); err != nil {
		return 0, err
	}
	a, last := n.seg.arrival(id, member), n.seg.last(id, member)
	gen = atomic.LoadUint64(last) + 1
	a.recs[gen%RecordRingDepth] = rec
	putEntry(a, gen, key, datum)
	publishGen(last, gen)
	n.countArrival()
	n.ringMembers(member, procs)
	return gen, nil
}

// checkArrival refuses an arrival at controller id that the caller's job
// has not claimed, by a member outside the group or not the caller, or
// with a payload of more than BarrierPayloadSize bytes.
func (n *NIC) checkArrival(id, member int, procs []int, payload int) error {
	if _, err := n.claimedCtl(id, payload, "arrive"); err != nil {
		return err
	}
	switch {
	case len(procs) > len(n.procs):
		return n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), payload,
			fmt.Sprintf("arrive: group of %d in a job of %d", len(procs), len(n.procs)))
	case member < 0 || member >= len(procs):
		return n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), payload,
			fmt.Sprintf("arrive: member %d of a group of %d", member, len(procs)))
	case procs[member] != n.pid:
		return n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), payload,
			fmt.Sprintf("arrive: member %d is PID %d, not the caller's PID %d", member, procs[member], n.pid))
	case payload > BarrierPayloadSize:
		return n.syncRefuse(OpBarrier, ViolationBadRequest, -1, uint64(id), payload,
			fmt.Sprintf("arrive: payload of %d bytes, at most %d", payload, BarrierPayloadSize))
	}
	return nil
}

// publishArrival publishes generation gen as member's last (in last),
// after the caller's writeArrival, and, if that releases gen, rings the
// other members.
//
// It publishes the generation (publishGen), then looks at the other
// members' lines once before it fences (countArrival) and once after, if
// the first look did not find the generation released: the first look's
// loads go out while the store of the generation waits for its line, so
// that the two trips between cores overlap; a release it sees is a
// release (the generations only grow). The look after the fence is the
// one the doorbells rely on: a member that armed its doorbell and then saw
// this arrival missing is seen armed once the arrival is visible to all.
// BarrierPort.Enter does the same.
func (n *NIC) publishArrival(id, member int, procs []int, last *uint64, gen uint64) {
	publishGen(last, gen)
	released := n.BarrierReleased(id, len(procs), gen) // while the store waits for its line
	n.countArrival()
	if !released {
		released = n.BarrierReleased(id, len(procs), gen)
	}
	n.afterArrival(member, procs, released)
}

// countArrival counts an arrival; its atomic add is the full fence (on
// amd64; a sequentially consistent one elsewhere) between the arrival's
// store and the look after it.
func (n *NIC) countArrival() {
	atomic.AddUint64(&n.seg.syncCounters(n.pid).arrivals, 1)
}

// afterArrival is publishArrival's second half, once the caller has seen
// whether the arrival released its generation: if it did, it counts the
// release and rings the other members.
func (n *NIC) afterArrival(member int, procs []int, released bool) {
	if released {
		atomic.AddUint64(&n.seg.syncCounters(n.pid).releases, 1)
		n.ringMembers(member, procs)
	}
}

// ringMembers rings the members of procs but member that may be asleep,
// after an arrival's fence (countArrival): a member that armed its
// doorbell before seeing the arrival missing is seen armed here.
func (n *NIC) ringMembers(member int, procs []int) {
	for i, p := range procs {
		if i != member {
			n.ring(p)
		}
	}
}

// BarrierKey returns the key member passed for generation gen of
// controller id (masked to KeyBits), once gen is released and until that
// member arrives at gen+RecordRingDepth (0 for a bad id or member). Safe
// for concurrent use.
func (n *NIC) BarrierKey(id, member int, gen uint64) uint64 {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return 0
	}
	return atomic.LoadUint64(&n.seg.arrival(id, member).ring[gen%RecordRingDepth].key)
}

// BarrierKeyWindow returns member's key window at generation gen of
// controller id: a hash of the keys it passed for generations
// gen-KeyWindow+1 to gen, in order (see putEntry): equal to another
// member's if they passed the same keys; where one key differs, never
// equal, and where several do, equal only if their differences cancel in
// the hash. Valid while BarrierKey's key of gen is (0 for a bad id or
// member). Safe for concurrent use.
func (n *NIC) BarrierKeyWindow(id, member int, gen uint64) uint64 {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return 0
	}
	return atomic.LoadUint64(&n.seg.arrival(id, member).ring[gen%RecordRingDepth].window)
}

// BarrierArrived reports whether member has arrived at generation gen of
// controller id (or later): what it published with that arrival is then
// there to read, whether or not the others have arrived. False for a bad
// id or member. Safe for concurrent use.
//
// It reads the generation in member's ring entry of gen (see ringEntry),
// which only grows, by RecordRingDepth at a time: the arrival at gen
// stores gen there, and a later generation there means a later arrival.
func (n *NIC) BarrierArrived(id, member int, gen uint64) bool {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return false
	}
	return arrivedAt(n.seg.arrival(id, member), gen)
}

// BarrierRecord returns the record member passed to BarrierArriveRecord
// for generation gen of controller id, valid as BarrierKey's key (zeros
// for a bad id or member; for an arrival by BarrierArriveData, whatever
// the ring held before). Safe
// for concurrent use: the member wrote it before publishing gen.
func (n *NIC) BarrierRecord(id, member int, gen uint64) [RecordSize]byte {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return [RecordSize]byte{}
	}
	return n.seg.arrival(id, member).recs[gen%RecordRingDepth]
}

// BarrierReleased reports whether generation gen of controller id, used by
// a group of size members, has been released: whether every member has
// arrived at gen (or later), as BarrierArrived reads it. It is false for a
// bad id or size. Safe for concurrent use.
func (n *NIC) BarrierReleased(id, size int, gen uint64) bool {
	if uint(id) >= NumBarriers || uint(size) > uint(len(n.procs)) {
		return false
	}
	for m := range size {
		if !arrivedAt(n.seg.arrival(id, m), gen) {
			return false
		}
	}
	return true
}

// arrivedAt reports whether the member whose arrival area is a has
// arrived at gen or later: whether its ring entry of gen holds gen or a
// later generation. The entry's generation only grows, by RecordRingDepth
// at a time, and the arrival at gen stores gen there last.
func arrivedAt(a *barrierArrival, gen uint64) bool {
	return atomic.LoadUint64(&a.ring[gen%RecordRingDepth].gen) >= gen
}

// BarrierLastReleased returns the newest generation of controller id,
// used by a group of size members, that has been released: the oldest
// of the members' last generations (0 for a bad id or size).
// One reading answers BarrierReleased for every generation up to it.
// Safe for concurrent use.
func (n *NIC) BarrierLastReleased(id, size int) uint64 {
	if uint(id) >= NumBarriers || size <= 0 || uint(size) > uint(len(n.procs)) {
		return 0
	}
	last := uint64(math.MaxUint64)
	for m := range size {
		last = min(last, atomic.LoadUint64(n.seg.last(id, m)))
	}
	return last
}

// KeyBits is the width of the keys of BarrierArriveKey and of their sums.
const KeyBits = 48

// BarrierSum returns the sum (modulo 2^KeyBits) of the keys the members of
// a group of size members passed for generation gen of controller id, once
// gen is released and until a member arrives at gen+RecordRingDepth (0 for
// a bad id or size). Safe for concurrent use.
func (n *NIC) BarrierSum(id, size int, gen uint64) uint64 {
	if uint(id) >= NumBarriers || uint(size) > uint(len(n.procs)) {
		return 0
	}
	var sum uint64
	for m := range size {
		sum += atomic.LoadUint64(&n.seg.arrival(id, m).ring[gen%RecordRingDepth].key)
	}
	return sum & (1<<KeyBits - 1)
}

// BarrierDatum returns the datum member passed with its arrival at
// generation gen of controller id, once it has arrived there
// (BarrierArrived) and until it arrives at gen+RecordRingDepth (zeros for
// a bad id or member). Safe for concurrent use: the member wrote the
// datum before publishing gen, which the caller saw.
func (n *NIC) BarrierDatum(id, member int, gen uint64) [DatumSize]byte {
	return *n.BarrierDatumRef(id, member, gen)
}

// BarrierDatumRef is BarrierDatum without the copy: it points at the
// datum in the segment, which stays the same until the member arrives at
// generation gen+RecordRingDepth; for a bad id or member it points at
// zeros. The caller must not write through it.
func (n *NIC) BarrierDatumRef(id, member int, gen uint64) *[DatumSize]byte {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return &noDatum
	}
	return &n.seg.arrival(id, member).ring[gen%RecordRingDepth].datum
}

// noDatum is the datum of a member outside the group: zeros, never
// written.
var noDatum [DatumSize]byte

// BarrierPayload returns what member published with its arrival at
// generation gen of controller id: a read-only view into the segment, valid
// once gen is released and until that member's next-but-one arrival. It
// returns nil if the slot does not hold generation gen's payload (not yet
// published, or already overwritten), for a bad id or member, or for a
// controller not claimed by the caller's job. Safe for concurrent use.
func (n *NIC) BarrierPayload(id, member int, gen uint64) []byte {
	if uint(id) >= NumBarriers || uint(member) >= uint(len(n.procs)) {
		return nil
	}
	if !n.ownsCtl(atomic.LoadUint64(&n.seg.barrierCtl(id).owner)) {
		return nil
	}
	return slotPayload(n.seg.barrierSlot(id, member, gen&1), gen, 0, 0)
}

// slotPayload returns the payload slot holds for generation gen, or nil if
// it holds another generation's. The caller is about to read want bytes
// of the payload from offset from (want 0 if it does not say): their lines
// past the header's are loaded before the header is, so that they travel
// beside it: loaded once the header's check has passed, they would cost a
// second trip between caches (docs/decisions.md, slotPayload). Only those
// lines: a reader of one block of a long payload (an alltoall's) that
// loaded the lines before it too would pull most of every payload across.
func slotPayload(slot []byte, gen uint64, from, want int) []byte {
	first := max(lineSize, (slotHeaderSize+from)&^(lineSize-1))
	for off, end := first, min(slotHeaderSize+from+want, len(slot)); want > 0 && off < end; off += lineSize {
		_ = atomic.LoadUint64((*uint64)(unsafe.Pointer(&slot[off])))
	}
	h := atomic.LoadUint64(slotHeader(slot))
	l := int(h & payloadLenMask)
	if h>>payloadGenShift != gen<<payloadGenShift>>payloadGenShift || l > BarrierPayloadSize {
		return nil
	}
	return slot[slotHeaderSize : slotHeaderSize+l : slotHeaderSize+l]
}
