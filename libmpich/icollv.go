package main

// The nonblocking v-forms and scans (MPI_Igatherv ... MPI_Iexscan).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// vArgs returns the counts and displacements in bytes of a v-form's
// buffer of datatype dt over n processes, and the bytes it spans at p.
func vArgs(p, counts, displs unsafe.Pointer, dt int32, n int) ([]byte, []int, []int, error) {
	size, err := sizeArg(dt)
	if err != nil {
		return nil, nil, nil, err
	}
	cs, ds := scaled(counts, n, size), scaled(displs, n, size)
	return byteSlice(p, maxEnd(cs, ds)), cs, ds, nil
}

// PMPI_Igatherv implements MPI_Igatherv.
//
//export PMPI_Igatherv
func PMPI_Igatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igatherv", &rc)
	o, rc := commArg("MPI_Igatherv", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	var cs, ds []int
	if err == nil && isRoot(o.c, root) {
		r, cs, ds, err = vArgs(rbuf, rcounts, displs, rtype, groupSize(o.c))
	}
	var rq *mpi.Request
	if err == nil {
		rq, err = mpi.Igatherv(o.c, s, r, cs, ds, mapRank(root))
	}
	return startColl("MPI_Igatherv", o, comm, rq, err, req)
}

// PMPI_Iscatterv implements MPI_Iscatterv.
//
//export PMPI_Iscatterv
func PMPI_Iscatterv(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatterv", &rc)
	o, rc := commArg("MPI_Iscatterv", comm)
	if rc != errSuccess {
		return rc
	}
	var s, r []byte
	var cs, ds []int
	var err error
	if isRoot(o.c, root) {
		s, cs, ds, err = vArgs(sbuf, scounts, displs, stype, groupSize(o.c))
	}
	if err == nil && !isInPlace(rbuf) {
		r, err = bufArg(rbuf, rcount, rtype)
	}
	var rq *mpi.Request
	if err == nil {
		rq, err = mpi.Iscatterv(o.c, s, cs, ds, r, mapRank(root))
	}
	return startColl("MPI_Iscatterv", o, comm, rq, err, req)
}

// PMPI_Iallgatherv implements MPI_Iallgatherv.
//
//export PMPI_Iallgatherv
func PMPI_Iallgatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgatherv", &rc)
	o, rc := commArg("MPI_Iallgatherv", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	var cs, ds []int
	if err == nil {
		r, cs, ds, err = vArgs(rbuf, rcounts, displs, rtype, groupSize(o.c))
	}
	var rq *mpi.Request
	if err == nil {
		rq, err = mpi.Iallgatherv(o.c, s, r, cs, ds)
	}
	return startColl("MPI_Iallgatherv", o, comm, rq, err, req)
}

// PMPI_Ialltoallv implements MPI_Ialltoallv.
//
//export PMPI_Ialltoallv
func PMPI_Ialltoallv(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoallv", &rc)
	o, rc := commArg("MPI_Ialltoallv", comm)
	if rc != errSuccess {
		return rc
	}
	n := groupSize(o.c)
	r, rcs, rds, err := vArgs(rbuf, rcounts, rdispls, rtype, n)
	var s []byte
	var scs, sds []int
	if err == nil && !isInPlace(sbuf) {
		s, scs, sds, err = vArgs(sbuf, scounts, sdispls, stype, n)
	} else if err == nil {
		s, scs, sds = inPlaceSide(r, rcs, rds)
	}
	var rq *mpi.Request
	if err == nil {
		rq, err = mpi.Ialltoallv(o.c, s, scs, sds, r, rcs, rds)
	}
	return startColl("MPI_Ialltoallv", o, comm, rq, err, req)
}

// iscan is MPI_Iscan and MPI_Iexscan.
func iscan(fn string, send, recv unsafe.Pointer, count, dt, op, comm int32, exclusive bool, req *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil && red.isLoc {
		err = errorf(errType, "%s: struct value/index datatypes are not supported", fn)
	}
	var rq *mpi.Request
	if err == nil {
		rq, err = red.r.iscan(o.c, send, recv, int(count)*red.per, red.op, exclusive)
	}
	return startColl(fn, o, comm, rq, err, req)
}

// PMPI_Iscan implements MPI_Iscan.
//
//export PMPI_Iscan
func PMPI_Iscan(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscan", &rc)
	return iscan("MPI_Iscan", send, recv, count, dt, op, comm, false, req)
}

// PMPI_Iexscan implements MPI_Iexscan.
//
//export PMPI_Iexscan
func PMPI_Iexscan(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iexscan", &rc)
	return iscan("MPI_Iexscan", send, recv, count, dt, op, comm, true, req)
}

// PMPI_Ireduce_scatter_block implements MPI_Ireduce_scatter_block.
//
//export PMPI_Ireduce_scatter_block
func PMPI_Ireduce_scatter_block(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_scatter_block", &rc)
	o, rc := commArg("MPI_Ireduce_scatter_block", comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil && red.isLoc {
		err = errorf(errType, "MPI_Ireduce_scatter_block: struct value/index datatypes are not supported")
	}
	var rq *mpi.Request
	if err == nil {
		n := int(count) * red.per
		rq, err = red.r.ireduceScatterBlock(o.c, send, recv, n, n*o.c.Size(), red.op)
	}
	return startColl("MPI_Ireduce_scatter_block", o, comm, rq, err, req)
}
