package main

// MPI-4.0's large-count collectives (MPI_Bcast_c ... MPI_Neighbor_alltoallw_c):
// MPI_Count counts and arrays of MPI_Count counts and MPI_Aint
// displacements, read in place (cWide), the bodies of the others.

import "C"

import "unsafe"

// PMPI_Bcast_c implements MPI_Bcast_c.
//
//export PMPI_Bcast_c
func PMPI_Bcast_c(buf unsafe.Pointer, count int64, dt, root, comm int32) (rc int32) {
	defer guard("MPI_Bcast_c", &rc)
	return bcast("MPI_Bcast_c", buf, count, dt, root, comm)
}

// PMPI_Gather_c implements MPI_Gather_c.
//
//export PMPI_Gather_c
func PMPI_Gather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Gather_c", &rc)
	return gather("MPI_Gather_c", sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
}

// PMPI_Gatherv_c implements MPI_Gatherv_c.
//
//export PMPI_Gatherv_c
func PMPI_Gatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Gatherv_c", &rc)
	return gatherv("MPI_Gatherv_c", sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype, root, comm)
}

// PMPI_Scatter_c implements MPI_Scatter_c.
//
//export PMPI_Scatter_c
func PMPI_Scatter_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Scatter_c", &rc)
	return scatter("MPI_Scatter_c", sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
}

// PMPI_Scatterv_c implements MPI_Scatterv_c.
//
//export PMPI_Scatterv_c
func PMPI_Scatterv_c(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Scatterv_c", &rc)
	return scatterv("MPI_Scatterv_c", sbuf, cWide(scounts), cWide(displs), stype, rbuf, rcount, rtype, root, comm)
}

// PMPI_Allgather_c implements MPI_Allgather_c.
//
//export PMPI_Allgather_c
func PMPI_Allgather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) (rc int32) {
	defer guard("MPI_Allgather_c", &rc)
	return allgather("MPI_Allgather_c", sbuf, scount, stype, rbuf, rcount, rtype, comm)
}

// PMPI_Allgatherv_c implements MPI_Allgatherv_c.
//
//export PMPI_Allgatherv_c
func PMPI_Allgatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Allgatherv_c", &rc)
	return allgatherv("MPI_Allgatherv_c", sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype, comm)
}

// PMPI_Alltoall_c implements MPI_Alltoall_c.
//
//export PMPI_Alltoall_c
func PMPI_Alltoall_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) (rc int32) {
	defer guard("MPI_Alltoall_c", &rc)
	return alltoall("MPI_Alltoall_c", sbuf, scount, stype, rbuf, rcount, rtype, comm)
}

// PMPI_Alltoallv_c implements MPI_Alltoallv_c.
//
//export PMPI_Alltoallv_c
func PMPI_Alltoallv_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Alltoallv_c", &rc)
	return alltoallv("MPI_Alltoallv_c", sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype, comm)
}

// PMPI_Alltoallw_c implements MPI_Alltoallw_c.
//
//export PMPI_Alltoallw_c
func PMPI_Alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32) (rc int32) {
	defer guard("MPI_Alltoallw_c", &rc)
	return alltoallw("MPI_Alltoallw_c", sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes, comm)
}

// PMPI_Reduce_c implements MPI_Reduce_c.
//
//export PMPI_Reduce_c
func PMPI_Reduce_c(send, recv unsafe.Pointer, count int64, dt, op, root, comm int32) (rc int32) {
	defer guard("MPI_Reduce_c", &rc)
	return reduce("MPI_Reduce_c", send, recv, count, dt, op, root, comm)
}

// PMPI_Allreduce_c implements MPI_Allreduce_c.
//
//export PMPI_Allreduce_c
func PMPI_Allreduce_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Allreduce_c", &rc)
	return allreduce("MPI_Allreduce_c", send, recv, count, dt, op, comm)
}

// PMPI_Scan_c implements MPI_Scan_c.
//
//export PMPI_Scan_c
func PMPI_Scan_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Scan_c", &rc)
	return scan("MPI_Scan_c", send, recv, count, dt, op, comm, false)
}

// PMPI_Exscan_c implements MPI_Exscan_c.
//
//export PMPI_Exscan_c
func PMPI_Exscan_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Exscan_c", &rc)
	return scan("MPI_Exscan_c", send, recv, count, dt, op, comm, true)
}

// PMPI_Reduce_scatter_block_c implements MPI_Reduce_scatter_block_c.
//
//export PMPI_Reduce_scatter_block_c
func PMPI_Reduce_scatter_block_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_block_c", &rc)
	return reduceScatterBlock("MPI_Reduce_scatter_block_c", send, recv, count, dt, op, comm)
}

// PMPI_Reduce_scatter_c implements MPI_Reduce_scatter_c.
//
//export PMPI_Reduce_scatter_c
func PMPI_Reduce_scatter_c(send, recv, counts unsafe.Pointer, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_c", &rc)
	return reduceScatter("MPI_Reduce_scatter_c", send, recv, cWide(counts), dt, op, comm)
}

// PMPI_Reduce_local_c implements MPI_Reduce_local_c.
//
//export PMPI_Reduce_local_c
func PMPI_Reduce_local_c(in, inout unsafe.Pointer, count int64, dt, op int32) (rc int32) {
	defer guard("MPI_Reduce_local_c", &rc)
	return reduceLocal("MPI_Reduce_local_c", in, inout, count, dt, op)
}

// PMPI_Neighbor_allgather_c implements MPI_Neighbor_allgather_c.
//
//export PMPI_Neighbor_allgather_c
func PMPI_Neighbor_allgather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_allgather_c", &rc)
	return neighborAllgather("MPI_Neighbor_allgather_c", sbuf, scount, stype, rbuf, rcount, rtype, comm)
}

// PMPI_Neighbor_alltoall_c implements MPI_Neighbor_alltoall_c.
//
//export PMPI_Neighbor_alltoall_c
func PMPI_Neighbor_alltoall_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoall_c", &rc)
	return neighborAlltoall("MPI_Neighbor_alltoall_c", sbuf, scount, stype, rbuf, rcount, rtype, comm)
}

// PMPI_Neighbor_allgatherv_c implements MPI_Neighbor_allgatherv_c.
//
//export PMPI_Neighbor_allgatherv_c
func PMPI_Neighbor_allgatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_allgatherv_c", &rc)
	return neighborAllgatherv("MPI_Neighbor_allgatherv_c", sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype, comm)
}

// PMPI_Neighbor_alltoallv_c implements MPI_Neighbor_alltoallv_c.
//
//export PMPI_Neighbor_alltoallv_c
func PMPI_Neighbor_alltoallv_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallv_c", &rc)
	return neighborAlltoallv("MPI_Neighbor_alltoallv_c", sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype, comm)
}

// PMPI_Neighbor_alltoallw_c implements MPI_Neighbor_alltoallw_c.
//
//export PMPI_Neighbor_alltoallw_c
func PMPI_Neighbor_alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallw_c", &rc)
	return waitColl("MPI_Neighbor_alltoallw_c", comm, neighborAlltoallwStarter(sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes))
}
