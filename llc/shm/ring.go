package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/internal/memcopy"
	"github.com/rhinet-go/martini/internal/memorder"
	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// inRing is the receiver's view of a ring it consumes.
type inRing struct {
	peer     int
	region   llc.RegionID
	ctl      *uint64
	data     []byte
	size     uint64
	consumed uint64 // bytes delivered: the next record is at consumed
	released uint64 // bytes whose cells are zeroed and whose count is published
	seq      uint32
	arrived  func(r llc.RegionID, off uint64, n int) bool // LocalMemory.OnArrival
	line     *lineRecord                                  // the peer's half of the pair's shared line, or nil
	quiet    quietWindow                                  // reads held after a write to the peer
	ev       llc.Event                                    // the event of every record, refilled (see llc.Sink)
	// lineFirst: the last record came through the line (take).
	lineFirst bool
	// published, if set, is told of every consumer count flush publishes
	// (LocalMemory.OnPublish).
	published func(peer int)
}

func newInRing(peer int, region llc.RegionID, mem []byte) *inRing {
	return &inRing{peer: peer, region: region, ctl: layout.Word(mem, 0), data: mem[layout.RingCtl:], size: uint64(len(mem) - layout.RingCtl)}
}

// release moves the consumer position past the record of n bytes at it;
// flush later hands its space back to the sender.
func (r *inRing) release(n uint64) {
	r.seq++
	r.consumed += n
}

// releaseUnwritten moves the consumer position past a record of n bytes
// whose place the sender reserved but never wrote (a line record,
// takeLine): its cells still read zero, so they need no zeroing, only
// their space handed back, with whatever flush had pending.
func (r *inRing) releaseUnwritten(n uint64) {
	if r.released != r.consumed { // flush's own test, without the call on every line record
		r.flush()
	}
	r.release(n)
	r.released = r.consumed
	memorder.StoreRelease64(r.ctl, r.consumed)
}

// flush hands the space of the records delivered since the last flush back
// to the sender: it zeroes the first and the last word of every cell they
// covered, so that any future record position, and any future signal
// position, reads zero until written, and publishes the consumer count.
// poll flushes before it looks for new records, not after it delivers
// them: the zeroing stores must take the cells' lines back from the
// sender's cache (about a cache line's trip between cores), which would
// delay the delivered message's receiver; done at the next poll, the trip
// overlaps the wait for the next record. The sender reads the count only
// when its view says the ring is full, and every wait polls, so the space
// comes back as soon as the receiver waits again.
func (r *inRing) flush() {
	if r.released == r.consumed {
		return
	}
	// Plain stores: they become visible before the consumer count, which
	// is published with a release store after them. The cells are
	// cleared whole: for a record of more than a cell, one clear of its
	// span costs fewer instructions than two stores a cell, and touches
	// the same lines.
	if n := r.consumed - r.released; n == layout.Cell {
		at := r.released & (r.size - 1)
		*layout.Word(r.data, at) = 0
		*layout.Word(r.data, at+layout.RecSignal) = 0
	} else {
		r.clear(r.released&(r.size-1), n)
	}
	r.released = r.consumed
	// A release store, not sync/atomic's: that one would wait here for
	// the zeroing stores' trips before the poll could look at this ring or
	// any other, and nothing here needs more than the order of the stores.
	memorder.StoreRelease64(r.ctl, r.consumed)
	if r.published != nil { // in virtual time only
		r.published(r.peer)
	}
}

// clear zeroes n bytes of the ring's record space from offset at, around
// its end.
func (r *inRing) clear(at, n uint64) {
	if n >= r.size {
		clear(r.data[:r.size])
		return
	}
	if end := at + n; end <= r.size {
		clear(r.data[at:end])
		return
	}
	clear(r.data[at:r.size])
	clear(r.data[:at+n-r.size])
}

// poll delivers what arrived in r (take), unless r's quiet window holds
// its reads (quietWindow), and accounts for the read in the window.
func (r *inRing) poll(sink llc.Sink) bool {
	r.flush()
	if r.quiet.holding && r.quiet.holds(spinwait.Ticks()) {
		return false
	}
	progressed := r.take(sink)
	if r.quiet.waiting {
		r.quiet.read(progressed, ticks)
	}
	return progressed
}

// take delivers the records that arrived in r (at most 32), and those of
// its line, and reports whether it consumed anything (a wrap marker too).
//
// The line is looked at first when the last record came through it (a
// ping-pong's), the ring first otherwise (a stream's), and not again in
// this take once it delivered a record: the peer writes its half again
// only after this process has acknowledged that record, with a write of
// its own after this poll. (An acknowledgement alone that the peer
// writes meanwhile waits for the next poll.)
func (r *inRing) take(sink llc.Sink) bool {
	if r.line != nil && r.lineFirst && r.takeLine(sink) {
		if r.landed() { // ring records that followed the line's
			r.takeRing(sink, nil, 31)
		}
		return true
	}
	return r.takeRing(sink, r.line, 32)
}

// takeRing is take's loop over the ring: it delivers at most rounds of
// its records. line, if not nil, is the line whose record is taken where
// the ring has none at its position (the line's record is then the next
// in the ring's order).
func (r *inRing) takeRing(sink llc.Sink, line *lineRecord, rounds int) bool {
	progressed := false
	data := r.data // its length is r.size: the tests against it spare the slicing's
	for ; rounds > 0; rounds-- {
		pos := r.consumed & (r.size - 1)
		first := atomic.LoadUint64(layout.Word(data, pos))
		if first == 0 { // nothing there
			if line != nil && !r.lineFirst && r.takeLine(sink) {
				progressed, line = true, nil
				continue
			}
			break
		}
		if uint8(first) == layout.KindWrap {
			if !r.skipWrap(pos, first) {
				break
			}
			progressed = true
			continue
		}
		// The record's signal word: the last of its cells for a packed
		// record (its cell count in the first word), else at RecSignal.
		// Until it lands with the ring's next sequence number the record
		// is landing: it is the ring's next, and the line's record is not
		// (a line record's cell stays zero), so the line is not looked at.
		at, packed := uint64(layout.RecSignal), false
		if end := uint64(uint16(first >> (8 * layout.RecEnd))); end > 0 {
			at, packed = end*layout.Cell-8, true
		}
		if pos+at >= uint64(len(data)) {
			break // cannot happen with a correct peer
		}
		sig := atomic.LoadUint64(layout.Word(data, pos+at))
		n := sig & 0xffffffff
		if sig == 0 || uint32(sig>>32) != r.seq+1 || n < at+8 || n > uint64(len(data))-pos {
			break // landing (past sig == 0, cannot happen with a correct peer)
		}
		// The record, n bytes at pos, which the tests above keep within
		// data: made without the slicing's own tests of its bounds.
		rec := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(data)), pos)), n)
		r.lineFirst = false
		body := int(binary.LittleEndian.Uint32(rec[12:16])) // meta.length
		if layout.Size(body, packed) > n {
			sink.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("corrupt ring record from process %d: a body of %d bytes in a record of %d", r.peer, body, n)})
			return true
		}
		// The record's own bytes, not the ring space it takes (EagerPM
		// rounds that up to 2 KB).
		if r.arrived != nil && !r.arrived(r.region, layout.RingCtl+pos, int(layout.Size(body, packed))) {
			break
		}
		// The record, in the ring's event (see llc.Sink).
		r.ev.Kind, r.ev.Peer, r.ev.Head, r.ev.Data = llc.EvRecord, r.peer, rec[:layout.RecMeta], layout.Body(rec, body, packed)
		sink.Step(&r.ev)
		r.release(n)
		progressed = true
	}
	if progressed && r.published != nil {
		r.flush() // in virtual time, for a sender that waits for the count (LocalMemory.OnPublish)
	}
	return progressed
}

// skipWrap moves past the wrap marker at the consumer position pos, whose
// first word is first, to the ring's start, and reports whether it did:
// not where the marker's sequence number is not the ring's next (which
// cannot happen with a correct peer).
func (r *inRing) skipWrap(pos, first uint64) bool {
	if uint32(first>>32) != r.seq+1 {
		return false
	}
	r.lineFirst = false
	r.release(r.size - pos)
	return true
}

// landed reports whether the first word of the ring's next record has
// landed: a record or a wrap marker is there, or begins to be.
func (r *inRing) landed() bool {
	return atomic.LoadUint64(layout.Word(r.data, r.consumed&(r.size-1))) != 0
}

// lineRecord is the receiving side of one peer's line: that peer's half.
type lineRecord struct {
	ack     uint32                 // the acknowledgement last reported
	seen    uint64                 // the signal word last read
	half    *[layout.LineHalf]byte // the peer's half, read without a check of its bounds
	shared  []byte                 // the peer's half of the shared extension line (layout.LineExt)
	ext     []byte                 // the peer's own extension lines (layout.LineExtBody bytes)
	region  llc.RegionID           // the region that holds it
	own     bool                   // the region is this process's memory
	lastExt []byte                 // the extension the last record took (shared, or the lines of ext it took), nil if none: read it beside the signal
	// mine is this process's own extension lines; sent counts this
	// process's line records to the peer, and ringSince tells whether it
	// wrote a ring record to the peer after the last of them (Wrote): a
	// record of the peer's that acknowledges every line record, with no
	// ring record since, answers this process's last record (a
	// ping-pong) rather than crossing it (an exchange). See takeLine.
	mine      []byte
	sent      uint32
	ringSince bool
	mineUsed  bool                  // the last line record took mine
	scratch   [layout.LineBody]byte // a body longer than the half holds, gathered
}

// takeLine delivers to sink the record in the peer's half of the line, if
// its sequence number is the ring's next, and frees its place in the
// ring; otherwise it reports a new acknowledgement there alone (a
// layout.KindLineAck). It reports whether it delivered either.
func (r *inRing) takeLine(sink llc.Sink) bool {
	l := r.line
	if l.lastExt != nil && r.quiet.waiting {
		// An answer is awaited (a ping-pong; the quiet window counts the
		// reads that wait for one where it runs), and the last record took
		// an extension: so will the answer, likely. A word of that
		// extension is loaded beside the signal, so that its line's trip
		// from the writer's cache overlaps the signal's instead of
		// following it. The value is not used: the record's bytes are
		// read again after the signal, which orders them. Only while an
		// answer is awaited: where both write at once (an exchange),
		// these loads take the line from a writer still storing into it.
		atomic.LoadUint64(layout.Word(l.lastExt, 0))
		if len(l.lastExt) > layout.Cell {
			atomic.LoadUint64(layout.Word(l.lastExt, layout.Cell))
		}
	}
	sig := atomic.LoadUint64(layout.Word(l.half[:], layout.LineSig))
	l.seen = sig
	// The signal's acknowledgement is the count's low byte, which moves
	// by at most one between two looks (layout.LineSignal): l.ack keeps
	// the whole count.
	ack := l.ack + uint32(uint8(sig>>24)-uint8(l.ack))
	if sig == 0 || uint32(sig>>32) != r.seq+1 {
		if sig == 0 || ack == l.ack {
			return false
		}
		l.ack = ack
		r.ev.Kind, r.ev.Peer, r.ev.Token, r.ev.Value, r.ev.Data = llc.EvLine, r.peer, 0, uint64(layout.KindLineAck)|uint64(ack)<<32, nil
		sink.Step(&r.ev)
		return false // no record: the ring's poll goes on to the next ring
	}
	l.ack = ack
	if l.mineUsed && ack == l.sent && !l.ringSince {
		// An answer to this process's last record, which took its own
		// extension lines, one or both: the peer has read them and stored
		// into them (below). A load of each now takes them back while
		// this record is delivered, rather than when the next record's
		// stores need them. (A line the record did not take is in this
		// process's cache, or came back with an earlier answer.)
		atomic.LoadUint64(layout.Word(l.mine, 0))
		atomic.LoadUint64(layout.Word(l.mine, layout.Cell))
		l.mineUsed = false
	}
	body := int(uint8(sig >> 16))
	var data []byte
	switch {
	case body <= layout.LineHalfBody:
		// In the half itself: the peer writes it again only after this
		// process has acknowledged the record, after the Step.
		l.lastExt = nil
		data = l.half[8 : 8+body]
	case body <= layout.LineBody:
		// The extension lines that the rest takes.
		switch rest := body - layout.LineHalfBody; {
		case layout.LineRestShared(rest):
			l.lastExt = l.shared
		case rest <= layout.Cell:
			l.lastExt = l.ext[:layout.Cell]
		default:
			l.lastExt = l.ext
		}
		s := l.scratch[:body]
		*(*[layout.LineHalfBody]byte)(s) = *(*[layout.LineHalfBody]byte)(l.half[8:])
		memcopy.Small(s[layout.LineHalfBody:], l.lastExt)
		data = s
		if len(l.lastExt) > layout.LineExtShared && ack == l.sent && !l.ringSince {
			// The peer's own extension lines that the record took, copied,
			// are stored into as well: in a ping-pong each process then
			// reads and writes them in turn, as it does the shared lines,
			// and the peer takes them back when this process's answer
			// comes (the loads above, on the peer's side) instead of when
			// its next record's stores need them (PingPong 64 and 80 B 0.91
			// of the time without, docs/decisions.md). The peer writes the
			// lines again only after this process's acknowledgement, which
			// these stores precede.
			*layout.Word(l.lastExt, layout.Cell-8) = 0
			if len(l.lastExt) > layout.Cell {
				*layout.Word(l.lastExt, 2*layout.Cell-8) = 0
			}
		}
	default:
		sink.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("corrupt line record from process %d: a body of %d bytes", r.peer, body)})
		return true
	}
	r.releaseUnwritten(layout.Cell)
	r.lineFirst = true
	r.ev.Kind, r.ev.Peer, r.ev.Token, r.ev.Data = llc.EvLine, r.peer, binary.LittleEndian.Uint64(l.half[0:]), data
	r.ev.Value = sig&layout.LineSignalMeta | uint64(ack)<<32 // the engine's kind, flags and length are the signal's
	sink.Step(&r.ev)
	return true
}

// A process that has just written a record to a peer (into the peer's
// ring, or its own half of their shared line) holds off reading what that
// peer writes to it for a while: its quiet window.
//
// Why: the peer reads the record and then, if it answers at once, writes
// its answer where this process polls for it: the same shared line, or
// the next cell of the peer's ring to this process. As long as nobody else
// touches that cache line in between, the peer's write finds it in its own
// cache (a line) or in no other (a ring cell), and costs nothing more than
// a store. A read by this process in between takes the line back, and
// the peer's write must then take it away again, which delays an answer
// that takes the peer more than a few tens of nanoseconds
// (BenchmarkLineWork and BenchmarkLineQuiet in bench measure it). A
// waiter polls every few tens of nanoseconds, so it always read the line
// in between.
//
// The window adapts to the peer's answers: when the first read after the
// window finds the answer already there, the window may have been too
// long, and shrinks by a little (1/32, at least a tick); when the answer
// comes only at a later read, the first read came too early, and the
// window grows by quietGrowNs, up to quietMaxNs. Only an answer that
// comes within quietMaxNs of the write grows it: a peer that answers
// later was not answering at once (it computed, or waited for the
// processor it shares with others), and reads taken from it then cost it
// nothing that matters. The window starts at zero, so a peer that does not
// answer quickly (or one-way traffic) costs nothing. A write that finds
// something unread from the peer opens no window: what is there is read
// at once.
//
// The clock is the processor's counter (spinwait.Ticks), a few
// nanoseconds a read; where there is none, there is no window. It is read
// at a write, at the reads that wait, and at an answer that came late,
// but not at the reads after the window: a read that follows its message
// costs no look at the clock.
type quietWindow struct {
	window  uint64 // ticks between a write and the first read
	since   uint64 // when the write was, in ticks
	holding bool   // reads wait until since+window
	waiting bool   // an answer to a write is awaited: reads are counted
	reads   int    // reads since the window ended
	grow    uint64 // quietGrowNs in ticks
	max     uint64 // quietMaxNs in ticks
}

const (
	quietGrowNs = 16   // how much a late answer grows the window
	quietMaxNs  = 1000 // the longest window
	quietShrink = 5    // an answer found at the first read shrinks the window by window>>quietShrink
	quietLate   = 16   // reads after the window within which an answer counts as one
)

// ticks is the quiet window's clock, spinwait.Ticks: a Go function, whose
// value the window calls without the wrapper that an assembly function's
// value needs.
func ticks() uint64 { return spinwait.Ticks() }

// newQuietWindow returns a window of zero for a process whose counter
// runs perUS ticks a microsecond (none if perUS is 0).
func newQuietWindow(perUS uint64) quietWindow {
	return quietWindow{grow: quietGrowNs * perUS / 1000, max: quietMaxNs * perUS / 1000}
}

// written starts the wait for an answer to a write made now, as clock
// tells.
func (q *quietWindow) written(clock func() uint64) {
	if q.max == 0 {
		return
	}
	q.start(clock())
}

// start is written of a window that exists (max is not 0), at now.
func (q *quietWindow) start(now uint64) {
	q.since, q.waiting, q.holding, q.reads = now, true, q.window != 0, 0
}

// holds reports whether a read must still wait at now; once it has said
// no, reads do not wait again until the next write. A clock that went
// back (a process moved to a processor whose counter lags) ends the wait.
func (q *quietWindow) holds(now uint64) bool {
	if now-q.since < q.window {
		return true
	}
	q.holding = false
	return false
}

// read accounts for a read after the window that found something new from
// the peer (found) or not, and ends the wait for an answer when it found
// one or has read quietLate times in vain. clock is read for an answer
// found after the first read.
func (q *quietWindow) read(found bool, clock func() uint64) {
	q.reads++
	switch {
	case found && q.reads == 1:
		q.window -= min(max(q.window>>quietShrink, 1), q.window)
	case found:
		if clock()-q.since <= q.max {
			q.window = min(q.window+q.grow, q.max)
		}
	case q.reads < quietLate:
		return
	}
	q.waiting = false
}

// Write is what a process wrote to a peer, for Wrote.
type Write uint8

// The writes: a record (or the signal of one) into the peer's ring; a
// record into this process's half of their shared line, whose body did
// not or did take this process's own extension lines (layout.LineExt);
// and an acknowledgement alone in the half.
const (
	RingRecord Write = iota
	LineRecord
	LineRecordOwnExt
	LineAck
)

// Wrote tells the local memory that this process has just written w to
// peer. Reads of what peer writes to this process then keep the quiet
// window (see quietWindow), and the records of the line are counted for
// the peer's answers to them (lineRecord.sent). The translator calls
// it after its store.
func (m *LocalMemory) Wrote(peer int, w Write) {
	// The line's count, whether or not the ring from peer is watched yet:
	// it must match the peer's, which counts from the line's opening.
	if l := m.line(peer); l != nil {
		switch w {
		case RingRecord:
			l.ringSince = true
		case LineRecord, LineRecordOwnExt:
			l.sent++
			l.ringSince, l.mineUsed = false, w == LineRecordOwnExt
		}
	}
	r := at(m.ringOf, peer)
	switch {
	case r == nil, r.quiet.max == 0:
	case r.unread():
		r.quiet.holding = false // read at once, even within an earlier write's window
	default:
		r.quiet.start(spinwait.Ticks())
	}
}

// unread reports whether the ring's next record, or a new signal in the
// peer's half of the line, has landed. The line is in this processor's
// cache after a write of its own half, and the ring's next cell is unless
// the peer wrote it: the look costs nothing unless something is there.
func (r *inRing) unread() bool {
	if r.landed() {
		return true
	}
	return r.line != nil && atomic.LoadUint64(layout.Word(r.line.half[:], layout.LineSig)) != r.line.seen
}

// HoldReads sets the quiet window of the reads of what peer writes to
// this process to ticks of the processor's counter, until the window
// adapts again: a test holds reads with it, or lets them through.
func (m *LocalMemory) HoldReads(peer int, ticks uint64) {
	if r := at(m.ringOf, peer); r != nil {
		r.quiet.window = ticks
	}
}
