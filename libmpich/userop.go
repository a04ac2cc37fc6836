package main

// Reduction operations that the program defines (MPI_Op_create,
// MPI_Op_free): package mpi runs them as operations on elements of the
// item's size, or on items of any size (mpi.NewItemOp), each call handing
// the C function the items and the datatype.

import "C"

// PMPI_Op_create implements MPI_Op_create.
//
//export PMPI_Op_create
func PMPI_Op_create(fn uintptr, commute int32, op *int32) (rc int32) {
	defer guard("MPI_Op_create", &rc)
	return opCreate("MPI_Op_create", fn, false, commute, op)
}

// opCreate is MPI_Op_create, and MPI_Op_create_c (whose function takes
// an MPI_Count of items) if large.
func opCreate(name string, fn uintptr, large bool, commute int32, op *int32) int32 {
	h, ok := userOps.add(&opObj{fn: fn, large: large, commute: commute != 0, byType: map[int32]typedOp{}})
	if !ok {
		return fail(name, nil, commWorld, errorf(errNoMem, "too many operations"))
	}
	*op = h
	return errSuccess
}

// PMPI_Op_free implements MPI_Op_free.
//
//export PMPI_Op_free
func PMPI_Op_free(op *int32) (rc int32) {
	defer guard("MPI_Op_free", &rc)
	if _, ok := userOps.remove(*op); !ok {
		return fail("MPI_Op_free", nil, commWorld, errorf(errOp, "invalid or predefined operation %#x", uint32(*op)))
	}
	*op = opNull
	return errSuccess
}

// PMPI_Op_commutative implements MPI_Op_commutative.
//
//export PMPI_Op_commutative
func PMPI_Op_commutative(op int32, commute *int32) (rc int32) {
	defer guard("MPI_Op_commutative", &rc)
	if _, ok := predefinedOps[op]; ok {
		*commute = 1
		return errSuccess
	}
	o, ok := userOps.get(op)
	if !ok {
		return fail("MPI_Op_commutative", nil, commWorld, errorf(errOp, "invalid operation %#x", uint32(op)))
	}
	*commute = boolInt(o.commute)
	return errSuccess
}
