package llc

// cancelSend cancels op if it has not left yet: while it waits for its
// connection, for its buffer's registration, or for room in the peer's
// ring or queue. It reports whether it did; the op is then done and
// Cancelled. A message that has left (an eager record written, a
// rendezvous request to send written, a synchronous message waiting for
// its acknowledgement, a message in several queue records whose first
// part was enqueued) cannot be cancelled.
func (e *Engine) cancelSend(op *SendOp) bool {
	if op.done || op.Peer < 0 || op.Peer >= len(e.peers) {
		return false
	}
	p := &e.peers[op.Peer]
	for i := range p.q.n {
		it := p.q.at(i)
		if it.op != op {
			continue
		}
		if i == 0 && (p.enqPending || it.sent > 0) {
			return false // its record, or a part of it, is being enqueued or is in the queue
		}
		if it.rndv {
			e.dropRndvSend(op)
		} else {
			e.dropSync(op)
		}
		op.finish(nil)
		op.cancelled = true
		it.op = cancelledSend
		return true
	}
	return false
}

// cancelledSend takes the place in a peer's queue of a send that
// cancelSend took out: the item is skipped as a done send's is, and the
// caller may reuse the op at once (a reused op that stayed in the queue
// would be sent there, with whatever it holds then).
var cancelledSend = &SendOp{done: true, cancelled: true}
