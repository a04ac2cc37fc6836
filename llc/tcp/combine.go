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
	n := h.b &^ combineFetch
	operand := in.Unread()[hdrSize : hdrSize+int(h.n)]
	cur, err := t.mem.Span(h.region, h.off, n)
	switch {
	case err != nil:
	case uint32(h.c) == 0 && t.mem.Private(h.region):
		// Memory that only this process has, whose words change only
		// through this transport's calls, one at a time: their atomics
		// would guard against nobody.
		t.prev = append(t.prev[:0], cur...)
		err = llc.Combine(uint32(h.a), cur, operand)
	case uint32(h.c) == 0:
		t.prev = slices.Grow(t.prev[:0], int(n))[:n]
		err = llc.CombineWords(uint32(h.a), cur, operand, t.prev)
	default:
		var lock *uint64
		if lock, err = t.mem.Word(llc.RegionID(uint32(h.c)), h.c>>32); err != nil {
			break
		}
		if in.lock == nil {
			in.lock, in.ticket = lock, llc.TicketOf(atomic.AddUint64(lock, llc.TicketDraw)-llc.TicketDraw)
		}
		if !llc.TicketServed(atomic.LoadUint64(lock), in.ticket) {
			t.stats.stalls++
			return false
		}
		in.lock = nil
		t.prev = append(t.prev[:0], cur...)
		err = llc.Combine(uint32(h.a), cur, operand)
		atomic.AddUint64(lock, llc.TicketRelease(in.ticket))
	}
	if err != nil {
		t.orphan(in) // a ticket drawn before its region went: passed on once served
	}
	in.Consume(hdrSize + int(h.n))
	t.stats.served++
	t.stats.combined++
	switch {
	case err != nil:
		t.replyErr(p, fAnswer, 0, err)
	case h.b&combineFetch != 0:
		add(&p.out, &header{kind: fAnswer, n: n}, t.prev, nil)
	default:
		add(&p.out, &header{kind: fAnswer}, nil, nil)
	}
	return true
}

// stalled reports whether a combination waits for its lock, and
// releases the served tickets of lost connections.
func (t *Transport) stalled() bool {
	for i := 0; i < len(t.orphans); i++ {
		if o := t.orphans[i]; llc.TicketServed(atomic.LoadUint64(o.lock), o.n) {
			atomic.AddUint64(o.lock, llc.TicketRelease(o.n))
			t.orphans = append(t.orphans[:i], t.orphans[i+1:]...)
			i--
		}
	}
	for i := range t.peers {
		if p := &t.peers[i]; p.in.lock != nil || p.rin.lock != nil {
			return true
		}
	}
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
