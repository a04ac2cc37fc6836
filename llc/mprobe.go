package llc

import "errors"

// Matched is a message that a ProbeOp with Take took out of the matching
// (MPI's matched probe): no receive can match it any more, and a RecvOp
// whose Message it is receives it. It belongs to the Engine that returned
// it.
type Matched struct {
	// Status describes the message: its sender, tag and length.
	Status Status
	data   []byte // eager payload, from the engine's pool
	rndv   bool
	rts    rts
	taken  bool
}

// ErrMatchedTaken is the error of a second receive of one Matched.
var ErrMatchedTaken = errors.New("matched message already received")

// mprobe removes the earliest unexpected message matching (source, tag,
// ctx) from the matching and returns it. A synchronous sender is
// acknowledged now: its message has matched.
func (e *Engine) mprobe(source int, tag int32, ctx uint32) (*Matched, bool) {
	if e.err != nil {
		return nil, false
	}
	u := e.unexp.match(source, tag, ctx)
	if u == nil {
		return nil, false
	}
	m := &Matched{Status: Status{Source: u.src, Tag: u.tag, Len: u.length}, data: e.ownData(u), rndv: u.rndv, rts: u.rts}
	e.ackSync(u.src, u.syncID)
	e.unexp.free(u)
	return m, true
}

// recvMatched receives the matched message op.Message into op.Buf; op's
// Source, Tag and Ctx are not used. Receiving a message a second time
// fails op with ErrMatchedTaken.
func (e *Engine) recvMatched(op *RecvOp) {
	m := op.Message
	e.resetRecv(op)
	switch {
	case m.taken:
		op.finish(ErrMatchedTaken)
		return
	case e.err != nil:
		op.finish(e.err)
		return
	}
	m.taken = true
	if m.rndv {
		e.rndvRecvStart(op, m.Status.Source, m.Status.Tag, &m.rts)
		return
	}
	op.deliver(m.Status.Source, m.Status.Tag, m.data[:m.Status.Len])
	e.countTrunc(op)
	e.pool.put(m.data)
	m.data = nil
}
