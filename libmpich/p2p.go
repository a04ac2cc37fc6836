package main

// Point-to-point communication (MPI_Send ... MPI_Iprobe).

import "C"

import (
	"math"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// Send modes.
const (
	modeStandard = iota
	modeSync
	modeReady
	modeBuffered
)

// sendMode sends b in mode.
func sendMode(c *mpi.Comm, b []byte, dest, tag int, mode int) error {
	switch mode {
	case modeSync:
		return mpi.Ssend(c, b, dest, tag)
	case modeReady:
		return mpi.Rsend(c, b, dest, tag)
	case modeBuffered:
		return mpi.Bsend(c, b, dest, tag)
	}
	return mpi.Send(c, b, dest, tag)
}

// isendMode starts sending b in mode.
func isendMode(c *mpi.Comm, b []byte, dest, tag int, mode int) (*mpi.Request, error) {
	switch mode {
	case modeSync:
		return mpi.Issend(c, b, dest, tag)
	case modeReady:
		return mpi.Irsend(c, b, dest, tag)
	case modeBuffered:
		return mpi.Ibsend(c, b, dest, tag)
	}
	return mpi.Isend(c, b, dest, tag)
}

// packed returns the bytes to send of cb: its own, or its items packed.
func (cb cbuf) packed() ([]byte, error) {
	if cb.dt == nil {
		return cb.bytes(), nil
	}
	out := make([]byte, cb.count*cb.dt.Size())
	_, err := mpi.Pack(cb.bytes(), cb.count, cb.dt, out)
	return out, err
}

// recv receives into cb.
func (cb cbuf) recv(c *mpi.Comm, source, tag int) (mpi.Status, error) {
	if cb.dt == nil {
		return mpi.Recv(c, cb.bytes(), source, tag)
	}
	return mpi.RecvType(c, cb.bytes(), cb.count, cb.dt, source, tag)
}

// irecv starts receiving into cb.
func (cb cbuf) irecv(c *mpi.Comm, source, tag int) (*mpi.Request, error) {
	if cb.dt == nil {
		return mpi.Irecv(c, cb.bytes(), source, tag)
	}
	return mpi.IrecvType(c, cb.bytes(), cb.count, cb.dt, source, tag)
}

// sendBytes returns the bytes to send of count items of dt at p.
func sendBytes(p unsafe.Pointer, count int64, dt int32) ([]byte, error) {
	cb, err := cbufOf(p, count, dt)
	if err != nil {
		return nil, err
	}
	return cb.packed()
}

// send is MPI_Send and its blocking modes, and their _c forms.
func send(fn string, mode int, buf unsafe.Pointer, count int64, dt, dest, tag, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	b, err := sendBytes(buf, count, dt)
	if err == nil {
		err = sendMode(o.c, b, mapRank(dest), int(tag), mode)
	}
	return check(fn, o, comm, err)
}

// isend is MPI_Isend and its modes, and their _c forms.
func isend(fn string, mode int, buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	b, err := sendBytes(buf, count, dt)
	var r *mpi.Request
	if err == nil {
		r, err = isendMode(o.c, b, mapRank(dest), int(tag), mode)
	}
	if err == nil {
		err = addRequest(o, comm, r, false, req)
	}
	return check(fn, o, comm, err)
}

// addRequest gives r, a request on communicator o of handle comm (nil for
// none), a handle and stores it at req.
func addRequest(o *commObj, comm int32, r *mpi.Request, persistent bool, req *int32) error {
	return storeRequest(reqObj{r: r, persistent: persistent, comm: o, commH: comm}, req)
}

// PMPI_Send implements MPI_Send. Items of a predefined datatype on
// MPI_COMM_WORLD or MPI_COMM_SELF go straight to package mpi (which checks
// the rank and tag); anything else takes the full path of send.
//
//export PMPI_Send
func PMPI_Send(buf unsafe.Pointer, count, dt, dest, tag, comm int32) (rc int32) {
	defer func() { // guard's work, one call shorter on the message path
		if r := recover(); r != nil {
			rc = recovered("MPI_Send", r)
		}
	}()
	if o := fastComm(comm); o != nil {
		if b, ok := plainBytes(buf, int64(count), dt); ok {
			return check("MPI_Send", o, comm, mpi.Send(o.c, b, mapRank(dest), int(tag)))
		}
	}
	return send("MPI_Send", modeStandard, buf, int64(count), dt, dest, tag, comm)
}

// PMPI_Ssend implements MPI_Ssend.
//
//export PMPI_Ssend
func PMPI_Ssend(buf unsafe.Pointer, count, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Ssend", &rc)
	return send("MPI_Ssend", modeSync, buf, int64(count), dt, dest, tag, comm)
}

// PMPI_Rsend implements MPI_Rsend.
//
//export PMPI_Rsend
func PMPI_Rsend(buf unsafe.Pointer, count, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Rsend", &rc)
	return send("MPI_Rsend", modeReady, buf, int64(count), dt, dest, tag, comm)
}

// PMPI_Bsend implements MPI_Bsend.
//
//export PMPI_Bsend
func PMPI_Bsend(buf unsafe.Pointer, count, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Bsend", &rc)
	return send("MPI_Bsend", modeBuffered, buf, int64(count), dt, dest, tag, comm)
}

// PMPI_Isend implements MPI_Isend.
//
//export PMPI_Isend
func PMPI_Isend(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isend", &rc)
	return isend("MPI_Isend", modeStandard, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Issend implements MPI_Issend.
//
//export PMPI_Issend
func PMPI_Issend(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Issend", &rc)
	return isend("MPI_Issend", modeSync, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Irsend implements MPI_Irsend.
//
//export PMPI_Irsend
func PMPI_Irsend(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Irsend", &rc)
	return isend("MPI_Irsend", modeReady, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Ibsend implements MPI_Ibsend.
//
//export PMPI_Ibsend
func PMPI_Ibsend(buf unsafe.Pointer, count, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibsend", &rc)
	return isend("MPI_Ibsend", modeBuffered, buf, int64(count), dt, dest, tag, comm, req)
}

// PMPI_Recv implements MPI_Recv. Items of a predefined datatype on
// MPI_COMM_WORLD or MPI_COMM_SELF come straight from package mpi (which
// checks the rank and tag); anything else takes the full path of recv.
//
//export PMPI_Recv
func PMPI_Recv(buf unsafe.Pointer, count, dt, source, tag, comm int32, st unsafe.Pointer) (rc int32) {
	defer func() { // guard's work, one call shorter on the message path
		if r := recover(); r != nil {
			rc = recovered("MPI_Recv", r)
		}
	}()
	if o := fastComm(comm); o != nil {
		if b, ok := plainBytes(buf, int64(count), dt); ok {
			s, err := mpi.Recv(o.c, b, mapRank(source), mapTag(tag))
			if err != nil {
				return fail("MPI_Recv", o, comm, err)
			}
			writeStatus(st, &s)
			return errSuccess
		}
	}
	return recv("MPI_Recv", buf, int64(count), dt, source, tag, comm, st)
}

// recv is MPI_Recv (and MPI_Recv_c) of any datatype on any communicator.
func recv(fn string, buf unsafe.Pointer, count int64, dt, source, tag, comm int32, st unsafe.Pointer) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	cb, err := cbufOf(buf, count, dt)
	if err == nil {
		var s mpi.Status
		s, err = cb.recv(o.c, mapRank(source), mapTag(tag))
		if err == nil {
			writeStatus(st, &s)
		}
	}
	return check(fn, o, comm, err)
}

// PMPI_Irecv implements MPI_Irecv.
//
//export PMPI_Irecv
func PMPI_Irecv(buf unsafe.Pointer, count, dt, source, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Irecv", &rc)
	return irecv("MPI_Irecv", buf, int64(count), dt, source, tag, comm, req)
}

// irecv is MPI_Irecv and MPI_Irecv_c.
func irecv(fn string, buf unsafe.Pointer, count int64, dt, source, tag, comm int32, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	cb, err := cbufOf(buf, count, dt)
	var r *mpi.Request
	if err == nil {
		r, err = cb.irecv(o.c, mapRank(source), mapTag(tag))
	}
	if err == nil {
		err = addRequest(o, comm, r, false, req)
	}
	return check(fn, o, comm, err)
}

// sendrecvBufs resolves the buffers of a send-receive: the send's items
// packed when they are not contiguous, and the receive's buffer.
func sendrecvBufs(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype int32) ([]byte, cbuf, error) {
	sb, err := sendBytes(sbuf, scount, stype)
	if err != nil {
		return nil, cbuf{}, err
	}
	rb, err := cbufOf(rbuf, rcount, rtype)
	return sb, rb, err
}

// PMPI_Sendrecv implements MPI_Sendrecv.
//
//export PMPI_Sendrecv
func PMPI_Sendrecv(sbuf unsafe.Pointer, scount, stype, dest, stag int32, rbuf unsafe.Pointer, rcount, rtype, source, rtag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Sendrecv", &rc)
	return sendrecvCall("MPI_Sendrecv", sbuf, int64(scount), stype, dest, stag, rbuf, int64(rcount), rtype, source, rtag, comm, st)
}

// sendrecvCall is MPI_Sendrecv and MPI_Sendrecv_c.
func sendrecvCall(fn string, sbuf unsafe.Pointer, scount int64, stype, dest, stag int32, rbuf unsafe.Pointer, rcount int64, rtype, source, rtag, comm int32, st unsafe.Pointer) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	sb, rb, err := sendrecvBufs(sbuf, scount, stype, rbuf, rcount, rtype)
	if err == nil {
		var s mpi.Status
		s, err = sendrecv(o.c, sb, mapRank(dest), int(stag), rb, mapRank(source), mapTag(rtag))
		if err == nil {
			writeStatus(st, &s)
		}
	}
	return check(fn, o, comm, err)
}

// sendrecv sends sb and receives into rb at once.
func sendrecv(c *mpi.Comm, sb []byte, dest, stag int, rb cbuf, source, rtag int) (mpi.Status, error) {
	if rb.dt == nil {
		return mpi.Sendrecv(c, sb, dest, stag, rb.bytes(), source, rtag)
	}
	r, err := mpi.Isend(c, sb, dest, stag)
	if err != nil {
		return mpi.Status{}, err
	}
	st, err := rb.recv(c, source, rtag)
	if _, werr := r.Wait(); err == nil {
		err = werr
	}
	return st, err
}

// PMPI_Sendrecv_replace implements MPI_Sendrecv_replace.
//
//export PMPI_Sendrecv_replace
func PMPI_Sendrecv_replace(buf unsafe.Pointer, count, dt, dest, stag, source, rtag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Sendrecv_replace", &rc)
	return sendrecvReplace("MPI_Sendrecv_replace", buf, int64(count), dt, dest, stag, source, rtag, comm, st)
}

// sendrecvReplace is MPI_Sendrecv_replace and MPI_Sendrecv_replace_c.
func sendrecvReplace(fn string, buf unsafe.Pointer, count int64, dt, dest, stag, source, rtag, comm int32, st unsafe.Pointer) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var stage staging
	b, err := stage.recv(buf, count, dt)
	if err == nil {
		var s mpi.Status
		s, err = mpi.SendrecvReplace(o.c, b, mapRank(dest), int(stag), mapRank(source), mapTag(rtag))
		if err == nil {
			err = stage.finish()
			writeStatus(st, &s)
		}
	}
	return check(fn, o, comm, err)
}

// PMPI_Probe implements MPI_Probe.
//
//export PMPI_Probe
func PMPI_Probe(source, tag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Probe", &rc)
	o, rc := commArg("MPI_Probe", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := o.c.Probe(mapRank(source), mapTag(tag))
	if err == nil {
		writeStatus(st, &s)
	}
	return check("MPI_Probe", o, comm, err)
}

// PMPI_Iprobe implements MPI_Iprobe.
//
//export PMPI_Iprobe
func PMPI_Iprobe(source, tag, comm int32, flag *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Iprobe", &rc)
	o, rc := commArg("MPI_Iprobe", comm)
	if rc != errSuccess {
		return rc
	}
	ok, s, err := o.c.Iprobe(mapRank(source), mapTag(tag))
	if err == nil {
		*flag = boolInt(ok)
		if ok {
			writeStatus(st, &s)
		}
	}
	return check("MPI_Iprobe", o, comm, err)
}

// PMPI_Get_count implements MPI_Get_count.
//
//export PMPI_Get_count
func PMPI_Get_count(st unsafe.Pointer, dt int32, count *int32) (rc int32) {
	defer guard("MPI_Get_count", &rc)
	var n int64
	if rc = getCount("MPI_Get_count", st, dt, false, &n); rc == errSuccess {
		*count = countInt(n)
	}
	return rc
}

// getCount stores at count how many items of datatype dt (with
// elements, basic elements) status st counts: MPI_Get_count and
// MPI_Get_elements as MPI_Counts, and their _x and _c forms.
func getCount(fn string, st unsafe.Pointer, dt int32, elements bool, count *int64) int32 {
	n, err := statusCount(st, dt, elements)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*count = n
	return errSuccess
}

// PMPI_Get_elements implements MPI_Get_elements.
//
//export PMPI_Get_elements
func PMPI_Get_elements(st unsafe.Pointer, dt int32, count *int32) (rc int32) {
	defer guard("MPI_Get_elements", &rc)
	var n int64
	if rc = getCount("MPI_Get_elements", st, dt, true, &n); rc == errSuccess {
		*count = countInt(n)
	}
	return rc
}

// statusCount returns how many items of datatype dt the bytes that
// status st counts hold, or with elements how many of their basic
// elements (MPI_Get_elements: a partial item counts the elements it
// holds, by the datatype's signature), as an MPI_Count: MPI_UNDEFINED
// when they are not a whole number.
func statusCount(st unsafe.Pointer, dt int32, elements bool) (int64, error) {
	size, ok := dataSize(dt)
	if !ok {
		return 0, errorf(errType, "invalid datatype %#x", uint32(dt))
	}
	n := (*status)(st).count()
	if sig := sigOf(dt); elements && sig != nil {
		if e, whole := sig.elements(int(n)); whole {
			return int64(e), nil
		}
		return cUndefined, nil
	}
	switch {
	case size == 0 && n == 0:
		return 0, nil
	case size == 0 || n%int64(size) != 0:
		return cUndefined, nil
	}
	return n / int64(size), nil
}

// countInt returns count n as a C int: MPI_UNDEFINED when it does not fit.
func countInt(n int64) int32 {
	if n > math.MaxInt32 {
		return cUndefined
	}
	return int32(n)
}

// PMPI_Test_cancelled implements MPI_Test_cancelled.
//
//export PMPI_Test_cancelled
func PMPI_Test_cancelled(st unsafe.Pointer, flag *int32) (rc int32) {
	*flag = boolInt((*status)(st).cancelled())
	return errSuccess
}
