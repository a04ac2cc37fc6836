package llc

import (
	"errors"
	"fmt"
)

// Op is a user operation for Engine.Submit: *SendOp (a send), Unsolicited
// (an unsolicited send), *RecvOp (a receive, or with Message the receive
// of a matched message), *ProbeOp (a probe, or a matched probe), *CancelOp
// (the cancel or withdrawal of a send or receive), *RMAOp (a one-sided
// operation), *FlushOp (the settling of one-sided writes), *ExposeOp and
// Unexpose (memory exposed to one-sided operations and withdrawn again),
// ReleaseNote (a notification's buffer handed back) and Stop (the end of
// the engine).
type Op interface {
	// submitTo starts the operation on e.
	submitTo(e *Engine)
}

func (o Unsolicited) submitTo(e *Engine) { e.send(o.Send, true) }
func (o *ProbeOp) submitTo(e *Engine)    { e.probe(o) }
func (o *CancelOp) submitTo(e *Engine)   { e.cancel(o) }
func (o *RMAOp) submitTo(e *Engine)      { e.rmaStart(o) }
func (o *ExposeOp) submitTo(e *Engine)   { e.expose(o) }

func (o *FlushOp) submitTo(e *Engine) {
	o.eng = e
	o.reads = e.rmaSettle(o.Peer, o.Settle, o.reads[:0])
}

func (o Stop) submitTo(e *Engine) {
	if o.Err == nil {
		o.Err = ErrStopped
	}
	e.fail(o.Err)
}

func (o Unexpose) submitTo(e *Engine) {
	e.startExpose(o.Op, Command{Kind: CmdRelease, Peer: o.Op.Peer, Region: o.Op.Region})
}

// Unsolicited is an unsolicited send of Send: a message that needs no
// posted receive and is announced in the receiver's batches
// (NoteUnsolicited). It completes once the data is in the peer's ring or
// queue; the data must fit the eager limit.
type Unsolicited struct{ Send *SendOp }

// Unexpose releases the region that an ExposeOp exposed (Op.Region).
type Unexpose struct{ Op *ExposeOp }

// Stop stops the engine: every pending operation completes with Err
// (ErrStopped if nil), and every later one fails with it.
type Stop struct{ Err error }

// ErrStopped is the error of a Stop that gives none.
var ErrStopped = errors.New("llc: engine stopped")

// ProbeOp looks for the earliest unexpected message matching (Source,
// Tag, Ctx) without receiving it. With Take it also takes the message out
// of the matching (MPI's matched probe) as Message, which a RecvOp with
// Message then receives; a synchronous sender is acknowledged at once.
type ProbeOp struct {
	Source int
	Tag    int32
	Ctx    uint32
	Take   bool
	// Found reports, once submitted, whether a message matched; Status
	// describes it, and Message is it when Take was set. Err is the
	// engine's fatal error, if it has failed: no message can come then.
	Found   bool
	Status  Status
	Message *Matched
	Err     error
}

// reset makes p a probe for (source, tag, ctx), taking the message if
// take, with no result yet. Field by field: a composite literal stored
// through a pointer is built in a temporary and copied by 16-byte moves
// whose loads span its smaller stores; each such load waits for them to
// land, behind the stores into the peers' lines of the poll just made
// (docs/decisions.md, "Stores and loads of different sizes").
func (p *ProbeOp) reset(source int, tag int32, ctx uint32, take bool) {
	p.Source, p.Tag, p.Ctx, p.Take = source, tag, ctx, take
	p.Found, p.Status, p.Message, p.Err = false, Status{}, nil, nil
}

// CancelOp cancels Recv, a receive that has not matched yet, or Send, a
// send that has not left (see cancel.go); with Withdraw, a
// rendezvous send whose request has left is withdrawn instead (see
// withdraw.go): Send is then done once the receiver answers. When Err is
// set, a cancelled receive fails with it instead of being Cancelled.
type CancelOp struct {
	Recv     *RecvOp
	Send     *SendOp
	Withdraw bool
	Err      error
	// Cancelled reports, once submitted, whether the receive or send was
	// taken back (a withdrawn send tells it by its own Done).
	Cancelled bool
}

// FlushOp settles the one-sided writes to Peer (every peer when negative):
// with Settle (a transport that completes writes before they are in
// place, Caps.Async) a read behind the last writes is issued; the op is
// Done once every one-sided operation to Peer is, those reads included.
type FlushOp struct {
	Peer   int
	Settle bool

	eng   *Engine
	reads []*RMAOp
}

// Done reports whether no one-sided operation to the peer is in flight.
func (f *FlushOp) Done() bool { return f.eng == nil || f.eng.rmaPending(f.Peer) == 0 }

// Err returns the error of a settling read, once done.
func (f *FlushOp) Err() error {
	var errs []error
	for _, r := range f.reads {
		errs = append(errs, r.err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("llc: settling the writes: %w", err)
	}
	return nil
}

// probe runs a ProbeOp.
func (e *Engine) probe(p *ProbeOp) {
	p.Found, p.Status, p.Message, p.Err = false, Status{}, nil, e.err
	if p.Take {
		p.Message, p.Found = e.mprobe(p.Source, p.Tag, p.Ctx)
		if p.Found {
			p.Status = p.Message.Status
		}
		return
	}
	for u := e.unexp.head; u != nil; u = u.next {
		if matches(p.Source, p.Tag, p.Ctx, u.src, u.tag, u.ctx) {
			p.Found, p.Status = true, Status{Source: u.src, Tag: u.tag, Len: u.length}
			return
		}
	}
}

// cancel runs a CancelOp.
func (e *Engine) cancel(c *CancelOp) {
	c.Cancelled = false
	switch {
	case c.Recv != nil:
		if e.posted.remove(c.Recv) {
			c.Recv.finish(c.Err)
			c.Recv.cancelled = c.Err == nil
			c.Cancelled = true
		}
	case c.Send != nil && c.Withdraw:
		c.Cancelled = e.withdrawSend(c.Send)
	case c.Send != nil:
		c.Cancelled = e.cancelSend(c.Send)
	}
}
