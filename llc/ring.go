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
//	[64, 64+size) records, each 64-byte aligned
//
// A record is [signal word | meta (24 bytes) | payload]. The sender writes
// meta and payload, then the signal word (seq<<32 | record size), which the
// receiver polls. After consuming a record the receiver zeroes the first
// word of every 64-byte cell it covered, so that any future record position
// reads zero until its signal lands, and publishes the consumer count. The
// sender reads that count (one remote read) only when its cached view says
// the ring is full, as PM/RHiNET does.
const (
	ringCtl    = 64
	cell       = 64
	recHeader  = 32 // signal + meta
	wrapMarker = 1  // record size value that means "continue at offset 0"
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
	tag    int32
	ctx    uint32
	length uint32 // payload length (eager) or message length (RTS)
	aux    uint64 // rendezvous ids
}

func (m *meta) put(b []byte) {
	b[0] = m.kind
	binary.LittleEndian.PutUint32(b[4:], uint32(m.tag))
	binary.LittleEndian.PutUint32(b[8:], m.ctx)
	binary.LittleEndian.PutUint32(b[12:], m.length)
	binary.LittleEndian.PutUint64(b[16:], m.aux)
}

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	m.ctx = binary.LittleEndian.Uint32(b[8:])
	m.length = binary.LittleEndian.Uint32(b[12:])
	m.aux = binary.LittleEndian.Uint64(b[16:])
}

func recordSize(payload int) uint64 {
	return uint64(recHeader+payload+cell-1) / cell * cell
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
	pos := r.head % r.size
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
	consumed uint64
	seq      uint32
}

func newInRing(peer int, region RegionID, mem []byte) *inRing {
	return &inRing{peer: peer, region: region, ctl: word(mem, 0), data: mem[ringCtl:], size: uint64(len(mem) - ringCtl)}
}

// peek returns the record at the consumer position, if its signal landed.
func (r *inRing) peek() (rec []byte, size uint64, ok bool) {
	pos := r.consumed % r.size
	sig := atomic.LoadUint64(word(r.data, pos))
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

// release frees the record of n bytes at the consumer position.
func (r *inRing) release(n uint64) {
	pos := r.consumed % r.size
	for c := pos; c < pos+n && c < r.size; c += cell {
		atomic.StoreUint64(word(r.data, c), 0)
	}
	r.seq++
	r.consumed += n
	atomic.StoreUint64(r.ctl, r.consumed)
}
