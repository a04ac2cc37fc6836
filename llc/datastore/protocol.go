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
//	'P' put     key, value
//	'G' get     key
//	'F' fence   -
//	'A' abort   code (decimal), message
//	'C' cancel  - (drops the pending get whose id is the frame's id)
//	'B' bye     - (the client closes cleanly; no response)
//
// Responses carry one field: the value (get), or an error message.
//
//	'o' ok
//	'e' the request failed
//	'l' the request failed because a rank of the job is gone
const (
	opPut    byte = 'P'
	opGet    byte = 'G'
	opFence  byte = 'F'
	opAbort  byte = 'A'
	opCancel byte = 'C'
	opBye    byte = 'B'

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
	case opAbort:
		return "abort"
	case opCancel:
		return "cancel"
	case opBye:
		return "bye"
	}
	return fmt.Sprintf("op %q", op)
}

func appendFrame(buf []byte, f frame) []byte {
	n := 1 + 8
	for _, s := range f.fields {
		n += 4 + len(s)
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
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
