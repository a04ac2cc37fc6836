package llc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// RecordMeta is the size of a record's meta, the Head of an EvRecord: a
// transport that carries records itself (CmdEnqueue over a stream) splits
// a record there into Head and Data.
const RecordMeta = recMeta

// LocalMemory is the receiving half of a transport whose peers write into
// this process's memory (shared memory, or a stream whose writes the
// transport applies to memory): it remembers the memory of the regions the
// transport gave the engine, reads the rings, slots and receive queue the
// engine asked it to watch, and delivers what arrived as IR events. It is
// network-independent code that such translators share; the engine itself
// reads no memory. It is not safe for concurrent use.
type LocalMemory struct {
	regions map[RegionID][]byte
	rings   []*inRing
	lines   []*lineRecord // the peers' halves of the shared lines, by peer (nil: none)
	ringOf  []*inRing     // the ring from each peer, by peer (nil: none)
	slots   []slotWatch
	queue   *QueueReader
	self    int
	// arrived, if set, is asked about every record and signal before it
	// is delivered (see OnArrival).
	arrived func(r RegionID, off uint64, n int) bool
}

// slotWatch is one CmdWatchSlot: the signal word and the bytes after it.
type slotWatch struct {
	token  uint64
	region RegionID
	off    uint64
	sig    *uint64
	data   []byte
}

// NewLocalMemory returns the local memory of process self.
func NewLocalMemory(self int) *LocalMemory {
	return &LocalMemory{regions: make(map[RegionID][]byte), self: self}
}

// OnArrival makes Poll call f with the place of everything it finds (n
// bytes at off of region r: a signalled slot's signal word, a ring record)
// before delivering it, and deliver it only if f reports true (else Poll
// looks again next time): a network in virtual time learns there when the
// data arrived, and holds back data that arrived in the process's future.
// The receive queue has its own (QueueReader).
func (m *LocalMemory) OnArrival(f func(r RegionID, off uint64, n int) bool) {
	m.arrived = f
	for _, r := range m.rings {
		r.arrived = f
	}
}

// Track remembers mem as the memory of region r (from CmdAlloc).
func (m *LocalMemory) Track(r RegionID, mem []byte) { m.regions[r] = mem }

// Forget forgets region r and stops watching its rings and the lines in
// it (CmdRelease).
func (m *LocalMemory) Forget(r RegionID) {
	delete(m.regions, r)
	for peer, l := range m.lines {
		if l != nil && l.own && l.region == r {
			m.lines[peer] = nil
			m.attachLine(peer)
		}
	}
	for i, ring := range m.rings {
		if ring.region == r {
			if m.ringOf[ring.peer] == ring {
				m.ringOf[ring.peer] = nil
			}
			m.rings = append(m.rings[:i], m.rings[i+1:]...)
			break
		}
	}
}

// WatchLine starts the watch that c, a CmdWatchLine, asks for. mem is the
// memory of c.Region: when c.Size is LineInPeer, the caller's view of the
// peer's region (Endpoint.PeerMemory); otherwise nil, the region being
// this process's own. The records there are delivered in the order of
// the ring from c.Peer, once that is watched too.
func (m *LocalMemory) WatchLine(c *Command, mem []byte) error {
	if c.Size != LineInPeer {
		var ok bool
		if mem, ok = m.regions[c.Region]; !ok {
			return fmt.Errorf("llc: %v of region %d: not memory of process %d", c.Kind, c.Region, m.self)
		}
	}
	switch {
	case m.arrived != nil:
		return fmt.Errorf("llc: %v: a network in virtual time has no shared lines", c.Kind)
	case c.Peer < 0:
		return fmt.Errorf("llc: %v of process %d", c.Kind, c.Peer)
	case c.Off%LineHalf != 0 || c.Off > uint64(len(mem)) || uint64(len(mem))-c.Off < LineHalf:
		return fmt.Errorf("llc: line half at %d of region %d (%d bytes)", c.Off, c.Region, len(mem))
	}
	l := &lineRecord{half: mem[c.Off : c.Off+LineHalf], region: c.Region, own: c.Size != LineInPeer}
	m.lines = setAt(m.lines, c.Peer, l)
	m.attachLine(c.Peer)
	return nil
}

// line returns the line record of peer, nil if there is none.
func (m *LocalMemory) line(peer int) *lineRecord { return at(m.lines, peer) }

// at returns s[i], nil if s has no element i.
func at[T any](s []*T, i int) *T {
	if uint(i) >= uint(len(s)) {
		return nil
	}
	return s[i]
}

// setAt sets s[i] (i not negative) to v, growing s with nils as needed.
func setAt[T any](s []*T, i int, v *T) []*T {
	if i >= len(s) {
		s = append(s, make([]*T, i+1-len(s))...)
	}
	s[i] = v
	return s
}

// attachLine has the ring from peer, if watched, deliver the records of
// peer's line (or none, once the line is forgotten).
func (m *LocalMemory) attachLine(peer int) {
	for _, r := range m.rings {
		if r.peer == peer {
			r.line = m.line(peer)
		}
	}
}

// Watch starts the watch that c (CmdWatchRing or CmdWatchSlot) asks for.
func (m *LocalMemory) Watch(c *Command) error {
	mem, ok := m.regions[c.Region]
	if !ok {
		return fmt.Errorf("llc: %v of region %d: not memory of process %d", c.Kind, c.Region, m.self)
	}
	switch c.Kind {
	case CmdWatchRing:
		size := len(mem) - ringCtl
		if size < 4*cell || size&(size-1) != 0 {
			return fmt.Errorf("llc: ring of region %d: %d bytes of records, not a power of two of at least %d", c.Region, size, 4*cell)
		}
		if c.Peer < 0 {
			return fmt.Errorf("llc: %v of process %d", c.Kind, c.Peer)
		}
		r := newInRing(c.Peer, c.Region, mem)
		r.arrived = m.arrived
		r.line = m.line(c.Peer)
		if m.arrived == nil { // in virtual time, arrivals have their own clock
			r.quiet = newQuietWindow(spinwait.TicksPerMicrosecond())
		}
		m.rings = append(m.rings, r)
		m.ringOf = setAt(m.ringOf, c.Peer, r)
	case CmdWatchSlot:
		if c.Size < 8 || c.Off%8 != 0 || c.Off > uint64(len(mem)) || uint64(c.Size) > uint64(len(mem))-c.Off {
			return fmt.Errorf("llc: slot of %d bytes at %d of region %d (%d bytes)", c.Size, c.Off, c.Region, len(mem))
		}
		m.slots = append(m.slots, slotWatch{token: c.Token, region: c.Region, off: c.Off, sig: word(mem, c.Off), data: mem[c.Off+8 : c.Off+uint64(c.Size)]})
	default:
		return fmt.Errorf("llc: %v is not a watch", c.Kind)
	}
	return nil
}

// WatchQueue makes q the receive queue whose records Poll delivers.
func (m *LocalMemory) WatchQueue(q *QueueReader) { m.queue = q }

// Poll delivers to sink the signalled slots, the records of the watched
// rings and those of the receive queue, and reports whether there were
// any.
func (m *LocalMemory) Poll(sink Sink) bool {
	progressed := false
	for i := 0; i < len(m.slots); i++ {
		w := &m.slots[i]
		v := atomic.LoadUint64(w.sig)
		if v == 0 {
			continue
		}
		if m.arrived != nil && !m.arrived(w.region, w.off, 8) {
			continue
		}
		sw := *w // the watch ends: its entry leaves the list
		m.slots = append(m.slots[:i], m.slots[i+1:]...)
		i--
		sink.Step(&Event{Kind: EvSignal, Token: sw.token, Value: v, Data: sw.data}) // a connection's: not on the path of messages
		atomic.StoreUint64(sw.sig, 0)
		progressed = true
	}
	for _, r := range m.rings {
		if r.poll(sink) {
			progressed = true
		}
	}
	if m.queue != nil && m.queue.Poll(sink) {
		progressed = true
	}
	return progressed
}

// poll delivers what arrived in r (take), unless r's quiet window holds
// its reads (quiet.go), and accounts for the read in the window.
func (r *inRing) poll(sink Sink) bool {
	r.flush()
	if r.quiet.holding && r.quiet.holds(spinwait.Ticks()) {
		return false
	}
	progressed := r.take(sink)
	if r.quiet.waiting {
		r.quiet.read(progressed, spinwait.Ticks)
	}
	return progressed
}

// take delivers the records that arrived in r (at most 32), and those of
// its line, and reports whether it consumed anything (a wrap marker too).
func (r *inRing) take(sink Sink) bool {
	progressed := false
	for k := 0; k < 32; k++ {
		rec, n, packed, ok := r.peek()
		if !ok {
			if r.line != nil && r.takeLine(sink) {
				progressed = true
				continue
			}
			break
		}
		if rec != nil {
			body := int(binary.LittleEndian.Uint32(rec[12:16])) // meta.length
			if layoutSize(body, packed) > uint64(len(rec)) {
				sink.Step(&Event{Kind: EvError, Err: fmt.Errorf("corrupt ring record from process %d: a body of %d bytes in a record of %d", r.peer, body, len(rec))})
				return true
			}
			if r.arrived != nil && !r.arrived(r.region, ringCtl+r.consumed&(r.size-1), len(rec)) {
				break
			}
			r.deliver(sink, rec[:recMeta], recordBody(rec, body, packed))
		}
		r.release(n)
		progressed = true
	}
	return progressed
}

// deliver steps sink with the record of head and body from the ring's
// peer, in the ring's event (see Sink).
func (r *inRing) deliver(sink Sink, head, body []byte) {
	r.ev.Kind, r.ev.Peer, r.ev.Head, r.ev.Data = EvRecord, r.peer, head, body
	sink.Step(&r.ev)
}

// errHeld tells QueueReader.Poll that the next record is held back (see
// OnArrival).
var errHeld = errors.New("llc: record held back")

// QueueReader reads a receive queue kept in memory (layout in ir.go) and
// delivers its records.
type QueueReader struct {
	produced *uint64 // written by the network
	data     []byte  // the record space
	size     uint64
	consumed uint64
	procs    int
	release  func(consumed uint64) error
	arrived  func(off uint64, n int) bool
	ev       Event // the event of every record, refilled (see Sink)
}

// OnArrival makes Poll call f with the place of every record it finds (n
// bytes at off of the queue's memory) before delivering it, and deliver it
// and the records after it only if f reports true (else Poll looks again
// next time): a network in virtual time learns there when the record
// arrived, and holds back records that arrived in the process's future.
func (q *QueueReader) OnArrival(f func(off uint64, n int) bool) { q.arrived = f }

// NewQueueReader returns the reader of the queue in mem (QueueHeader
// bytes, then a power-of-two record space) of a job of procs processes;
// release tells the network how far the queue was consumed.
func NewQueueReader(mem []byte, procs int, release func(consumed uint64) error) (*QueueReader, error) {
	size := len(mem) - QueueHeader
	if size <= 0 || size&(size-1) != 0 {
		return nil, fmt.Errorf("llc: receive queue of %d bytes: the record space must be a power of two", len(mem))
	}
	return &QueueReader{produced: word(mem, 0), data: mem[QueueHeader:], size: uint64(size), procs: procs, release: release}, nil
}

// Poll delivers the records that arrived, in order, then releases their
// space; it reports whether there were any. A corrupt queue is delivered
// as an EvError.
func (q *QueueReader) Poll(sink Sink) bool {
	start := q.consumed
	produced := atomic.LoadUint64(q.produced)
	for q.consumed < produced {
		if err := q.next(sink, produced); err == errHeld {
			break
		} else if err != nil {
			sink.Step(&Event{Kind: EvError, Err: err})
			return true
		}
	}
	if q.consumed == start {
		return false
	}
	if err := q.release(q.consumed); err != nil {
		sink.Step(&Event{Kind: EvError, Err: fmt.Errorf("releasing the receive queue: %w", err)})
	}
	return true
}

// next delivers the record (or skips the wrap marker) at the consumer
// position.
func (q *QueueReader) next(sink Sink, produced uint64) error {
	pos := q.consumed & (q.size - 1)
	length := binary.LittleEndian.Uint32(q.data[pos:])
	if length == QueueWrap {
		if q.size-pos > produced-q.consumed {
			return fmt.Errorf("corrupt receive queue: wrap marker at %d beyond the %d bytes produced", q.consumed, produced)
		}
		q.consumed += q.size - pos
		return nil
	}
	src := binary.LittleEndian.Uint32(q.data[pos+4:])
	span := queueSpan(int(length))
	if length < recMeta || length > MaxQueueRecord || pos+span > q.size || span > produced-q.consumed || src >= uint32(q.procs) {
		return fmt.Errorf("corrupt receive queue record at %d: %d bytes from process %d (%d bytes produced, %d consumed)",
			q.consumed, length, src, produced, q.consumed)
	}
	rec := q.data[pos+QueueRecordHeader : pos+QueueRecordHeader+uint64(length)]
	if q.arrived != nil && !q.arrived(QueueHeader+pos, int(span)) {
		return errHeld
	}
	q.consumed += span
	q.ev.Kind, q.ev.Peer, q.ev.Head, q.ev.Data = EvRecord, int(src), rec[:recMeta], rec[recMeta:]
	sink.Step(&q.ev)
	return nil
}
