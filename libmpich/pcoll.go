package main

// Nonblocking and persistent collectives share their starters: a
// collStarter resolves a call's buffers (staging those that are not
// contiguous) and starts its nonblocking collective. MPI_Ibcast runs it
// once. MPI_Bcast_init (MPI-4.0's persistent collectives) runs it once
// too, under mpi.PersistentCollective, which records the operation and
// runs it again at every MPI_Start; before each round the staged copies
// are packed again from the program's buffers, and once it completes the
// receiving ones are unpacked.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// collStarter starts a nonblocking collective on o's communicator, with
// its buffers staged in st.
type collStarter func(o *commObj, st *staging) (*mpi.Request, error)

// icoll is the nonblocking collective call fn: it starts s and stores the
// handle of its request at req.
func icoll(fn string, comm int32, req *int32, s collStarter) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	r, err := s(o, &st)
	if err == nil {
		err = storeRequest(reqObj{r: r, comm: o, commH: comm, onDone: st.onDone()}, req)
	}
	return check(fn, o, comm, err)
}

// collInit is the persistent collective call fn (MPI_Bcast_init ...):
// it stores at req the handle of a persistent request whose rounds run
// what s starts.
func collInit(fn string, comm, info int32, req *int32, s collStarter) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	if _, ok := lookupInfo(info); !ok && info != infoNull {
		return check(fn, o, comm, errorf(errInfo, "invalid info %#x", uint32(info)))
	}
	st := new(staging)
	r, err := mpi.PersistentCollective(o.c, func() (*mpi.Request, error) { return s(o, st) })
	if err == nil {
		err = storeRequest(reqObj{r: r, persistent: true, comm: o, commH: comm, beforeStart: st.refresh, onDone: st.roundDone}, req)
	}
	return check(fn, o, comm, err)
}

// storeRequest stores the handle of request ro at req.
func storeRequest(ro reqObj, req *int32) error {
	h, ok := requests.add(ro)
	if !ok {
		return errorf(errNoMem, "too many requests")
	}
	*req = h
	return nil
}

// reductionStarter is the starter of a nonblocking reduction of datatype
// dt and operation op on send and recv: items says how many items of dt
// each holds on c (recv's negative where not significant), and start
// starts the reduction on them, staged where red.gaps says.
func reductionStarter(send, recv unsafe.Pointer, dt, op int32, items func(c *mpi.Comm) (n, m int), start func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error)) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		red, err := reductionArg(dt, op)
		var s, r unsafe.Pointer
		if err == nil {
			n, m := items(o.c)
			if err = checkItems(n); err == nil {
				s, r, err = red.staged(st, send, recv, n, m)
			}
		}
		if err != nil {
			return nil, err
		}
		return start(o.c, red, s, r)
	}
}

// scatterItems is the items function of a reduce-scatter over total
// items of which the caller gets mine: in place, recv holds them all.
func scatterItems(send unsafe.Pointer, counts func(c *mpi.Comm) (total, mine int)) func(c *mpi.Comm) (int, int) {
	return func(c *mpi.Comm) (int, int) {
		total, mine := counts(c)
		if isInPlace(send) {
			mine = total
		}
		return total, mine
	}
}

// PMPI_Barrier_init implements MPI_Barrier_init.
//
//export PMPI_Barrier_init
func PMPI_Barrier_init(comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Barrier_init", &rc)
	return collInit("MPI_Barrier_init", comm, info, req, barrierStarter())
}

// PMPI_Bcast_init implements MPI_Bcast_init.
//
//export PMPI_Bcast_init
func PMPI_Bcast_init(buf unsafe.Pointer, count, dt, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Bcast_init", &rc)
	return collInit("MPI_Bcast_init", comm, info, req, bcastStarter(buf, int64(count), dt, root))
}

// PMPI_Gather_init implements MPI_Gather_init.
//
//export PMPI_Gather_init
func PMPI_Gather_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Gather_init", &rc)
	return collInit("MPI_Gather_init", comm, info, req, gatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root))
}

// PMPI_Scatter_init implements MPI_Scatter_init.
//
//export PMPI_Scatter_init
func PMPI_Scatter_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scatter_init", &rc)
	return collInit("MPI_Scatter_init", comm, info, req, scatterStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root))
}

// PMPI_Allgather_init implements MPI_Allgather_init.
//
//export PMPI_Allgather_init
func PMPI_Allgather_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allgather_init", &rc)
	return collInit("MPI_Allgather_init", comm, info, req, allgatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// PMPI_Alltoall_init implements MPI_Alltoall_init.
//
//export PMPI_Alltoall_init
func PMPI_Alltoall_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoall_init", &rc)
	return collInit("MPI_Alltoall_init", comm, info, req, alltoallStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// PMPI_Reduce_init implements MPI_Reduce_init.
//
//export PMPI_Reduce_init
func PMPI_Reduce_init(send, recv unsafe.Pointer, count, dt, op, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_init", &rc)
	return collInit("MPI_Reduce_init", comm, info, req, reduceStarter(send, recv, int64(count), dt, op, root))
}

// PMPI_Allreduce_init implements MPI_Allreduce_init.
//
//export PMPI_Allreduce_init
func PMPI_Allreduce_init(send, recv unsafe.Pointer, count, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allreduce_init", &rc)
	return collInit("MPI_Allreduce_init", comm, info, req, allreduceStarter(send, recv, int64(count), dt, op))
}

// PMPI_Gatherv_init implements MPI_Gatherv_init.
//
//export PMPI_Gatherv_init
func PMPI_Gatherv_init(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Gatherv_init", &rc)
	return collInit("MPI_Gatherv_init", comm, info, req, gathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype, root))
}

// PMPI_Scatterv_init implements MPI_Scatterv_init.
//
//export PMPI_Scatterv_init
func PMPI_Scatterv_init(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scatterv_init", &rc)
	return collInit("MPI_Scatterv_init", comm, info, req, scattervStarter(sbuf, cInts(scounts), cInts(displs), stype, rbuf, int64(rcount), rtype, root))
}

// PMPI_Allgatherv_init implements MPI_Allgatherv_init.
//
//export PMPI_Allgatherv_init
func PMPI_Allgatherv_init(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Allgatherv_init", &rc)
	return collInit("MPI_Allgatherv_init", comm, info, req, allgathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype))
}

// PMPI_Alltoallv_init implements MPI_Alltoallv_init.
//
//export PMPI_Alltoallv_init
func PMPI_Alltoallv_init(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoallv_init", &rc)
	return collInit("MPI_Alltoallv_init", comm, info, req, alltoallvStarter(sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype))
}

// PMPI_Alltoallw_init implements MPI_Alltoallw_init.
//
//export PMPI_Alltoallw_init
func PMPI_Alltoallw_init(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Alltoallw_init", &rc)
	return collInit("MPI_Alltoallw_init", comm, info, req, alltoallwStarter(sbuf, cInts(scounts), cInts(sdispls), stypes, rbuf, cInts(rcounts), cInts(rdispls), rtypes))
}

// PMPI_Scan_init implements MPI_Scan_init.
//
//export PMPI_Scan_init
func PMPI_Scan_init(send, recv unsafe.Pointer, count, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Scan_init", &rc)
	return collInit("MPI_Scan_init", comm, info, req, scanStarter(send, recv, int64(count), dt, op, false))
}

// PMPI_Exscan_init implements MPI_Exscan_init.
//
//export PMPI_Exscan_init
func PMPI_Exscan_init(send, recv unsafe.Pointer, count, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Exscan_init", &rc)
	return collInit("MPI_Exscan_init", comm, info, req, scanStarter(send, recv, int64(count), dt, op, true))
}

// PMPI_Reduce_scatter_block_init implements MPI_Reduce_scatter_block_init.
//
//export PMPI_Reduce_scatter_block_init
func PMPI_Reduce_scatter_block_init(send, recv unsafe.Pointer, count, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_block_init", &rc)
	return collInit("MPI_Reduce_scatter_block_init", comm, info, req, reduceScatterBlockStarter(send, recv, int64(count), dt, op))
}

// PMPI_Reduce_scatter_init implements MPI_Reduce_scatter_init.
//
//export PMPI_Reduce_scatter_init
func PMPI_Reduce_scatter_init(send, recv, counts unsafe.Pointer, dt, op, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_init", &rc)
	return collInit("MPI_Reduce_scatter_init", comm, info, req, reduceScatterStarter(send, recv, cInts(counts), dt, op))
}

// PMPI_Neighbor_allgather_init implements MPI_Neighbor_allgather_init.
//
//export PMPI_Neighbor_allgather_init
func PMPI_Neighbor_allgather_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_allgather_init", &rc)
	return collInit("MPI_Neighbor_allgather_init", comm, info, req, neighborAllgatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// PMPI_Neighbor_alltoall_init implements MPI_Neighbor_alltoall_init.
//
//export PMPI_Neighbor_alltoall_init
func PMPI_Neighbor_alltoall_init(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoall_init", &rc)
	return collInit("MPI_Neighbor_alltoall_init", comm, info, req, neighborAlltoallStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// PMPI_Neighbor_allgatherv_init implements MPI_Neighbor_allgatherv_init.
//
//export PMPI_Neighbor_allgatherv_init
func PMPI_Neighbor_allgatherv_init(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_allgatherv_init", &rc)
	return collInit("MPI_Neighbor_allgatherv_init", comm, info, req, neighborAllgathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype))
}

// PMPI_Neighbor_alltoallv_init implements MPI_Neighbor_alltoallv_init.
//
//export PMPI_Neighbor_alltoallv_init
func PMPI_Neighbor_alltoallv_init(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallv_init", &rc)
	return collInit("MPI_Neighbor_alltoallv_init", comm, info, req, neighborAlltoallvStarter(sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype))
}

// PMPI_Neighbor_alltoallw_init implements MPI_Neighbor_alltoallw_init.
//
//export PMPI_Neighbor_alltoallw_init
func PMPI_Neighbor_alltoallw_init(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm, info int32, req *int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallw_init", &rc)
	return collInit("MPI_Neighbor_alltoallw_init", comm, info, req, neighborAlltoallwStarter(sbuf, cInts(scounts), cWide(sdispls), stypes, rbuf, cInts(rcounts), cWide(rdispls), rtypes))
}
