package llc

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// An eager ring is owned by the receiver, allocated for one sender on that
// sender's first contact (after Liu, Wu and Panda). Layout of the region:
//
//	[0, 64)       control: the consumer count (bytes consumed, monotonic)
//	[64, 64+size) records, each a whole number of 64-byte cells
//
// A record's first cell is [meta (24 bytes) | inline payload (up to 32
// bytes) | signal word]; a payload longer than 32 bytes fills the cells that
// follow instead. The signal word (seq<<32 | record size) is the last word
// of the first cell, so a small message is one write whose last word lands
// last, as in PM/RHiNET's trailer polling; a longer one writes its payload
// cells first, then the first cell. Once it has consumed records, the
// receiver zeroes the signal position of every cell they covered, so that
// any future record position reads zero until its signal lands, and
// publishes the consumer count; it does so at its next poll (inRing.flush).
// The sender reads that count (one remote read) only when
// its cached view says the ring is full, as PM/RHiNET does.
const (
	ringCtl    = 64
	cell       = 64
	recMeta    = 24
	recInline  = 32          // largest payload carried in the first cell
	recSignal  = cell - 8    // offset of the signal word in the first cell
	wrapMarker = 1           // record size value that means "continue at offset 0"
	recHeader  = recMeta + 8 // bytes of the first cell that are not payload
)

// Record kinds.
const (
	recEager uint8 = iota + 1 // payload is the message
	recRTS                    // rendezvous request to send
	recCTS                    // rendezvous clear to send (write variant)
	recFIN                    // rendezvous finished
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

func (m *meta) put(b []byte) {
	b[0] = m.kind
	b[1] = m.flags
	binary.LittleEndian.PutUint32(b[4:], uint32(m.tag))
	binary.LittleEndian.PutUint32(b[8:], m.ctx)
	binary.LittleEndian.PutUint32(b[12:], m.length)
	binary.LittleEndian.PutUint64(b[16:], m.aux)
}

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.flags = b[1]
	m.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	m.ctx = binary.LittleEndian.Uint32(b[8:])
	m.length = binary.LittleEndian.Uint32(b[12:])
	m.aux = binary.LittleEndian.Uint64(b[16:])
}

func recordSize(payload int) uint64 {
	if payload <= recInline {
		return cell
	}
	return cell + uint64(payload+cell-1)/cell*cell
}

// recordBody returns the payload of a record of body bytes.
func recordBody(rec []byte, body int) []byte {
	if body <= recInline {
		return rec[recMeta : recMeta+body]
	}
	return rec[cell : cell+body]
}

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
}

func newInRing(peer int, region RegionID, mem []byte) *inRing {
	return &inRing{peer: peer, region: region, ctl: word(mem, 0), data: mem[ringCtl:], size: uint64(len(mem) - ringCtl)}
}

// peek returns the record at the consumer position, if its signal landed.
func (r *inRing) peek() (rec []byte, size uint64, ok bool) {
	pos := r.consumed & (r.size - 1)
	sig := atomic.LoadUint64(word(r.data, pos+recSignal))
	if sig == 0 {
		return nil, 0, false
	}
	size = sig & 0xffffffff
	if uint32(sig>>32) != r.seq+1 {
		return nil, 0, false // not yet (cannot happen with a correct peer)
	}
	if size == wrapMarker {
		return nil, r.size - pos, true
	}
	return r.data[pos : pos+size], size, true
}

// release moves the consumer position past the record of n bytes at it;
// flush later hands its space back to the sender.
func (r *inRing) release(n uint64) {
	r.seq++
	r.consumed += n
}

// flush hands the space of the records delivered since the last flush back
// to the sender: it zeroes the signal position of every cell they covered,
// so that any future record position reads zero until its signal lands,
// and publishes the consumer count. poll flushes before it looks for new
// records, not after it delivers them: the zeroing stores must take the
// cells' lines back from the sender's cache, and the count's atomic store
// waits for that, which would delay the delivered message's receiver
// (about a cache line's trip between cores); done at the next poll, the
// wait overlaps the wait for the next record. The sender reads the count
// only when its view says the ring is full, and every wait polls, so the
// space comes back as soon as the receiver waits again.
func (r *inRing) flush() {
	if r.released == r.consumed {
		return
	}
	// Plain stores: they become visible before the consumer count, which
	// is published with an atomic store after them.
	for c := r.released; c < r.consumed; c += cell {
		*word(r.data, c&(r.size-1)+recSignal) = 0
	}
	r.released = r.consumed
	atomic.StoreUint64(r.ctl, r.consumed)
}
