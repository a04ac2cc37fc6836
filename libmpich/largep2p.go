package main

// MPI-4.0's large-count point-to-point calls (MPI_Send_c ...
// MPI_Buffer_detach_c): MPI_Count counts, the bodies of the others.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// PMPI_Send_c implements MPI_Send_c.
//
//export PMPI_Send_c
func PMPI_Send_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Send_c", &rc)
	return send("MPI_Send_c", modeStandard, buf, count, dt, dest, tag, comm)
}

// PMPI_Ssend_c implements MPI_Ssend_c.
//
//export PMPI_Ssend_c
func PMPI_Ssend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Ssend_c", &rc)
	return send("MPI_Ssend_c", modeSync, buf, count, dt, dest, tag, comm)
}

// PMPI_Rsend_c implements MPI_Rsend_c.
//
//export PMPI_Rsend_c
func PMPI_Rsend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Rsend_c", &rc)
	return send("MPI_Rsend_c", modeReady, buf, count, dt, dest, tag, comm)
}

// PMPI_Bsend_c implements MPI_Bsend_c.
//
//export PMPI_Bsend_c
func PMPI_Bsend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32) (rc int32) {
	defer guard("MPI_Bsend_c", &rc)
	return send("MPI_Bsend_c", modeBuffered, buf, count, dt, dest, tag, comm)
}

// PMPI_Isend_c implements MPI_Isend_c.
//
//export PMPI_Isend_c
func PMPI_Isend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isend_c", &rc)
	return isend("MPI_Isend_c", modeStandard, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Issend_c implements MPI_Issend_c.
//
//export PMPI_Issend_c
func PMPI_Issend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Issend_c", &rc)
	return isend("MPI_Issend_c", modeSync, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Irsend_c implements MPI_Irsend_c.
//
//export PMPI_Irsend_c
func PMPI_Irsend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Irsend_c", &rc)
	return isend("MPI_Irsend_c", modeReady, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Ibsend_c implements MPI_Ibsend_c.
//
//export PMPI_Ibsend_c
func PMPI_Ibsend_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibsend_c", &rc)
	return isend("MPI_Ibsend_c", modeBuffered, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Recv_c implements MPI_Recv_c.
//
//export PMPI_Recv_c
func PMPI_Recv_c(buf unsafe.Pointer, count int64, dt, source, tag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Recv_c", &rc)
	return recv("MPI_Recv_c", buf, count, dt, source, tag, comm, st)
}

// PMPI_Irecv_c implements MPI_Irecv_c.
//
//export PMPI_Irecv_c
func PMPI_Irecv_c(buf unsafe.Pointer, count int64, dt, source, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Irecv_c", &rc)
	return irecv("MPI_Irecv_c", buf, count, dt, source, tag, comm, req)
}

// PMPI_Sendrecv_c implements MPI_Sendrecv_c.
//
//export PMPI_Sendrecv_c
func PMPI_Sendrecv_c(sbuf unsafe.Pointer, scount int64, stype, dest, stag int32, rbuf unsafe.Pointer, rcount int64, rtype, source, rtag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Sendrecv_c", &rc)
	return sendrecvCall("MPI_Sendrecv_c", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st)
}

// PMPI_Sendrecv_replace_c implements MPI_Sendrecv_replace_c.
//
//export PMPI_Sendrecv_replace_c
func PMPI_Sendrecv_replace_c(buf unsafe.Pointer, count int64, dt, dest, stag, source, rtag, comm int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Sendrecv_replace_c", &rc)
	return sendrecvReplace("MPI_Sendrecv_replace_c", buf, count, dt, dest, stag, source, rtag, comm, st)
}

// PMPI_Isendrecv_c implements MPI_Isendrecv_c.
//
//export PMPI_Isendrecv_c
func PMPI_Isendrecv_c(sbuf unsafe.Pointer, scount int64, stype, dest, stag int32, rbuf unsafe.Pointer, rcount int64, rtype, source, rtag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isendrecv_c", &rc)
	return isendrecv("MPI_Isendrecv_c", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, req)
}

// PMPI_Isendrecv_replace_c implements MPI_Isendrecv_replace_c.
//
//export PMPI_Isendrecv_replace_c
func PMPI_Isendrecv_replace_c(buf unsafe.Pointer, count int64, dt, dest, stag, source, rtag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Isendrecv_replace_c", &rc)
	return isendrecvReplace("MPI_Isendrecv_replace_c", buf, count, dt, dest, stag, source, rtag, comm, req)
}

// PMPI_Mrecv_c implements MPI_Mrecv_c.
//
//export PMPI_Mrecv_c
func PMPI_Mrecv_c(buf unsafe.Pointer, count int64, dt int32, msg *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Mrecv_c", &rc)
	return mrecv("MPI_Mrecv_c", buf, count, dt, msg, st)
}

// PMPI_Imrecv_c implements MPI_Imrecv_c.
//
//export PMPI_Imrecv_c
func PMPI_Imrecv_c(buf unsafe.Pointer, count int64, dt int32, msg *int32, req *int32) (rc int32) {
	defer guard("MPI_Imrecv_c", &rc)
	return imrecv("MPI_Imrecv_c", buf, count, dt, msg, req)
}

// PMPI_Send_init_c implements MPI_Send_init_c.
//
//export PMPI_Send_init_c
func PMPI_Send_init_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Send_init_c", &rc)
	return persistent("MPI_Send_init_c", mpi.SendInit[byte], false, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Ssend_init_c implements MPI_Ssend_init_c.
//
//export PMPI_Ssend_init_c
func PMPI_Ssend_init_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ssend_init_c", &rc)
	return persistent("MPI_Ssend_init_c", mpi.SsendInit[byte], false, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Rsend_init_c implements MPI_Rsend_init_c.
//
//export PMPI_Rsend_init_c
func PMPI_Rsend_init_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Rsend_init_c", &rc)
	return persistent("MPI_Rsend_init_c", mpi.RsendInit[byte], false, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Bsend_init_c implements MPI_Bsend_init_c.
//
//export PMPI_Bsend_init_c
func PMPI_Bsend_init_c(buf unsafe.Pointer, count int64, dt, dest, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Bsend_init_c", &rc)
	return persistent("MPI_Bsend_init_c", mpi.BsendInit[byte], false, buf, count, dt, dest, tag, comm, req)
}

// PMPI_Recv_init_c implements MPI_Recv_init_c.
//
//export PMPI_Recv_init_c
func PMPI_Recv_init_c(buf unsafe.Pointer, count int64, dt, source, tag, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Recv_init_c", &rc)
	return persistent("MPI_Recv_init_c", mpi.RecvInit[byte], true, buf, count, dt, source, tag, comm, req)
}

// PMPI_Get_count_c implements MPI_Get_count_c.
//
//export PMPI_Get_count_c
func PMPI_Get_count_c(st unsafe.Pointer, dt int32, count *int64) (rc int32) {
	defer guard("MPI_Get_count_c", &rc)
	return getCount("MPI_Get_count_c", st, dt, false, count)
}

// PMPI_Get_elements_c implements MPI_Get_elements_c.
//
//export PMPI_Get_elements_c
func PMPI_Get_elements_c(st unsafe.Pointer, dt int32, count *int64) (rc int32) {
	defer guard("MPI_Get_elements_c", &rc)
	return getCount("MPI_Get_elements_c", st, dt, true, count)
}

// PMPI_Buffer_attach_c implements MPI_Buffer_attach_c.
//
//export PMPI_Buffer_attach_c
func PMPI_Buffer_attach_c(buf unsafe.Pointer, size int64) (rc int32) {
	defer guard("MPI_Buffer_attach_c", &rc)
	return bufferAttach("MPI_Buffer_attach_c", buf, size)
}

// PMPI_Buffer_detach_c implements MPI_Buffer_detach_c.
//
//export PMPI_Buffer_detach_c
func PMPI_Buffer_detach_c(addr unsafe.Pointer, size *int64) (rc int32) {
	defer guard("MPI_Buffer_detach_c", &rc)
	return bufferDetach("MPI_Buffer_detach_c", addr, size)
}
