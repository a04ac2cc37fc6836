package main

// Nonblocking collective operations (MPI_Ibarrier ... MPI_Ialltoall): they
// move the items' bytes, as the blocking ones do.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// startColl stores the handle of a started collective's request at req.
func startColl(fn string, o *commObj, comm int32, r *mpi.Request, err error, req *int32) int32 {
	if err == nil {
		err = addRequest(o, comm, r, false, req)
	}
	return check(fn, o, comm, err)
}

// PMPI_Ibarrier implements MPI_Ibarrier.
//
//export PMPI_Ibarrier
func PMPI_Ibarrier(comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibarrier", &rc)
	o, rc := commArg("MPI_Ibarrier", comm)
	if rc != errSuccess {
		return rc
	}
	r, err := mpi.Ibarrier(o.c)
	return startColl("MPI_Ibarrier", o, comm, r, err, req)
}

// PMPI_Ibcast implements MPI_Ibcast.
//
//export PMPI_Ibcast
func PMPI_Ibcast(buf unsafe.Pointer, count, dt, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibcast", &rc)
	o, rc := commArg("MPI_Ibcast", comm)
	if rc != errSuccess {
		return rc
	}
	b, err := bufArg(buf, count, dt)
	var r *mpi.Request
	if err == nil {
		r, err = mpi.Ibcast(o.c, b, mapRank(root))
	}
	return startColl("MPI_Ibcast", o, comm, r, err, req)
}

// PMPI_Igather implements MPI_Igather.
//
//export PMPI_Igather
func PMPI_Igather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igather", &rc)
	o, rc := commArg("MPI_Igather", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := sendArg(sbuf, scount, stype)
	var rb []byte
	if err == nil && isRoot(o.c, root) {
		rb, err = bufArg(rbuf, rcount*int32(groupSize(o.c)), rtype)
	}
	var r *mpi.Request
	if err == nil {
		r, err = mpi.Igather(o.c, s, rb, mapRank(root))
	}
	return startColl("MPI_Igather", o, comm, r, err, req)
}

// PMPI_Iscatter implements MPI_Iscatter.
//
//export PMPI_Iscatter
func PMPI_Iscatter(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatter", &rc)
	o, rc := commArg("MPI_Iscatter", comm)
	if rc != errSuccess {
		return rc
	}
	var s, rb []byte
	var err error
	if isRoot(o.c, root) {
		s, err = bufArg(sbuf, scount*int32(groupSize(o.c)), stype)
	}
	if err == nil && !isInPlace(rbuf) {
		rb, err = bufArg(rbuf, rcount, rtype)
	}
	var r *mpi.Request
	if err == nil {
		r, err = mpi.Iscatter(o.c, s, rb, mapRank(root))
	}
	return startColl("MPI_Iscatter", o, comm, r, err, req)
}

// PMPI_Iallgather implements MPI_Iallgather.
//
//export PMPI_Iallgather
func PMPI_Iallgather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgather", &rc)
	o, rc := commArg("MPI_Iallgather", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := sendArg(sbuf, scount, stype)
	var rb []byte
	if err == nil {
		rb, err = bufArg(rbuf, rcount*int32(groupSize(o.c)), rtype)
	}
	var r *mpi.Request
	if err == nil {
		r, err = mpi.Iallgather(o.c, s, rb)
	}
	return startColl("MPI_Iallgather", o, comm, r, err, req)
}

// PMPI_Ialltoall implements MPI_Ialltoall.
//
//export PMPI_Ialltoall
func PMPI_Ialltoall(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoall", &rc)
	o, rc := commArg("MPI_Ialltoall", comm)
	if rc != errSuccess {
		return rc
	}
	n := int32(groupSize(o.c))
	s, err := sendArg(sbuf, scount*n, stype)
	var rb []byte
	if err == nil {
		rb, err = bufArg(rbuf, rcount*n, rtype)
	}
	var r *mpi.Request
	if err == nil {
		r, err = mpi.Ialltoall(o.c, s, rb)
	}
	return startColl("MPI_Ialltoall", o, comm, r, err, req)
}

// PMPI_Ireduce implements MPI_Ireduce.
//
//export PMPI_Ireduce
func PMPI_Ireduce(send, recv unsafe.Pointer, count, dt, op, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce", &rc)
	o, rc := commArg("MPI_Ireduce", comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil && red.isLoc {
		err = errorf(errType, "MPI_Ireduce: struct value/index datatypes are not supported")
	}
	var r *mpi.Request
	if err == nil {
		r, err = red.r.ireduce(o.c, send, recv, int(count)*red.per, red.op, mapRank(root))
	}
	return startColl("MPI_Ireduce", o, comm, r, err, req)
}
