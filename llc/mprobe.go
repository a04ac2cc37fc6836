package llc

import "errors"

// Matched is a message that Mprobe took out of the matching (MPI's
// matched probe): no receive can match it any more, and RecvMatched
// receives it. It belongs to the Engine that returned it.
type Matched struct {
	// Status describes the message: its sender, tag and length.
	Status Status
	data   []byte // eager payload, from the engine's pool
	rndv   bool
	rts    rts
	taken  bool
}

// ErrMatchedTaken is the error of a second RecvMatched of one Matched.
var ErrMatchedTaken = errors.New("matched message already received")

// Mprobe removes the earliest unexpected message matching (source, tag,
// ctx) from the matching and returns it. A synchronous sender is
// acknowledged now: its message has matched.
func (e *Engine) Mprobe(source int, tag int32, ctx uint32) (*Matched, bool) {
	if e.err != nil {
		return nil, false
	}
	u := e.unexp.match(source, tag, ctx)
	if u == nil {
		return nil, false
	}
	m := &Matched{Status: Status{Source: u.src, Tag: u.tag, Len: u.length}, data: u.data, rndv: u.rndv, rts: u.rts}
	e.ackSync(u.src, u.syncID)
	e.unexp.free(u)
	return m, true
}

// RecvMatched receives the matched message m into op.Buf; op's Source,
// Tag and Ctx are not used. Receiving m a second time fails op with
// ErrMatchedTaken.
func (e *Engine) RecvMatched(m *Matched, op *RecvOp) {
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

// Mprobe runs one round of progress and takes the earliest unexpected
// message matching (source, tag, ctx) out of the matching (see
// Engine.Mprobe).
func (ep *Endpoint) Mprobe(source int, tag int32, ctx uint32) (*Matched, bool) {
	ep.mu.Lock()
	ep.progress()
	m, ok := ep.eng.Mprobe(source, tag, ctx)
	ep.drain()
	ep.mu.Unlock()
	return m, ok
}

// mprobeWait is a Completion that is done when it has taken a matching
// message, or the engine has failed.
type mprobeWait struct {
	eng    *Engine
	source int
	tag    int32
	ctx    uint32
	m      *Matched
	err    error
	// stalled is the error with which Stalled ended the wait.
	stalled error
}

func (w *mprobeWait) Done() bool {
	if w.stalled != nil {
		w.err = w.stalled
		return true
	}
	if w.m == nil {
		w.m, _ = w.eng.Mprobe(w.source, w.tag, w.ctx)
	}
	w.err = w.eng.Err()
	return w.m != nil || w.err != nil
}

// WaitMprobe drives progress until a message matching (source, tag, ctx)
// has arrived and takes it out of the matching. It fails if the engine
// fails first.
func (ep *Endpoint) WaitMprobe(source int, tag int32, ctx uint32) (*Matched, error) {
	w := &mprobeWait{eng: ep.eng, source: source, tag: tag, ctx: ctx}
	ep.mu.Lock()
	ep.wait(w)
	ep.drain() // the acknowledgement of a synchronous message
	ep.mu.Unlock()
	if w.m == nil {
		return nil, w.err
	}
	return w.m, nil
}

// RecvMatched starts receiving m into op (see Engine.RecvMatched) and
// reports whether it is already done.
func (ep *Endpoint) RecvMatched(m *Matched, op *RecvOp) bool {
	ep.mu.Lock()
	ep.eng.RecvMatched(m, op)
	ep.drain()
	done := op.done
	ep.mu.Unlock()
	return done
}
