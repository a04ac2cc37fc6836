package main

// The nonblocking v-forms and scans (MPI_Igatherv ... MPI_Iexscan).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// PMPI_Igatherv implements MPI_Igatherv.
//
//export PMPI_Igatherv
func PMPI_Igatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igatherv", &rc)
	return icoll("MPI_Igatherv", comm, req, gathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype, root))
}

func gathervStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype, root int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		var r []byte
		var cs, ds []int
		if err == nil && isRoot(o.c, root) {
			r, cs, ds, err = st.v(rbuf, rcounts, displs, rtype, groupSize(o.c), true)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Igatherv(o.c, s, r, cs, ds, mapRank(root))
	}
}

// PMPI_Iscatterv implements MPI_Iscatterv.
//
//export PMPI_Iscatterv
func PMPI_Iscatterv(sbuf, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatterv", &rc)
	return icoll("MPI_Iscatterv", comm, req, scattervStarter(sbuf, cInts(scounts), cInts(displs), stype, rbuf, int64(rcount), rtype, root))
}

func scattervStarter(sbuf unsafe.Pointer, scounts, displs cArray, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		var s, r []byte
		var cs, ds []int
		var err error
		if isRoot(o.c, root) {
			s, cs, ds, err = st.v(sbuf, scounts, displs, stype, groupSize(o.c), false)
		}
		if err == nil && !isInPlace(rbuf) {
			r, err = st.recv(rbuf, rcount, rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Iscatterv(o.c, s, cs, ds, r, mapRank(root))
	}
}

// PMPI_Iallgatherv implements MPI_Iallgatherv.
//
//export PMPI_Iallgatherv
func PMPI_Iallgatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgatherv", &rc)
	return icoll("MPI_Iallgatherv", comm, req, allgathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype))
}

func allgathervStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		var r []byte
		var cs, ds []int
		if err == nil {
			r, cs, ds, err = st.v(rbuf, rcounts, displs, rtype, groupSize(o.c), true)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Iallgatherv(o.c, s, r, cs, ds)
	}
}

// PMPI_Ialltoallv implements MPI_Ialltoallv.
//
//export PMPI_Ialltoallv
func PMPI_Ialltoallv(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoallv", &rc)
	return icoll("MPI_Ialltoallv", comm, req, alltoallvStarter(sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype))
}

func alltoallvStarter(sbuf unsafe.Pointer, scounts, sdispls cArray, stype int32, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtype int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		s, scs, sds, r, rcs, rds, err := alltoallvArgs(st, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, groupSize(o.c))
		if err != nil {
			return nil, err
		}
		return mpi.Ialltoallv(o.c, s, scs, sds, r, rcs, rds)
	}
}

// scanStarter starts MPI_Iscan, or MPI_Iexscan when exclusive is set.
func scanStarter(send, recv unsafe.Pointer, count int64, dt, op int32, exclusive bool) collStarter {
	return reductionStarter(send, recv, dt, op, sameItems(count), func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error) {
		return red.r.iscan(c, s, r, int(count)*red.per, red.op, exclusive)
	})
}

// PMPI_Iscan implements MPI_Iscan.
//
//export PMPI_Iscan
func PMPI_Iscan(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscan", &rc)
	return icoll("MPI_Iscan", comm, req, scanStarter(send, recv, int64(count), dt, op, false))
}

// PMPI_Iexscan implements MPI_Iexscan.
//
//export PMPI_Iexscan
func PMPI_Iexscan(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iexscan", &rc)
	return icoll("MPI_Iexscan", comm, req, scanStarter(send, recv, int64(count), dt, op, true))
}

// PMPI_Ireduce_scatter_block implements MPI_Ireduce_scatter_block.
//
//export PMPI_Ireduce_scatter_block
func PMPI_Ireduce_scatter_block(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_scatter_block", &rc)
	return icoll("MPI_Ireduce_scatter_block", comm, req, reduceScatterBlockStarter(send, recv, int64(count), dt, op))
}

func reduceScatterBlockStarter(send, recv unsafe.Pointer, count int64, dt, op int32) collStarter {
	items := scatterItems(send, func(c *mpi.Comm) (int, int) { return int(count) * c.Size(), int(count) })
	return reductionStarter(send, recv, dt, op, items, func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error) {
		n := int(count) * red.per
		return red.r.ireduceScatterBlock(c, s, r, n, n*c.Size(), red.op)
	})
}
