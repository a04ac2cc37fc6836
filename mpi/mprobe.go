package mpi

import (
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc"
)

// Message is a message that Mprobe or Improbe took out of the matching
// (MPI_Message): no receive or probe sees it any more, and only Mrecv or
// Imrecv with it receives it, once. A message probed from ProcNull
// (MPI_MESSAGE_NO_PROC) receives nothing.
type Message struct {
	c      *Comm
	m      *llc.Matched // nil for ProcNull
	source int          // the rank it was probed with
	taken  atomic.Bool
}

// Mprobe waits until a message from source (or AnySource) with tag (or
// AnyTag) can be received, takes it out of the matching and returns it
// with its status (MPI_Mprobe); the status's Count is in bytes, as
// Probe's. A synchronous sender's Ssend completes now: its message has
// matched.
func (c *Comm) Mprobe(source, tag int) (*Message, Status, error) {
	if err := c.checkSource("Mprobe", source, tag); err != nil {
		return nil, Status{}, err
	}
	if source == ProcNull {
		return &Message{c: c, source: source}, procNullStatus, nil
	}
	m, err := c.rt.ep.WaitMprobe(c.toWorldSource(source), int32(tag), c.ctx)
	if err != nil {
		return nil, Status{}, fmt.Errorf("mpi: Mprobe: %w", err)
	}
	st := m.Status // returned as a literal (see Comm.sourceOf)
	return &Message{c: c, m: m, source: source}, Status{Source: c.sourceOf(st), Tag: int(st.Tag), Count: st.Len, Bytes: st.Len}, nil
}

// Improbe is the nonblocking Mprobe (MPI_Improbe): it makes progress once
// and reports whether a matching message was there; if so it took it out
// of the matching and returns it with its status.
func (c *Comm) Improbe(source, tag int) (bool, *Message, Status, error) {
	if err := c.checkSource("Improbe", source, tag); err != nil {
		return false, nil, Status{}, err
	}
	if source == ProcNull {
		return true, &Message{c: c, source: source}, procNullStatus, nil
	}
	m, ok := c.rt.ep.Mprobe(c.toWorldSource(source), int32(tag), c.ctx)
	if !ok {
		if err := c.rt.ep.Err(); err != nil {
			return false, nil, Status{}, fmt.Errorf("mpi: Improbe: %w", err)
		}
		return false, nil, Status{}, nil
	}
	st := m.Status // returned as a literal (see Comm.sourceOf)
	return true, &Message{c: c, m: m, source: source}, Status{Source: c.sourceOf(st), Tag: int(st.Tag), Count: st.Len, Bytes: st.Len}, nil
}

// take checks m and marks it received.
func (m *Message) take(op string) error {
	if m == nil || m.c == nil {
		return fmt.Errorf("mpi: %s: nil message: %w", op, ErrRequest)
	}
	if err := m.c.checkLive(op); err != nil {
		return err
	}
	if !m.taken.CompareAndSwap(false, true) {
		return fmt.Errorf("mpi: %s: the message was already received: %w", op, ErrRequest)
	}
	return nil
}

// Mrecv receives the message m into buf (MPI_Mrecv). A message longer than
// buf is an error wrapping ErrTruncate, as in Recv.
func Mrecv[T Type](m *Message, buf []T) (Status, error) {
	if err := m.take("Mrecv"); err != nil {
		return Status{}, err
	}
	if m.m == nil {
		return procNullStatus, nil
	}
	ep := m.c.rt.ep
	rop := recvOps.Get().(*llc.RecvOp)
	rop.Buf = asBytes(buf) // field by field: see newSendOp
	if !ep.RecvMatched(m.m, rop) {
		ep.Wait(rop)
	}
	st := rop.Status
	count := min(st.Len, len(rop.Buf)) / sizeOf[T]()
	err := wrap("Mrecv", m.source, rop.Err())
	*rop = llc.RecvOp{}
	recvOps.Put(rop)
	return Status{Source: m.c.sourceOf(st), Tag: int(st.Tag), Count: count, Bytes: st.Len}, err
}

// Imrecv starts receiving the message m into buf (MPI_Imrecv) and returns
// a Request to complete it.
func Imrecv[T Type](m *Message, buf []T) (*Request, error) {
	if err := m.take("Imrecv"); err != nil {
		return nil, err
	}
	r := &Request{c: m.c, recv: true, peer: m.source, elem: sizeOf[T](), name: "Imrecv"}
	if m.m == nil {
		r.null = true
		return r, nil
	}
	r.startPooledRecv(0, 0, asBytes(buf), m.m, nil)
	return r, nil
}
