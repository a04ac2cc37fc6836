package main

// Nonblocking collective operations (MPI_Ibarrier ... MPI_Ialltoall): they
// move the items' bytes, as the blocking ones do.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// PMPI_Ibarrier implements MPI_Ibarrier.
//
//export PMPI_Ibarrier
func PMPI_Ibarrier(comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibarrier", &rc)
	return icoll("MPI_Ibarrier", comm, req, barrierStarter())
}

func barrierStarter() collStarter {
	return func(o *commObj, _ *staging) (*mpi.Request, error) { return mpi.Ibarrier(o.c) }
}

// PMPI_Ibcast implements MPI_Ibcast.
//
//export PMPI_Ibcast
func PMPI_Ibcast(buf unsafe.Pointer, count, dt, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ibcast", &rc)
	return icoll("MPI_Ibcast", comm, req, bcastStarter(buf, int64(count), dt, root))
}

func bcastStarter(buf unsafe.Pointer, count int64, dt, root int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		b, err := st.recv(buf, count, dt)
		if err != nil {
			return nil, err
		}
		return mpi.Ibcast(o.c, b, mapRank(root))
	}
}

// PMPI_Igather implements MPI_Igather.
//
//export PMPI_Igather
func PMPI_Igather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Igather", &rc)
	return icoll("MPI_Igather", comm, req, gatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root))
}

func gatherStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		var rb []byte
		if err == nil && isRoot(o.c, root) {
			rb, err = st.recv(rbuf, blockItems(rcount, groupSize(o.c)), rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Igather(o.c, s, rb, mapRank(root))
	}
}

// PMPI_Iscatter implements MPI_Iscatter.
//
//export PMPI_Iscatter
func PMPI_Iscatter(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iscatter", &rc)
	return icoll("MPI_Iscatter", comm, req, scatterStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root))
}

func scatterStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		var s, rb []byte
		var err error
		if isRoot(o.c, root) {
			s, err = st.send(sbuf, blockItems(scount, groupSize(o.c)), stype)
		}
		if err == nil && !isInPlace(rbuf) {
			rb, err = st.recv(rbuf, rcount, rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Iscatter(o.c, s, rb, mapRank(root))
	}
}

// PMPI_Iallgather implements MPI_Iallgather.
//
//export PMPI_Iallgather
func PMPI_Iallgather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallgather", &rc)
	return icoll("MPI_Iallgather", comm, req, allgatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

func allgatherStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		var rb []byte
		if err == nil {
			rb, err = st.recv(rbuf, blockItems(rcount, groupSize(o.c)), rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Iallgather(o.c, s, rb)
	}
}

// PMPI_Ialltoall implements MPI_Ialltoall.
//
//export PMPI_Ialltoall
func PMPI_Ialltoall(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoall", &rc)
	return icoll("MPI_Ialltoall", comm, req, alltoallStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

func alltoallStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype int32) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		n := groupSize(o.c)
		s, err := st.send(sbuf, blockItems(scount, n), stype)
		var rb []byte
		if err == nil {
			rb, err = st.recv(rbuf, blockItems(rcount, n), rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.Ialltoall(o.c, s, rb)
	}
}

// PMPI_Ireduce implements MPI_Ireduce.
//
//export PMPI_Ireduce
func PMPI_Ireduce(send, recv unsafe.Pointer, count, dt, op, root, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce", &rc)
	return icoll("MPI_Ireduce", comm, req, reduceStarter(send, recv, int64(count), dt, op, root))
}

func reduceStarter(send, recv unsafe.Pointer, count int64, dt, op, root int32) collStarter {
	items := func(c *mpi.Comm) (int, int) {
		if isRoot(c, root) {
			return int(count), int(count)
		}
		return int(count), -1
	}
	return reductionStarter(send, recv, dt, op, items, func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error) {
		return red.r.ireduce(c, s, r, int(count)*red.per, red.op, mapRank(root))
	})
}

// sameItems is the items function of a reduction whose send and receive
// buffers both hold count items.
func sameItems(count int64) func(*mpi.Comm) (int, int) {
	return func(*mpi.Comm) (int, int) { return int(count), int(count) }
}
