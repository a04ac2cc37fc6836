package tcp

import (
	"slices"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc"
)

// Combinations (fCombine) are served under a ticket lock of this
// process's memory, which processes of its host that map the memory,
// and its own goroutines, take by their processors' atomics. Serving
// never waits for the lock: a combination whose ticket is not served
// stalls its connection's frames (they take effect in order) and is
// tried again at every Poll, which reports progress meanwhile, so that
// the process does not sleep while the lock's holder, who needs nothing
// of this process, finishes.

// ticket is a ticket drawn of the lock whose word is lock.
type ticket struct {
	lock *uint64
	n    uint32
}

// combine serves the fCombine with header h at the read position of in,
// whose payload is all there, under its lock or word by word; it
// reports false while the frame waits for its lock.
func (t *Transport) combine(p *peer, in *inbound, h *header) bool {
	n, fetch := h.b&^combineFetch, h.b&combineFetch != 0
	operand := in.Unread()[hdrSize : hdrSize+int(h.n)]
	cur, err := t.mem.Span(h.region, h.off, n)
	var lock *uint64
	if err == nil && uint32(h.c) != 0 {
		lock, err = t.mem.Word(llc.RegionID(uint32(h.c)), h.c>>32)
	}
	switch {
	case err != nil:
		t.orphan(in) // a ticket drawn before its memory went: passed on once served
	case lock == nil && !t.mem.Private(h.region):
		t.prev = slices.Grow(t.prev[:0], int(n))[:n]
		err = llc.CombineWords(uint32(h.a), cur, operand, t.prev)
	default:
		// Under the lock; or word by word in memory that only this
		// process has, whose words change only through this transport's
		// calls, one at a time: their atomics would guard against nobody.
		if lock != nil && !t.hold(in, lock) {
			t.stats.stalls++
			return false
		}
		if fetch {
			t.prev = append(t.prev[:0], cur...)
		}
		err = llc.Combine(uint32(h.a), cur, operand)
		if lock != nil {
			llc.ReleaseTicket(lock, in.ticket)
			in.lock = nil
		}
	}
	in.Consume(hdrSize + int(h.n))
	t.stats.served++
	t.stats.combined++
	switch {
	case err != nil:
		t.replyErr(p, fAnswer, 0, err)
	case fetch:
		add(&p.out, &header{kind: fAnswer, n: n}, t.prev, nil)
	default:
		add(&p.out, &header{kind: fAnswer}, nil, nil)
	}
	return true
}

// hold reports whether in's combination holds lock: it draws a ticket
// the first time, and its ticket is served.
func (t *Transport) hold(in *inbound, lock *uint64) bool {
	if in.lock == nil {
		in.lock, in.ticket = lock, llc.DrawTicket(lock)
	}
	return llc.TicketServed(atomic.LoadUint64(lock), in.ticket)
}

// releaseOrphans releases the tickets that orphan kept and that are
// served now, and reports whether some are left.
func (t *Transport) releaseOrphans() bool {
	t.orphans = slices.DeleteFunc(t.orphans, func(o ticket) bool {
		if !llc.TicketServed(atomic.LoadUint64(o.lock), o.n) {
			return false
		}
		llc.ReleaseTicket(o.lock, o.n)
		return true
	})
	return len(t.orphans) > 0
}

// orphan keeps the ticket in's stalled combination drew, its connection
// lost or its memory released, to release once it is served: the lock
// passes on to the holders after it.
func (t *Transport) orphan(in *inbound) {
	if in.lock != nil {
		t.orphans = append(t.orphans, ticket{in.lock, in.ticket})
		in.lock = nil
	}
}
