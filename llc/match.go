package llc

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/rhinet-go/martini/internal/memcopy"
)

// Receiving: a record that arrived is dispatched by its kind; an eager
// message or a rendezvous request is matched against the posted receives
// (by communicator, source and tag, in posting order) or waits in the
// unexpected queue, which a receive posted later looks at first.

// recvQueue is the posted-receive queue, matched in posting order.
type recvQueue struct{ head, tail *RecvOp }

func (q *recvQueue) push(op *RecvOp) {
	op.next = nil
	if q.tail == nil {
		q.head = op
	} else {
		q.tail.next = op
	}
	q.tail = op
}

// match removes and returns the first posted receive that accepts a message
// (src, tag, ctx).
func (q *recvQueue) match(src int, tag int32, ctx uint32) *RecvOp {
	var prev *RecvOp
	for op := q.head; op != nil; prev, op = op, op.next {
		if matches(op.Source, op.Tag, op.Ctx, src, tag, ctx) {
			q.unlink(prev, op)
			return op
		}
	}
	return nil
}

// matchFirst is match of the first posted receive alone, the one a
// message usually matches: small enough to inline, where match is not.
func (q *recvQueue) matchFirst(src int, tag int32, ctx uint32) *RecvOp {
	op := q.head
	if op == nil || !matches(op.Source, op.Tag, op.Ctx, src, tag, ctx) {
		return nil
	}
	q.unlink(nil, op)
	return op
}

func (q *recvQueue) remove(target *RecvOp) bool {
	var prev *RecvOp
	for op := q.head; op != nil; prev, op = op, op.next {
		if op == target {
			q.unlink(prev, op)
			return true
		}
	}
	return false
}

func (q *recvQueue) unlink(prev, op *RecvOp) {
	if prev == nil {
		q.head = op.next
	} else {
		prev.next = op.next
	}
	if q.tail == op {
		q.tail = prev
	}
	op.next = nil
}

// unexpected is a message that arrived before a matching receive: an eager
// payload copied out of the ring, or a rendezvous request.
type unexpected struct {
	src    int
	tag    int32
	ctx    uint32
	length int
	// data is an eager payload: in small when it is that short (length
	// at most unexpSmall), else a buffer of the engine's pool.
	data   []byte
	small  [unexpSmall]byte
	rndv   bool
	rts    rts
	syncID uint64 // a synchronous eager message's send id, to acknowledge; 0 if none
	next   *unexpected
}

// unexpSmall is the longest eager payload that an unexpected message
// keeps in itself, without a buffer of the pool: a word or two, the
// payloads of most small messages, whose pool buffer's get and put cost
// more than their copy.
const unexpSmall = 16

// ownData takes the pool's buffer that holds u's payload, or a copy of a
// payload that u holds in itself, for whoever keeps it past u (a matched
// probe's Matched).
func (e *Engine) ownData(u *unexpected) []byte {
	if u.rndv || u.length > unexpSmall {
		return u.data
	}
	d := e.pool.get(u.length)
	copy(d, u.data)
	return d
}

// unexpQueue keeps unexpected messages in arrival order, with a free list
// of nodes so that steady-state traffic does not allocate.
type unexpQueue struct {
	head, tail *unexpected
	freeList   *unexpected
}

func (q *unexpQueue) alloc() *unexpected {
	if u := q.freeList; u != nil {
		q.freeList = u.next
		return u
	}
	return new(unexpected)
}

// free keeps u, zeroed, for a later alloc; alloc's callers set its
// fields one by one (see Engine.command).
func (q *unexpQueue) free(u *unexpected) {
	*u = unexpected{}
	u.next, q.freeList = q.freeList, u
}

func (q *unexpQueue) push(u *unexpected) {
	u.next = nil
	if q.tail == nil {
		q.head = u
	} else {
		q.tail.next = u
	}
	q.tail = u
}

// match removes and returns the earliest message a receive (source, tag,
// ctx) accepts.
func (q *unexpQueue) match(source int, tag int32, ctx uint32) *unexpected {
	if q.head == nil { // the common case, a receive posted before its message
		return nil
	}
	return q.search(source, tag, ctx)
}

// search is match of a queue that is not empty.
func (q *unexpQueue) search(source int, tag int32, ctx uint32) *unexpected {
	var prev *unexpected
	for u := q.head; u != nil; prev, u = u, u.next {
		if matches(source, tag, ctx, u.src, u.tag, u.ctx) {
			q.unlink(prev, u)
			return u
		}
	}
	return nil
}

// takeRTS removes and returns the rendezvous request of send sendID from
// process src, if it is still waiting for a receive.
func (q *unexpQueue) takeRTS(src int, sendID uint64) *unexpected {
	var prev *unexpected
	for u := q.head; u != nil; prev, u = u, u.next {
		if u.rndv && u.src == src && u.rts.sendID == sendID {
			q.unlink(prev, u)
			return u
		}
	}
	return nil
}

// unlink removes u, which follows prev (nil: u is the head).
func (q *unexpQueue) unlink(prev, u *unexpected) {
	if prev == nil {
		q.head = u.next
	} else {
		prev.next = u.next
	}
	if q.tail == u {
		q.tail = prev
	}
}

// bufPool recycles unexpected-message buffers by power-of-two size class.
type bufPool struct{ classes [40][][]byte }

func (p *bufPool) get(n int) []byte {
	c := sizeClass(n)
	if l := len(p.classes[c]); l > 0 {
		b := p.classes[c][l-1]
		p.classes[c] = p.classes[c][:l-1]
		return b[:n]
	}
	return make([]byte, n, 1<<c)
}

func (p *bufPool) put(b []byte) {
	c := sizeClass(cap(b))
	if cap(b) == 1<<c && len(p.classes[c]) < 64 {
		p.classes[c] = append(p.classes[c], b[:0])
	}
}

func sizeClass(n int) int {
	if n <= 64 {
		return 6
	}
	return bits.Len(uint(n - 1))
}

func matches(source int, tag int32, ctx uint32, src int, mtag int32, mctx uint32) bool {
	return mctx == ctx && (source == AnySource || source == src) && (tag == AnyTag || tag == mtag)
}

// dispatch processes one record from src, of any eager transport: its meta
// m and its body.
func (e *Engine) dispatch(src int, m *meta, body []byte) {
	if m.kind == recEager { // the path of every eager message: no search of the cases below
		e.eagerArrived(src, m.tag, m.ctx, syncID(m), body)
		return
	}
	switch m.kind {
	case recRTS:
		var r rts
		if err := r.get(body); err != nil {
			e.fail(fmt.Errorf("llc: corrupt record from process %d: %w", src, err))
			return
		}
		r.sendID = m.aux
		if op := e.posted.match(src, m.tag, m.ctx); op != nil {
			e.rndvRecvStart(op, src, m.tag, &r)
			return
		}
		e.stats.Unexpected++
		u := e.unexp.alloc()
		u.src, u.tag, u.ctx, u.length, u.rndv, u.rts = src, m.tag, m.ctx, int(r.length), true, r
		e.unexp.push(u)
	case recUnsolicited:
		e.onUnsolicited(src, m.tag, body)
	case recCTS:
		e.onCTS(src, m.aux, body)
	case recFIN:
		e.onFIN(m.aux)
	case recPUT:
		e.onPUT(src, m.aux, body)
	case recSyncAck:
		e.onSyncAck(src, m.aux)
	case recWithdraw:
		e.onWithdraw(src, m.aux)
	case recWithdrawn:
		e.onWithdrawn(src, m.aux)
	default:
		e.fail(fmt.Errorf("llc: corrupt record of kind %d from process %d", m.kind, src))
	}
}

// eagerArrived takes an eager message from src, of tag, ctx and payload,
// synchronous when sync (its send's id) is not 0.
func (e *Engine) eagerArrived(src int, tag int32, ctx uint32, sync uint64, payload []byte) {
	e.stats.EagerRecv++
	e.stats.BytesRecv += uint64(len(payload))
	op := e.posted.matchFirst(src, tag, ctx)
	if op == nil {
		op = e.posted.match(src, tag, ctx)
	}
	if op != nil {
		op.deliver(src, tag, payload)
		if op.err != nil {
			e.countTrunc(op)
		}
		e.ackSync(src, sync)
		return
	}
	e.stats.Unexpected++
	u := e.unexp.alloc()
	u.src, u.tag, u.ctx, u.length, u.syncID = src, tag, ctx, len(payload), sync
	switch n := len(payload); {
	case n == 8: // a word in one move, as RecvOp.deliver
		*(*[8]byte)(u.small[:]) = [8]byte(payload)
		u.data = u.small[:8]
	case n <= unexpSmall:
		u.data = u.small[:copy(u.small[:], payload)]
	default:
		u.data = e.pool.get(n)
		memcopy.Small(u.data, payload)
	}
	e.unexp.push(u)
}

func (e *Engine) countTrunc(op *RecvOp) {
	if op.err != nil && errors.Is(op.err, ErrTruncated) {
		e.stats.Truncated++
	}
}

// recv posts op: it matches the earliest unexpected message first, in
// arrival order, else waits in the posted queue; or it receives the
// matched message op.Message.
func (e *Engine) recv(op *RecvOp) {
	if op.Message != nil {
		e.recvMatched(op)
		return
	}
	e.resetRecv(op)
	if e.err != nil {
		op.finish(e.err)
		return
	}
	if uint(op.Source) >= uint(e.cfg.Size) && op.Source != AnySource {
		op.finish(fmt.Errorf("llc: receive from process %d: only %d processes", op.Source, e.cfg.Size))
		return
	}
	if u := e.unexp.match(op.Source, op.Tag, op.Ctx); u != nil {
		if u.rndv {
			e.rndvRecvStart(op, u.src, u.tag, &u.rts)
		} else {
			op.deliver(u.src, u.tag, u.data[:u.length])
			e.countTrunc(op)
			if u.length > unexpSmall {
				e.pool.put(u.data)
			}
			e.ackSync(u.src, u.syncID)
		}
		e.unexp.free(u)
		return
	}
	e.posted.push(op)
}

// resetRecv readies op for a new receive.
func (e *Engine) resetRecv(op *RecvOp) {
	op.done, op.err, op.region, op.events, op.cancelled, op.matched = false, nil, 0, nil, false, false
	if op.Notify {
		op.events = &e.events
	}
}
