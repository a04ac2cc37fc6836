package main

// MPI_Type_create_darray: the part of a distributed array that one
// process of a grid holds, over package mpi's Darray, and the layout of
// array parts over items of any datatype.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// The distributions and the default distribution argument of mpi.h.
const (
	distributeBlock    = 121
	distributeCyclic   = 122
	distributeNone     = 123
	distributeDfltDarg = -49767
)

// combinerDarray is MPI_COMBINER_DARRAY.
const combinerDarray = 14

// arrayOrder returns the storage order of MPI_ORDER_C or
// MPI_ORDER_FORTRAN.
func arrayOrder(order int32) (mpi.Order, error) {
	switch order {
	case orderC:
		return mpi.OrderC, nil
	case orderFortran:
		return mpi.OrderFortran, nil
	}
	return 0, errorf(errArg, "invalid array order %d (MPI_ORDER_C is %d, MPI_ORDER_FORTRAN %d)", order, orderC, orderFortran)
}

// darrayArgs are MPI_Type_create_darray's arguments, read.
type darrayArgs struct {
	size, rank            int
	gsizes, dargs, psizes []int
	distribs              []mpi.Distribution
	order                 mpi.Order
}

// readDarray reads and checks the arrays of MPI_Type_create_darray.
func readDarray(size, rank, ndims int32, gsizes cArray, distribs, dargs, psizes unsafe.Pointer, order int32) (darrayArgs, error) {
	n := int(ndims)
	a := darrayArgs{size: int(size), rank: int(rank)}
	if n <= 0 {
		return a, errorf(errArg, "MPI_Type_create_darray: %d dimensions", ndims)
	}
	var err error
	if a.order, err = arrayOrder(order); err != nil {
		return a, err
	}
	a.gsizes, a.psizes = gsizes.scaled(n, 1), scaled(psizes, n, 1)
	a.dargs = make([]int, n)
	a.distribs = make([]mpi.Distribution, n)
	ds, gs := intArray(distribs, n), intArray(dargs, n)
	for i := range n {
		a.dargs[i] = int(gs[i])
		switch ds[i] {
		case distributeBlock:
			a.distribs[i] = mpi.DistributeBlock
		case distributeCyclic:
			a.distribs[i] = mpi.DistributeCyclic
		case distributeNone:
			a.distribs[i], a.dargs[i] = mpi.DistributeNone, mpi.DistributeDefault // no argument
			continue
		default:
			return a, errorf(errArg, "MPI_Type_create_darray: dimension %d: invalid distribution %d", i, ds[i])
		}
		if gs[i] == distributeDfltDarg {
			a.dargs[i] = mpi.DistributeDefault
		} else if gs[i] <= 0 {
			return a, errorf(errArg, "MPI_Type_create_darray: dimension %d: invalid distribution argument %d", i, gs[i])
		}
	}
	return a, nil
}

// build returns the darray over items of old: the distribution over
// bytes when old is contiguous (one more dimension, of old's bytes, not
// distributed, the fastest), else over items laid out as old's.
func (a darrayArgs) build(old *mpi.Datatype) (*mpi.Datatype, error) {
	ext := old.Extent()
	if !old.IsContiguous() || old.LowerBound() != 0 {
		items, err := mpi.Darray(a.size, a.rank, a.gsizes, a.distribs, a.dargs, a.psizes, a.order)
		if err != nil {
			return nil, err
		}
		return fromItems(items, old)
	}
	g, d, p, k := a.gsizes, a.distribs, a.dargs, a.psizes
	if a.order == mpi.OrderC {
		g, d, p, k = append(g, ext), append(d, mpi.DistributeNone), append(p, mpi.DistributeDefault), append(k, 1)
	} else {
		g = append([]int{ext}, g...)
		d = append([]mpi.Distribution{mpi.DistributeNone}, d...)
		p, k = append([]int{mpi.DistributeDefault}, p...), append([]int{1}, k...)
	}
	return mpi.Darray(a.size, a.rank, g, d, p, k, a.order)
}

// fromItems returns the datatype that lays out items of old where items,
// a datatype over elements that each stand for an item, has them: its
// runs of items as blocks of old, its extent in items of old.
func fromItems(items, old *mpi.Datatype) (*mpi.Datatype, error) {
	ext := old.Extent()
	var lens, displs []int
	for off, n := range items.Runs(1) {
		lens, displs = append(lens, n), append(displs, off*ext)
	}
	dt, err := hindexed(lens, displs, old)
	if err == nil {
		dt, err = dt.Resized(items.LowerBound()*ext, items.Extent()*ext)
	}
	return dt, err
}

// PMPI_Type_create_darray implements MPI_Type_create_darray.
//
//export PMPI_Type_create_darray
func PMPI_Type_create_darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_darray", &rc)
	return typeDarray("MPI_Type_create_darray", false, size, rank, ndims, cInts(gsizes), distribs, dargs, psizes, order, old, out)
}

// typeDarray is MPI_Type_create_darray, and its _c form (whose global
// sizes are MPI_Counts) if large.
func typeDarray(fn string, large bool, size, rank, ndims int32, gsizes cArray, distribs, dargs, psizes unsafe.Pointer, order, old int32, out *int32) int32 {
	n := int(ndims)
	a, err := readDarray(size, rank, ndims, gsizes, distribs, dargs, psizes, order)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	env := newEnvelope(combinerDarray, large)
	env.ints = append(env.ints, size, rank, ndims)
	env.countArray(gsizes, n)
	env.ints = append(append(append(env.ints, intArray(distribs, n)...), intArray(dargs, n)...), intArray(psizes, n)...)
	env.ints = append(env.ints, order)
	return construct(fn, old, out, env, a.build, nil)
}
