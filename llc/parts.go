package llc

import "fmt"

// Messages in several records of a receive queue (EagerQueue, and the
// QueuePeers of the ring modes).
//
// A transport's queue records hold at most Config.MaxRecord bytes (one
// 2 KB VPUSH packet on Martini), less than the eager limit may be
// (MaxQueueEagerLimit). An eager or unsolicited payload that does not fit
// one record travels as a sequence of them, as MPICH-SCore sends a message
// of more than one PM message over PM/RHiNET-VP (thesis 8.5): the first
// record has the message's meta with flagParts and the length of the
// whole payload, and as much of the payload as it holds; each following
// record is a recPart whose meta gives only its own length, and carries
// the next bytes. Every record is one CmdEnqueue, timed as one by the
// network, and reported as host work (WorkSend, WorkRecv) as one PM
// message.
//
// Sending: the parts are enqueued one at a time, in order, and nothing
// else to that peer goes between them: the message stays at the head of
// the peer's queue until its last part is in the receiver's queue, and
// only then does the send complete. A part that finds the receiver's queue
// full is enqueued again on a later poll, as any record is; the receiver
// drains its queue whatever it is waiting for, so this cannot deadlock.
//
// Receiving: the records of several senders interleave in one queue, but
// those of one sender arrive in its order, so the receiver reassembles
// each sender's message apart, into a buffer of the whole payload, and
// hands it to the matching (dispatch) once its last part is in: the
// message arrives, is matched (in order per sender, by any source, probe,
// cancel, truncation) and acknowledged as one record of its length would
// be.

// flagParts marks the first record of a message in several records
// (meta.flags): its length is the whole payload's.
const flagParts uint8 = 2

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
// does not fit one record: the first part with the message's meta m, the
// others as recPart records.
func (e *Engine) enqueuePart(dst int, it *outItem, m meta, payload []byte) {
	chunk := payload[it.sent:min(it.sent+e.partBody(), len(payload))]
	if it.sent == 0 {
		e.addCopy(len(payload)) // the whole message, once
		m.flags |= flagParts
		m.length = uint32(len(payload))
	} else {
		m = meta{kind: recPart, length: uint32(len(chunk))}
	}
	it.inflight = len(chunk)
	c := e.sched.alloc() // built in place in the queue
	e.stats.CommandsIssued++
	c.Kind, c.Peer, c.Token = CmdEnqueue, dst, token(tokEnqueue, uint64(dst))
	m.put(c.Head[:recMeta])
	c.HeadLen, c.Data = recMeta, chunk
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
		if a.buf != nil || int(m.length) <= len(body) || int(m.length) > QueueEagerLimit(e.cfg.MaxRecord) {
			e.fail(fmt.Errorf("llc: corrupt record from process %d: the first part of a message of %d bytes carries %d (a message begun: %v)",
				src, m.length, len(body), a.buf != nil))
			return
		}
		a.m = *m
		a.m.flags &^= flagParts
		a.buf = e.pool.get(int(m.length))
		a.got = copy(a.buf, body)
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
