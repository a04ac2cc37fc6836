package mpi

import (
	"errors"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// commNet carries one collective operation of a communicator: messages in
// the communicator's collective context with the operation's tag. It
// implements collectives.Net.
type commNet struct {
	c   *Comm
	tag int32
	// stop, when set, abandons the waits of the operation once it reports
	// true (collectives.Interruptible); sw is the wait that watches it.
	stop func() bool
	sw   stopWait
	// xops holds the operations of an exchange in progress (Exchange).
	xops exchangeOps
	// sop and rop are the send and the receive that the net's Sendrecv,
	// its sends through a SendOp and its receives through a RecvOp use,
	// kept zeroed between calls (a net carries one operation's calls, one
	// at a time): taking them from the pools and putting them back cost a
	// Sendrecv some 230 instructions. A send that an interrupted wait
	// leaves with the engine is its alone: sop is then made anew.
	sop *llc.SendOp
	rop *llc.RecvOp
}

// sendOpFor returns the net's send operation set for a send of data to
// rank to of the communicator with the operation's tag.
func (n *commNet) sendOpFor(to int, data []byte) *llc.SendOp {
	op := kept(&n.sop)
	op.Peer, op.Tag, op.Ctx, op.Data = n.c.toWorld(to), n.tag, n.c.ctx+1, data
	return op
}

// recvOpFor returns the net's receive operation set for a receive into
// buf from rank from of the communicator with the operation's tag.
func (n *commNet) recvOpFor(from int, buf []byte) *llc.RecvOp {
	op := kept(&n.rop)
	op.Source, op.Tag, op.Ctx, op.Buf = n.c.toWorld(from), n.tag, n.c.ctx+1, buf
	return op
}

// kept returns *p, made first if nil.
func kept[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

// dropOwnSend is dropSend for the net's own send operation, which it
// keeps if the send was withdrawn and otherwise leaves to the engine.
func (n *commNet) dropOwnSend(sop *llc.SendOp) {
	if n.dropSend(sop) {
		*sop = llc.SendOp{}
	} else {
		n.sop = nil
	}
}

// dropOwnRecv is dropRecv for the net's own receive operation.
func (n *commNet) dropOwnRecv(rop *llc.RecvOp) {
	n.dropRecv(rop)
	*rop = llc.RecvOp{}
}

// stopWait is a Completion that is done when op is or when stop reports
// true. It asks stop at every stopEvery-th look only: stop reads the
// synchronisation network's line of every member, and a difference in
// the arguments, which it watches for, is rare.
type stopWait struct {
	op    llc.Completion
	stop  func() bool
	looks int
}

// stopEvery is how many looks of a stopWait pass between two calls of its
// stop (docs/decisions.md, stopEvery).
const stopEvery = 16

func (w *stopWait) Done() bool {
	if w.op.Done() {
		return true
	}
	w.looks++
	return w.looks%stopEvery == 0 && w.stop()
}

// Interrupt implements collectives.Interruptible.
func (n *commNet) Interrupt(stop func() bool) { n.stop = stop }

// wait waits for op, or until the operation is interrupted (see
// Interrupt); it reports whether op is done.
func (n *commNet) wait(op llc.Completion) bool {
	ep := n.c.rt.ep
	if n.stop == nil {
		ep.Wait(op)
		return true
	}
	n.sw = stopWait{op: op, stop: n.stop}
	ep.Wait(&n.sw)
	n.sw = stopWait{}
	return op.Done()
}

// interrupted is the error of a wait that stop abandoned.
func interrupted(what string, rank int) error {
	return wrap(what, rank, collectives.ErrInterrupted)
}

func (n *commNet) Rank() int { return n.c.rank }
func (n *commNet) Size() int { return n.c.size }

func (n *commNet) Send(to int, data []byte) error {
	c := n.c
	if n.stop == nil && (len(data) <= c.rt.eagerLimit || len(data) > c.rt.collEager) {
		return wrap("collective send", to, c.rt.ep.SendWait(c.toWorld(to), n.tag, c.ctx+1, data))
	}
	return n.sendOp(to, data, false, false)
}

// SendOperand implements collectives.OperandNet: a message of at least
// the network's SingleCopyMin goes by rendezvous, which its receiver,
// about to combine it, reads into its own caches.
func (n *commNet) SendOperand(to int, data []byte) error {
	return n.sendOp(to, data, n.c.rt.singleCopy(len(data)), false)
}

// SendAhead implements collectives.AheadSender: a send marked
// llc.SendOp.Eager.
func (n *commNet) SendAhead(to int, data []byte) error { return n.sendOp(to, data, false, true) }

// sendOp is Send through the net's SendOp marked rendezvous or eager.
func (n *commNet) sendOp(to int, data []byte, rendezvous, eager bool) error {
	ep := n.c.rt.ep
	sop := n.sendOpFor(to, data)
	n.protocol(sop, rendezvous, eager)
	if !ep.Send(sop) && !n.wait(sop) {
		n.dropOwnSend(sop)
		return interrupted("collective send", to)
	}
	err := sop.Err()
	*sop = llc.SendOp{}
	return wrap("collective send", to, err)
}

func (n *commNet) Recv(from int, buf []byte) (int, error) {
	c := n.c
	if n.stop == nil {
		st, err := c.rt.ep.RecvWait(c.toWorld(from), n.tag, c.ctx+1, buf)
		return st.Len, wrap("collective receive", from, receiveError(err))
	}
	return n.recv(from, buf, false)
}

// RecvOperand implements collectives.OperandNet: a receive marked
// llc.RecvOp.Consume where the tuning table says so (never under a
// timing model, whose results do not move with the native tuning).
func (n *commNet) RecvOperand(from int, buf []byte) (int, error) {
	return n.recv(from, buf, n.c.rt.consume)
}

// recv is Recv through the net's RecvOp, marked consume if asked.
func (n *commNet) recv(from int, buf []byte, consume bool) (int, error) {
	rop := n.recvOpFor(from, buf)
	rop.Consume = consume
	n.c.rt.ep.Recv(rop)
	if !n.wait(rop) {
		n.dropOwnRecv(rop)
		return 0, interrupted("collective receive", from)
	}
	length, err := rop.Status.Len, rop.Err()
	*rop = llc.RecvOp{}
	return length, wrap("collective receive", from, receiveError(err))
}

// receiveError is a collective receive's error: a truncated message is
// none, since the caller compares lengths.
func receiveError(err error) error {
	if errors.Is(err, llc.ErrTruncated) {
		return nil
	}
	return err
}

func (n *commNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	return n.sendrecv(to, data, from, buf, false)
}

// SendrecvOperand implements collectives.OperandNet: Sendrecv with
// its receive marked llc.RecvOp.Consume where the tuning table says so.
func (n *commNet) SendrecvOperand(to int, data []byte, from int, buf []byte) (int, error) {
	return n.sendrecv(to, data, from, buf, n.c.rt.consume)
}

// sendrecv is Sendrecv with its receive marked consume.
func (n *commNet) sendrecv(to int, data []byte, from int, buf []byte, consume bool) (int, error) {
	ep := n.c.rt.ep
	// The send starts before the receive is posted (neither looks at
	// the network): a rendezvous request of the peer's that arrived
	// already then finds this process sending to it, which makes the
	// pair an exchange (llc's ExchangePush).
	sop := n.sendOpFor(to, data)
	n.protocol(sop, false, false)
	sent := ep.Send(sop)
	rop := n.recvOpFor(from, buf)
	rop.Consume = consume
	ep.Recv(rop)
	if !sent && !n.wait(sop) {
		// Interrupted: the receive goes, the send too unless it left.
		n.dropOwnRecv(rop)
		n.dropOwnSend(sop)
		return 0, interrupted("collective send", to)
	}
	err := sop.Err()
	*sop = llc.SendOp{}
	length := 0
	switch {
	case err != nil && ep.Cancel(rop):
		err = wrap("collective send", to, err)
	case !n.wait(rop):
		n.dropOwnRecv(rop)
		return 0, interrupted("collective receive", from)
	default:
		length = rop.Status.Len
		if rerr := rop.Err(); rerr != nil && !errors.Is(rerr, llc.ErrTruncated) {
			err = errors.Join(wrap("collective send", to, err), wrap("collective receive", from, rerr))
		} else if err != nil {
			err = wrap("collective send", to, err)
		}
	}
	*rop = llc.RecvOp{}
	return length, err
}

// protocol marks sop rendezvous or eager as asked. Where the operation
// overlaps its argument check (n.stop set), a send not marked rendezvous
// asks for the eager path (up to the engine's EagerHintLimit): the
// processes then need not wait for each other to move data. A send not
// marked rendezvous asks for the eager path up to the collectives' own
// eager limit (collEager) anyway.
func (n *commNet) protocol(sop *llc.SendOp, rendezvous, eager bool) {
	if n.stop != nil && !rendezvous {
		eager = true
	}
	if !rendezvous && len(sop.Data) <= n.c.rt.collEager {
		eager = true
	}
	sop.Rendezvous, sop.Eager = rendezvous, eager
}

// dropSend cancels a send whose wait was interrupted and reports whether
// sop is free again; a rendezvous request that has left is withdrawn
// (llc.Engine.WithdrawSend), and the send stays with the engine until the
// receiver answers.
func (n *commNet) dropSend(sop *llc.SendOp) bool { return n.c.rt.ep.WithdrawSend(sop) }

// dropRecv cancels a receive whose wait was interrupted (or lets it finish
// if it matched meanwhile): rop is free again once it returns.
func (n *commNet) dropRecv(rop *llc.RecvOp) {
	ep := n.c.rt.ep
	if !ep.Cancel(rop) {
		ep.Wait(rop)
	}
}

// tag returns the tag of the next collective call of c: every process
// calls c's collectives in the same order, so they agree on it.
func (c *Comm) nextTag() int32 { return int32(c.seq.Add(1) & 0x7fffffff) }
