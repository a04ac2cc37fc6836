package llc

import (
	"encoding/binary"

	"github.com/rhinet-go/martini/llc/layout"
)

// The records, rings and lines the engine writes and a receiver reads
// have their format in package layout; these are the engine's names for
// it.
const (
	ringCtl   = layout.RingCtl
	ringLine  = layout.RingLine
	cell      = layout.Cell
	recMeta   = layout.RecMeta
	recInline = layout.RecInline
	recSignal = layout.RecSignal
	recHeader = layout.RecHeader
	recEnd    = layout.RecEnd
)

// Record kinds.
const (
	recEager uint8 = iota + 1 // payload is the message
	recRTS                    // rendezvous request to send
	recCTS                    // rendezvous clear to send (write variant)
	recFIN                    // rendezvous finished
	recWrap  = layout.KindWrap
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

func (m *meta) put(b []byte) { layout.PutMeta(b, m.kind, m.flags, m.tag, m.ctx, m.length, m.aux) }

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.flags = b[1]
	m.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	m.ctx = binary.LittleEndian.Uint32(b[8:])
	m.length = binary.LittleEndian.Uint32(b[12:])
	m.aux = binary.LittleEndian.Uint64(b[16:])
}

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
