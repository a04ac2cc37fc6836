package tcp

import (
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/fdio"
)

// A frame whose payload is at most wholeMax bytes is acted on once it is
// all in the receive buffer; a larger payload is read straight into its
// destination (target memory, a read's buffer), past the buffer. Records
// are always whole: the buffer holds two of the largest.
const (
	wholeMax  = 4 << 10
	inBufSize = 2 * (hdrSize + MaxRecord)
	maxReads  = 64 // reads of one connection in one Poll
)

// inbound is what arrived on one connection and is not consumed yet.
type inbound struct {
	fdio.Stream
	// streaming: the rest of a payload is being taken (fdio.Stream.Take);
	// then fin completes its frame.
	streaming bool
	fin       finish
	bye       bool // the peer said it closes: the end of the stream is no failure
	elsewhere bool // with bye: the peer's frames came on its own dial, rfd
	// lock is the ticket lock the fCombine at the read position drew a
	// ticket of (nil: none); until the ticket is served, the frames stall.
	lock   *uint64
	ticket uint32
}

// finish is what completes a frame once its payload has arrived.
type finish struct {
	sig    *uint64 // fWrite: the signal word to store, or nil
	sigVal uint64
	answer bool // fAnswer: the oldest request's read is complete
}

// take consumes the n-byte payload of the frame at the read position: the
// part in the buffer goes to dst (nil: dropped), and the rest will be read
// straight into dst (or discarded) before fin. It reports whether the
// payload is all consumed already.
func (in *inbound) take(n uint64, dst []byte, fin finish) bool {
	if in.Take(hdrSize, n, dst) {
		return true
	}
	in.streaming, in.fin = true, fin
	return false
}

// receive reads what p's connection brought (the second one, rfd, when
// second is set) and acts on it: it applies writes, serves requests, and
// delivers records and answers to sink. It reports whether anything
// arrived.
func (t *Transport) receive(p *peer, second bool, sink llc.Sink) (bool, error) {
	fd, in := p.fd, &p.in
	if second {
		fd, in = p.rfd, &p.rin
	}
	in.Alloc(inBufSize) // a second connection's first read, or one that took the first's place
	got := false
	for range maxReads {
		if err := t.frames(p, in, sink); err != nil {
			return got, err
		}
		if in.lock != nil {
			return got, nil // a combination waits for its lock: read no more
		}
		if !second && p.holding() {
			return got, nil // what follows the welcome waits for the fSwitch (converge.go)
		}
		want, n, err := in.Read(fd, hdrSize+MaxRecord)
		switch {
		case err == unix.EAGAIN:
			return got, nil
		case err != 0:
			return got, t.connErr(p, err)
		case n == 0 && in.bye:
			t.ended(p, second)
			return true, nil
		case n == 0:
			return got, fmt.Errorf("tcp: process %d closed the connection", p.id)
		}
		got = true
		t.stats.bytesIn += uint64(n)
		if n < want { // nothing more for now
			return got, t.frames(p, in, sink)
		}
	}
	return got, nil
}

// frames acts on the frames that have arrived whole, and on a streamed
// payload that is complete.
func (t *Transport) frames(p *peer, in *inbound, sink llc.Sink) error {
	if in.streaming {
		if in.Streaming() {
			return nil
		}
		in.streaming = false
		t.complete(p, in.fin, sink)
	}
	for !in.streaming && len(in.Unread()) >= hdrSize {
		if in == &p.in && p.holding() {
			return nil // after the welcome, frames wait for the fSwitch (converge.go)
		}
		var h header
		h.get(in.Unread())
		ok, err := t.frame(p, in, &h, sink)
		if errors.Is(err, errRefused) {
			return err
		} else if err != nil {
			return fmt.Errorf("tcp: corrupt stream from process %d: %w", p.id, err)
		}
		if !ok {
			return nil
		}
		t.stats.framesIn++
	}
	return nil
}

// frame acts on the frame with header h at the read position of in; it
// reports false when the frame must be whole and is not yet.
func (t *Transport) frame(p *peer, in *inbound, h *header, sink llc.Sink) (bool, error) {
	if p.welcome && in == &p.in && h.kind != fWelcome {
		return false, fmt.Errorf("a frame of kind %d before the welcome", h.kind)
	}
	whole := h.n <= uint64(len(in.Unread())-hdrSize)
	switch h.kind {
	case fWrite:
		if !whole && h.n <= wholeMax {
			return false, nil
		}
		dst, err := t.mem.Span(h.region, h.off, h.n)
		var sig *uint64
		if err == nil && h.c != 0 {
			sig, err = t.mem.Word(h.region, h.b)
		}
		if err != nil {
			t.refuseWrite(p, h, err)
			dst, sig = nil, nil
		}
		if in.take(h.n, dst, finish{sig: sig, sigVal: h.c}) {
			t.complete(p, finish{sig: sig, sigVal: h.c}, sink)
		}
	case fRecord:
		if h.n < llc.RecordMeta || h.n > MaxRecord {
			return false, fmt.Errorf("a record of %d bytes", h.n)
		}
		if !whole {
			return false, nil
		}
		rec := in.Unread()[hdrSize : hdrSize+int(h.n)]
		in.Consume(hdrSize + int(h.n))
		t.deliver(sink, llc.Event{Kind: llc.EvRecord, Peer: p.id, Head: rec[:llc.RecordMeta], Data: rec[llc.RecordMeta:]})
	case fRead, fCAS, fFetchAdd:
		if h.n != 0 {
			return false, fmt.Errorf("a request of kind %d with a payload", h.kind)
		}
		in.Consume(hdrSize)
		t.serve(p, h)
	case fCombine:
		if h.n > llc.MaxCombine {
			return false, fmt.Errorf("a combination with %d bytes of operand", h.n)
		}
		if !whole {
			return false, nil
		}
		return t.combine(p, in, h), nil
	case fAnswer, fWriteErr:
		return t.answer(p, in, h, whole, sink)
	case fWelcome, fSwitch, fBye:
		if err := t.control(p, in, h); err != nil {
			return false, err
		}
	default:
		return false, fmt.Errorf("a frame of kind %d", h.kind)
	}
	return true, nil
}

// refuseWrite answers p's write h, whose memory err refused, with an
// fWriteErr, and fails this process's engine at the next Poll: the
// writer learns it only after its write completed, and a record telling
// this process the data is there may follow, so the engine stops rather
// than take what was not written. The caller then skips the write's data.
func (t *Transport) refuseWrite(p *peer, h *header, err error) {
	t.replyErr(p, fWriteErr, h.a, err)
	t.late = append(t.late, llc.Event{Kind: llc.EvError,
		Err: fmt.Errorf("tcp: a write of process %d into this process was refused: %w", p.id, err)})
}

// control acts on a frame of the connection's own life from p: the
// welcome on this process's dial, a switch of connections, a goodbye.
func (t *Transport) control(p *peer, in *inbound, h *header) error {
	if h.n != 0 {
		return fmt.Errorf("a frame of kind %d with a payload", h.kind)
	}
	in.Consume(hdrSize)
	switch h.kind {
	case fWelcome:
		if !p.welcome || in != &p.in {
			return errors.New("a welcome on a connection this process did not dial, or a second one")
		}
		return t.welcomed(p, h)
	case fSwitch:
		if !p.held || in != &p.rin {
			return errors.New("a switch of connections this process does not wait for")
		}
		in.bye, p.held = true, false
	default:
		in.bye, in.elsewhere = true, h.a == byeElsewhere
	}
	return nil
}

// complete finishes a frame whose payload has all arrived.
// deliver steps sink with ev, held in the transport's event: an event
// handed to a Sink by its address would otherwise be allocated.
func (t *Transport) deliver(sink llc.Sink, ev llc.Event) {
	t.ev = ev
	sink.Step(&t.ev)
}

func (t *Transport) complete(p *peer, f finish, sink llc.Sink) {
	if f.sig != nil {
		atomic.StoreUint64(f.sig, f.sigVal)
	}
	if f.answer {
		if q := p.pend.Pop(); q.Token != 0 {
			t.deliver(sink, llc.Event{Kind: llc.EvDone, Token: q.Token})
		}
	}
}

// serve performs a request of p on this process's memory and queues the
// answer.
func (t *Transport) serve(p *peer, h *header) {
	t.stats.served++
	kind := llc.CmdRead
	switch h.kind {
	case fCAS:
		kind = llc.CmdCAS
	case fFetchAdd:
		kind = llc.CmdFetchAdd
	}
	v, data, err := t.mem.Serve(kind, h.region, h.off, h.a, h.b)
	if err != nil {
		t.replyErr(p, fAnswer, 0, err)
		return
	}
	add(&p.out, &header{kind: fAnswer, a: v, n: uint64(len(data))}, nil, data)
}

// replyErr queues a failed answer (fAnswer, fWriteErr with token) carrying
// err's text.
func (t *Transport) replyErr(p *peer, kind uint8, token uint64, err error) {
	text := []byte(err.Error())
	text = text[:min(len(text), maxErrText)]
	add(&p.out, &header{kind: kind, status: 1, n: uint64(len(text)), a: token}, text, nil)
}

// answer acts on an fAnswer or fWriteErr from p.
func (t *Transport) answer(p *peer, in *inbound, h *header, whole bool, sink llc.Sink) (bool, error) {
	q := p.pend.Oldest()
	if h.kind == fAnswer && q == nil {
		return false, errors.New("an answer that no request awaits")
	}
	if h.status != 0 || h.kind == fWriteErr {
		if h.n > maxErrText {
			return false, fmt.Errorf("an error of %d bytes", h.n)
		}
		if !whole {
			return false, nil
		}
		text := string(in.Unread()[hdrSize : hdrSize+int(h.n)])
		in.Consume(hdrSize + int(h.n))
		kind, token := llc.CmdWrite, h.a
		if h.kind == fAnswer {
			q := p.pend.Pop()
			kind, token = q.Kind, q.Token
		}
		t.deliver(sink, llc.Event{Kind: llc.EvError, Token: token, Err: fmt.Errorf("tcp: %v at process %d: %s", kind, p.id, text)})
		return true, nil
	}
	if q.Kind != llc.CmdRead && (q.Kind != llc.CmdCombine || q.Data == nil) {
		if h.n != 0 {
			return false, fmt.Errorf("an answer of %d bytes to a %v", h.n, q.Kind)
		}
		in.Consume(hdrSize)
		if q := p.pend.Pop(); q.Token != 0 {
			t.deliver(sink, llc.Event{Kind: llc.EvDone, Token: q.Token, Value: h.a})
		}
		return true, nil
	}
	if h.n != uint64(len(q.Data)) {
		return false, fmt.Errorf("an answer of %d bytes to a read of %d", h.n, len(q.Data))
	}
	if !whole && h.n <= wholeMax {
		return false, nil
	}
	if in.take(h.n, q.Data, finish{answer: true}) {
		t.complete(p, finish{answer: true}, sink)
	}
	return true, nil
}
