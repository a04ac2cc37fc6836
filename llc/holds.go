package llc

// HoldsContext reports whether the engine still holds an operation of
// context ctx that is not done: a receive posted and not matched, a
// rendezvous receive whose data has not all come, a send waiting for its
// connection or for room, a rendezvous send whose data the receiver has
// not taken, or a synchronous send waiting for its acknowledgement. A
// caller that reuses context numbers asks it before it reuses one,
// instead of counting each operation as it starts and completes.
func (e *Engine) HoldsContext(ctx uint32) bool {
	for op := e.posted.head; op != nil; op = op.next {
		if op.holds(ctx) {
			return true
		}
	}
	for i := range e.peers {
		q := &e.peers[i].q
		for k := range q.n {
			if op := q.at(k).op; op != nil && op.holds(ctx) {
				return true
			}
		}
	}
	return anyHolds(e.rndvSends, ctx) || anyHolds(e.syncSends, ctx) || anyHolds(e.rndvRecvs, ctx)
}

// holds reports whether op is of context ctx and not done.
func (op *SendOp) holds(ctx uint32) bool { return op.Ctx == ctx && !op.done }

// holds reports whether op is of context ctx and not done.
func (op *RecvOp) holds(ctx uint32) bool { return op.Ctx == ctx && !op.done }

// anyHolds reports whether an operation of ops is of context ctx and not
// done.
func anyHolds[T interface{ holds(uint32) bool }](ops map[uint64]T, ctx uint32) bool {
	for _, op := range ops {
		if op.holds(ctx) {
			return true
		}
	}
	return false
}

// HoldsContext reports whether the engine holds an operation of any of
// ctxs that is not done (Engine.HoldsContext). A look, not a call into
// the communication layer: in virtual time it charges nothing.
func (ep *Endpoint) HoldsContext(ctxs ...uint32) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	for _, ctx := range ctxs {
		if ep.eng.HoldsContext(ctx) {
			return true
		}
	}
	return false
}
