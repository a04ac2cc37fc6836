package mpi

import (
	"errors"
	"fmt"
	"sync"

	"github.com/rhinet-go/martini/llc"
)

// Request is a nonblocking operation started by Isend or Irecv. Wait and
// Test complete it; completing it again returns the same result. Its
// methods are safe for concurrent use.
type Request struct {
	c    *Comm
	recv bool
	null bool // with ProcNull: complete from the start
	peer int
	elem int
	sop  llc.SendOp
	rop  llc.RecvOp
	coll *collRequest // a nonblocking collective, or nil
	// unpack, if set, moves a completed receive's data from its
	// buffer to where the caller's datatype puts it (IrecvType).
	unpack func(Status)

	mu       sync.Mutex
	finished bool
	status   Status
	err      error
}

// pending is a Request as the endpoint waits for it: its Done is called
// with the endpoint's lock held, so it is not part of Request's API.
type pending Request

// Done reports whether the operation has completed.
func (p *pending) Done() bool {
	r := (*Request)(p)
	switch {
	case r.null:
		return true
	case r.coll != nil:
		return r.coll.done.Load()
	case r.recv:
		return r.rop.Done()
	}
	return r.sop.Done()
}

// finish records the result of a completed operation once.
func (r *Request) finish() (Status, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.finished {
		r.finished = true
		if !r.null {
			defer r.c.requestFinished()
		}
		switch {
		case r.null && r.recv:
			r.status = procNullStatus
		case r.null:
		case r.coll != nil:
			r.err = r.coll.err
		case r.recv:
			r.status = r.c.status(r.rop.Status, len(r.rop.Buf), r.elem)
			r.err = wrap("Irecv", r.peer, r.rop.Err())
			if r.unpack != nil {
				r.unpack(r.status)
			}
		default:
			r.err = wrap("Isend", r.peer, r.sop.Err())
		}
	}
	return r.status, r.err
}

func (r *Request) check() error {
	if r == nil || r.c == nil {
		return fmt.Errorf("mpi: nil request: %w", ErrRequest)
	}
	return r.c.checkLive("Wait")
}

// Wait blocks until the operation completes and returns its status (for a
// receive) and error.
func (r *Request) Wait() (Status, error) {
	if err := r.check(); err != nil {
		return Status{}, err
	}
	switch {
	case r.coll != nil:
		<-r.coll.finished // its goroutine drives the progress
	case !r.null:
		r.c.rt.ep.Wait((*pending)(r))
	}
	return r.finish()
}

// Test reports whether the operation has completed, making progress once,
// and if so returns its status and error.
func (r *Request) Test() (bool, Status, error) {
	if err := r.check(); err != nil {
		return false, Status{}, err
	}
	if !r.null && !r.c.rt.ep.Test((*pending)(r)) {
		return false, Status{}, nil
	}
	st, err := r.finish()
	return true, st, err
}

// Waitall waits for every request (nil entries are skipped) and returns
// their statuses, in order, and the errors of those that failed, joined.
func Waitall(reqs []*Request) ([]Status, error) {
	sts := make([]Status, len(reqs))
	var errs []error
	for i, r := range reqs {
		if r == nil {
			continue
		}
		st, err := r.Wait()
		sts[i] = st
		if err != nil {
			errs = append(errs, err)
		}
	}
	return sts, errors.Join(errs...)
}

// anyDone is a completion that is done when one of reqs is.
type anyDone struct {
	reqs []*Request
	idx  int
}

func (a *anyDone) Done() bool {
	for i, r := range a.reqs {
		if r != nil && (*pending)(r).Done() {
			a.idx = i
			return true
		}
	}
	return false
}

// Waitany waits until one of reqs completes and returns its index, status
// and error; the completed entry is set to nil, as MPI sets it to the null
// request, so that calling Waitany again waits for the others. With no
// non-nil request it returns Undefined.
func Waitany(reqs []*Request) (int, Status, error) {
	var c *Comm
	for _, r := range reqs {
		if r != nil {
			if err := r.check(); err != nil {
				return Undefined, Status{}, err
			}
			c = r.c
		}
	}
	if c == nil {
		return Undefined, Status{}, nil
	}
	a := &anyDone{reqs: reqs, idx: -1}
	c.rt.ep.Wait(a)
	r := reqs[a.idx]
	reqs[a.idx] = nil
	st, err := r.finish()
	return a.idx, st, err
}

// Testall makes progress once and reports whether every request (nil
// entries skipped) has completed; if so it returns their statuses and
// joined errors.
func Testall(reqs []*Request) (bool, []Status, error) {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		ok, _, err := r.Test()
		if err != nil && !ok {
			return false, nil, err
		}
		if !ok {
			return false, nil, nil
		}
	}
	sts, err := Waitall(reqs)
	return true, sts, err
}

// Testany makes progress once and, if one of reqs has completed, returns
// its index, status and error and sets the entry to nil; otherwise it
// returns Undefined.
func Testany(reqs []*Request) (int, Status, error) {
	for i, r := range reqs {
		if r == nil {
			continue
		}
		ok, st, err := r.Test()
		if ok {
			reqs[i] = nil
			return i, st, err
		}
		if err != nil {
			return Undefined, Status{}, err
		}
	}
	return Undefined, Status{}, nil
}
