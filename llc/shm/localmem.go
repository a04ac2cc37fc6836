package shm

import (
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// LocalMemory is the receiving half of a transport whose peers write into
// this process's memory (shared memory, or a stream whose writes the
// transport applies to memory): it remembers the memory of the regions the
// transport gave the engine, reads the rings, slots and receive queue the
// engine asked it to watch, and delivers what arrived as IR events. It is
// network-independent code that such translators share; the engine itself
// reads no memory. It is not safe for concurrent use.
type LocalMemory struct {
	regions map[llc.RegionID][]byte
	rings   []*inRing
	lines   []*lineRecord // the peers' halves of the shared lines, by peer (nil: none)
	ringOf  []*inRing     // the ring from each peer, by peer (nil: none)
	slots   []slotWatch
	queue   *QueueReader
	self    int
	// arrived, if set, is asked about every record and signal before it
	// is delivered (see OnArrival).
	arrived func(r llc.RegionID, off uint64, n int) bool
	// published, if set, is told of every consumer count published (see
	// OnPublish).
	published func(peer int)
}

// slotWatch is one llc.CmdWatchSlot: the signal word and the bytes after it.
type slotWatch struct {
	token  uint64
	region llc.RegionID
	off    uint64
	sig    *uint64
	data   []byte
}

// NewLocalMemory returns the local memory of process self.
func NewLocalMemory(self int) *LocalMemory {
	return &LocalMemory{regions: make(map[llc.RegionID][]byte), self: self}
}

// OnArrival makes Poll call f with the place of everything it finds (n
// bytes at off of region r: a signalled slot's signal word, a ring record)
// before delivering it, and deliver it only if f reports true (else Poll
// looks again next time): a network in virtual time learns there when the
// data arrived, and holds back data that arrived in the process's future.
// The receive queue has its own (QueueReader).
func (m *LocalMemory) OnArrival(f func(r llc.RegionID, off uint64, n int) bool) {
	m.arrived = f
	for _, r := range m.rings {
		r.arrived = f
	}
}

// OnPublish makes the rings call f with the ring's peer each time they
// publish a new consumer count (the space of the records delivered since
// handed back to the sender): a network in virtual time wakes there a
// sender that waits for it (llc.ReadChanged). With f set, a ring publishes
// its count in the poll that consumed the records, not at the next poll,
// so that the time of the publication is that of the consumption, not
// that of whatever the next poll found first. Rings not watched yet call
// it too once they are; nil stops the calls.
func (m *LocalMemory) OnPublish(f func(peer int)) {
	m.published = f
	for _, r := range m.rings {
		r.published = f
	}
}

// Track remembers mem as the memory of region r (from CmdAlloc).
func (m *LocalMemory) Track(r llc.RegionID, mem []byte) { m.regions[r] = mem }

// Forget forgets region r and stops watching its rings and the lines in
// it (CmdRelease).
func (m *LocalMemory) Forget(r llc.RegionID) {
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
// memory of c.Region: when c.Size is llc.LineInPeer, the caller's view of the
// peer's region (Endpoint.PeerMemory); otherwise nil, the region being
// this process's own. The records there are delivered in the order of
// the ring from c.Peer, once that is watched too.
func (m *LocalMemory) WatchLine(c *llc.Command, mem []byte) error {
	if c.Size != llc.LineInPeer {
		var ok bool
		if mem, ok = m.regions[c.Region]; !ok {
			return fmt.Errorf("shm: %v of region %d: not memory of process %d", c.Kind, c.Region, m.self)
		}
	}
	switch {
	case m.arrived != nil:
		return fmt.Errorf("shm: %v: a network in virtual time has no shared lines", c.Kind)
	case c.Peer < 0:
		return fmt.Errorf("shm: %v of process %d", c.Kind, c.Peer)
	case !layout.LineFits(c.Off, len(mem)) || !layout.LineFits(layout.OtherHalf(c.Off), len(mem)):
		return fmt.Errorf("shm: line half at %d of region %d (%d bytes)", c.Off, c.Region, len(mem))
	}
	shared, own := layout.LineExt(mem, c.Off)
	_, mine := layout.LineExt(mem, layout.OtherHalf(c.Off))
	l := &lineRecord{half: (*[layout.LineHalf]byte)(mem[c.Off : c.Off+layout.LineHalf]), shared: shared, ext: own, mine: mine, region: c.Region, own: c.Size != llc.LineInPeer}
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

// Watch starts the watch that c (llc.CmdWatchRing or llc.CmdWatchSlot) asks for.
func (m *LocalMemory) Watch(c *llc.Command) error {
	mem, ok := m.regions[c.Region]
	if !ok {
		return fmt.Errorf("shm: %v of region %d: not memory of process %d", c.Kind, c.Region, m.self)
	}
	switch c.Kind {
	case llc.CmdWatchRing:
		size := len(mem) - layout.RingCtl
		if size < 4*layout.Cell || size&(size-1) != 0 {
			return fmt.Errorf("shm: ring of region %d: %d bytes of records, not a power of two of at least %d", c.Region, size, 4*layout.Cell)
		}
		if c.Peer < 0 {
			return fmt.Errorf("shm: %v of process %d", c.Kind, c.Peer)
		}
		r := newInRing(c.Peer, c.Region, mem)
		r.arrived, r.published = m.arrived, m.published
		r.line = m.line(c.Peer)
		if m.arrived == nil { // in virtual time, arrivals have their own clock
			r.quiet = newQuietWindow(spinwait.TicksPerMicrosecond())
		}
		m.rings = append(m.rings, r)
		m.ringOf = setAt(m.ringOf, c.Peer, r)
	case llc.CmdWatchSlot:
		if c.Size < 8 || c.Off%8 != 0 || c.Off > uint64(len(mem)) || uint64(c.Size) > uint64(len(mem))-c.Off {
			return fmt.Errorf("shm: slot of %d bytes at %d of region %d (%d bytes)", c.Size, c.Off, c.Region, len(mem))
		}
		m.slots = append(m.slots, slotWatch{token: c.Token, region: c.Region, off: c.Off, sig: layout.Word(mem, c.Off), data: mem[c.Off+8 : c.Off+uint64(c.Size)]})
	default:
		return fmt.Errorf("shm: %v is not a watch", c.Kind)
	}
	return nil
}

// WatchQueue makes q the receive queue whose records Poll delivers.
func (m *LocalMemory) WatchQueue(q *QueueReader) { m.queue = q }

// Poll delivers to sink the signalled slots, the records of the watched
// rings and those of the receive queue, and reports whether there were
// any.
func (m *LocalMemory) Poll(sink llc.Sink) bool {
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
		sink.Step(&llc.Event{Kind: llc.EvSignal, Token: sw.token, Value: v, Data: sw.data}) // a connection's: not on the path of messages
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
