package mpi

import (
	"errors"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// exchangeOps are the operations of one exchange of a commNet: its sends
// and receives, posted together and waited for together. It is a
// Completion that is done when all of them are.
type exchangeOps struct {
	sends []*llc.SendOp
	recvs []*llc.RecvOp
}

func (x *exchangeOps) Done() bool {
	for _, op := range x.recvs {
		if !op.Done() {
			return false
		}
	}
	for _, op := range x.sends {
		if !op.Done() {
			return false
		}
	}
	return true
}

// Exchange implements collectives.Exchanger: every send is started and
// every receive posted, then all of them are waited for at once. Neither
// looks at the network, so the peers' messages still find the receives
// posted; the sends go first so that a rendezvous request of a peer's
// that arrived already finds this process sending to it, which makes the
// pair an exchange (llc's ExchangePush). Sends of at least the network's
// SingleCopyMin go by rendezvous: their receives are posted, and one copy
// beats the eager path's two; so do those of at least its
// DistinctSingleCopyMin where the sends' buffers differ (oneBuffer).
//
// Where processes outnumber cores, the receives are marked
// llc.RecvOp.Whole: each receiver reads its messages whole rather than
// split with their senders, which are busy with their own
// (docs/decisions.md, whole reads); so are the receives marked Whole
// (a linear scatter's, whose root is busy with its other sends and its
// own block), except under the timing model.
func (n *commNet) Exchange(sends, recvs []collectives.Transfer) error {
	return n.ExchangeCopying(sends, recvs, nil, nil)
}

// ExchangeCopying implements collectives.CopyingExchanger: Exchange, with
// src copied into dst once every send has started and every receive is
// posted, before the wait; under the timing model after the wait, as
// before there was a CopyingExchanger, so that the modelled runs'
// recorded results stay as they were.
func (n *commNet) ExchangeCopying(sends, recvs []collectives.Transfer, dst, src []byte) error {
	n.postExchange(sends, recvs)
	defer n.recycleExchange()
	if !n.c.rt.modelled {
		copy(dst, src)
	}
	err := n.awaitExchange(sends, recvs)
	if n.c.rt.modelled {
		copy(dst, src)
	}
	return err
}

// postExchange starts the sends and posts the receives of an exchange
// (Exchange), in n.xops.
func (n *commNet) postExchange(sends, recvs []collectives.Transfer) {
	c, x := n.c, &n.xops
	ep := c.rt.ep
	distinct := c.rt.distinctSingleCopyMin > 0 && !oneBuffer(sends)
	for _, s := range sends {
		sop := newSendOp(c.toWorld(s.Peer), n.tag, c.ctx+1, s.Data)
		n.protocol(sop, c.rt.singleCopy(len(s.Data)) || distinct && c.rt.distinctSingleCopy(len(s.Data)), false)
		x.sends = append(x.sends, sop)
		ep.Send(sop)
	}
	for _, r := range recvs {
		rop := newRecvOp(c.toWorld(r.Peer), n.tag, c.ctx+1, r.Data)
		rop.Whole = c.rt.exchangeWhole || r.Whole && !c.rt.modelled
		x.recvs = append(x.recvs, rop)
		ep.Recv(rop)
	}
}

// awaitExchange waits for the operations postExchange posted and returns
// their errors, with the received lengths in recvs; an interrupted wait
// withdraws them.
func (n *commNet) awaitExchange(sends, recvs []collectives.Transfer) error {
	x := &n.xops
	if !n.wait(x) {
		for _, rop := range x.recvs {
			n.dropRecv(rop) // recycleExchange gives it back
		}
		for i, sop := range x.sends {
			if !n.dropSend(sop) {
				x.sends[i] = nil // the engine's until the receiver answers
			}
		}
		return interrupted("collective exchange", n.c.rank)
	}
	var errs []error
	for i, sop := range x.sends {
		if err := sop.Err(); err != nil {
			errs = append(errs, wrap("collective send", sends[i].Peer, err))
		}
	}
	for i, rop := range x.recvs {
		recvs[i].Len = rop.Status.Len
		if err := receiveError(rop.Err()); err != nil {
			errs = append(errs, wrap("collective receive", recvs[i].Peer, err))
		}
	}
	return errors.Join(errs...)
}

// recycleExchange returns the operations of the last exchange that are
// still n's to their pools (an interrupted exchange's sends that the
// engine kept are not).
func (n *commNet) recycleExchange() {
	x := &n.xops
	for i, rop := range x.recvs {
		if rop != nil {
			*rop = llc.RecvOp{}
			recvOps.Put(rop)
		}
		x.recvs[i] = nil
	}
	for i, sop := range x.sends {
		if sop != nil {
			*sop = llc.SendOp{}
			sendOps.Put(sop)
		}
		x.sends[i] = nil
	}
	x.recvs, x.sends = x.recvs[:0], x.sends[:0]
}

// oneBuffer reports whether the sends of an exchange, more than one, all
// send the same buffer (a linear allgather's block to every peer).
func oneBuffer(sends []collectives.Transfer) bool {
	if len(sends) < 2 || len(sends[0].Data) == 0 {
		return false
	}
	first := &sends[0].Data[0]
	for _, s := range sends[1:] {
		if len(s.Data) != len(sends[0].Data) || &s.Data[0] != first {
			return false
		}
	}
	return true
}
