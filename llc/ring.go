package llc

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/internal/memorder"
)

// An eager ring is owned by the receiver, allocated for one sender on that
// sender's first contact (after Liu, Wu and Panda). Layout of the region:
//
//	[0, 64)         control: the consumer count (bytes consumed, monotonic)
//	[128, 192)      the pair's shared line (line.go), used only in the ring
//	                that the lower-numbered process of a pair grants
//	[256, 256+size) records, each a whole number of 64-byte cells
//
// The lines between are unused: the shared line is alone in its aligned
// 128 bytes, which processors fetch together (an adjacent-line
// prefetch), apart from the consumer count its owner writes.
//
// A record begins with its meta (24 bytes), whose first word names the
// record's kind and where its signal word is (recEnd), and ends its first
// cell or its last with the signal word (seq<<32 | record size). Two
// layouts:
//
//   - packed: [meta | body | padding | signal], the signal the record's
//     last word. The record is one write whose last word lands last, as in
//     PM/RHiNET's trailer polling. Every record of one cell is packed, and
//     so are longer ones up to Config.PackedRecords.
//   - split: [meta | 32 unused bytes | signal] then the body from the
//     second cell: the body's cells are written first, then the first cell.
//     Records longer than PackedRecords are split.
//
// The receiver reads the first word of the record position; once it is
// not zero, it reads the signal word where the first word says, and takes
// the record once that landed too. Once it has consumed records, the
// receiver zeroes the first and the last word of every cell they covered,
// so that any future record position, and any future signal position,
// reads zero until written, and publishes the consumer count; it does so
// at its next poll (inRing.flush). A wrap marker is one word at the record
// position. The sender reads the count (one remote read) only when its
// cached view says the ring is full, as PM/RHiNET does.
const (
	ringCtl   = 256 // bytes before the records: the control line and the shared line
	ringLine  = 128 // offset of the shared line
	cell      = 64
	recMeta   = 24
	recInline = 32          // largest payload carried in the first cell
	recSignal = cell - 8    // offset of the signal word in the first cell
	recHeader = recMeta + 8 // bytes of the first cell that are not payload
	// recEnd is the offset in the meta of a 16-bit count: the cells of a
	// packed record, whose signal word is its last; 0 for a split record,
	// whose signal ends the first cell.
	recEnd = 2
)

// Record kinds.
const (
	recEager uint8 = iota + 1 // payload is the message
	recRTS                    // rendezvous request to send
	recCTS                    // rendezvous clear to send (write variant)
	recFIN                    // rendezvous finished
	// recWrap marks the rest of the ring as unused: the next record is at
	// offset 0. A wrap marker is one word, its sequence number in the
	// upper half.
	recWrap uint8 = 0xff
)

// meta is the fixed part of a record after the signal word.
type meta struct {
	kind   uint8
	flags  uint8 // flagSync
	tag    int32
	ctx    uint32
	length uint32 // payload length (eager) or message length (RTS)
	aux    uint64 // rendezvous ids; the send id of a synchronous eager message
}

func (m *meta) put(b []byte) { putMeta(b, m.kind, m.flags, m.tag, m.ctx, m.length, m.aux) }

// putMeta writes a record's meta into b from its fields. The path of
// every message calls it rather than building a meta: a meta built on the
// stack field by field and then copied whole makes the processor wait for
// the narrow stores to land before the wide load of the copy.
func putMeta(b []byte, kind, flags uint8, tag int32, ctx, length uint32, aux uint64) {
	_ = b[recMeta-1]
	b[0] = kind
	b[1] = flags
	binary.LittleEndian.PutUint32(b[4:], uint32(tag))
	binary.LittleEndian.PutUint32(b[8:], ctx)
	binary.LittleEndian.PutUint32(b[12:], length)
	binary.LittleEndian.PutUint64(b[16:], aux)
}

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.flags = b[1]
	m.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	m.ctx = binary.LittleEndian.Uint32(b[8:])
	m.length = binary.LittleEndian.Uint32(b[12:])
	m.aux = binary.LittleEndian.Uint64(b[16:])
}

// recordSize is the size of a split record of payload bytes.
func recordSize(payload int) uint64 {
	if payload <= recInline {
		return cell
	}
	return cell + uint64(payload+cell-1)/cell*cell
}

// packedSize is the size of a packed record of payload bytes.
func packedSize(payload int) uint64 { return uint64(recHeader+payload+cell-1) / cell * cell }

// layoutSize is the size of a record of payload bytes in its layout:
// packedSize if packed, recordSize otherwise.
func layoutSize(payload int, packed bool) uint64 {
	if packed {
		return packedSize(payload)
	}
	return recordSize(payload)
}

// recordBody returns the payload of a record of body bytes; packed says
// whether the record is packed (or of one cell).
func recordBody(rec []byte, body int, packed bool) []byte {
	if packed || body <= recInline {
		return rec[recMeta : recMeta+body]
	}
	return rec[cell : cell+body]
}

// wrapWord is the wrap marker of sequence number seq.
func wrapWord(seq uint32) uint64 { return uint64(seq)<<32 | uint64(recWrap) }

func signal(seq uint32, size uint64) uint64 { return uint64(seq)<<32 | size }

func word(b []byte, off uint64) *uint64 { return (*uint64)(unsafe.Pointer(&b[off])) }

// outRing is the sender's view of a ring it writes into.
type outRing struct {
	region RegionID
	size   uint64 // bytes of record space
	head   uint64 // bytes produced
	tail   uint64 // consumer count last read
	seq    uint32
}

func (r *outRing) free() uint64 { return r.size - (r.head - r.tail) }

// reserve finds room for a record of n bytes. It returns the data offset of
// the record and whether a wrap marker must be written first at wrapAt.
func (r *outRing) reserve(n uint64) (at uint64, wrap bool, wrapAt uint64, ok bool) {
	pos := r.head & (r.size - 1)
	need := n
	if pos+n > r.size {
		need += r.size - pos
		wrap = true
	}
	if need > r.free() {
		return 0, false, 0, false
	}
	if wrap {
		return 0, true, pos, true
	}
	return pos, false, 0, true
}

// inRing is the receiver's view of a ring it consumes.
type inRing struct {
	peer     int
	region   RegionID
	ctl      *uint64
	data     []byte
	size     uint64
	consumed uint64 // bytes delivered: the next record is at consumed
	released uint64 // bytes whose cells are zeroed and whose count is published
	seq      uint32
	arrived  func(r RegionID, off uint64, n int) bool // LocalMemory.OnArrival
	line     *lineRecord                              // the peer's half of the pair's shared line, or nil
	quiet    quietWindow                              // reads held after a write to the peer
	ev       Event                                    // the event of every record, refilled (see Sink)
}

func newInRing(peer int, region RegionID, mem []byte) *inRing {
	return &inRing{peer: peer, region: region, ctl: word(mem, 0), data: mem[ringCtl:], size: uint64(len(mem) - ringCtl)}
}

// peek returns the record at the consumer position, if its signal landed,
// and whether it is packed (a wrap marker returns no record, and the
// space to skip).
func (r *inRing) peek() (rec []byte, size uint64, packed, ok bool) {
	pos := r.consumed & (r.size - 1)
	first := atomic.LoadUint64(word(r.data, pos))
	if first == 0 {
		return nil, 0, false, false
	}
	if uint8(first) == recWrap {
		if uint32(first>>32) != r.seq+1 {
			return nil, 0, false, false // not yet (cannot happen with a correct peer)
		}
		return nil, r.size - pos, false, true
	}
	at := uint64(recSignal)
	if end := uint64(uint16(first >> (8 * recEnd))); end > 0 {
		at = end*cell - 8
		packed = true
	}
	if pos+at >= r.size {
		return nil, 0, false, false // cannot happen with a correct peer
	}
	sig := atomic.LoadUint64(word(r.data, pos+at))
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
	if n := r.consumed - r.released; n == cell {
		at := r.released & (r.size - 1)
		*word(r.data, at) = 0
		*word(r.data, at+recSignal) = 0
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
