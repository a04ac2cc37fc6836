package mpi

import (
	"errors"
	"slices"
)

// Isendrecv starts sending sendbuf to rank dest with sendtag and receiving
// into recvbuf from source (or AnySource) with recvtag (or AnyTag), as
// Sendrecv does, and returns one Request that completes once both have
// (MPI_Isendrecv). Its status is the receive's. Neither buffer may be
// touched until the Request completes.
func Isendrecv[S, R Type](c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int) (*Request, error) {
	return isendrecv("Isendrecv", c, sendbuf, dest, sendtag, recvbuf, source, recvtag)
}

// IsendrecvReplace starts SendrecvReplace (MPI_Isendrecv_replace): buf is
// sent from a copy taken now, and the message received replaces it.
func IsendrecvReplace[T Type](c *Comm, buf []T, dest, sendtag, source, recvtag int) (*Request, error) {
	var out []T
	if dest != ProcNull {
		out = slices.Clone(buf)
	}
	return isendrecv("IsendrecvReplace", c, out, dest, sendtag, buf, source, recvtag)
}

// isendrecv is Isendrecv for the call name. The send and the receive
// start at once, in the caller's order, so that they match as Sendrecv's
// do; a goroutine of the pair waits for both.
func isendrecv[S, R Type](name string, c *Comm, sendbuf []S, dest, sendtag int, recvbuf []R, source, recvtag int) (*Request, error) {
	if err := c.checkSource(name, source, recvtag); err != nil {
		return nil, err
	}
	s, err := startSend(c, name, sendbuf, dest, sendtag, false)
	if err != nil {
		return nil, err
	}
	r, err := Irecv(c, recvbuf, source, recvtag)
	if err != nil {
		_, serr := s.Wait()
		return nil, errors.Join(err, serr)
	}
	var st Status
	req := c.launch(name, func() error {
		_, serr := s.Wait()
		var rerr error
		st, rerr = r.Wait()
		return errors.Join(serr, rerr)
	})
	req.coll.status = &st
	return req, nil
}
