package main

// MPI-4.0's large-count nonblocking and persistent collectives
// (MPI_Ibcast_c ..., MPI_Bcast_init_c ...): the starters of the others,
// with MPI_Count counts and arrays of MPI_Count counts and MPI_Aint
// displacements.

import "C"

import "unsafe"

// PMPI_Ibcast_c implements MPI_Ibcast_c.
//
//export PMPI_Ibcast_c
func PMPI_Ibcast_c(buf unsafe.Pointer, count int64, dt, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibcast_c", &rc)
	return icoll("MPI_Ibcast_c", comm, req, bcastStarter(buf, count, dt, root))
}

// PMPI_Igather_c implements MPI_Igather_c.
//
//export PMPI_Igather_c
func PMPI_Igather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igather_c", &rc)
	return icoll("MPI_Igather_c", comm, req, gatherStarter(sbuf, scount, stype, rbuf, rcount, rtype, root))
}

// PMPI_Igatherv_c implements MPI_Igatherv_c.
//
//export PMPI_Igatherv_c
func PMPI_Igatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igatherv_c", &rc)
	return icoll("MPI_Igatherv_c", comm, req, gathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype, root))
}

// PMPI_Iscatter_c implements MPI_Iscatter_c.
//
//export PMPI_Iscatter_c
func PMPI_Iscatter_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatter_c", &rc)
	return icoll("MPI_Iscatter_c", comm, req, scatterStarter(sbuf, scount, stype, rbuf, rcount, rtype, root))
}

// PMPI_Iscatterv_c implements MPI_Iscatterv_c.
//
//export PMPI_Iscatterv_c
func PMPI_Iscatterv_c(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatterv_c", &rc)
	return icoll("MPI_Iscatterv_c", comm, req, scattervStarter(sbuf, cWide(scounts), cWide(displs), stype, rbuf, rcount, rtype, root))
}

// PMPI_Iallgather_c implements MPI_Iallgather_c.
//
//export PMPI_Iallgather_c
func PMPI_Iallgather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgather_c", &rc)
	return icoll("MPI_Iallgather_c", comm, req, allgatherStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Iallgatherv_c implements MPI_Iallgatherv_c.
//
//export PMPI_Iallgatherv_c
func PMPI_Iallgatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgatherv_c", &rc)
	return icoll("MPI_Iallgatherv_c", comm, req, allgathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype))
}

// PMPI_Ialltoall_c implements MPI_Ialltoall_c.
//
//export PMPI_Ialltoall_c
func PMPI_Ialltoall_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoall_c", &rc)
	return icoll("MPI_Ialltoall_c", comm, req, alltoallStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Ialltoallv_c implements MPI_Ialltoallv_c.
//
//export PMPI_Ialltoallv_c
func PMPI_Ialltoallv_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoallv_c", &rc)
	return icoll("MPI_Ialltoallv_c", comm, req, alltoallvStarter(sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype))
}

// PMPI_Ialltoallw_c implements MPI_Ialltoallw_c.
//
//export PMPI_Ialltoallw_c
func PMPI_Ialltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoallw_c", &rc)
	return icoll("MPI_Ialltoallw_c", comm, req, alltoallwStarter(sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes))
}

// PMPI_Ireduce_c implements MPI_Ireduce_c.
//
//export PMPI_Ireduce_c
func PMPI_Ireduce_c(send, recv unsafe.Pointer, count int64, dt, op, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_c", &rc)
	return icoll("MPI_Ireduce_c", comm, req, reduceStarter(send, recv, count, dt, op, root))
}

// PMPI_Iallreduce_c implements MPI_Iallreduce_c.
//
//export PMPI_Iallreduce_c
func PMPI_Iallreduce_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallreduce_c", &rc)
	return icoll("MPI_Iallreduce_c", comm, req, allreduceStarter(send, recv, count, dt, op))
}

// PMPI_Iscan_c implements MPI_Iscan_c.
//
//export PMPI_Iscan_c
func PMPI_Iscan_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscan_c", &rc)
	return icoll("MPI_Iscan_c", comm, req, scanStarter(send, recv, count, dt, op, false))
}

// PMPI_Iexscan_c implements MPI_Iexscan_c.
//
//export PMPI_Iexscan_c
func PMPI_Iexscan_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iexscan_c", &rc)
	return icoll("MPI_Iexscan_c", comm, req, scanStarter(send, recv, count, dt, op, true))
}

// PMPI_Ireduce_scatter_block_c implements MPI_Ireduce_scatter_block_c.
//
//export PMPI_Ireduce_scatter_block_c
func PMPI_Ireduce_scatter_block_c(send, recv unsafe.Pointer, count int64, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_scatter_block_c", &rc)
	return icoll("MPI_Ireduce_scatter_block_c", comm, req, reduceScatterBlockStarter(send, recv, count, dt, op))
}

// PMPI_Ireduce_scatter_c implements MPI_Ireduce_scatter_c.
//
//export PMPI_Ireduce_scatter_c
func PMPI_Ireduce_scatter_c(send, recv, counts unsafe.Pointer, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_scatter_c", &rc)
	return icoll("MPI_Ireduce_scatter_c", comm, req, reduceScatterStarter(send, recv, cWide(counts), dt, op))
}

// PMPI_Ineighbor_allgather_c implements MPI_Ineighbor_allgather_c.
//
//export PMPI_Ineighbor_allgather_c
func PMPI_Ineighbor_allgather_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_allgather_c", &rc)
	return icoll("MPI_Ineighbor_allgather_c", comm, req, neighborAllgatherStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Ineighbor_allgatherv_c implements MPI_Ineighbor_allgatherv_c.
//
//export PMPI_Ineighbor_allgatherv_c
func PMPI_Ineighbor_allgatherv_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_allgatherv_c", &rc)
	return icoll("MPI_Ineighbor_allgatherv_c", comm, req, neighborAllgathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype))
}

// PMPI_Ineighbor_alltoall_c implements MPI_Ineighbor_alltoall_c.
//
//export PMPI_Ineighbor_alltoall_c
func PMPI_Ineighbor_alltoall_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoall_c", &rc)
	return icoll("MPI_Ineighbor_alltoall_c", comm, req, neighborAlltoallStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Ineighbor_alltoallv_c implements MPI_Ineighbor_alltoallv_c.
//
//export PMPI_Ineighbor_alltoallv_c
func PMPI_Ineighbor_alltoallv_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoallv_c", &rc)
	return icoll("MPI_Ineighbor_alltoallv_c", comm, req, neighborAlltoallvStarter(sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype))
}

// PMPI_Ineighbor_alltoallw_c implements MPI_Ineighbor_alltoallw_c.
//
//export PMPI_Ineighbor_alltoallw_c
func PMPI_Ineighbor_alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoallw_c", &rc)
	return icoll("MPI_Ineighbor_alltoallw_c", comm, req, neighborAlltoallwStarter(sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes))
}

// PMPI_Bcast_init_c implements MPI_Bcast_init_c.
//
//export PMPI_Bcast_init_c
func PMPI_Bcast_init_c(buf unsafe.Pointer, count int64, dt, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Bcast_init_c", &rc)
	return collInit("MPI_Bcast_init_c", comm, info, req, bcastStarter(buf, count, dt, root))
}

// PMPI_Gather_init_c implements MPI_Gather_init_c.
//
//export PMPI_Gather_init_c
func PMPI_Gather_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Gather_init_c", &rc)
	return collInit("MPI_Gather_init_c", comm, info, req, gatherStarter(sbuf, scount, stype, rbuf, rcount, rtype, root))
}

// PMPI_Gatherv_init_c implements MPI_Gatherv_init_c.
//
//export PMPI_Gatherv_init_c
func PMPI_Gatherv_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Gatherv_init_c", &rc)
	return collInit("MPI_Gatherv_init_c", comm, info, req, gathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype, root))
}

// PMPI_Scatter_init_c implements MPI_Scatter_init_c.
//
//export PMPI_Scatter_init_c
func PMPI_Scatter_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scatter_init_c", &rc)
	return collInit("MPI_Scatter_init_c", comm, info, req, scatterStarter(sbuf, scount, stype, rbuf, rcount, rtype, root))
}

// PMPI_Scatterv_init_c implements MPI_Scatterv_init_c.
//
//export PMPI_Scatterv_init_c
func PMPI_Scatterv_init_c(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scatterv_init_c", &rc)
	return collInit("MPI_Scatterv_init_c", comm, info, req, scattervStarter(sbuf, cWide(scounts), cWide(displs), stype, rbuf, rcount, rtype, root))
}

// PMPI_Allgather_init_c implements MPI_Allgather_init_c.
//
//export PMPI_Allgather_init_c
func PMPI_Allgather_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allgather_init_c", &rc)
	return collInit("MPI_Allgather_init_c", comm, info, req, allgatherStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Allgatherv_init_c implements MPI_Allgatherv_init_c.
//
//export PMPI_Allgatherv_init_c
func PMPI_Allgatherv_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allgatherv_init_c", &rc)
	return collInit("MPI_Allgatherv_init_c", comm, info, req, allgathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype))
}

// PMPI_Alltoall_init_c implements MPI_Alltoall_init_c.
//
//export PMPI_Alltoall_init_c
func PMPI_Alltoall_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoall_init_c", &rc)
	return collInit("MPI_Alltoall_init_c", comm, info, req, alltoallStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Alltoallv_init_c implements MPI_Alltoallv_init_c.
//
//export PMPI_Alltoallv_init_c
func PMPI_Alltoallv_init_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoallv_init_c", &rc)
	return collInit("MPI_Alltoallv_init_c", comm, info, req, alltoallvStarter(sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype))
}

// PMPI_Alltoallw_init_c implements MPI_Alltoallw_init_c.
//
//export PMPI_Alltoallw_init_c
func PMPI_Alltoallw_init_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoallw_init_c", &rc)
	return collInit("MPI_Alltoallw_init_c", comm, info, req, alltoallwStarter(sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes))
}

// PMPI_Reduce_init_c implements MPI_Reduce_init_c.
//
//export PMPI_Reduce_init_c
func PMPI_Reduce_init_c(send, recv unsafe.Pointer, count int64, dt, op, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_init_c", &rc)
	return collInit("MPI_Reduce_init_c", comm, info, req, reduceStarter(send, recv, count, dt, op, root))
}

// PMPI_Allreduce_init_c implements MPI_Allreduce_init_c.
//
//export PMPI_Allreduce_init_c
func PMPI_Allreduce_init_c(send, recv unsafe.Pointer, count int64, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allreduce_init_c", &rc)
	return collInit("MPI_Allreduce_init_c", comm, info, req, allreduceStarter(send, recv, count, dt, op))
}

// PMPI_Scan_init_c implements MPI_Scan_init_c.
//
//export PMPI_Scan_init_c
func PMPI_Scan_init_c(send, recv unsafe.Pointer, count int64, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scan_init_c", &rc)
	return collInit("MPI_Scan_init_c", comm, info, req, scanStarter(send, recv, count, dt, op, false))
}

// PMPI_Exscan_init_c implements MPI_Exscan_init_c.
//
//export PMPI_Exscan_init_c
func PMPI_Exscan_init_c(send, recv unsafe.Pointer, count int64, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Exscan_init_c", &rc)
	return collInit("MPI_Exscan_init_c", comm, info, req, scanStarter(send, recv, count, dt, op, true))
}

// PMPI_Reduce_scatter_block_init_c implements MPI_Reduce_scatter_block_init_c.
//
//export PMPI_Reduce_scatter_block_init_c
func PMPI_Reduce_scatter_block_init_c(send, recv unsafe.Pointer, count int64, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_block_init_c", &rc)
	return collInit("MPI_Reduce_scatter_block_init_c", comm, info, req, reduceScatterBlockStarter(send, recv, count, dt, op))
}

// PMPI_Reduce_scatter_init_c implements MPI_Reduce_scatter_init_c.
//
//export PMPI_Reduce_scatter_init_c
func PMPI_Reduce_scatter_init_c(send, recv, counts unsafe.Pointer, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_init_c", &rc)
	return collInit("MPI_Reduce_scatter_init_c", comm, info, req, reduceScatterStarter(send, recv, cWide(counts), dt, op))
}

// PMPI_Neighbor_allgather_init_c implements MPI_Neighbor_allgather_init_c.
//
//export PMPI_Neighbor_allgather_init_c
func PMPI_Neighbor_allgather_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_allgather_init_c", &rc)
	return collInit("MPI_Neighbor_allgather_init_c", comm, info, req, neighborAllgatherStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Neighbor_allgatherv_init_c implements MPI_Neighbor_allgatherv_init_c.
//
//export PMPI_Neighbor_allgatherv_init_c
func PMPI_Neighbor_allgatherv_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_allgatherv_init_c", &rc)
	return collInit("MPI_Neighbor_allgatherv_init_c", comm, info, req, neighborAllgathervStarter(sbuf, scount, stype, rbuf, cWide(rcounts), cWide(displs), rtype))
}

// PMPI_Neighbor_alltoall_init_c implements MPI_Neighbor_alltoall_init_c.
//
//export PMPI_Neighbor_alltoall_init_c
func PMPI_Neighbor_alltoall_init_c(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoall_init_c", &rc)
	return collInit("MPI_Neighbor_alltoall_init_c", comm, info, req, neighborAlltoallStarter(sbuf, scount, stype, rbuf, rcount, rtype))
}

// PMPI_Neighbor_alltoallv_init_c implements MPI_Neighbor_alltoallv_init_c.
//
//export PMPI_Neighbor_alltoallv_init_c
func PMPI_Neighbor_alltoallv_init_c(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallv_init_c", &rc)
	return collInit("MPI_Neighbor_alltoallv_init_c", comm, info, req, neighborAlltoallvStarter(sbuf, cWide(scounts), cWide(sdispls), stype, rbuf, cWide(rcounts), cWide(rdispls), rtype))
}

// PMPI_Neighbor_alltoallw_init_c implements MPI_Neighbor_alltoallw_init_c.
//
//export PMPI_Neighbor_alltoallw_init_c
func PMPI_Neighbor_alltoallw_init_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallw_init_c", &rc)
	return collInit("MPI_Neighbor_alltoallw_init_c", comm, info, req, neighborAlltoallwStarter(sbuf, cWide(scounts), cWide(sdispls), stypes, rbuf, cWide(rcounts), cWide(rdispls), rtypes))
}
