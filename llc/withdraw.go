package llc

import "fmt"

// Withdrawing a rendezvous request (CancelOp.Withdraw).
//
// A rendezvous send whose request to send (RTS) has left cannot be
// cancelled: a receiver may read or write its buffer whenever a receive
// matches the request. A sender that no longer wants it received (a
// collective call abandoned because the processes' arguments differ,
// whose receives will never be posted) withdraws it instead: a
// recWithdraw record naming the send's id follows the RTS through the same
// ring or queue. A receiver that still holds the RTS among its unexpected
// messages drops it and answers recWithdrawn; the sender then releases the
// buffer's registration and completes the send, Cancelled. A receiver
// that has matched the request (a receive, or Mprobe) ignores the record:
// the transfer goes on, and the send completes as any other.

const (
	// recWithdraw asks the receiver to forget an RTS; aux is its send id.
	recWithdraw uint8 = recPart + 1
	// recWithdrawn answers recWithdraw: the RTS was forgotten; aux is the
	// send id.
	recWithdrawn uint8 = recPart + 2
)

// withdrawSend cancels op if it has not left (cancelSend), and withdraws
// it if it is a rendezvous send whose request has left (see above). It
// reports whether it cancelled op; a withdrawn send waits for the
// receiver's answer, after which it completes, Cancelled if the receiver
// had not matched it.
func (e *Engine) withdrawSend(op *SendOp) bool {
	if op.done {
		return false
	}
	if e.cancelSend(op) {
		return true
	}
	if op.id != 0 && e.rndvSends[op.id] == op && !op.withdrawn {
		op.withdrawn = true
		e.stats.Withdrawn++
		e.queueControl(op.Peer, recWithdraw, op.id, nil)
	}
	return false
}

// onWithdraw forgets src's RTS of send sendID if no receive has matched it.
func (e *Engine) onWithdraw(src int, sendID uint64) {
	if u := e.unexp.takeRTS(src, sendID); u != nil {
		e.unexp.free(u)
		e.queueControl(src, recWithdrawn, sendID, nil)
	}
}

// onWithdrawn completes a withdrawn send that dst forgot.
func (e *Engine) onWithdrawn(dst int, sendID uint64) {
	op := e.rndvSends[sendID]
	if op == nil || op.Peer != dst || !op.withdrawn {
		e.fail(fmt.Errorf("llc: process %d forgot send %d, which was not withdrawn from it", dst, sendID))
		return
	}
	e.dropRndvSend(op)
	op.finish(nil)
	op.cancelled = true
}
