package llc

// Helpers of the scripted tests that submit one operation and return its
// result.

// probeOn probes e for a message matching (source, tag, ctx), with a
// ProbeOp it reuses (the tests do not run in parallel), so that probing
// does not allocate.
func probeOn(e *Engine, source int, tag int32, ctx uint32) (Status, bool) {
	p := &testProbe
	*p = ProbeOp{Source: source, Tag: tag, Ctx: ctx}
	e.Submit(p)
	return p.Status, p.Found
}

var testProbe ProbeOp

// mprobeOn takes a message matching (source, tag, ctx) out of e's
// matching.
func mprobeOn(e *Engine, source int, tag int32, ctx uint32) (*Matched, bool) {
	p := &ProbeOp{Source: source, Tag: tag, Ctx: ctx, Take: true}
	e.Submit(p)
	return p.Message, p.Found
}

// recvMatchedOn receives m into op.
func recvMatchedOn(e *Engine, m *Matched, op *RecvOp) {
	op.Message = m
	e.Submit(op)
}

// cancelRecvOn cancels the receive op and reports whether it did.
func cancelRecvOn(e *Engine, op *RecvOp) bool {
	c := &CancelOp{Recv: op}
	e.Submit(c)
	return c.Cancelled
}

// cancelSendOn cancels the send op and reports whether it did.
func cancelSendOn(e *Engine, op *SendOp) bool {
	c := &CancelOp{Send: op}
	e.Submit(c)
	return c.Cancelled
}

// withdrawSendOn withdraws the send op and reports whether it is done.
func withdrawSendOn(e *Engine, op *SendOp) bool {
	e.Submit(&CancelOp{Send: op, Withdraw: true})
	return op.Done()
}

// settleOn settles the one-sided writes to peer and returns the settling
// reads.
func settleOn(e *Engine, peer int, settle bool) []*RMAOp {
	f := &FlushOp{Peer: peer, Settle: settle}
	e.Submit(f)
	return f.reads
}

// popCommand takes the oldest queued command of e, nil if there is none.
func popCommand(e *Engine) *Command {
	if e.sched.len() == 0 {
		return nil
	}
	c := e.sched.buf[0]
	e.sched.batch = 1
	e.sched.drop()
	return &c
}
