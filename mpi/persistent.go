package mpi

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// SendInit makes a persistent request for standard sends of buf to rank
// dest of c with tag (MPI_Send_init). It is inactive until Start; each
// Start sends what buf holds then, and the request can be started again
// once the send has completed.
func SendInit[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return sendInit(c, "SendInit", buf, dest, tag, false)
}

// SsendInit makes a persistent request for synchronous sends (MPI_Ssend_init),
// as SendInit does: each started send completes only once a receive has
// matched its message, as Ssend's does.
func SsendInit[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return sendInit(c, "SsendInit", buf, dest, tag, true)
}

// RsendInit makes a persistent request for ready-mode sends
// (MPI_Rsend_init), as SendInit does; see Rsend.
func RsendInit[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return sendInit(c, "RsendInit", buf, dest, tag, false)
}

// BsendInit makes a persistent request for buffered sends
// (MPI_Bsend_init): each Start copies what buf holds then into the
// attached buffer and sends it from there, as Bsend does, so the started
// request is complete at once; a message that does not fit fails Start
// with an error wrapping ErrBuffer.
func BsendInit[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	r, err := sendInit(c, "BsendInit", buf, dest, tag, false)
	if err == nil && !r.null {
		// Nothing for the engine to complete: Start sends a copy.
		r.bsend, r.null = true, true
	}
	return r, err
}

func sendInit[T Type](c *Comm, name string, buf []T, dest, tag int, sync bool) (*Request, error) {
	if err := c.checkDest(name, dest, tag); err != nil {
		return nil, err
	}
	r := &Request{c: c, peer: dest, elem: sizeOf[T](), name: name, persistent: true, finished: true, null: dest == ProcNull}
	if !r.null {
		r.sop = &llc.SendOp{Peer: c.toWorld(dest), Tag: int32(tag), Ctx: c.ctx, Data: asBytes(buf), Sync: sync}
	}
	return r, nil
}

// RecvInit makes a persistent request for receives into buf from rank
// source (or AnySource) of c with tag (or AnyTag) (MPI_Recv_init). It is
// inactive until Start; each Start posts the receive again.
func RecvInit[T Type](c *Comm, buf []T, source, tag int) (*Request, error) {
	if err := c.checkSource("RecvInit", source, tag); err != nil {
		return nil, err
	}
	r := &Request{c: c, recv: true, peer: source, elem: sizeOf[T](), name: "RecvInit", persistent: true, finished: true, null: source == ProcNull}
	if !r.null {
		r.rop = &llc.RecvOp{Source: c.toWorldSource(source), Tag: int32(tag), Ctx: c.ctx, Buf: asBytes(buf)}
	}
	return r, nil
}

// Start starts the operation of an inactive persistent request
// (MPI_Start). Starting a request that is not persistent, or one that is
// active, is an error wrapping ErrRequest.
func (r *Request) Start() error {
	if err := r.checkOp("Start"); err != nil {
		return err
	}
	if !r.persistent {
		return fmt.Errorf("mpi: Start: not a persistent request: %w", ErrRequest)
	}
	if err := r.c.check("Start"); err != nil {
		return err
	}
	r.mu.Lock()
	if r.active.Load() {
		r.mu.Unlock()
		return fmt.Errorf("mpi: Start: %s request is still active: %w", r.name, ErrRequest)
	}
	if r.bsend {
		if err := attached.send(r.c, "Start", r.sop.Data, r.peer, int(r.sop.Tag)); err != nil {
			r.mu.Unlock()
			return err
		}
	}
	if r.restart != nil {
		r.coll = r.restart()
	}
	r.finished, r.status, r.err = false, Status{}, nil
	r.active.Store(true)
	r.mu.Unlock()
	if r.null || r.restart != nil {
		return nil
	}
	r.c.requestStarted()
	if r.recv {
		r.c.rt.ep.Recv(r.rop)
	} else {
		r.c.rt.ep.Send(r.sop)
	}
	return nil
}

// Active reports whether r is a persistent request that has been started
// and not yet completed by Wait, Test or the others: Start would fail.
func (r *Request) Active() bool { return r != nil && r.persistent && r.active.Load() }

// Startall starts every request of reqs (MPI_Startall); nil entries are
// skipped. It starts all it can and returns the errors of the others,
// joined.
func Startall(reqs []*Request) error {
	var errs []error
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if err := r.Start(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
