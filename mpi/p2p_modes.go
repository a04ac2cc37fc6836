package mpi

import (
	"slices"

	"github.com/rhinet-go/martini/llc"
)

// The send modes of MPI besides the standard one: synchronous (Ssend),
// ready (Rsend) and buffered (Bsend, in bsend.go), with their nonblocking
// forms; and Sendrecv_replace.

// Ssend sends buf to rank dest of c with tag and returns once a receive
// has matched the message (MPI_Ssend): an eager message waits for the
// receiver's acknowledgement, a rendezvous one for its transfer, as Send's
// does.
func Ssend[T Type](c *Comm, buf []T, dest, tag int) error {
	if err := c.checkDest("Ssend", dest, tag); err != nil {
		return err
	}
	if dest == ProcNull {
		return nil
	}
	ep := c.rt.ep
	sop := newSendOp(c.toWorld(dest), int32(tag), c.ctx, asBytes(buf))
	sop.Sync = true
	if !ep.Send(sop) {
		ep.Wait(sop)
	}
	err := wrap("Ssend", dest, sop.Err())
	*sop = llc.SendOp{}
	sendOps.Put(sop)
	return err
}

// Issend starts a synchronous send (MPI_Issend): its Request completes
// once a receive has matched the message. buf must not be modified until
// then.
func Issend[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return startSend(c, "Issend", buf, dest, tag, true)
}

// Rsend is a ready-mode send (MPI_Rsend): MPI requires the matching
// receive to be posted already. This runtime does not need that, so Rsend
// sends as Send does, and a program that breaks the rule still works.
func Rsend[T Type](c *Comm, buf []T, dest, tag int) error {
	if err := c.checkDest("Rsend", dest, tag); err != nil {
		return err
	}
	if dest == ProcNull {
		return nil
	}
	return wrap("Rsend", dest, c.rt.ep.SendWait(c.toWorld(dest), int32(tag), c.ctx, asBytes(buf)))
}

// Irsend starts a ready-mode send (MPI_Irsend); it behaves as Isend (see
// Rsend).
func Irsend[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return startSend(c, "Irsend", buf, dest, tag, false)
}

// startSend is Isend for the call name, synchronous if sync.
func startSend[T Type](c *Comm, name string, buf []T, dest, tag int, sync bool) (*Request, error) {
	if err := c.checkDest(name, dest, tag); err != nil {
		return nil, err
	}
	r := &Request{c: c, peer: dest, elem: sizeOf[T](), name: name}
	if dest == ProcNull {
		r.null = true
		return r, nil
	}
	r.startPooledSend(c.toWorld(dest), int32(tag), asBytes(buf), sync)
	return r, nil
}

// SendrecvReplace sends buf to rank dest with sendtag and receives into
// buf, from source (or AnySource) with recvtag (or AnyTag), a message of
// at most len(buf) elements (MPI_Sendrecv_replace). The outgoing data is
// copied first, so the incoming may overwrite it.
func SendrecvReplace[T Type](c *Comm, buf []T, dest, sendtag, source, recvtag int) (Status, error) {
	var out []T
	if dest != ProcNull {
		out = slices.Clone(buf)
	}
	return sendrecv("SendrecvReplace", c, out, dest, sendtag, buf, source, recvtag)
}

// GetElements returns the number of basic elements of type T in the
// message st describes (MPI_Get_elements). The element types of this
// package are all basic, so it equals GetCount.
func GetElements[T Type](st Status) int { return GetCount[T](st) }
