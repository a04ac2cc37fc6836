package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// Request-based one-sided operations (MPI-3.1 11.3.5): each returns a
// Request that completes locally, as MPI says: an Rput's once its origin
// buffer may be reused, an Rget's once the data is there. They are
// allowed in passive-target epochs only (Lock, LockAll); elsewhere they
// fail with ErrRMASync. A Flush completes them at their targets too, but
// their requests still have to be completed by Wait, Test or their
// relatives, which take them with any other requests.

// rmaRequest is the operations of a request-based one-sided call still
// in flight when it returned.
type rmaRequest struct {
	ops []*llc.RMAOp
	// fetch are the words that the fetch-and-adds of an RgetAccumulate
	// return: where each operation's result goes once it is done.
	fetch []rmaFetch
}

type rmaFetch struct {
	op  *llc.RMAOp
	out []byte
}

// fetched makes op's result the 8 bytes of out once the request is done.
func (q *rmaRequest) fetched(op *llc.RMAOp, out []byte) {
	q.fetch = append(q.fetch, rmaFetch{op, out})
}

// done reports whether every operation is done. Called with the
// endpoint's lock held, as the engine completes them.
func (q *rmaRequest) done() bool {
	for _, op := range q.ops {
		if !op.Done() {
			return false
		}
	}
	return true
}

// finish returns the errors of the operations of the call name, once
// done, and delivers the fetched words.
func (q *rmaRequest) finish(name string) error {
	var errs []error
	for _, op := range q.ops {
		if err := op.Err(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("mpi: %s: %w", name, err)
	}
	for _, f := range q.fetch {
		binary.LittleEndian.PutUint64(f.out, f.op.Result)
	}
	return nil
}

// request returns the Request of q, started by the call name on target.
func (w *Win) request(name string, target int, q *rmaRequest) *Request {
	w.c.requestStarted()
	return &Request{c: w.c, rma: q, name: name, peer: target}
}

// nullRequest returns a complete Request of the call name (at ProcNull).
func (w *Win) nullRequest(name string) *Request {
	return &Request{c: w.c, null: true, name: name, peer: ProcNull}
}

// Rput is Put that returns a Request (MPI_Rput): it completes once origin
// may be reused; the data is at the target after the next Flush or
// Unlock. Only in a passive-target epoch (Lock, LockAll): elsewhere an
// error wrapping ErrRMASync.
func Rput[T Type](w *Win, origin []T, target, disp int) (*Request, error) {
	return rtransfer(w, "Rput", llc.RMAPut, asBytes(origin), target, disp)
}

// Rget is Get that returns a Request (MPI_Rget): it completes once
// result holds the target's elements. Only in a passive-target epoch.
func Rget[T Type](w *Win, result []T, target, disp int) (*Request, error) {
	return rtransfer(w, "Rget", llc.RMAGet, asBytes(result), target, disp)
}

// rtransfer starts a request-based put or get of b.
func rtransfer(w *Win, name string, kind llc.RMAKind, b []byte, target, disp int) (*Request, error) {
	skip, err := w.startEpoch(name, target, true)
	if err != nil {
		return nil, err
	}
	if skip {
		return w.nullRequest(name), nil
	}
	q := &rmaRequest{}
	if err := w.move(name, kind, b, target, disp, q); err != nil {
		return nil, err
	}
	return w.request(name, target, q), nil
}

// Raccumulate is Accumulate that returns a Request (MPI_Raccumulate): it
// completes once origin may be reused. Integer sums of 8-byte elements of
// a WinAllocate window are the network's fetch-and-adds, in flight when
// Raccumulate returns; the other accumulates are done at the target
// before it returns (they take the target's accumulate lock or a
// compare-and-swap loop) and their Request is complete. Only in a
// passive-target epoch.
func Raccumulate[T Type](w *Win, origin []T, target, disp int, op Op) (*Request, error) {
	return raccumulate(w, "Raccumulate", origin, nil, target, disp, op)
}

// RgetAccumulate is GetAccumulate that returns a Request
// (MPI_Rget_accumulate): it completes once result holds the elements
// before the operation. As with Raccumulate, only integer sums of 8-byte
// elements of a WinAllocate window are still in flight when it returns.
// Only in a passive-target epoch.
func RgetAccumulate[T Type](w *Win, origin, result []T, target, disp int, op Op) (*Request, error) {
	if result == nil {
		result = []T{}
	}
	return raccumulate(w, "RgetAccumulate", origin, result, target, disp, op)
}

func raccumulate[T Type](w *Win, name string, origin, result []T, target, disp int, op Op) (*Request, error) {
	q := &rmaRequest{}
	if err := accumulate(w, name, origin, result, target, disp, op, q); err != nil {
		return nil, err
	}
	if target == ProcNull {
		return w.nullRequest(name), nil
	}
	return w.request(name, target, q), nil
}
