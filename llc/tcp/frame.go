package tcp

import (
	"encoding/binary"

	"github.com/rhinet-go/martini/llc"
)

// Wire format. A connection carries frames in both directions. Every
// frame is a 48-byte little-endian header followed by n payload bytes:
//
//	[0]      kind
//	[1]      status (answers: 0 done, else the payload is the error's text;
//	         welcome: a welcome* value)
//	[4, 8)   region
//	[8, 16)  off
//	[16, 24) n, the payload's length
//	[24, 48) a, b, c: by kind
//
// Frames, by kind (the initiator sends the first four and records; the
// target's Poll serves them in order and answers on the connection it
// sends on, which is the same unless both dialed at once: see peer):
//
//	fWrite     write the payload at (region, off); then, if c is not 0,
//	           store the word c at (region, b); a is the command's token,
//	           echoed by fWriteErr when the write cannot be done
//	fRead      read a bytes at (region, off): fAnswer with them
//	fCAS       compare the word at (region, off) with a, swap in b:
//	           fAnswer with the previous word as a
//	fFetchAdd  add b to the word at (region, off): fAnswer with the
//	           previous word as a
//	fRecord    a record for the receive queue: its RecordMeta bytes of
//	           meta, then its body
//	fCombine   combine the payload into the b&^combineFetch bytes at
//	           (region, off) with the combination of code a (llc.Combine),
//	           under the ticket lock whose word is at offset c>>32 of
//	           region uint32(c), or word by word (llc.CombineWords) where
//	           that region is 0: fAnswer with the bytes before if b has
//	           combineFetch, else with nothing. A lock another holds
//	           stalls the connection's frames until it is served.
//	fAnswer    the answer to the oldest unanswered fRead, fCAS, fFetchAdd
//	           or fCombine
//	fWriteErr  a failed fWrite: a is its token, the payload the error
//	fBye       the sender closes its transport (it finalized): nothing
//	           follows, and the end of the stream is no failure; a is
//	           byeElsewhere on a connection the sender only read, its
//	           frames having gone on its own dial
//	fSwitch    the sender's frames go on the other connection of the pair
//	           from now on (converge.go): nothing follows, and the end of
//	           the stream is no failure
//
// A connection starts with a handshake of headers: the dialing process
// sends fHello (off magic, a the job key, b from<<32 | to, c the job's
// size) and its frames right after it, without waiting; the accepting one
// answers fWelcome, before anything else it sends on the connection, with
// a status: welcomeOK, or welcomeRefused (and closes the connection) when
// the hello is not of this job, or when the dialer has two connections to
// it already.
const (
	fWrite uint8 = iota + 1
	fRead
	fCAS
	fFetchAdd
	fRecord
	fAnswer
	fWriteErr
	fHello
	fWelcome
	fBye
	fSwitch
	fCombine
)

// combineFetch marks an fCombine whose answer carries the bytes before.
const combineFetch = 1 << 63

// Handshake values.
const (
	helloMagic     = 0x314c_4c43_5054_4300 // "\x00CTPCLL1"
	welcomeOK      = 0
	welcomeRefused = 2
	byeElsewhere   = 1
)

// hdrSize is the size of a frame header.
const hdrSize = 48

// MaxRecord is the largest record (meta and body) a CmdEnqueue carries:
// 64 KiB of body, the largest eager limit the queue allows.
const MaxRecord = 64<<10 + llc.RecordMeta

// maxErrText bounds the error text of an answer.
const maxErrText = 1024

// header is a frame header.
type header struct {
	kind, status uint8
	region       llc.RegionID
	off, n       uint64
	a, b, c      uint64
}

func (h *header) put(b []byte) {
	_ = b[hdrSize-1]
	b[0], b[1], b[2], b[3] = h.kind, h.status, 0, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(h.region))
	binary.LittleEndian.PutUint64(b[8:], h.off)
	binary.LittleEndian.PutUint64(b[16:], h.n)
	binary.LittleEndian.PutUint64(b[24:], h.a)
	binary.LittleEndian.PutUint64(b[32:], h.b)
	binary.LittleEndian.PutUint64(b[40:], h.c)
}

func (h *header) get(b []byte) {
	_ = b[hdrSize-1]
	h.kind, h.status = b[0], b[1]
	h.region = llc.RegionID(binary.LittleEndian.Uint32(b[4:]))
	h.off = binary.LittleEndian.Uint64(b[8:])
	h.n = binary.LittleEndian.Uint64(b[16:])
	h.a = binary.LittleEndian.Uint64(b[24:])
	h.b = binary.LittleEndian.Uint64(b[32:])
	h.c = binary.LittleEndian.Uint64(b[40:])
}
