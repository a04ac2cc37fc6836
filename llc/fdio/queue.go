package fdio

import (
	"github.com/rhinet-go/martini/llc"
	"golang.org/x/sys/unix"
)

// Data added to a Queue up to CopyMax bytes is copied in; larger data is
// written from where it is, the queue keeping a reference until it is
// written. Gather fills at most MaxIov buffers at a time.
const (
	CopyMax = 4 << 10
	MaxIov  = 64
)

// Queue is what waits to be written to one descriptor, in order: bytes
// the queue owns (headers, and data copied in) and, between them,
// references to data it does not own, each written after the owned bytes
// before its position. The zero Queue is empty.
type Queue struct {
	buf  []byte
	off  int // buf[:off] is written
	refs []ref
	ref  int // refs[:ref] are written
}

// ref is data the queue writes without copying it.
type ref struct {
	at    int    // the position in buf the data goes before
	data  []byte // the part not written yet
	token uint64 // the command to complete once written, or 0
}

// Empty reports whether everything added is written.
func (q *Queue) Empty() bool { return q.off == len(q.buf) && q.ref == len(q.refs) }

// Len returns the number of bytes added and not written yet.
func (q *Queue) Len() int {
	n := len(q.buf) - q.off
	for _, r := range q.refs[q.ref:] {
		n += len(r.data)
	}
	return n
}

// compact drops the written bytes when they are most of the buffer.
func (q *Queue) compact() {
	if q.Empty() {
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

// Reserve appends n bytes for the caller to fill at once (a header), and
// returns them.
func (q *Queue) Reserve(n int) []byte {
	q.compact()
	q.buf = append(q.buf, make([]byte, n)...)
	return q.buf[len(q.buf)-n:]
}

// Add appends head, copied, then data: copied when it is at most CopyMax
// bytes, else by reference. It reports whether it took a reference.
func (q *Queue) Add(head, data []byte) bool {
	q.buf = append(q.buf, head...)
	if len(data) <= CopyMax {
		q.buf = append(q.buf, data...)
		return false
	}
	q.refs = append(q.refs, ref{at: len(q.buf), data: data})
	return true
}

// Keep decides the fate of the data of the last Add, which the queue
// references, once a write has taken what the descriptor would: when a
// part is left and it is at least min bytes, with a token, the reference
// stays and Consume completes token once it is written; otherwise the
// rest is copied in. It reports whether the reference stays.
func (q *Queue) Keep(token uint64, min int) bool {
	if q.ref == len(q.refs) {
		return false // written already
	}
	last := &q.refs[len(q.refs)-1]
	if token != 0 && len(last.data) >= min {
		last.token = token
		return true
	}
	rest := last.data
	*last = ref{}
	q.refs = q.refs[:len(q.refs)-1]
	q.buf = append(q.buf, rest...)
	return false
}

// Gather fills iov, up to MaxIov buffers, with what is to be written
// next, in order.
func (q *Queue) Gather(iov []unix.Iovec) []unix.Iovec {
	pos := q.off
	for i := q.ref; i < len(q.refs); i++ {
		if len(iov) > MaxIov-2 {
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

// Consume drops n written bytes from the front of the queue; the
// completions of references written whole go to late.
func (q *Queue) Consume(n int, late *[]llc.Event) {
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
			*r = ref{}
			q.ref++
		}
	}
}

// Fail empties the queue; the references not written whole fail with err,
// in late.
func (q *Queue) Fail(err error, late *[]llc.Event) {
	for _, r := range q.refs[q.ref:] {
		if r.token != 0 {
			*late = append(*late, llc.Event{Kind: llc.EvError, Token: r.token, Err: err})
		}
	}
	*q = Queue{}
}
