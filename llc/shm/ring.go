package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

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
}

func newInRing(peer int, region llc.RegionID, mem []byte) *inRing {
	return &inRing{peer: peer, region: region, ctl: layout.Word(mem, 0), data: mem[layout.RingCtl:], size: uint64(len(mem) - layout.RingCtl)}
}

// peek returns the record at the consumer position, if its signal landed,
// and whether it is packed (a wrap marker returns no record, and the
// space to skip).
func (r *inRing) peek() (rec []byte, size uint64, packed, ok bool) {
	pos := r.consumed & (r.size - 1)
	first := atomic.LoadUint64(layout.Word(r.data, pos))
	if first == 0 {
		return nil, 0, false, false
	}
	if uint8(first) == layout.KindWrap {
		if uint32(first>>32) != r.seq+1 {
			return nil, 0, false, false // not yet (cannot happen with a correct peer)
		}
		return nil, r.size - pos, false, true
	}
	at := uint64(layout.RecSignal)
	if end := uint64(uint16(first >> (8 * layout.RecEnd))); end > 0 {
		at = end*layout.Cell - 8
		packed = true
	}
	if pos+at >= r.size {
		return nil, 0, false, false // cannot happen with a correct peer
	}
	sig := atomic.LoadUint64(layout.Word(r.data, pos+at))
	if sig == 0 {
		return nil, 0, false, false
	}
	size = sig & 0xffffffff
	if uint32(sig>>32) != r.seq+1 || size < at+8 || pos+size > r.size {
		return nil, 0, false, false // not yet (cannot happen with a correct peer)
	}
	return r.data[pos : pos+size], size, packed, true
}

// release moves the consumer position past the record of n bytes at it;
// flush later hands its space back to the sender.
func (r *inRing) release(n uint64) {
	r.seq++
	r.consumed += n
}

// releaseUnwritten moves the consumer position past a record of n bytes
// whose place the sender reserved but never wrote (a line record,
// line.go): its cells still read zero, so they need no zeroing, only
// their space handed back, with whatever flush had pending.
func (r *inRing) releaseUnwritten(n uint64) {
	r.flush()
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
// its reads (quiet.go), and accounts for the read in the window.
func (r *inRing) poll(sink llc.Sink) bool {
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
func (r *inRing) take(sink llc.Sink) bool {
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
			if layout.Size(body, packed) > uint64(len(rec)) {
				sink.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("corrupt ring record from process %d: a body of %d bytes in a record of %d", r.peer, body, len(rec))})
				return true
			}
			if r.arrived != nil && !r.arrived(r.region, layout.RingCtl+r.consumed&(r.size-1), len(rec)) {
				break
			}
			r.deliver(sink, rec[:layout.RecMeta], layout.Body(rec, body, packed))
		}
		r.release(n)
		progressed = true
	}
	return progressed
}

// deliver steps sink with the record of head and body from the ring's
// peer, in the ring's event (see llc.Sink).
func (r *inRing) deliver(sink llc.Sink, head, body []byte) {
	r.ev.Kind, r.ev.Peer, r.ev.Head, r.ev.Data = llc.EvRecord, r.peer, head, body
	sink.Step(&r.ev)
}
