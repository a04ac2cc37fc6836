package datastore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Wire protocol. Every message is a frame:
//
//	uint32  length of the rest of the frame (big endian)
//	byte    kind: an operation (request) or a status (response)
//	uint64  request id, chosen by the client, echoed in the response
//	fields  each a uint32 length followed by that many bytes
//
// Requests and their fields:
//
//	'P' put      key, value
//	'G' get      key
//	'F' fence    -
//	'D' collect  prefix (a fence that collects data, see below)
//	'A' abort    code (decimal), message
//	'C' cancel   - (drops the pending get whose id is the frame's id)
//	'B' bye      - (the client closes cleanly; no response)
//
// Responses, by status:
//
//	'o' ok
//	'e' the request failed
//	'l' the request failed because a rank of the job is gone
//
// A response carries one field: the value (get), or an error message. The
// ok response to a collect is the exception: it carries every pair of the
// store whose key begins with prefix when the fence completes, two fields
// each, key then value, sorted by key:
//
//	'o' id  key1, value1, key2, value2, ...
//
// so that a rank learns what every rank published in one round trip
// instead of one get per key (a fence with data collection, as PMIx_Fence
// with PMIX_COLLECT_DATA; with PMI-1 a rank does a kvs_fence and then a
// get per key). A collection that would not fit in a frame fails with 'e'.
const (
	opPut     byte = 'P'
	opGet     byte = 'G'
	opFence   byte = 'F'
	opCollect byte = 'D'
	opAbort   byte = 'A'
	opCancel  byte = 'C'
	opBye     byte = 'B'

	stOK   byte = 'o'
	stErr  byte = 'e'
	stLost byte = 'l'
)

// maxFrame bounds the size of a frame, so that a corrupt length cannot make
// a peer allocate without limit.
const maxFrame = 64 << 20

type frame struct {
	kind   byte
	id     uint64
	fields []string
}

func (f frame) field(i int) string {
	if i < len(f.fields) {
		return f.fields[i]
	}
	return ""
}

func opName(op byte) string {
	switch op {
	case opPut:
		return "put"
	case opGet:
		return "get"
	case opFence:
		return "fence"
	case opCollect:
		return "collect"
	case opAbort:
		return "abort"
	case opCancel:
		return "cancel"
	case opBye:
		return "bye"
	}
	return fmt.Sprintf("op %q", op)
}

// bodyLen returns the length a frame with fields has after its length
// word.
func bodyLen(fields []string) int {
	n := 1 + 8
	for _, s := range fields {
		n += 4 + len(s)
	}
	return n
}

func appendFrame(buf []byte, f frame) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(bodyLen(f.fields)))
	buf = append(buf, f.kind)
	buf = binary.BigEndian.AppendUint64(buf, f.id)
	for _, s := range f.fields {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	return buf
}

func writeFrame(w io.Writer, f frame) error {
	_, err := w.Write(appendFrame(nil, f))
	return err
}

var errBadFrame = errors.New("malformed frame")

func readFrame(r *bufio.Reader) (frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 9 || n > maxFrame {
		return frame{}, fmt.Errorf("%w: length %d", errBadFrame, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return frame{}, unexpectedEOF(err)
	}
	f := frame{kind: buf[0], id: binary.BigEndian.Uint64(buf[1:9])}
	rest := buf[9:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return frame{}, fmt.Errorf("%w: truncated field length", errBadFrame)
		}
		l := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(l) > uint64(len(rest)) {
			return frame{}, fmt.Errorf("%w: field of %d bytes, %d left", errBadFrame, l, len(rest))
		}
		f.fields = append(f.fields, string(rest[:l]))
		rest = rest[l:]
	}
	return f, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
