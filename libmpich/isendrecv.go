package main

// MPI_Isendrecv, MPI_Isendrecv_replace, MPI_Info_get_string and
// MPI_Comm_idup_with_info.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// unpackOnDone returns what a request receiving packed items of cb into
// tmp runs once complete: it unpacks the items received into cb.
func unpackOnDone(r *mpi.Request, cb cbuf, tmp []byte) func() {
	return func() {
		st, err := r.Wait() // complete already: its result again
		if err == nil && cb.dt.Size() > 0 {
			_, _ = mpi.Unpack(tmp, cb.bytes(), st.Bytes/cb.dt.Size(), cb.dt)
		}
	}
}

// startSendrecv starts sending sb and receiving into rb, as one request
// stored at req.
func startSendrecv(o *commObj, comm int32, sb []byte, dest, stag int32, rb cbuf, source, rtag int32, req *int32) error {
	into := rb.bytes()
	if rb.dt != nil {
		into = make([]byte, rb.count*rb.dt.Size())
	}
	r, err := mpi.Isendrecv(o.c, sb, mapRank(dest), int(stag), into, mapRank(source), mapTag(rtag))
	if err != nil {
		return err
	}
	ro := reqObj{r: r, comm: o, commH: comm}
	if rb.dt != nil {
		ro.onDone = unpackOnDone(r, rb, into)
	}
	h, ok := requests.add(ro)
	if !ok {
		return errorf(errNoMem, "too many requests")
	}
	*req = h
	return nil
}

// PMPI_Isendrecv implements MPI_Isendrecv.
//
//export PMPI_Isendrecv
func PMPI_Isendrecv(sbuf unsafe.Pointer, scount, stype, dest, stag int32, rbuf unsafe.Pointer, rcount, rtype, source, rtag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isendrecv", &rc)
	return isendrecv("MPI_Isendrecv", sbuf, int64(scount), stype, dest, stag, rbuf, int64(rcount), rtype, source, rtag, comm, req)
}

// isendrecv is MPI_Isendrecv and MPI_Isendrecv_c.
func isendrecv(fn string, sbuf unsafe.Pointer, scount int64, stype, dest, stag int32, rbuf unsafe.Pointer, rcount int64, rtype, source, rtag, comm int32, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	sb, rb, err := sendrecvBufs(sbuf, scount, stype, rbuf, rcount, rtype)
	if err == nil {
		err = startSendrecv(o, comm, sb, dest, stag, rb, source, rtag, req)
	}
	return check(fn, o, comm, err)
}

// PMPI_Isendrecv_replace implements MPI_Isendrecv_replace: the items are
// packed (copied) now, and the message received replaces them.
//
//export PMPI_Isendrecv_replace
func PMPI_Isendrecv_replace(buf unsafe.Pointer, count, dt, dest, stag, source, rtag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isendrecv_replace", &rc)
	return isendrecvReplace("MPI_Isendrecv_replace", buf, int64(count), dt, dest, stag, source, rtag, comm, req)
}

// isendrecvReplace is MPI_Isendrecv_replace and MPI_Isendrecv_replace_c.
func isendrecvReplace(fn string, buf unsafe.Pointer, count int64, dt, dest, stag, source, rtag, comm int32, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	cb, err := cbufOf(buf, count, dt)
	var sb []byte
	if err == nil {
		sb, err = cb.packed()
	}
	if err == nil && cb.dt == nil && dest != cProcNull {
		sb = append([]byte(nil), sb...)
	}
	if err == nil {
		err = startSendrecv(o, comm, sb, dest, stag, cb, source, rtag, req)
	}
	return check(fn, o, comm, err)
}

// PMPI_Info_get_string implements MPI_Info_get_string: with *buflen 0 it
// only stores the value's length plus one there; else it copies at most
// *buflen-1 bytes of the value, NUL-terminated, and stores the value's
// length plus one.
//
//export PMPI_Info_get_string
func PMPI_Info_get_string(h int32, key *C.char, buflen *int32, val unsafe.Pointer, flag *int32) (rc int32) {
	defer guard("MPI_Info_get_string", &rc)
	o, rc := infoArg("MPI_Info_get_string", h)
	if rc != errSuccess {
		return rc
	}
	v, ok := o.get(C.GoString(key))
	*flag = boolInt(ok)
	if !ok {
		return errSuccess
	}
	if *buflen > 0 {
		cString(val, int(*buflen), v, nil)
	}
	*buflen = int32(len(v) + 1)
	return errSuccess
}

// PMPI_Comm_idup_with_info implements MPI_Comm_idup_with_info: the
// runtime takes no communicator hints, so it is MPI_Comm_idup, as
// MPI_Comm_dup_with_info is MPI_Comm_dup.
//
//export PMPI_Comm_idup_with_info
func PMPI_Comm_idup_with_info(comm, info int32, out *int32, req *int32) int32 {
	return PMPI_Comm_idup(comm, out, req)
}
