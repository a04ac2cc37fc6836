package llc

import (
	"errors"
	"fmt"
)

// EagerMode selects the eager transport: how eager messages and every
// control record (RTS, CTS, FIN, PUT, unsolicited messages) travel.
type EagerMode uint8

// Eager transports.
const (
	// EagerRings: a ring per sender, granted by the receiver on the
	// sender's first contact (lazy connection), records packed in 64-byte
	// cells (after Liu, Wu and Panda). The default.
	EagerRings EagerMode = iota
	// EagerPM: PM/RHiNET (thesis 8.3): the same per-sender rings, but
	// every process connects to every process when its engine starts,
	// every record starts at a PMAlign-aligned position of its ring, the
	// receiver checks every inbound ring on every poll, and the host work
	// of PM's library calls is reported (see HostCharger).
	EagerPM
	// EagerQueue: PM/RHiNET-VP (thesis 8.4): no rings; every process has
	// one receive queue (CmdAllocQueue) into which every sender enqueues
	// its records (CmdEnqueue), so a poll checks one place however many
	// peers there are. Records are at most MaxRecord bytes; a larger
	// eager message travels as several records (parts.go), up to
	// MaxQueueEagerLimit. Host work is reported.
	EagerQueue
)

func (m EagerMode) String() string {
	switch m {
	case EagerRings:
		return "rings"
	case EagerPM:
		return "pm"
	case EagerQueue:
		return "queue"
	}
	return fmt.Sprintf("EagerMode(%d)", m)
}

// WorkCounts counts host work of the PM message layers, indexed by
// HostWork. Only EagerPM and EagerQueue count; a Ready batch reports the
// work done since the last batch, for a driver whose transport is a
// HostCharger to charge.
type WorkCounts [WorkPoll + 1]int

// dispatch processes one record from src, of any eager transport: its meta
// m and its body.
func (e *Engine) dispatch(src int, m *meta, body []byte) {
	switch m.kind {
	case recEager:
		e.stats.EagerRecv++
		payload := body
		e.stats.BytesRecv += uint64(len(payload))
		if op := e.posted.match(src, m.tag, m.ctx); op != nil {
			op.deliver(src, m.tag, payload)
			e.countTrunc(op)
			e.ackSync(src, syncID(m))
			return
		}
		e.stats.Unexpected++
		u := e.unexp.alloc()
		*u = unexpected{src: src, tag: m.tag, ctx: m.ctx, length: len(payload), data: e.pool.get(len(payload)), syncID: syncID(m)}
		copy(u.data, payload)
		e.unexp.push(u)
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
		*u = unexpected{src: src, tag: m.tag, ctx: m.ctx, length: int(r.length), rndv: true, rts: r}
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

func (e *Engine) countTrunc(op *RecvOp) {
	if op.err != nil && errors.Is(op.err, ErrTruncated) {
		e.stats.Truncated++
	}
}

// send starts op. An eager send completes before send returns whenever the
// connection exists and the ring has room; otherwise op completes during a
// later Poll or Step.
func (e *Engine) send(op *SendOp, unsolicited bool) {
	op.done, op.err, op.region, op.id, op.unsolicited, op.events, op.cancelled = false, nil, 0, 0, unsolicited, nil, false
	op.withdrawn = false
	if op.Notify {
		op.events = &e.events
	}
	if e.err != nil {
		op.finish(e.err)
		return
	}
	if op.Peer < 0 || op.Peer >= e.cfg.Size {
		op.finish(fmt.Errorf("llc: send to process %d: only %d processes", op.Peer, e.cfg.Size))
		return
	}
	if unsolicited && len(op.Data) > e.cfg.EagerLimit {
		op.finish(e.unsolicitedTooLarge(op))
		return
	}
	p := &e.peers[op.Peer]
	if e.sendsEager(op, unsolicited) {
		if op.awaitsAck() {
			e.startSync(op)
		}
		if p.conn == connUp && !p.queued() && e.writeEager(op.Peer, op) {
			return
		}
		p.enqueue(outItem{op: op})
	} else {
		e.rndvSendStart(op)
		p.enqueue(outItem{op: op, rndv: true})
	}
	if p.q.n == 1 {
		e.blocked++
	}
	e.trySend(op.Peer)
}

// sendsEager reports whether op goes by the eager path: up to the eager
// limit unless it asks for a rendezvous, up to EagerHintLimit to a ring
// peer if it asks for the eager path. Unsolicited sends are eager (send
// has refused those above the limit).
func (e *Engine) sendsEager(op *SendOp, unsolicited bool) bool {
	n := len(op.Data)
	switch {
	case unsolicited:
		return true
	case op.Rendezvous:
		return false
	case n <= e.cfg.EagerLimit:
		return true
	}
	return op.Eager && n <= e.cfg.EagerHintLimit && e.cfg.Eager == EagerRings && !e.queuePeer(op.Peer)
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
	if op.Source != AnySource && (op.Source < 0 || op.Source >= e.cfg.Size) {
		op.finish(fmt.Errorf("llc: receive from process %d: only %d processes", op.Source, e.cfg.Size))
		return
	}
	if u := e.unexp.match(op.Source, op.Tag, op.Ctx); u != nil {
		if u.rndv {
			e.rndvRecvStart(op, u.src, u.tag, &u.rts)
		} else {
			op.deliver(u.src, u.tag, u.data[:u.length])
			e.countTrunc(op)
			e.pool.put(u.data)
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

// writeEager writes an eager send into dst's ring and completes it (a
// synchronous one once it is acknowledged).
func (e *Engine) writeEager(dst int, op *SendOp) bool {
	kind := recEager
	if op.unsolicited {
		kind = recUnsolicited
	}
	flags, aux := syncFlags(op)
	if !e.writeRecord(dst, kind, flags, op.Tag, op.Ctx, aux, nil, op.Data) {
		return false
	}
	e.stats.EagerSent++
	e.stats.BytesSent += uint64(len(op.Data))
	e.eagerWritten(op)
	return true
}

// Synchronous sends (MPI_Ssend): the send completes only once the receiver
// has matched the message to a receive.
//
// A rendezvous send completes so anyway (its FIN or PUT follows the
// match), so above the eager limit nothing changes. An eager record of a
// synchronous send carries flagSync and the send's id in its aux field;
// the receiver answers with a recSyncAck record naming that id when the
// message matches a receive (on arrival, on a later Recv, or when Mprobe
// takes it), and the sender completes the op then. The acknowledgement
// travels behind the receiver's earlier records to the sender, through
// the same ring or queue as every control record.

// recSyncAck acknowledges a synchronous eager message; aux is the send id.
const recSyncAck uint8 = recUnsolicited + 1

// flagSync marks the eager record of a synchronous send (meta.flags).
const flagSync uint8 = 1

// startSync gives a synchronous eager send its id and keeps it until its
// acknowledgement.
func (e *Engine) startSync(op *SendOp) {
	op.id = e.newID()
	e.syncSends[op.id] = op
}

// eagerWritten completes an eager send whose record was written, unless it
// is synchronous: that one waits for its acknowledgement.
func (e *Engine) eagerWritten(op *SendOp) {
	if !op.awaitsAck() {
		op.finish(nil)
	}
}

// syncFlags returns the flags and aux field of op's eager record.
func syncFlags(op *SendOp) (flags uint8, aux uint64) {
	if op.awaitsAck() {
		return flagSync, op.id
	}
	return 0, 0
}

// awaitsAck reports whether op is an eager send that completes on its
// receiver's acknowledgement: a synchronous one (unsolicited messages
// match no receive, so Sync does not apply to them).
func (s *SendOp) awaitsAck() bool { return s.Sync && !s.unsolicited }

// syncID returns the send id a record asks to acknowledge, or 0.
func syncID(m *meta) uint64 {
	if m.flags&flagSync != 0 {
		return m.aux
	}
	return 0
}

// ackSync tells src that its synchronous message id has matched a
// receive; id 0 (not synchronous) sends nothing.
func (e *Engine) ackSync(src int, id uint64) {
	if id != 0 {
		e.queueControl(src, recSyncAck, id, nil)
	}
}

// onSyncAck completes the synchronous send that src acknowledged.
func (e *Engine) onSyncAck(src int, id uint64) {
	op := e.syncSends[id]
	if op == nil {
		e.fail(fmt.Errorf("llc: acknowledgement from process %d for unknown synchronous send %d", src, id))
		return
	}
	delete(e.syncSends, id)
	op.finish(nil)
}

// dropSync forgets a synchronous eager send that will never be sent (it
// failed or was cancelled while queued).
func (e *Engine) dropSync(op *SendOp) {
	if op.awaitsAck() && e.syncSends[op.id] == op {
		delete(e.syncSends, op.id)
	}
}
