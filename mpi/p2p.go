package mpi

import (
	"fmt"
	"sync"

	"github.com/rhinet-go/martini/llc"
)

// Operations of blocking calls are recycled so that the message path does
// not allocate. They are zero in the pools: whoever puts one back zeroes
// it first.
var (
	sendOps = sync.Pool{New: func() any { return new(llc.SendOp) }}
	recvOps = sync.Pool{New: func() any { return new(llc.RecvOp) }}
)

// newSendOp takes a send's operation from the pool with the fields of a
// send of data to peer with tag in ctx set. They are set one by one: a
// composite literal stored through a pointer is built in a temporary and
// copied by 16-byte moves, whose loads span the temporary's smaller
// stores and so cannot take their data from the store buffer; each waits
// for those stores to land, behind any stores into a peer's lines that
// went before (docs/decisions.md, "Stores and loads of different sizes").
func newSendOp(peer int, tag int32, ctx uint32, data []byte) *llc.SendOp {
	op := sendOps.Get().(*llc.SendOp)
	op.Peer, op.Tag, op.Ctx, op.Data = peer, tag, ctx, data
	return op
}

// newRecvOp is newSendOp for a receive into buf from source with tag in
// ctx.
func newRecvOp(source int, tag int32, ctx uint32, buf []byte) *llc.RecvOp {
	op := recvOps.Get().(*llc.RecvOp)
	op.Source, op.Tag, op.Ctx, op.Buf = source, tag, ctx, buf
	return op
}

// wrap names the call and the peer in a point-to-point call's error (nil
// stays nil).
func wrap(op string, peer int, err error) error {
	if err == nil {
		return nil
	}
	return wrapErr(op, peer, err)
}

// wrapErr is wrap of an error.
func wrapErr(op string, peer int, err error) error {
	if peer == AnySource {
		return fmt.Errorf("mpi: %s from any rank: %w", op, err)
	}
	return fmt.Errorf("mpi: %s with rank %d: %w", op, peer, err)
}

// Send sends the elements of buf to rank dest of c with tag. It returns when
// buf may be reused: for a message up to the eager limit once it is copied
// into the destination's ring, for a larger one once the receiver has it.
func Send[T Type](c *Comm, buf []T, dest, tag int) error {
	if !c.destOK(dest, tag) {
		if err := c.checkDestSlow("Send", dest, tag); err != nil {
			return err
		}
	}
	if dest == ProcNull {
		return nil
	}
	return wrap("Send", dest, c.rt.ep.SendWait(c.toWorld(dest), int32(tag), c.ctx, asBytes(buf)))
}

// Recv receives a message from rank source (or AnySource) of c with tag (or
// AnyTag) into buf. A message longer than buf is an error wrapping
// ErrTruncate that gives both sizes; buf then holds its beginning.
func Recv[T Type](c *Comm, buf []T, source, tag int) (Status, error) {
	if !c.sourceOK(source, tag) {
		if err := c.checkSourceSlow("Recv", source, tag); err != nil {
			return Status{}, err
		}
	}
	if source == ProcNull {
		return procNullStatus, nil
	}
	b := asBytes(buf)
	st, err := c.rt.ep.RecvWait(c.toWorldSource(source), int32(tag), c.ctx, b)
	return Status{Source: c.sourceOf(st), Tag: int(st.Tag), Count: min(st.Len, len(b)) / sizeOf[T](), Bytes: st.Len}, wrap("Recv", source, err)
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source,
// without deadlocking against a matching Sendrecv.
func Sendrecv[S, R Type](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int) (Status, error) {
	return sendrecv("Sendrecv", c, sendbuf, dest, sendtag, recvbuf, source, recvtag)
}

// sendrecv is Sendrecv for the call name.
func sendrecv[S, R Type](name string, c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int) (Status, error) {
	if !c.destOK(dest, sendtag) || !c.sourceOK(source, recvtag) {
		if err := c.checkDestSlow(name, dest, sendtag); err != nil {
			return Status{}, err
		}
		if err := c.checkSourceSlow(name, source, recvtag); err != nil {
			return Status{}, err
		}
	}
	ep := c.rt.ep
	// The send starts before the receive is posted (neither looks at the
	// network): a rendezvous request of the peer's that arrived already
	// then finds this process sending to it, which makes the pair an
	// exchange (llc's ExchangePush).
	// An eager send done at once takes no operation (SendEager).
	var sop *llc.SendOp
	sent := dest == ProcNull || ep.SendEager(c.toWorld(dest), int32(sendtag), c.ctx, asBytes(sendbuf))
	if !sent {
		sop = newSendOp(c.toWorld(dest), int32(sendtag), c.ctx, asBytes(sendbuf))
		sent = ep.Send(sop)
	}
	var rop *llc.RecvOp
	if source != ProcNull {
		rop = newRecvOp(c.toWorldSource(source), int32(recvtag), c.ctx, asBytes(recvbuf))
		ep.Recv(rop)
	}
	var serr, rerr error
	if sop != nil {
		if !sent {
			ep.Wait(sop)
		}
		if err := sop.Err(); err != nil { // the name is built only then: no allocation
			serr = wrap(name+" (send)", dest, err)
		}
		*sop = llc.SendOp{}
		sendOps.Put(sop)
	}
	// The status's fields, returned as a literal (see sourceOf): ProcNull's
	// status, else the receive's, or none where the send failed.
	src, tag, count, n := ProcNull, AnyTag, 0, 0
	if rop != nil {
		src, tag = 0, 0
		// Where the send failed and the receive can be cancelled, no
		// reply is waited for: the peer, which did not get the message,
		// may never send one.
		if serr == nil || !ep.Cancel(rop) {
			ep.Wait(rop)
			st := rop.Status
			src, tag, count, n = c.sourceOf(st), int(st.Tag), min(st.Len, len(rop.Buf))/sizeOf[R](), st.Len
			if err := rop.Err(); err != nil {
				rerr = wrap(name+" (receive)", source, err)
			}
		}
		*rop = llc.RecvOp{}
		recvOps.Put(rop)
	}
	if serr != nil {
		rerr = serr
	}
	return Status{Source: src, Tag: tag, Count: count, Bytes: n}, rerr
}

// Isend starts sending buf to rank dest of c with tag and returns a Request
// to complete it. buf must not be modified until the request completes.
func Isend[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	if !c.destOK(dest, tag) {
		if err := c.checkDestSlow("Isend", dest, tag); err != nil {
			return nil, err
		}
	}
	r := newRequest()
	r.c, r.peer, r.elem = c, dest, sizeOf[T]()
	if dest == ProcNull {
		r.null = true
		return r, nil
	}
	r.startPooledSend(c.toWorld(dest), int32(tag), asBytes(buf), false)
	return r, nil
}

// Irecv starts receiving into buf from rank source (or AnySource) of c with
// tag (or AnyTag) and returns a Request to complete it.
func Irecv[T Type](c *Comm, buf []T, source, tag int) (*Request, error) {
	return irecv(c, buf, source, tag, nil)
}

// irecv is Irecv, with unpack, if not nil, to run on the data once it is
// in buf (IrecvType).
func irecv[T Type](c *Comm, buf []T, source, tag int, unpack func(Status)) (*Request, error) {
	if !c.sourceOK(source, tag) {
		if err := c.checkSourceSlow("Irecv", source, tag); err != nil {
			return nil, err
		}
	}
	r := newRequest()
	r.c, r.recv, r.peer, r.elem = c, true, source, sizeOf[T]()
	if source == ProcNull {
		r.null = true
		return r, nil
	}
	r.startPooledRecv(c.toWorldSource(source), int32(tag), asBytes(buf), nil, unpack)
	return r, nil
}

// Iprobe reports whether a message from source (or AnySource) with tag (or
// AnyTag) can be received, and its status, without receiving it. The
// status's Count is in bytes; see GetCount.
func (c *Comm) Iprobe(source, tag int) (bool, Status, error) {
	if err := c.checkSource("Iprobe", source, tag); err != nil {
		return false, Status{}, err
	}
	if source == ProcNull {
		return true, procNullStatus, nil
	}
	st, ok := c.rt.ep.Probe(c.toWorldSource(source), int32(tag), c.ctx)
	if !ok {
		if err := c.rt.ep.Err(); err != nil {
			return false, Status{}, fmt.Errorf("mpi: Iprobe: %w", err)
		}
		return false, Status{}, nil
	}
	return true, Status{Source: c.sourceOf(st), Tag: int(st.Tag), Count: st.Len, Bytes: st.Len}, nil
}

// Probe waits until a message from source (or AnySource) with tag (or
// AnyTag) can be received and returns its status without receiving it.
func (c *Comm) Probe(source, tag int) (Status, error) {
	if err := c.checkSource("Probe", source, tag); err != nil {
		return Status{}, err
	}
	if source == ProcNull {
		return procNullStatus, nil
	}
	st, err := c.rt.ep.WaitProbe(c.toWorldSource(source), int32(tag), c.ctx)
	if err != nil {
		return Status{}, fmt.Errorf("mpi: Probe: %w", err)
	}
	return Status{Source: c.sourceOf(st), Tag: int(st.Tag), Count: st.Len, Bytes: st.Len}, nil
}

// toWorld maps a rank of c to the process id the engine uses.
func (c *Comm) toWorld(rank int) int {
	if c.world == nil {
		return rank
	}
	return c.world[rank]
}

// fromWorld maps a process id to its rank in c.
func (c *Comm) fromWorld(w int) int {
	if c.local == nil {
		return w
	}
	if r, ok := c.local[w]; ok {
		return r
	}
	return w
}

func (c *Comm) toWorldSource(rank int) int {
	if rank == AnySource {
		return AnySource
	}
	return c.toWorld(rank)
}

// sourceOf returns the sender of st, a process of the world, as c's rank;
// AnySource and ProcNull stay. The calls that return a status build it
// with this in their return statements, as a literal: a Status is too
// large for the compiler's registers, and one returned by a call, or kept
// in a variable and returned, is copied by 16-byte moves whose loads span
// the smaller stores that built it (see newSendOp).
func (c *Comm) sourceOf(st llc.Status) int {
	if st.Source >= 0 {
		return c.fromWorld(st.Source)
	}
	return st.Source
}
