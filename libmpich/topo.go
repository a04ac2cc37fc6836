package main

// Cartesian topologies (MPI_Dims_create ... MPI_Topo_test).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// boolArray returns the n C ints at p as booleans.
func boolArray(p unsafe.Pointer, n int) []bool {
	out := make([]bool, n)
	for i, v := range intArray(p, n) {
		out[i] = v != 0
	}
	return out
}

// storeInts copies xs into the C ints at p.
func storeInts(p unsafe.Pointer, xs []int) {
	dst := intArray(p, len(xs))
	for i, x := range xs {
		dst[i] = int32(x)
	}
}

// PMPI_Dims_create implements MPI_Dims_create.
//
//export PMPI_Dims_create
func PMPI_Dims_create(nnodes, ndims int32, dims unsafe.Pointer) (rc int32) {
	defer guard("MPI_Dims_create", &rc)
	out, err := mpi.DimsCreate(int(nnodes), scaled(dims, int(ndims), 1))
	if err != nil {
		return fail("MPI_Dims_create", nil, commWorld, err)
	}
	storeInts(dims, out)
	return errSuccess
}

// PMPI_Cart_create implements MPI_Cart_create.
//
//export PMPI_Cart_create
func PMPI_Cart_create(comm, ndims int32, dims, periods unsafe.Pointer, reorder int32, out *int32) (rc int32) {
	defer guard("MPI_Cart_create", &rc)
	o, rc := commArg("MPI_Cart_create", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := o.c.CartCreate(scaled(dims, int(ndims), 1), boolArray(periods, int(ndims)), reorder != 0)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Cart_create", o, comm, err)
}

// PMPI_Cartdim_get implements MPI_Cartdim_get.
//
//export PMPI_Cartdim_get
func PMPI_Cartdim_get(comm int32, ndims *int32) (rc int32) {
	defer guard("MPI_Cartdim_get", &rc)
	o, rc := commArg("MPI_Cartdim_get", comm)
	if rc != errSuccess {
		return rc
	}
	n, err := o.c.Cartdim()
	if err == nil {
		*ndims = int32(n)
	}
	return check("MPI_Cartdim_get", o, comm, err)
}

// PMPI_Cart_get implements MPI_Cart_get.
//
//export PMPI_Cart_get
func PMPI_Cart_get(comm, maxdims int32, dims, periods, coords unsafe.Pointer) (rc int32) {
	defer guard("MPI_Cart_get", &rc)
	o, rc := commArg("MPI_Cart_get", comm)
	if rc != errSuccess {
		return rc
	}
	d, p, c, err := o.c.CartGet()
	if err == nil && len(d) > int(maxdims) {
		err = errorf(errArg, "MPI_Cart_get: %d dimensions, maxdims %d", len(d), maxdims)
	}
	if err == nil {
		storeInts(dims, d)
		storeInts(coords, c)
		ps := make([]int, len(p))
		for i, b := range p {
			ps[i] = int(boolInt(b))
		}
		storeInts(periods, ps)
	}
	return check("MPI_Cart_get", o, comm, err)
}

// PMPI_Cart_rank implements MPI_Cart_rank.
//
//export PMPI_Cart_rank
func PMPI_Cart_rank(comm int32, coords unsafe.Pointer, rank *int32) (rc int32) {
	defer guard("MPI_Cart_rank", &rc)
	o, rc := commArg("MPI_Cart_rank", comm)
	if rc != errSuccess {
		return rc
	}
	n, err := o.c.Cartdim()
	if err == nil {
		var r int
		r, err = o.c.CartRank(scaled(coords, n, 1))
		*rank = int32(r)
	}
	return check("MPI_Cart_rank", o, comm, err)
}

// PMPI_Cart_coords implements MPI_Cart_coords.
//
//export PMPI_Cart_coords
func PMPI_Cart_coords(comm, rank, maxdims int32, coords unsafe.Pointer) (rc int32) {
	defer guard("MPI_Cart_coords", &rc)
	o, rc := commArg("MPI_Cart_coords", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := o.c.CartCoords(int(rank))
	if err == nil && len(c) > int(maxdims) {
		err = errorf(errArg, "MPI_Cart_coords: %d dimensions, maxdims %d", len(c), maxdims)
	}
	if err == nil {
		storeInts(coords, c)
	}
	return check("MPI_Cart_coords", o, comm, err)
}

// PMPI_Cart_shift implements MPI_Cart_shift.
//
//export PMPI_Cart_shift
func PMPI_Cart_shift(comm, dir, disp int32, source, dest *int32) (rc int32) {
	defer guard("MPI_Cart_shift", &rc)
	o, rc := commArg("MPI_Cart_shift", comm)
	if rc != errSuccess {
		return rc
	}
	s, d, err := o.c.CartShift(int(dir), int(disp))
	if err == nil {
		*source, *dest = unmapRank(s), unmapRank(d)
	}
	return check("MPI_Cart_shift", o, comm, err)
}

// PMPI_Cart_sub implements MPI_Cart_sub.
//
//export PMPI_Cart_sub
func PMPI_Cart_sub(comm int32, remain unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Cart_sub", &rc)
	o, rc := commArg("MPI_Cart_sub", comm)
	if rc != errSuccess {
		return rc
	}
	n, err := o.c.Cartdim()
	if err == nil {
		var c *mpi.Comm
		if c, err = o.c.CartSub(boolArray(remain, n)); err == nil {
			err = newComm(o, c, out)
		}
	}
	return check("MPI_Cart_sub", o, comm, err)
}

// PMPI_Topo_test implements MPI_Topo_test.
//
//export PMPI_Topo_test
func PMPI_Topo_test(comm int32, kind *int32) (rc int32) {
	defer guard("MPI_Topo_test", &rc)
	o, rc := commArg("MPI_Topo_test", comm)
	if rc != errSuccess {
		return rc
	}
	t, err := o.c.TopoTest()
	if err == nil {
		switch t {
		case mpi.TopoCart:
			*kind = mpiTopoCart
		case mpi.TopoGraph:
			*kind = mpiTopoGraph
		case mpi.TopoDistGraph:
			*kind = mpiTopoDistGraph
		default:
			*kind = cUndefined
		}
	}
	return check("MPI_Topo_test", o, comm, err)
}
