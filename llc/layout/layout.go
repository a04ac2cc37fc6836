// Package layout is the format of what a load/store network carries
// between the engine's send half and a receiver: the records of an eager
// ring (meta, signal word, packed and split layouts, wrap markers), the
// ring region (control line, shared line, record space) and the halves of
// a pair's shared line. The engine (package llc) formats records with it
// and a receiver (package llc/shm) reads them with it; neither needs the
// other's code. It depends on nothing but the standard library.
//
// An eager ring is owned by the receiver, allocated for one sender on that
// sender's first contact (after Liu, Wu and Panda). Layout of its region:
//
//	[0, 64)         control: the consumer count (bytes consumed, monotonic)
//	[128, 192)      the pair's shared line, used only in the ring that the
//	                lower-numbered process of a pair grants
//	[192, 256)      its shared extension line, halved as it is
//	[256, 512)      the extension lines of its two halves, two each
//	[512, 512+size) records, each a whole number of 64-byte cells
//
// The line at [64, 128) is unused: the shared line's aligned 128 bytes,
// which processors fetch together (an adjacent-line prefetch), hold no
// consumer count, which the ring's owner writes.
//
// A record begins with its meta (24 bytes), whose first word names the
// record's kind and where its signal word is (RecEnd), and ends its first
// cell or its last with the signal word (seq<<32 | record size). Two
// layouts:
//
//   - packed: [meta | body | padding | signal], the signal the record's
//     last word. The record is one write whose last word lands last, as in
//     PM/RHiNET's trailer polling. Every record of one cell is packed, and
//     so are longer ones up to the engine's Config.PackedRecords.
//   - split: [meta | 32 unused bytes | signal] then the body from the
//     second cell: the body's cells are written first, then the first cell.
//
// The receiver reads the first word of the record position; once it is
// not zero, it reads the signal word where the first word says, and takes
// the record once that landed too. Once it has consumed records, the
// receiver zeroes the first and the last word of every cell they covered,
// so that any future record position, and any future signal position,
// reads zero until written, and publishes the consumer count. A wrap
// marker is one word at the record position. The sender reads the count
// (one remote read) only when its cached view says the ring is full, as
// PM/RHiNET does.
//
// A pair's shared line is one 64-byte cache line at RingLine of that
// ring: the lower-numbered process writes the first half, the other the
// second, and each polls the other's half. A half holds one record at a
// time, of up to LineBody bytes of body and no aux word, in four
// little-endian words:
//
//	[0, 8)   tag (low 32 bits), context (high 32 bits)
//	[8, 24)  the body's first 16 bytes
//	[24, 32) the signal (LineSignal): the record's kind, flags and body
//	         length (bits 0-7, 8-15, 16-23), how many of the other
//	         process's line records this one has consumed, modulo 256
//	         (its acknowledgement, bits 24-31), and the record's sequence
//	         number in the ring (the high 32 bits)
//
// A body of up to 16 bytes, a pair of float64 or a complex128, is read
// with the signal's own line. The acknowledgement needs no more than a
// byte: a process writes a record into its half only once the other has
// acknowledged the last one, so the count a reader sees moves by at most
// one between two looks.
//
// The rest of a longer body goes into one of the writer's two extensions
// (LineExt): up to LineExtShared bytes into its half of the shared
// extension line, the line after the shared one, halved as that is; up
// to LineExtBody into its own two extension lines, as many of them as the
// rest takes. The signal is written last.
// The shorter rest takes a shared line for the reason the signal does: a
// ping-pong moves a line that each process reads and then writes once a
// message, where a line that only its writer writes moves to the reader
// and back (docs/decisions.md, LineExtShared). The longer takes a line
// of its own, whole, rather than a shared half and more: a third line
// costs more than the second line saves. A rest of more than a line takes
// the second own line too, where the ring's record of two or three cells
// and the NIC's send path cost more (docs/decisions.md, LineExtBody). In
// a ping-pong the reader of an own line stores into it too, and its
// writer takes it back when the answer comes (llc/shm, takeLine), so that
// it moves as a shared line does. A line record reserves one cell
// in the sender's ring and takes the ring's next sequence number, but
// leaves the cell untouched; the receiver, finding no record at its ring
// position, takes the line's record when its sequence number is the next
// one.
package layout

import (
	"encoding/binary"
	"unsafe"
)

// The ring region and its records.
const (
	RingCtl   = 512 // bytes before the records: the control line, the shared line and its five extension lines
	RingLine  = 128 // offset of the shared line
	Cell      = 64  // the unit of record space
	RecMeta   = 24  // a record's meta
	RecInline = 32  // largest payload carried in the first cell of a split record
	RecSignal = Cell - 8
	RecHeader = RecMeta + 8 // bytes of the first cell that are not payload
	// RecEnd is the offset in the meta of a 16-bit count: the cells of a
	// packed record, whose signal word is its last; 0 for a split record,
	// whose signal ends the first cell.
	RecEnd = 2
)

// Record kinds that the receiver itself deals in; the engine numbers the
// others from 1.
const (
	// KindLineAck is the kind of the record by which a receiver reports
	// an acknowledgement alone in a peer's half of a line (never written
	// anywhere).
	KindLineAck uint8 = 0xfe
	// KindWrap marks the rest of the ring as unused: the next record is
	// at offset 0. A wrap marker is one word, its sequence number in the
	// upper half.
	KindWrap uint8 = 0xff
)

// The halves of a pair's shared line.
const (
	LineHalf      = Cell / 2                   // one process's half
	LineHalfBody  = 16                         // bytes of body in the half itself
	LineExtShared = LineHalf                   // most bytes of body in the writer's half of the shared extension line
	LineExtBody   = 2 * Cell                   // most bytes of body in the writer's own extension lines
	LineBody      = LineHalfBody + LineExtBody // largest body of a line record
	LineSig       = LineHalf - 8               // offset of the signal word in a half
)

// LineSignal returns the signal word of a line record (see the layout
// above): sequence number seq, kind, flags, a body of length bytes (at
// most LineBody), and ack, the count of the other process's line records
// consumed, of which the word keeps the low byte.
func LineSignal(seq uint32, kind, flags uint8, length int, ack uint32) uint64 {
	return uint64(seq)<<32 | uint64(uint8(ack))<<24 | uint64(uint8(length))<<16 | uint64(flags)<<8 | uint64(kind)
}

// LineSignalMeta is the mask of a line record's signal word that holds
// its kind, flags and body length.
const LineSignalMeta = 1<<24 - 1

// PutMeta writes a record's meta into b from its fields. The path of
// every message calls it rather than building a meta: a meta built on the
// stack field by field and then copied whole makes the processor wait for
// the narrow stores to land before the wide load of the copy.
func PutMeta(b []byte, kind, flags uint8, tag int32, ctx, length uint32, aux uint64) {
	_ = b[RecMeta-1]
	b[0] = kind
	b[1] = flags
	binary.LittleEndian.PutUint32(b[4:], uint32(tag))
	binary.LittleEndian.PutUint32(b[8:], ctx)
	binary.LittleEndian.PutUint32(b[12:], length)
	binary.LittleEndian.PutUint64(b[16:], aux)
}

// RecordSize is the size of a split record of payload bytes.
func RecordSize(payload int) uint64 {
	if payload <= RecInline {
		return Cell
	}
	return Cell + uint64(payload+Cell-1)/Cell*Cell
}

// PackedSize is the size of a packed record of payload bytes.
func PackedSize(payload int) uint64 { return uint64(RecHeader+payload+Cell-1) / Cell * Cell }

// Size is the size of a record of payload bytes in its layout:
// PackedSize if packed, RecordSize otherwise.
func Size(payload int, packed bool) uint64 {
	if packed {
		return PackedSize(payload)
	}
	return RecordSize(payload)
}

// Body returns the payload of a record of body bytes; packed says
// whether the record is packed (or of one cell).
func Body(rec []byte, body int, packed bool) []byte {
	if packed || body <= RecInline {
		return rec[RecMeta : RecMeta+body]
	}
	return rec[Cell : Cell+body]
}

// WrapWord is the wrap marker of sequence number seq.
func WrapWord(seq uint32) uint64 { return uint64(seq)<<32 | uint64(KindWrap) }

// Signal is the signal word of the record of sequence number seq and
// size bytes.
func Signal(seq uint32, size uint64) uint64 { return uint64(seq)<<32 | size }

// Word returns the 8-byte word at off of b, for atomic loads and stores;
// off must be 8-aligned in memory that is.
func Word(b []byte, off uint64) *uint64 { return (*uint64)(unsafe.Pointer(&b[off])) }

// LineExt returns the two extensions of the half at offset half of mem, a
// line's region, which must hold them (LineEnd): the same half of the
// shared extension line, and the writer's own extension lines, the first
// two after the shared extension line for the first half, the next two
// for the second.
func LineExt(mem []byte, half uint64) (shared, own []byte) {
	a, b := half+Cell, lineOwnExt(half)
	return mem[a : a+LineExtShared : a+LineExtShared], mem[b : b+LineExtBody : b+LineExtBody]
}

// OtherHalf returns the offset of the shared line's other half than the
// half at offset half.
func OtherHalf(half uint64) uint64 { return 2*RingLine + LineHalf - half }

// LineRestShared reports whether the rest of a line record's body past
// the half, of rest bytes (1 to LineExtBody), goes into the writer's half
// of the shared extension line rather than its own extension line.
func LineRestShared(rest int) bool { return rest <= LineExtShared }

// lineOwnExt returns the offset of the own extension lines of the half at
// offset half.
func lineOwnExt(half uint64) uint64 { return RingLine + 2*Cell + (half-RingLine)/LineHalf*LineExtBody }

// LineEnd returns the end of the half at offset half and its extension
// in the line's region.
func LineEnd(half uint64) uint64 { return lineOwnExt(half) + LineExtBody }

// LineFits reports whether half is the offset of one of the shared line's
// two halves and a line's region of size bytes holds it with its
// extensions (LineExt).
func LineFits(half uint64, size int) bool {
	return half%LineHalf == 0 && half >= RingLine && half < RingLine+Cell && LineEnd(half) <= uint64(size)
}

// LineHalves returns the offsets in the line's region of the half that
// process self writes and of the half that peer writes.
func LineHalves(self, peer int) (mine, theirs uint64) {
	if self < peer {
		return RingLine, RingLine + LineHalf
	}
	return RingLine + LineHalf, RingLine
}
