package mpi

import (
	"errors"

	"github.com/rhinet-go/martini/llc"
)

// commNet carries one collective operation of a communicator: messages in
// the communicator's collective context with the operation's tag. It
// implements collectives.Net.
type commNet struct {
	c   *Comm
	tag int32
}

func (n *commNet) Rank() int { return n.c.rank }
func (n *commNet) Size() int { return n.c.size }

func (n *commNet) Send(to int, data []byte) error {
	c := n.c
	return wrap("collective send", to, c.rt.ep.SendWait(c.toWorld(to), n.tag, c.ctx+1, data))
}

func (n *commNet) Recv(from int, buf []byte) (int, error) {
	c := n.c
	st, err := c.rt.ep.RecvWait(c.toWorld(from), n.tag, c.ctx+1, buf)
	if errors.Is(err, llc.ErrTruncated) {
		err = nil // the caller compares lengths
	}
	return st.Len, wrap("collective receive", from, err)
}

func (n *commNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	c := n.c
	ep := c.rt.ep
	rop := recvOps.Get().(*llc.RecvOp)
	*rop = llc.RecvOp{Source: c.toWorld(from), Tag: n.tag, Ctx: c.ctx + 1, Buf: buf}
	ep.Recv(rop)
	sop := sendOps.Get().(*llc.SendOp)
	*sop = llc.SendOp{Peer: c.toWorld(to), Tag: n.tag, Ctx: c.ctx + 1, Data: data}
	if !ep.Send(sop) {
		ep.Wait(sop)
	}
	err := sop.Err()
	*sop = llc.SendOp{}
	sendOps.Put(sop)
	length := 0
	if err != nil && ep.Cancel(rop) {
		err = wrap("collective send", to, err)
	} else {
		ep.Wait(rop)
		length = rop.Status.Len
		if rerr := rop.Err(); rerr != nil && !errors.Is(rerr, llc.ErrTruncated) {
			err = errors.Join(wrap("collective send", to, err), wrap("collective receive", from, rerr))
		} else if err != nil {
			err = wrap("collective send", to, err)
		}
	}
	*rop = llc.RecvOp{}
	recvOps.Put(rop)
	return length, err
}

// tag returns the tag of the next collective call of c: every process
// calls c's collectives in the same order, so they agree on it.
func (c *Comm) nextTag() int32 { return int32(c.seq.Add(1) & 0x7fffffff) }
