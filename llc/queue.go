package llc

import (
	"errors"
	"fmt"
)

// PM/RHiNET-VP (EagerQueue): one receive queue per process, filled by the
// network with the records of every sender (CmdEnqueue), in arrival order.
//
// A record's Head+Data is the 24-byte meta of the ring records (kind, tag,
// context, body length, rendezvous id) followed by the body: the control
// fields of RTS, CTS, FIN and PUT, or the payload of an eager or
// unsolicited message. The body goes inline in the command's Head when it
// fits (control records always do), else as its Data. The sending process
// is in the queue's record header, written by the network. A payload that
// one record cannot carry travels in several (parts.go).
//
// Sending: every record to a peer waits in that peer's queue; the one at
// its head is enqueued, and at most one CmdEnqueue per peer is in flight,
// so that records to one peer land in order (MPI's non-overtaking rule).
// When it completes, the record leaves the queue (an eager send completes,
// or its next part is enqueued: parts.go) and the next one is enqueued. When the receiver's queue is full
// (ErrQueueFull), the record stays at the head and is enqueued again on a
// later poll; any other error stops the engine, as a failed ring write
// does.
//
// Receiving: the transport reads the queue (shm.QueueReader, for a queue in
// memory) and delivers its records in order as EvRecord events; it frees
// their space itself.
//
// Host work: WorkSend per CmdEnqueue issued, WorkRecv per record consumed,
// WorkPoll one per Poll (one queue, however many peers).

// MaxQueueEagerLimit is the largest eager limit of EagerQueue on a
// transport whose records hold at most MaxQueueRecord bytes (one VPUSH
// packet): a message of up to 32 KB travels as a sequence of up to 17
// records (parts.go), as MPICH-SCore sends a message of more than one PM
// message over PM/RHiNET-VP as several PM messages, without a handshake
// (thesis 8.5). It is the martini model's eager limit
// (tuning.ModelEagerLimit), so that PM/RHiNET and PM/RHiNET-VP switch to
// the rendezvous at the same size; in virtual time the eager path beats
// the rendezvous at every size up to it (the rendezvous adds a request, a
// grant and an end notice, each a VPUSH with the receiver's firmware).
const MaxQueueEagerLimit = 32 << 10

// QueueEagerLimit returns the largest eager limit of EagerQueue on a
// transport whose records hold at most maxRecord bytes: what one record
// holds, or MaxQueueEagerLimit in several records, whichever is larger.
func QueueEagerLimit(maxRecord int) int { return max(maxRecord-recMeta, MaxQueueEagerLimit) }

// RecordMeta is the size of a record's meta, the Head of an EvRecord: a
// transport that carries records itself (CmdEnqueue over a stream) splits
// a record there into Head and Data.
const RecordMeta = recMeta

// maxControlBody is the largest body of a control record (outItem.ctl).
const maxControlBody = len(outItem{}.ctl)

// QueueSpan returns the queue bytes a record of n bytes (Head+Data) takes.
func QueueSpan(n int) uint64 {
	return uint64(QueueRecordHeader+n+QueueAlign-1) &^ (QueueAlign - 1)
}

// MinQueueSize returns the smallest QueueSize that EagerQueue accepts with
// eagerLimit: the queue must hold two of the largest records, so that an
// empty queue always has room for one wherever it wraps. (A message above
// the transport's record size takes several records, each smaller; the
// size asked for here covers it whole.)
func MinQueueSize(eagerLimit int) int {
	need := 2 * QueueSpan(recMeta+max(eagerLimit, maxControlBody))
	size := 1
	for uint64(size) < need {
		size <<= 1
	}
	return size
}

// minQueueSize is MinQueueSize for the largest record of cfg: a message
// above what one record holds takes several (parts.go).
func minQueueSize(cfg *Config) int { return MinQueueSize(min(cfg.EagerLimit, cfg.MaxRecord-recMeta)) }

// checkQueue checks the configuration of EagerQueue.
func checkQueue(cfg *Config) error {
	switch {
	case cfg.EagerLimit < 0 || cfg.EagerLimit > QueueEagerLimit(cfg.MaxRecord):
		return fmt.Errorf("llc: eager limit %d too large for the receive queue: at most %d (records of at most %d bytes, %d of each the header)",
			cfg.EagerLimit, QueueEagerLimit(cfg.MaxRecord), cfg.MaxRecord, recMeta)
	case cfg.QueueSize < minQueueSize(cfg) || cfg.QueueSize&(cfg.QueueSize-1) != 0:
		return fmt.Errorf("llc: queue size %d must be a power of two and at least %d (two of the largest records with the eager limit %d)",
			cfg.QueueSize, minQueueSize(cfg), cfg.EagerLimit)
	}
	return nil
}

// startQueue asks for this process's receive queue, through which the
// peers of queued (every peer in EagerQueue mode; the QueuePeers
// otherwise) are reached, without a connection. The command names one of
// them as its Peer, so that a multiplexer gives it to their network.
func (e *Engine) startQueue(queued func(p int) bool) {
	first := -1
	for p := range e.peers {
		if queued(p) {
			e.peers[p].conn = connQueue
			if first < 0 || p == e.cfg.Self {
				first = p
			}
		}
	}
	if first >= 0 {
		e.emit(&Command{Kind: CmdAllocQueue, Peer: first, Size: QueueHeader + e.cfg.QueueSize, Token: token(tokQueueAlloc, 0)})
	}
}

func (e *Engine) onQueueAlloc(ev *Event) {
	if ev.Kind == EvError {
		e.fail(fmt.Errorf("llc: making the receive queue of %d bytes: %w", QueueHeader+e.cfg.QueueSize, ev.Err))
	}
}

// trySendQueue enqueues the record at the head of dst's queue unless one
// is in flight. It reports whether it issued a record that had not found
// the receiver's queue full before (a retry is not progress).
func (e *Engine) trySendQueue(dst int) bool {
	p := &e.peers[dst]
	for p.q.n > 0 && !p.enqPending {
		it := p.q.front()
		switch {
		case it.op != nil && it.op.done:
			// A rendezvous send that failed before its RTS was sent.
			p.q.pop()
			if p.q.n == 0 {
				e.blocked--
			}
			continue
		case it.rndv && !rndvReady(it.op, e.cfg.Rendezvous):
			return false
		}
		retry := p.full
		e.enqueue(dst, it)
		return !retry
	}
	return false
}

// enqueue emits the CmdEnqueue of record it to dst.
func (e *Engine) enqueue(dst int, it *outItem) {
	m := meta{kind: it.kind, aux: it.aux}
	var rtsBody [16]byte
	ctl, payload := it.ctl[:it.clen], []byte(nil)
	if op := it.op; op != nil {
		m.tag, m.ctx = op.Tag, op.Ctx
		switch {
		case it.rndv:
			r := rts{length: uint64(len(op.Data)), region: op.region, mode: e.cfg.Rendezvous}
			m.kind, m.aux, ctl = recRTS, op.id, rtsBody[:r.put(rtsBody[:])]
		case op.unsolicited:
			m.kind, ctl, payload = recUnsolicited, nil, op.Data
		default:
			m.kind, ctl, payload = recEager, nil, op.Data
			m.flags, m.aux = syncFlags(op)
		}
	}
	body := len(ctl) + len(payload)
	if recMeta+body > e.cfg.MaxRecord {
		e.enqueuePart(dst, it, m, payload) // only payloads are that long
		return
	}
	m.length = uint32(body)
	c := e.sched.alloc() // built in place in the queue
	e.stats.CommandsIssued++
	c.Kind, c.Peer, c.Token = CmdEnqueue, dst, token(tokEnqueue, uint64(dst))
	m.put(c.Head[:recMeta])
	if body <= MaxHead-recMeta {
		copy(c.Head[recMeta+copy(c.Head[recMeta:], ctl):], payload)
		c.HeadLen = uint8(recMeta + body)
	} else {
		c.HeadLen, c.Data = recMeta, payload
	}
	e.peers[dst].enqPending = true
	e.addWork(WorkSend, 1)
	e.addCopy(len(payload))
}

// onEnqueue completes the record at the head of dst's queue, or leaves it
// there for a later poll when the receiver's queue was full.
func (e *Engine) onEnqueue(dst int, ev *Event) {
	if dst >= len(e.peers) || !e.peers[dst].enqPending || e.peers[dst].q.n == 0 {
		e.fail(fmt.Errorf("llc: completion of an enqueue to process %d that is not in flight", dst))
		return
	}
	p := &e.peers[dst]
	p.enqPending = false
	if ev.Kind == EvError {
		if errors.Is(ev.Err, ErrQueueFull) {
			e.stats.QueueFull++
			p.full = true
			return
		}
		e.fail(fmt.Errorf("llc: enqueueing a record to process %d: %w", dst, ev.Err))
		return
	}
	p.full = false
	it := p.q.front()
	if e.partSent(it) {
		e.enqueue(dst, it) // the message's next part
		return
	}
	switch op := it.op; {
	case op == nil || it.rndv:
		e.stats.ControlSent++
	default:
		e.stats.EagerSent++
		e.stats.BytesSent += uint64(len(op.Data))
		e.eagerWritten(op)
	}
	p.q.pop()
	if p.q.n == 0 {
		e.blocked--
		return
	}
	e.trySendQueue(dst)
}
