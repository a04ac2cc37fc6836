package llc

import "math/bits"

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
	data   []byte
	rndv   bool
	rts    rts
	syncID uint64 // a synchronous eager message's send id, to acknowledge; 0 if none
	next   *unexpected
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

func (q *unexpQueue) free(u *unexpected) {
	*u = unexpected{next: q.freeList}
	q.freeList = u
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
