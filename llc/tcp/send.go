package tcp

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/fdio"
)

// A write with a Token whose data is not sent at once keeps its reference
// (fdio.Queue), and completes later, when at least zeroCopyMin bytes are
// left; otherwise the rest is copied and it completes at once.
const zeroCopyMin = 64 << 10

// A Lazy write (a one-sided put) waits in its connection's queue, when the
// queue holds at most lazyMax bytes with it, for the next frame to its
// peer (the flush's read) or the next Poll: one system call for both.
const lazyMax = 64 << 10

// add appends to q a frame: header h, then head and data, data by
// reference when it is large. It reports whether it took a reference.
func add(q *fdio.Queue, h *header, head, data []byte) bool {
	h.put(q.Reserve(hdrSize))
	return q.Add(head, data)
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
		p.pend.Add(c)
	}
	ref := add(&p.out, h, head, data)
	t.stats.framesOut++
	if c.Lazy && !ref && p.out.Len() <= lazyMax {
		t.stats.lazy++
		t.track(p)
		return done(c, 0, nil)
	}
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
	case llc.CmdCombine:
		h.kind, h.a, h.b, h.c, head = fCombine, c.New, uint64(len(c.Data)), uint64(uint32(c.Size))|c.Old<<32, nil
		if c.Result != nil {
			h.b = uint64(len(c.Result)) | combineFetch
		}
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
	var token uint64
	if c.Kind == llc.CmdWrite {
		token = c.Token
	}
	if !p.out.Keep(token, zeroCopyMin) {
		return false
	}
	t.stats.zeroCopy++
	return true
}

// flush writes p's handshake header, then, once the connection is up,
// what waits in its queue, until the socket would block.
func (t *Transport) flush(p *peer) error {
	defer t.track(p)
	if p.fd < 0 {
		return nil // the peer closed this process's dial, and its own is still read (see ended)
	}
	for p.hsOff < hdrSize {
		n, err := fdio.Write(p.fd, p.hs[p.hsOff:])
		if err == unix.EAGAIN {
			return nil
		} else if err != 0 {
			return err
		}
		p.hsOff += n
	}
	q := &p.out
	for p.state == stUp && !q.Empty() {
		iov := q.Gather(t.iov[:0])
		total := 0
		for _, v := range iov {
			total += int(v.Len)
		}
		n, err := fdio.Writev(p.fd, iov)
		clear(iov) // keep no buffer alive
		if err == unix.EAGAIN {
			t.stats.blocked++
			return nil
		} else if err != 0 {
			return err
		}
		t.stats.bytesOut += uint64(n)
		q.Consume(n, &t.late)
		if n < total {
			t.stats.blocked++
			return nil
		}
	}
	return nil
}

// track notes in the pollset whether p waits for its socket to take more.
func (t *Transport) track(p *peer) {
	want := p.fd >= 0 && (p.hsOff < hdrSize || p.state == stUp && !p.out.Empty())
	if want != p.wantOut {
		p.wantOut, t.dirty = want, true
	}
}
