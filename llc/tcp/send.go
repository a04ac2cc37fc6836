package tcp

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
	"golang.org/x/sys/unix"
)

// Data of a frame up to copyMax bytes is copied into the send queue; a
// larger one is written from where it is, the queue keeping a reference
// until it is sent. A write with a Token whose data is not sent at once
// keeps its reference, and completes later, when at least zeroCopyMin
// bytes are left; otherwise the rest is copied and it completes at once.
const (
	copyMax     = 4 << 10
	zeroCopyMin = 64 << 10
	maxIov      = 64
)

// outQueue is what waits to be written to one connection, in order: bytes
// the queue owns (frame headers, and data copied in) and, between them,
// references to data it does not own, each sent after the owned bytes
// before its position.
type outQueue struct {
	buf  []byte
	off  int // buf[:off] is written
	refs []outRef
	ref  int // refs[:ref] are written
}

// outRef is data the queue sends without copying it.
type outRef struct {
	at    int    // the position in buf the data goes before
	data  []byte // the part not written yet
	token uint64 // the command to complete once written, or 0
}

func (q *outQueue) empty() bool { return q.off == len(q.buf) && q.ref == len(q.refs) }

// compact drops the written bytes when they are most of the buffer.
func (q *outQueue) compact() {
	if q.empty() {
		q.buf, q.off = q.buf[:0], 0
		clear(q.refs)
		q.refs, q.ref = q.refs[:0], 0
		return
	}
	if q.off < 64<<10 || q.off < len(q.buf)/2 {
		return
	}
	q.buf = q.buf[:copy(q.buf, q.buf[q.off:])]
	n := copy(q.refs, q.refs[q.ref:])
	clear(q.refs[n:])
	q.refs = q.refs[:n]
	for i := range q.refs {
		q.refs[i].at -= q.off
	}
	q.off, q.ref = 0, 0
}

// add appends a frame: header h, then head and data, data by reference
// when it is large. It reports whether it took a reference.
func (q *outQueue) add(h *header, head, data []byte) bool {
	q.compact()
	q.buf = append(q.buf, make([]byte, hdrSize)...)
	h.put(q.buf[len(q.buf)-hdrSize:])
	q.buf = append(q.buf, head...)
	if len(data) <= copyMax {
		q.buf = append(q.buf, data...)
		return false
	}
	q.refs = append(q.refs, outRef{at: len(q.buf), data: data})
	return true
}

// gather fills iov with what is to be written next, in order.
func (q *outQueue) gather(iov []unix.Iovec) []unix.Iovec {
	pos := q.off
	for i := q.ref; i < len(q.refs); i++ {
		if len(iov) > maxIov-2 {
			return iov
		}
		r := &q.refs[i]
		if r.at > pos {
			iov = appendIov(iov, q.buf[pos:r.at])
			pos = r.at
		}
		iov = appendIov(iov, r.data)
	}
	if pos < len(q.buf) {
		iov = appendIov(iov, q.buf[pos:])
	}
	return iov
}

func appendIov(iov []unix.Iovec, b []byte) []unix.Iovec {
	v := unix.Iovec{Base: &b[0]}
	v.SetLen(len(b))
	return append(iov, v)
}

// consume drops n written bytes from the front of the queue; the
// completions of references written whole go to late.
func (q *outQueue) consume(n int, late *[]llc.Event) {
	for n > 0 {
		next := len(q.buf)
		if q.ref < len(q.refs) {
			next = q.refs[q.ref].at
		}
		if q.off < next {
			k := min(n, next-q.off)
			q.off += k
			n -= k
			continue
		}
		r := &q.refs[q.ref]
		k := min(n, len(r.data))
		r.data = r.data[k:]
		n -= k
		if len(r.data) == 0 {
			if r.token != 0 {
				*late = append(*late, llc.Event{Kind: llc.EvDone, Token: r.token})
			}
			*r = outRef{}
			q.ref++
		}
	}
}

// send issues c, a command to another process, on its connection as the
// frame h, head, data.
func (t *Transport) send(c *llc.Command, h *header, head, data []byte) llc.Event {
	p, err := t.reach(c.Peer)
	if err != nil {
		return llc.Event{Kind: llc.EvError, Token: c.Token, Err: err}
	}
	request := h.kind != fWrite && h.kind != fRecord
	if request {
		p.pend = append(p.pend, pending{kind: c.Kind, token: c.Token, data: c.Data})
	}
	ref := p.out.add(h, head, data)
	t.stats.framesOut++
	if p.state == stUp {
		if err := t.flush(p); err != nil {
			t.lose(p, t.connErr(p, err))
			if request {
				return llc.Event{} // lose failed it
			}
			return llc.Event{Kind: llc.EvError, Token: c.Token, Err: p.err}
		}
	}
	if ref && t.keep(p, c) {
		return llc.Event{}
	}
	if request {
		return llc.Event{}
	}
	return done(c, 0, nil)
}

// frameOf returns the frame of c: its header, and the head and data that
// follow it.
func frameOf(c *llc.Command) (h header, head, data []byte, err error) {
	if c.HeadLen > llc.MaxHead {
		return h, nil, nil, fmt.Errorf("a head of %d bytes (at most %d)", c.HeadLen, llc.MaxHead)
	}
	h = header{region: c.Region, off: c.Off, a: c.Old, b: c.New}
	head, data = c.Head[:c.HeadLen], c.Data
	switch c.Kind {
	case llc.CmdWrite:
		h.kind, h.a, h.b, h.c = fWrite, c.Token, c.SigOff, c.Signal
	case llc.CmdEnqueue:
		if n := len(head) + len(data); c.Token == 0 || n < llc.RecordMeta || n > MaxRecord {
			return h, nil, nil, fmt.Errorf("to process %d: a record of %d bytes with token %#x (records: %d to %d bytes, with a token)",
				c.Peer, n, c.Token, llc.RecordMeta, MaxRecord)
		}
		h.kind = fRecord
	case llc.CmdRead:
		h.kind, h.a, head, data = fRead, uint64(len(c.Data)), nil, nil
	case llc.CmdCAS:
		h.kind, head, data = fCAS, nil, nil
	default:
		h.kind, head, data = fFetchAdd, nil, nil
	}
	h.n = uint64(len(head) + len(data))
	return h, head, data, nil
}

// keep decides the fate of c's data, which the queue references and which
// is not all written yet: a large write with a Token keeps it (zero copy)
// and completes once it is written, from Poll; otherwise the rest is
// copied into the queue. It reports whether c completes later.
func (t *Transport) keep(p *peer, c *llc.Command) bool {
	q := &p.out
	if q.ref == len(q.refs) {
		return false // written already
	}
	last := &q.refs[len(q.refs)-1]
	if c.Kind == llc.CmdWrite && c.Token != 0 && len(last.data) >= zeroCopyMin {
		last.token = c.Token
		t.stats.zeroCopy++
		return true
	}
	rest := last.data
	*last = outRef{}
	q.refs = q.refs[:len(q.refs)-1]
	q.buf = append(q.buf, rest...)
	return false
}

// flush writes p's handshake header, then, once the connection is up,
// what waits in its queue, until the socket would block.
func (t *Transport) flush(p *peer) error {
	defer t.track(p)
	if p.fd < 0 {
		return nil // the peer closed this process's dial, and its own is still read (see ended)
	}
	for p.hsOff < hdrSize {
		n, err := write(p.fd, p.hs[p.hsOff:])
		if errors.Is(err, unix.EAGAIN) {
			return nil
		} else if err != nil {
			return err
		}
		p.hsOff += n
	}
	q := &p.out
	for p.state == stUp && !q.empty() {
		iov := q.gather(t.iov[:0])
		total := 0
		for _, v := range iov {
			total += int(v.Len)
		}
		n, err := writev(p.fd, iov)
		clear(iov) // keep no buffer alive
		if errors.Is(err, unix.EAGAIN) {
			t.stats.blocked++
			return nil
		} else if err != nil {
			return err
		}
		t.stats.bytesOut += uint64(n)
		q.consume(n, &t.late)
		if n < total {
			t.stats.blocked++
			return nil
		}
	}
	return nil
}

// track notes in the pollset whether p waits for its socket to take more.
func (t *Transport) track(p *peer) {
	want := p.fd >= 0 && (p.hsOff < hdrSize || p.state == stUp && !p.out.empty())
	if want != p.wantOut {
		p.wantOut, t.dirty = want, true
	}
}
