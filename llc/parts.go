package llc

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Messages in several records: of a receive queue (EagerQueue, and the
// QueuePeers of the ring modes), and of a ring without rendezvous
// (Config.NoRendezvous).
//
// A transport's queue records hold at most Config.MaxRecord bytes (one
// 2 KB VPUSH packet on Martini), less than the eager limit may be
// (MaxQueueEagerLimit); a ring record holds the eager limit's payload. An
// eager or unsolicited payload that does not fit one record travels as a
// sequence of them, as MPICH-SCore sends a message of more than one PM
// message over PM/RHiNET-VP, and over PM/RHiNET without remote memory
// access (thesis 8.5): the first record has the message's meta with
// flagParts, and a body of the whole payload's length (partTotal bytes)
// and as much of the payload as it holds; each following record is a
// recPart, and carries the next bytes. Every record's meta gives its own
// body's length. Every record is one CmdEnqueue or ring record, timed as
// one by the network, and reported as host work (WorkSend, WorkRecv) as
// one PM message.
//
// Sending: the parts are enqueued or written one at a time, in order, and
// nothing else to that peer goes between them: the message stays at the
// head of the peer's queue until its last part is in the receiver's queue
// or ring, and only then does the send complete. A part that finds the
// receiver's queue or ring full is sent again on a later poll, as any
// record is; the receiver drains its queue and rings whatever it is
// waiting for, so this cannot deadlock.
//
// Receiving: the records of several senders interleave in one queue, but
// those of one sender arrive in its order, so the receiver reassembles
// each sender's message apart, into a buffer of the whole payload, and
// hands it to the matching (dispatch) once its last part is in: the
// message arrives, is matched (in order per sender, by any source, probe,
// cancel, truncation) and acknowledged as one record of its length would
// be.

// inParts reports whether op's payload travels in several ring records:
// a message above the eager limit, without rendezvous.
func (e *Engine) inParts(op *SendOp) bool {
	return e.cfg.NoRendezvous && len(op.Data) > e.cfg.EagerLimit
}

// writeParts writes it's message, larger than the eager limit, into
// dst's ring as records of at most the eager limit's payload, the first
// with the message's meta, while the ring has room; it completes the send
// and reports true once the last is written, else leaves it at the head
// of the peer's queue for a later try (trySend).
func (e *Engine) writeParts(dst int, it *outItem) bool {
	op := it.op
	for it.sent < len(op.Data) {
		var ok bool
		n := min(e.cfg.EagerLimit, len(op.Data)-it.sent)
		if it.sent == 0 {
			var total [partTotal]byte
			binary.LittleEndian.PutUint64(total[:], uint64(len(op.Data)))
			n -= partTotal
			flags, aux := syncFlags(op)
			if ok = e.writeRecord(dst, recEager, flags|flagParts, op.Tag, op.Ctx, aux, total[:], op.Data[:n]); ok {
				e.addCopy(len(op.Data)) // the whole message, once (countRecord)
			}
		} else {
			ok = e.writeRecord(dst, recPart, 0, 0, 0, 0, nil, op.Data[it.sent:it.sent+n])
		}
		if !ok {
			return false
		}
		it.sent += n
	}
	e.stats.EagerSent++
	e.stats.BytesSent += uint64(len(op.Data))
	e.eagerWritten(op)
	return true
}

// flagParts marks the first record of a message in several records
// (meta.flags): its length is the whole payload's.
const flagParts uint8 = 2

// partTotal is the size of the whole payload's length at the head of a
// message's first part.
const partTotal = 8

// recPart is the record kind of the second and following records of a
// message in several records.
const recPart uint8 = recSyncAck + 1

// partial is a message in several records that a sender has begun.
type partial struct {
	m   meta   // the first record's, without flagParts
	buf []byte // the payload, from the pool, once begun
	got int    // bytes of it arrived
}

// partBody returns the payload bytes one record of a message in several
// records carries.
func (e *Engine) partBody() int { return e.cfg.MaxRecord - recMeta }

// enqueuePart emits the CmdEnqueue of the next part of it, whose payload
// does not fit one record: the first part with the message's meta m and
// the payload's length, the others as recPart records.
func (e *Engine) enqueuePart(dst int, it *outItem, m meta, payload []byte) {
	head := 0 // the whole payload's length, in the first part
	if it.sent == 0 {
		head = partTotal
	}
	chunk := payload[it.sent:min(it.sent+e.partBody()-head, len(payload))]
	if it.sent == 0 {
		e.addCopy(len(payload)) // the whole message, once
		m.flags |= flagParts
	} else {
		m = meta{kind: recPart}
	}
	m.length = uint32(head + len(chunk))
	it.inflight = len(chunk)
	c := e.sched.alloc() // built in place in the queue
	e.stats.CommandsIssued++
	c.Kind, c.Peer, c.Token = CmdEnqueue, dst, token(tokEnqueue, uint64(dst))
	m.put(c.Head[:recMeta])
	if head > 0 {
		binary.LittleEndian.PutUint64(c.Head[recMeta:], uint64(len(payload)))
	}
	c.HeadLen, c.Data = uint8(recMeta+head), chunk
	e.peers[dst].enqPending = true
	e.addWork(WorkSend, 1)
}

// partSent notes that the part of it in flight is in the receiver's queue
// and reports whether parts of it remain to be sent.
func (e *Engine) partSent(it *outItem) bool {
	if it.inflight == 0 {
		return false // a message in one record
	}
	it.sent += it.inflight
	it.inflight = 0
	return it.sent < len(it.op.Data)
}

// assemble takes one record of a message in several records from src, and
// dispatches the message once its last part is in.
func (e *Engine) assemble(src int, m *meta, body []byte) {
	if e.parts == nil {
		e.parts = make([]partial, e.cfg.Size)
	}
	a := &e.parts[src]
	if m.kind != recPart {
		total, ok := partsTotal(body)
		if a.buf != nil || !ok || total <= len(body)-partTotal || total > e.partsLimit() {
			e.fail(fmt.Errorf("llc: corrupt record from process %d: the first part of a message of %d bytes carries %d (a message begun: %v)",
				src, total, len(body)-partTotal, a.buf != nil))
			return
		}
		a.m = *m
		a.m.flags &^= flagParts
		a.m.length = uint32(total)
		a.buf = e.pool.get(total)
		a.got = copy(a.buf, body[partTotal:])
		return
	}
	if a.buf == nil || int(m.length) != len(body) || a.got+len(body) > len(a.buf) {
		e.fail(fmt.Errorf("llc: corrupt record from process %d: a part of %d bytes (its meta says %d) for %d of %d bytes begun",
			src, len(body), m.length, a.got, len(a.buf)))
		return
	}
	a.got += copy(a.buf[a.got:], body)
	if a.got < len(a.buf) {
		return
	}
	msg, buf := a.m, a.buf
	*a = partial{}
	e.dispatch(src, &msg, buf)
	e.pool.put(buf)
}

// partsTotal returns the whole payload's length at the head of body, the
// body of a message's first part, and whether body holds one.
func partsTotal(body []byte) (int, bool) {
	if len(body) < partTotal {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(body)
	return int(min(n, 1<<62)), true
}

// partsLimit returns the largest message that may arrive in parts: at
// any size without rendezvous, else the queue's eager limit.
func (e *Engine) partsLimit() int {
	if e.cfg.NoRendezvous {
		return math.MaxUint32 // a meta's length
	}
	return QueueEagerLimit(e.cfg.MaxRecord)
}
