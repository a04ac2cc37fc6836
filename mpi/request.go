package mpi

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/memorder"
	"github.com/rhinet-go/martini/llc"
)

// Request is a nonblocking operation started by Isend, Irecv and the
// other I-calls, or by the request-based one-sided calls (Rput, Rget,
// Raccumulate, RgetAccumulate), or a persistent one made by SendInit, SsendInit,
// RsendInit, BsendInit or RecvInit. Wait and Test complete it; completing
// it again returns the same result, except that a persistent request is
// inactive once its result has been returned, and returns the empty
// status until it is started again (see Wait). Its methods are safe for
// concurrent use.
type Request struct {
	c    *Comm
	peer int
	elem int
	name string // the call that started it, for errors; "" for Isend and Irecv
	// sop and rop are the operation the engine completes, a send's or a
	// receive's. A nonblocking call's (pooled) comes from the package's
	// pools and goes back once done: Done records its result and sets it
	// to nil (harvest), so that a Request costs the garbage collector no
	// more than its own fields. A persistent request's is its own.
	sop  *llc.SendOp
	rop  *llc.RecvOp
	coll *collRequest // a nonblocking collective, or nil
	// restart starts a persistent collective's round (PersistentCollective):
	// Start takes the collective it starts as coll.
	restart func() *collRequest
	rma     *rmaRequest // a request-based one-sided operation, or nil
	// unpack, if set, moves a completed receive's data from its
	// buffer to where the caller's datatype puts it (IrecvType).
	unpack func(Status)

	recv   bool
	null   bool // nothing for the engine to complete (ProcNull, a buffered send): complete from the start
	pooled bool
	// persistent: started by Start, inactive (and complete) while active
	// is false.
	persistent bool
	bsend      bool // BsendInit: Start sends a copy of sop.Data through the attached buffer
	finished   bool // set by complete; read under mu (a persistent request)
	active     atomic.Bool
	freed      atomic.Bool
	// harvested is set (1) once a pooled operation's result is recorded
	// and the operation given back (harvest): the endpoint has nothing
	// more to do for it. final is set once a request that is not
	// persistent has its result for good (finish): Wait, Test and finish
	// then return it without the endpoint or the lock. Both are read
	// atomically and set by release stores (internal/memorder: an atomic
	// store is a locked instruction, which waits for the stores of the
	// last send into the peer's lines to land), final first where Done
	// completes a pooled request, except by startPooledSend and
	// startPooledRecv, which set them before any other goroutine can
	// reach the Request.
	harvested uint32
	final     uint32
	// finishing is set (1) by the caller of finish that completes a
	// request that is not persistent (finishOnce).
	finishing uint32

	mu     sync.Mutex
	status Status
	err    error
}

// pending is a Request as the endpoint waits for it: its Done is called
// with the endpoint's lock held, so it is not part of Request's API.
type pending Request

// Done reports whether the operation has completed; the first time it
// finds a pooled operation done, it harvests it.
func (p *pending) Done() bool {
	r := (*Request)(p)
	switch {
	case r.null, r.persistent && !r.active.Load():
		return true
	case r.coll != nil:
		if cr := r.coll; !cr.done.Load() {
			if cr.queued {
				cr.c.kickQueue() // waited for without its Wait: the pool runs it
			}
			return false
		}
		return true
	case r.rma != nil:
		return r.rma.done()
	case r.recv && r.rop == nil, !r.recv && r.sop == nil: // harvested
		return true
	case r.recv && !r.rop.Done(), !r.recv && !r.sop.Done():
		return false
	}
	if r.pooled {
		// A pooled request, never persistent, that was pending: it
		// completes here, once, under the endpoint's lock (see harvest).
		r.harvest()
		r.complete()
		memorder.StoreRelease32(&r.harvested, 1)
	}
	return true
}

// harvest records the result of a pooled operation that is done
// (record) and gives the operation back to its pool. It runs with the
// endpoint's lock held, under which every look at the operation happens
// (a Cancel or a Done after it finds the operation gone), or before any
// other goroutine can reach r. The caller sets harvested.
//
// Done then completes r as well, before it sets harvested: whoever sees
// harvested set, or sees the operation done under the lock after it,
// finds final set too, and finish returns the result without the
// compare-and-swap that finishOnce takes (a locked instruction, which
// waits for the stores of the poll that delivered the message).
func (r *Request) harvest() {
	r.record()
	if r.recv {
		r.c.rt.ep.ReturnKept(r.rop)
		r.rop = nil
		return
	}
	*r.sop = llc.SendOp{}
	sendOps.Put(r.sop)
	r.sop = nil
}

// record sets r's status and error from its operation, which is done.
func (r *Request) record() {
	if r.recv {
		r.recordRecv(r.rop)
		return
	}
	r.status = Status{Cancelled: r.sop.Cancelled()}
	r.err = wrap(r.callName("Isend"), r.peer, r.sop.Err())
}

// recordRecv sets r's status and error from op, its receive, which is
// done.
func (r *Request) recordRecv(op *llc.RecvOp) {
	if op.Cancelled() {
		r.status = Status{Cancelled: true}
		return
	}
	st := op.Status
	r.setStatus(r.c.sourceOf(st), int(st.Tag), min(st.Len, len(op.Buf))/r.elem, st.Len)
	r.err = wrap(r.callName("Irecv"), r.peer, op.Err())
}

// setStatus stores a receive's status into r field by field, and Wait
// and Test read it so into their results: a Status built as a value and
// assigned is copied through a temporary by 16-byte moves whose loads
// span the smaller stores that built it (see newSendOp).
func (r *Request) setStatus(source, tag, count, bytes int) {
	s := &r.status
	s.Source, s.Tag, s.Count, s.Bytes, s.Cancelled = source, tag, count, bytes, false
}

// startPooledSend starts a nonblocking send of data to peer (a process
// of the world) with tag, synchronous if sync, in r's communicator
// through an operation from the pool; r is new, and no other goroutine
// can reach it yet.
//
// A send done at once (an eager one, as most are) is finished here: a
// plain one takes no operation from the pool (llc.Endpoint.SendEager),
// another gives its operation back at once, and Wait and Test return
// its result without the endpoint or a lock. It is never pending, so it
// counts for neither Comm.Free's wait nor the endpoint, and its result
// and flags are plain stores, which the caller publishes with r to any
// goroutine it hands r to: an atomic store is a locked instruction, and
// would wait for the send's stores into the peer's lines to land.
func (r *Request) startPooledSend(peer int, tag int32, data []byte, sync bool) {
	ep := r.c.rt.ep
	r.pooled = true
	if !sync && ep.SendEager(peer, tag, r.c.ctx, data) {
		r.doneAtOnce() // with no error, as SendEager's sends are
		return
	}
	r.sop = newSendOp(peer, tag, r.c.ctx, data)
	r.sop.Sync = sync
	if !ep.Send(r.sop) {
		return // pending: Comm.Free asks the endpoint (Comm.idle)
	}
	r.harvest()
	r.doneAtOnce()
}

// doneAtOnce marks r, a send or receive that completed before its start
// returns, finished for good, with plain stores: no other goroutine can
// reach r yet.
func (r *Request) doneAtOnce() { r.finished, r.harvested, r.final = true, 1, 1 }

// startPooledRecv is startPooledSend for a receive into buf from source
// (a process of the world, or AnySource) with tag in r's communicator;
// matched, if not nil, is the message it receives (Imrecv), and unpack,
// if not nil, what moves the data from buf to where the caller's
// datatype puts it (IrecvType).
//
// A receive whose message was there (an eager one, come first) is
// finished here, as a send done at once is: it is never pending, and its
// flags are plain stores.
func (r *Request) startPooledRecv(source int, tag int32, buf []byte, matched *llc.Matched, unpack func(Status)) {
	r.pooled, r.unpack = true, unpack
	var op llc.RecvOp
	op.Source, op.Tag, op.Ctx, op.Buf, op.Message = source, tag, r.c.ctx, buf, matched
	if r.rop = r.c.rt.ep.RecvKept(&op); r.rop != nil {
		return // pending: Comm.Free asks the endpoint (Comm.idle)
	}
	r.recordRecv(&op)
	r.unpacked()
	r.doneAtOnce()
}

// unpacked runs r's unpack on its data, where r is a receive with an
// unpack that was not cancelled: complete's step, and a receive's done
// at once.
func (r *Request) unpacked() {
	if r.recv && r.unpack != nil && !r.status.Cancelled {
		r.unpack(r.status)
	}
}

// emptyStatus is MPI's empty status (MPI-3.1 §3.7.3), which completing a
// null or inactive request returns: source AnySource, tag AnyTag, no
// elements, not cancelled.
var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

// finish records the result of a completed operation once and returns
// it. A persistent request is inactive once its result has been returned
// (and before its first Start): finish then returns the empty status.
func (r *Request) finish() (Status, error) {
	if !r.persistent {
		r.finishOnce()
		return r.status, r.err
	}
	if atomic.LoadUint32(&r.final) != 0 {
		return r.status, r.err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.finished {
		r.complete()
	} else if r.persistent {
		return emptyStatus, nil
	}
	return r.status, r.err
}

// finishOnce is finish for a request that is not persistent, which
// completes once and for good: the caller that wins a compare-and-swap
// of finishing completes it (one locked instruction, where the mutex's
// lock and unlock are two), one that loses waits for final. A request
// that is final already takes neither.
func (r *Request) finishOnce() {
	if atomic.LoadUint32(&r.final) != 0 {
		return
	}
	if atomic.CompareAndSwapUint32(&r.finishing, 0, 1) {
		r.complete()
		return
	}
	for atomic.LoadUint32(&r.final) == 0 {
		runtime.Gosched()
	}
}

// complete is finish's once: it records the result of r's completed
// operation and counts r finished. It runs under r.mu (a persistent
// request), from Done under the endpoint's lock (a pooled one that was
// pending), or for the caller that won finishing (any other).
func (r *Request) complete() {
	r.finished = true
	if r.persistent {
		r.active.Store(false)
	}
	switch {
	case r.null && r.recv:
		r.status = procNullStatus
	case r.null:
	case r.coll != nil:
		r.err = r.coll.err
		if r.coll.status != nil {
			r.status = *r.coll.status
		}
	case r.rma != nil:
		r.err = r.rma.finish(r.name)
	default: // the engine's operation; a pooled one was harvested
		if !r.pooled {
			r.record()
		}
		r.unpacked()
	}
	if !r.persistent {
		memorder.StoreRelease32(&r.final, 1)
	}
	if !r.null && !r.pooled {
		// Last, once r has its result: a freed communicator's context
		// goes back once this count is zero (Comm.idle). A pooled
		// request is not counted: its operation is the endpoint's, which
		// Comm.idle asks. (Called, not deferred: a defer cost every
		// completion some 30 instructions.)
		r.c.requestFinished()
	}
}

// callName returns the name of the call that started r, def if unnamed.
func (r *Request) callName(def string) string {
	if r.name != "" {
		return r.name
	}
	return def
}

func (r *Request) check() error { return r.checkOp("Wait") }

// doneAndUsable reports whether r has its result for good (final) and
// passes check: Wait's and Test's way for a request that is done, as
// most are by then, in one look instead of check's calls and finish's.
func (r *Request) doneAndUsable() bool {
	return r != nil && r.c != nil && atomic.LoadUint32(&r.final) != 0 && !r.freed.Load() &&
		r.c.rt != nil && current.Load() == r.c.rt
}

// checkOp verifies that r can be used by the method op.
func (r *Request) checkOp(op string) error {
	if r == nil || r.c == nil {
		return fmt.Errorf("mpi: %s: nil request: %w", op, ErrRequest)
	}
	if r.freed.Load() {
		return fmt.Errorf("mpi: %s: request used after Free: %w", op, ErrRequest)
	}
	return r.c.checkLive(op)
}

// inert reports whether r is nil or an inactive persistent request:
// Waitany, Waitsome and their Test forms skip those, as MPI skips null
// and inactive requests.
func (r *Request) inert() bool { return r == nil || r.persistent && !r.active.Load() }

// Wait blocks until the operation completes and returns its status (for a
// receive; for a send only Status.Cancelled is meaningful) and error. The
// first Wait or Test to complete a started persistent request returns
// its operation's result and makes it inactive; an inactive one (also
// before its first Start) returns at once, with the empty status (Source
// AnySource, Tag AnyTag, Count 0) and no error, as MPI's does.
func (r *Request) Wait() (Status, error) {
	if !r.doneAndUsable() {
		if err := r.check(); err != nil {
			return Status{}, err
		}
		r.await()
		if r.persistent {
			return r.finish()
		}
		r.finishOnce()
	}
	s := &r.status // field by field: see setStatus
	return Status{Source: s.Source, Tag: s.Tag, Count: s.Count, Bytes: s.Bytes, Cancelled: s.Cancelled}, r.err
}

// await waits until r's operation has completed, without finishing r:
// Wait's wait, for a request that check passed.
func (r *Request) await() {
	switch {
	case atomic.LoadUint32(&r.final) != 0:
	case r.coll != nil:
		r.coll.wait()
	case !r.null && atomic.LoadUint32(&r.harvested) == 0:
		r.c.rt.ep.Wait((*pending)(r))
	}
}

// waitInto is Wait with the status stored in *d field by field: a
// Status that a call returns is copied whole into the caller's variable,
// by 16-byte loads across the stores that spilled it (see setStatus).
// The ways of a persistent request and of one that check refuses, rare
// on the message path, go through Wait.
func (r *Request) waitInto(d *Status) error {
	if !r.doneAndUsable() {
		if err := r.check(); err != nil || r.persistent {
			st, err := r.Wait()
			*d = st // a rare way: the whole copy does not matter here
			return err
		}
		r.await()
		r.finishOnce()
	}
	s := &r.status
	d.Source, d.Tag, d.Count, d.Bytes, d.Cancelled = s.Source, s.Tag, s.Count, s.Bytes, s.Cancelled
	return r.err
}

// Test reports whether the operation has completed, making progress once,
// and if so returns its status and error, as Wait does: an inactive
// persistent request reports true with the empty status.
func (r *Request) Test() (bool, Status, error) {
	if !r.doneAndUsable() {
		if err := r.check(); err != nil {
			return false, Status{}, err
		}
		if !r.tested() {
			return false, Status{}, nil
		}
		if r.persistent {
			st, err := r.finish()
			return true, st, err
		}
		r.finishOnce()
	}
	s := &r.status // field by field: see setStatus
	return true, Status{Source: s.Source, Tag: s.Tag, Count: s.Count, Bytes: s.Bytes, Cancelled: s.Cancelled}, r.err
}

// tested reports whether the operation has completed, making progress
// once if it must look: Test's look, without its finish.
func (r *Request) tested() bool {
	return r.null || atomic.LoadUint32(&r.final) != 0 || atomic.LoadUint32(&r.harvested) != 0 || r.c.rt.ep.Test((*pending)(r))
}

// Waitall waits for every request and returns their statuses, in order,
// and the errors of those that failed, joined. Nil entries (the null
// request) and inactive persistent requests get the empty status.
func Waitall(reqs []*Request) ([]Status, error) {
	sts := make([]Status, len(reqs))
	return sts, WaitallInto(reqs, sts)
}

// WaitallInto is Waitall with the statuses stored in sts, which must hold
// len(reqs) of them: a caller that keeps sts from call to call allocates
// nothing.
func WaitallInto(reqs []*Request, sts []Status) error {
	if len(sts) < len(reqs) {
		return fmt.Errorf("mpi: WaitallInto: %d statuses for %d requests: %w", len(sts), len(reqs), ErrCount)
	}
	var errs []error
	for i, r := range reqs {
		if r == nil {
			sts[i] = emptyStatus
			continue
		}
		if err := r.waitInto(&sts[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// anyDone is a completion that is done when one of reqs is.
type anyDone struct {
	reqs []*Request
	idx  int
}

func (a *anyDone) Done() bool {
	for i, r := range a.reqs {
		if !r.inert() && (*pending)(r).Done() {
			a.idx = i
			return true
		}
	}
	return false
}

// Waitany waits until one of reqs completes and returns its index, status
// and error. The completed entry is set to nil, as MPI sets it to the null
// request, unless it is a persistent request, which stays and is now
// inactive; so calling Waitany again waits for the others. With no
// active request (nil entries and inactive persistent requests do not
// count) it returns Undefined and the empty status at once.
func Waitany(reqs []*Request) (int, Status, error) {
	var c *Comm
	for _, r := range reqs {
		if !r.inert() {
			if err := r.check(); err != nil {
				return Undefined, Status{}, err
			}
			c = r.c
		}
	}
	if c == nil {
		return Undefined, emptyStatus, nil
	}
	a := &anyDone{reqs: reqs, idx: -1}
	c.rt.ep.Wait(a)
	r := reqs[a.idx]
	if r.persistent {
		st, err := r.finish()
		return a.idx, st, err
	}
	reqs[a.idx] = nil
	r.finishOnce()
	s := &r.status // field by field: see setStatus
	return a.idx, Status{Source: s.Source, Tag: s.Tag, Count: s.Count, Bytes: s.Bytes, Cancelled: s.Cancelled}, r.err
}

// Testall makes progress once and reports whether every request has
// completed; if so it completes them all and returns their statuses and
// joined errors, as Waitall does. If not, it completes none: a persistent
// request that is done stays active, for a later call to return its
// result.
func Testall(reqs []*Request) (bool, []Status, error) {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if err := r.check(); err != nil {
			return false, nil, err
		}
		if !r.tested() {
			return false, nil, nil
		}
	}
	sts, err := Waitall(reqs)
	return true, sts, err
}

// Testany makes progress once and, if one of reqs has completed, returns
// true, its index, status and error, and sets the entry to nil as Waitany
// does; if none has, it returns false and Undefined. With no active
// request (nil entries and inactive persistent requests do not count) it
// returns true, Undefined and the empty status, as MPI_Testany does.
func Testany(reqs []*Request) (bool, int, Status, error) {
	active := false
	for i, r := range reqs {
		if r.inert() {
			continue
		}
		active = true
		if err := r.check(); err != nil {
			return false, Undefined, Status{}, err
		}
		if !r.tested() {
			continue
		}
		if r.persistent {
			st, err := r.finish()
			return true, i, st, err
		}
		reqs[i] = nil
		r.finishOnce()
		s := &r.status // field by field: see setStatus
		return true, i, Status{Source: s.Source, Tag: s.Tag, Count: s.Count, Bytes: s.Bytes, Cancelled: s.Cancelled}, r.err
	}
	if !active {
		return true, Undefined, emptyStatus, nil
	}
	return false, Undefined, Status{}, nil
}
