package main

// Completion of requests (MPI_Wait ... MPI_Startall) and persistent
// requests.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/internal/percpu"
	"github.com/rhinet-go/martini/mpi"
)

// statusSize is the size of MPI_Status in bytes.
const statusSize = int(unsafe.Sizeof(status{}))

// statusAt returns the address of element i of a C array of statuses, or
// MPI_STATUSES_IGNORE.
func statusAt(p unsafe.Pointer, i int) unsafe.Pointer {
	if p == nil || uintptr(p) == statusIgnoreAddr {
		return p
	}
	return unsafe.Add(p, i*statusSize)
}

// requestArray returns the C array of n request handles at p.
func requestArray(p unsafe.Pointer, n int32) []int32 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int32)(p), n)
}

// gathered is what a completion call over an array of request handles
// gathers: their requests (nil for MPI_REQUEST_NULL), objects (a zero one
// for MPI_REQUEST_NULL) and statuses. They are kept between calls
// (gatherRequests, done), so that the calls allocate nothing. Between
// calls every element of rs's and os's arrays is zero (done clears what
// a call used), so that a call clears nothing before it gathers; sts
// holds what the last call left, and the call that uses it writes every
// element first (WaitallInto).
type gathered struct {
	rs  []*mpi.Request
	os  []reqObj
	sts []mpi.Status
}

// gatherings holds a gathered for each processor, taken by a completion
// call and given back by its done, with the goroutine pinned to the
// processor (internal/percpu): a look at the processor's own slot each
// way, where a sync.Pool's Get and Put took some 230 instructions a call
// (callgrind). A call that finds the slot empty (another call on the
// processor holds its gathered) makes a new one.
var gatherings percpu.Values[*gathered]

// keptGathered is the most handles whose arrays a gathered keeps once
// given back: a larger one is left to the garbage collector.
const keptGathered = 4096

// gatherRequests returns the requests of handles hs and their objects;
// the caller gives them back with done.
func gatherRequests(hs []int32) (*gathered, error) {
	slot := gatherings.Pin()
	g := *slot
	*slot = nil
	gatherings.Unpin()
	if g == nil {
		g = new(gathered)
	}
	n := len(hs)
	g.rs, g.os, g.sts = resized(g.rs, n), resized(g.os, n), resized(g.sts, n) // zero but for sts (gathered)
	for i, h := range hs {
		if h == requestNull {
			continue
		}
		o := &g.os[i]
		if !requests.load(h, o) {
			g.done()
			return nil, errorf(errRequest, "invalid request %#x", uint32(h))
		}
		g.rs[i] = o.r
	}
	return g, nil
}

// resized returns s with n elements, reusing its array if it can: a new
// array's are zero, a reused one's as they were.
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// done gives g back, holding on to no request: the elements the call
// used are cleared field by field (clear's calls into the runtime, for
// arrays that hold pointers, cost some 300 instructions for a few
// elements).
func (g *gathered) done() {
	for i := range g.rs {
		g.rs[i] = nil
		g.os[i].reset()
	}
	if cap(g.rs) > keptGathered {
		return
	}
	slot := gatherings.Pin()
	if *slot == nil {
		*slot = g
	}
	gatherings.Unpin()
}

// retire releases the handle *h of a completed request (not a persistent
// one, which stays) and runs what its completion must do.
func retire(h *int32, o *reqObj, err error) {
	if !o.persistent {
		requests.free(*h)
		*h = requestNull
	}
	if err == nil && o.onDone != nil {
		o.onDone()
	}
	if o.greq != nil {
		o.greq.release()
	}
}

// recycle gives the request of a retired request that completed without
// error back for reuse by later calls (persistent ones stay). Nothing may
// use o.r afterwards.
func recycle(o *reqObj) {
	if !o.persistent {
		_ = o.r.Release() // fails for no request it may reuse
	}
}

// PMPI_Wait implements MPI_Wait.
//
//export PMPI_Wait
func PMPI_Wait(req *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Wait", &rc)
	if *req == requestNull {
		writeStatus(st, &emptyStatus)
		return errSuccess
	}
	o, ok := requests.get(*req)
	if !ok {
		return fail("MPI_Wait", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(*req)))
	}
	s, err := o.r.Wait()
	retire(req, &o, err)
	if err != nil {
		return fail("MPI_Wait", o.comm, o.commH, err)
	}
	writeStatus(st, &s)
	recycle(&o)
	return errSuccess
}

// PMPI_Test implements MPI_Test.
//
//export PMPI_Test
func PMPI_Test(req *int32, flag *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Test", &rc)
	if *req == requestNull {
		*flag = 1
		writeStatus(st, &emptyStatus)
		return errSuccess
	}
	o, ok := requests.get(*req)
	if !ok {
		return fail("MPI_Test", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(*req)))
	}
	done, s, err := o.r.Test()
	*flag = boolInt(done)
	if !done {
		return errSuccess
	}
	retire(req, &o, err)
	if err != nil {
		return fail("MPI_Test", o.comm, o.commH, err)
	}
	writeStatus(st, &s)
	recycle(&o)
	return errSuccess
}

// completeAll retires every request of hs after Waitall or Testall and
// stores their statuses; without an error, it recycles them.
func completeAll(hs []int32, os []reqObj, sts []mpi.Status, statuses unsafe.Pointer, err error) {
	for i := range hs {
		if os[i].r != nil {
			retire(&hs[i], &os[i], err)
			if err == nil {
				recycle(&os[i])
			}
		}
		writeStatus(statusAt(statuses, i), &sts[i])
	}
}

// PMPI_Waitall implements MPI_Waitall.
//
//export PMPI_Waitall
func PMPI_Waitall(n int32, reqs unsafe.Pointer, statuses unsafe.Pointer) (rc int32) {
	defer guard("MPI_Waitall", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Waitall", nil, commWorld, err)
	}
	defer g.done()
	err = mpi.WaitallInto(g.rs, g.sts)
	completeAll(hs, g.os, g.sts, statuses, err)
	return check("MPI_Waitall", nil, commWorld, err)
}

// PMPI_Testall implements MPI_Testall.
//
//export PMPI_Testall
func PMPI_Testall(n int32, reqs unsafe.Pointer, flag *int32, statuses unsafe.Pointer) (rc int32) {
	defer guard("MPI_Testall", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Testall", nil, commWorld, err)
	}
	defer g.done()
	done, sts, err := mpi.Testall(g.rs)
	*flag = boolInt(done)
	if !done {
		return errSuccess
	}
	completeAll(hs, g.os, sts, statuses, err)
	return check("MPI_Testall", nil, commWorld, err)
}

// completeOne retires the request at index i of hs after Waitany or
// Testany (i is mpi.Undefined when none was active).
func completeOne(hs []int32, os []reqObj, i int, s mpi.Status, index *int32, st unsafe.Pointer, err error) {
	if i == mpi.Undefined {
		*index = cUndefined
		writeStatus(st, &emptyStatus)
		return
	}
	*index = int32(i)
	retire(&hs[i], &os[i], err)
	writeStatus(st, &s)
	if err == nil {
		recycle(&os[i])
	}
}

// PMPI_Waitany implements MPI_Waitany.
//
//export PMPI_Waitany
func PMPI_Waitany(n int32, reqs unsafe.Pointer, index *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Waitany", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Waitany", nil, commWorld, err)
	}
	defer g.done()
	rs, os := g.rs, g.os
	i, s, err := mpi.Waitany(rs)
	completeOne(hs, os, i, s, index, st, err)
	return check("MPI_Waitany", nil, commWorld, err)
}

// PMPI_Testany implements MPI_Testany.
//
//export PMPI_Testany
func PMPI_Testany(n int32, reqs unsafe.Pointer, index *int32, flag *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Testany", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Testany", nil, commWorld, err)
	}
	defer g.done()
	rs, os := g.rs, g.os
	done, i, s, err := mpi.Testany(rs)
	*flag = boolInt(done)
	if !done {
		*index = cUndefined
		return errSuccess
	}
	completeOne(hs, os, i, s, index, st, err)
	return check("MPI_Testany", nil, commWorld, err)
}

// completeSome retires the requests that Waitsome or Testsome completed.
func completeSome(hs []int32, os []reqObj, idx []int, sts []mpi.Status, outcount *int32, indices, statuses unsafe.Pointer, err error) {
	if idx == nil {
		*outcount = cUndefined
		return
	}
	*outcount = int32(len(idx))
	out := unsafe.Slice((*int32)(indices), len(idx))
	for k, i := range idx {
		out[k] = int32(i)
		retire(&hs[i], &os[i], err)
		writeStatus(statusAt(statuses, k), &sts[k])
		if err == nil {
			recycle(&os[i])
		}
	}
}

// PMPI_Waitsome implements MPI_Waitsome.
//
//export PMPI_Waitsome
func PMPI_Waitsome(n int32, reqs unsafe.Pointer, outcount *int32, indices, statuses unsafe.Pointer) (rc int32) {
	defer guard("MPI_Waitsome", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Waitsome", nil, commWorld, err)
	}
	defer g.done()
	rs, os := g.rs, g.os
	idx, sts, err := mpi.Waitsome(rs)
	completeSome(hs, os, idx, sts, outcount, indices, statuses, err)
	return check("MPI_Waitsome", nil, commWorld, err)
}

// PMPI_Testsome implements MPI_Testsome.
//
//export PMPI_Testsome
func PMPI_Testsome(n int32, reqs unsafe.Pointer, outcount *int32, indices, statuses unsafe.Pointer) (rc int32) {
	defer guard("MPI_Testsome", &rc)
	hs := requestArray(reqs, n)
	g, err := gatherRequests(hs)
	if err != nil {
		return fail("MPI_Testsome", nil, commWorld, err)
	}
	defer g.done()
	rs, os := g.rs, g.os
	idx, sts, err := mpi.Testsome(rs)
	if idx != nil || err != nil || activeCount(rs) == 0 {
		completeSome(hs, os, idx, sts, outcount, indices, statuses, err)
	} else {
		*outcount = 0
	}
	return check("MPI_Testsome", nil, commWorld, err)
}

// activeCount returns the number of non-null requests of rs.
func activeCount(rs []*mpi.Request) int {
	n := 0
	for _, r := range rs {
		if r != nil {
			n++
		}
	}
	return n
}

// PMPI_Request_free implements MPI_Request_free.
//
//export PMPI_Request_free
func PMPI_Request_free(req *int32) (rc int32) {
	defer guard("MPI_Request_free", &rc)
	o, ok := requests.remove(*req)
	if !ok {
		return fail("MPI_Request_free", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(*req)))
	}
	*req = requestNull
	err := o.r.Free()
	if o.greq != nil {
		o.greq.release()
	}
	return check("MPI_Request_free", nil, commWorld, err)
}

// PMPI_Cancel implements MPI_Cancel.
//
//export PMPI_Cancel
func PMPI_Cancel(req *int32) (rc int32) {
	defer guard("MPI_Cancel", &rc)
	o, ok := requests.get(*req)
	if !ok {
		return fail("MPI_Cancel", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(*req)))
	}
	err := o.r.Cancel()
	if err == nil && o.greq != nil {
		err = cancelGreq(o.greq)
	}
	return check("MPI_Cancel", nil, commWorld, err)
}

// PMPI_Start implements MPI_Start.
//
//export PMPI_Start
func PMPI_Start(req *int32) (rc int32) {
	defer guard("MPI_Start", &rc)
	o, ok := requests.get(*req)
	if !ok {
		return fail("MPI_Start", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(*req)))
	}
	o.prepareStart()
	return check("MPI_Start", nil, commWorld, o.r.Start())
}

// prepareStart runs what must happen before o, a persistent request, is
// started: unless it is active, when Start fails and leaves it alone.
func (o *reqObj) prepareStart() {
	if o.beforeStart != nil && !o.r.Active() {
		o.beforeStart()
	}
}

// PMPI_Startall implements MPI_Startall.
//
//export PMPI_Startall
func PMPI_Startall(n int32, reqs unsafe.Pointer) (rc int32) {
	defer guard("MPI_Startall", &rc)
	g, err := gatherRequests(requestArray(reqs, n))
	if err == nil {
		for i := range g.os {
			if g.rs[i] != nil {
				g.os[i].prepareStart()
			}
		}
		err = mpi.Startall(g.rs)
		g.done()
	}
	return check("MPI_Startall", nil, commWorld, err)
}

// persistent makes a persistent request of init (SendInit and the others)
// for count items of dt at buf, which it receives into when recv is set.
// Items that are not contiguous are staged (staging.go): each MPI_Start
// packs them again into the copy the request moves, and a receive's
// completion unpacks its copy into buf.
func persistent(fn string, init func(c *mpi.Comm, b []byte, peer, tag int) (*mpi.Request, error), recv bool, buf unsafe.Pointer, count int64, dt, peer, tag, comm int32, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	st := new(staging)
	var b []byte
	var err error
	if recv {
		b, err = st.recv(buf, count, dt)
	} else {
		var cb cbuf
		if cb, err = cbufOf(buf, count, dt); err == nil {
			b = cb.bytes()
			if cb.dt != nil {
				b, err = st.staged(cb)
			}
		}
	}
	var r *mpi.Request
	if err == nil {
		r, err = init(o.c, b, mapRank(peer), mapTag(tag))
	}
	if err == nil {
		ro := reqObj{r: r, persistent: true, comm: o, commH: comm}
		if len(st.packs) > 0 {
			ro.beforeStart, ro.onDone = st.refresh, st.roundDone
		}
		err = storeRequest(ro, req)
	}
	return check(fn, o, comm, err)
}

// PMPI_Send_init implements MPI_Send_init.
//
//export PMPI_Send_init
func PMPI_Send_init(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Send_init", &rc)
	return persistent("MPI_Send_init", mpi.SendInit[byte], false, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Ssend_init implements MPI_Ssend_init.
//
//export PMPI_Ssend_init
func PMPI_Ssend_init(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ssend_init", &rc)
	return persistent("MPI_Ssend_init", mpi.SsendInit[byte], false, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Rsend_init implements MPI_Rsend_init.
//
//export PMPI_Rsend_init
func PMPI_Rsend_init(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Rsend_init", &rc)
	return persistent("MPI_Rsend_init", mpi.RsendInit[byte], false, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Bsend_init implements MPI_Bsend_init.
//
//export PMPI_Bsend_init
func PMPI_Bsend_init(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Bsend_init", &rc)
	return persistent("MPI_Bsend_init", mpi.BsendInit[byte], false, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Recv_init implements MPI_Recv_init.
//
//export PMPI_Recv_init
func PMPI_Recv_init(buf unsafe.Pointer, count, dt, source, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Recv_init", &rc)
	return persistent("MPI_Recv_init", mpi.RecvInit[byte], true, buf, int64(count), dt, source, tag, comm, req)
}

// PMPI_Buffer_attach implements MPI_Buffer_attach.
//
//export PMPI_Buffer_attach
func PMPI_Buffer_attach(buf unsafe.Pointer, size int32) (rc int32) {
	defer guard("MPI_Buffer_attach", &rc)
	return bufferAttach("MPI_Buffer_attach", buf, int64(size))
}

// bufferAttach is MPI_Buffer_attach and MPI_Buffer_attach_c.
func bufferAttach(fn string, buf unsafe.Pointer, size int64) int32 {
	err := checkCount(size, 1)
	if err == nil {
		err = mpi.BufferAttach(byteSlice(buf, int(size)))
	}
	return check(fn, nil, commWorld, err)
}

// PMPI_Buffer_detach implements MPI_Buffer_detach.
//
//export PMPI_Buffer_detach
func PMPI_Buffer_detach(addr unsafe.Pointer, size *int32) (rc int32) {
	defer guard("MPI_Buffer_detach", &rc)
	var n int64
	if rc = bufferDetach("MPI_Buffer_detach", addr, &n); rc == errSuccess {
		*size = countInt(n) // MPI_UNDEFINED for a buffer MPI_Buffer_attach_c attached past 2 GiB
	}
	return rc
}

// bufferDetach is MPI_Buffer_detach and MPI_Buffer_detach_c.
func bufferDetach(fn string, addr unsafe.Pointer, size *int64) int32 {
	b, err := mpi.BufferDetach()
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	*(*unsafe.Pointer)(addr) = p
	*size = int64(len(b))
	return errSuccess
}
