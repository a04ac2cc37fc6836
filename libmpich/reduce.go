package main

// Reductions (MPI_Reduce ... MPI_Reduce_local): they look at the values,
// so they need a predefined datatype whose Go element type is known.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// PMPI_Reduce implements MPI_Reduce.
//
//export PMPI_Reduce
func PMPI_Reduce(send, recv unsafe.Pointer, count, dt, op, root, comm int32) (rc int32) {
	defer guard("MPI_Reduce", &rc)
	return reduce("MPI_Reduce", send, recv, int64(count), dt, op, root, comm)
}

// reduce is MPI_Reduce and MPI_Reduce_c.
func reduce(fn string, send, recv unsafe.Pointer, count int64, dt, op, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil {
		atRoot := isRoot(o.c, root)
		err = reduceCall(red, send, recv, int(count), atRoot, func(s, r unsafe.Pointer, n int) error {
			return red.r.reduce(o.c, s, r, n, red.op, mapRank(root))
		})
	}
	return check(fn, o, comm, err)
}

// PMPI_Allreduce implements MPI_Allreduce.
//
//export PMPI_Allreduce
func PMPI_Allreduce(send, recv unsafe.Pointer, count, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Allreduce", &rc)
	return allreduce("MPI_Allreduce", send, recv, int64(count), dt, op, comm)
}

// allreduce is MPI_Allreduce and MPI_Allreduce_c.
func allreduce(fn string, send, recv unsafe.Pointer, count int64, dt, op, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil {
		err = reduceCall(red, send, recv, int(count), true, func(s, r unsafe.Pointer, n int) error {
			return red.r.allreduce(o.c, s, r, n, red.op)
		})
	}
	return check(fn, o, comm, err)
}

// scan is MPI_Scan and MPI_Exscan, and their _c forms.
func scan(fn string, send, recv unsafe.Pointer, count int64, dt, op, comm int32, exclusive bool) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil {
		err = reduceCall(red, send, recv, int(count), true, func(s, r unsafe.Pointer, n int) error {
			return red.r.scan(o.c, s, r, n, red.op, exclusive)
		})
	}
	return check(fn, o, comm, err)
}

// PMPI_Scan implements MPI_Scan.
//
//export PMPI_Scan
func PMPI_Scan(send, recv unsafe.Pointer, count, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Scan", &rc)
	return scan("MPI_Scan", send, recv, int64(count), dt, op, comm, false)
}

// PMPI_Exscan implements MPI_Exscan.
//
//export PMPI_Exscan
func PMPI_Exscan(send, recv unsafe.Pointer, count, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Exscan", &rc)
	return scan("MPI_Exscan", send, recv, int64(count), dt, op, comm, true)
}

// PMPI_Reduce_scatter_block implements MPI_Reduce_scatter_block.
//
//export PMPI_Reduce_scatter_block
func PMPI_Reduce_scatter_block(send, recv unsafe.Pointer, count, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Reduce_scatter_block", &rc)
	return reduceScatterBlock("MPI_Reduce_scatter_block", send, recv, int64(count), dt, op, comm)
}

// reduceScatterBlock is MPI_Reduce_scatter_block and its _c form.
func reduceScatterBlock(fn string, send, recv unsafe.Pointer, count int64, dt, op, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	var st staging
	if err == nil {
		send, recv, err = red.scatterStaged(&st, send, recv, int(blockItems(count, o.c.Size())), int(count))
	}
	if err == nil {
		n := int(count) * red.per
		err = st.after(red.r.reduceScatterBlock(o.c, send, recv, n, n*o.c.Size(), red.op))
	}
	return check(fn, o, comm, err)
}

// PMPI_Reduce_scatter implements MPI_Reduce_scatter.
//
//export PMPI_Reduce_scatter
func PMPI_Reduce_scatter(send, recv unsafe.Pointer, counts unsafe.Pointer, dt, op, comm int32) (rc int32) {
	defer guard("MPI_Reduce_scatter", &rc)
	return reduceScatter("MPI_Reduce_scatter", send, recv, cInts(counts), dt, op, comm)
}

// reduceScatter is MPI_Reduce_scatter and its _c form.
func reduceScatter(fn string, send, recv unsafe.Pointer, counts cArray, dt, op, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	red, err := reductionArg(dt, op)
	if err == nil {
		err = counts.countsOK(o.c.Size())
	}
	var st staging
	if err == nil {
		items := counts.scaled(o.c.Size(), 1)
		send, recv, err = red.scatterStaged(&st, send, recv, sum(items), items[o.c.Rank()])
	}
	if err == nil {
		cs := counts.scaled(o.c.Size(), red.per)
		err = st.after(red.r.reduceScatter(o.c, send, recv, cs, sum(cs), red.op))
	}
	return check(fn, o, comm, err)
}

// PMPI_Reduce_local implements MPI_Reduce_local.
//
//export PMPI_Reduce_local
func PMPI_Reduce_local(in, inout unsafe.Pointer, count, dt, op int32) (rc int32) {
	defer guard("MPI_Reduce_local", &rc)
	return reduceLocal("MPI_Reduce_local", in, inout, int64(count), dt, op)
}

// reduceLocal is MPI_Reduce_local and MPI_Reduce_local_c.
func reduceLocal(fn string, in, inout unsafe.Pointer, count int64, dt, op int32) int32 {
	red, err := reductionArg(dt, op)
	if err == nil {
		err = reduceCall(red, in, inout, int(count), true, func(s, r unsafe.Pointer, n int) error {
			return red.r.reduceLocal(s, r, n, red.op)
		})
	}
	return check(fn, nil, commWorld, err)
}

// PMPI_Iallreduce implements MPI_Iallreduce.
//
//export PMPI_Iallreduce
func PMPI_Iallreduce(send, recv unsafe.Pointer, count, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Iallreduce", &rc)
	return icoll("MPI_Iallreduce", comm, req, allreduceStarter(send, recv, int64(count), dt, op))
}

// allreduceStarter starts MPI_Iallreduce and its _c form.
func allreduceStarter(send, recv unsafe.Pointer, count int64, dt, op int32) collStarter {
	return reductionStarter(send, recv, dt, op, sameItems(count), func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error) {
		return red.r.iallreduce(c, s, r, int(count)*red.per, red.op)
	})
}
