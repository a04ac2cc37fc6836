package llc

import "fmt"

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
