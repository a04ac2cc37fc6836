package main

// Queries on the predefined datatypes and packing (MPI_Type_size ...
// MPI_Unpack). Derived datatypes are not provided: their constructors are
// stubs.

import "C"

import (
	"unsafe"
)

// typeArg returns the size of predefined datatype dt or an error code.
func typeArg(fn string, dt int32) (int, int32) {
	size, ok := typeSize(dt)
	if !ok {
		return 0, fail(fn, nil, commWorld, errorf(errType, "invalid datatype %#x (derived datatypes are not supported)", uint32(dt)))
	}
	return size, errSuccess
}

//export PMPI_Type_size
func PMPI_Type_size(dt int32, size *int32) (rc int32) {
	defer guard("MPI_Type_size", &rc)
	n, rc := typeArg("MPI_Type_size", dt)
	if rc == errSuccess {
		*size = int32(n)
	}
	return rc
}

//export PMPI_Type_size_x
func PMPI_Type_size_x(dt int32, size *int64) (rc int32) {
	defer guard("MPI_Type_size_x", &rc)
	n, rc := typeArg("MPI_Type_size_x", dt)
	if rc == errSuccess {
		*size = int64(n)
	}
	return rc
}

//export PMPI_Type_get_extent
func PMPI_Type_get_extent(dt int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_extent", &rc)
	n, rc := typeArg("MPI_Type_get_extent", dt)
	if rc == errSuccess {
		*lb, *extent = 0, int64(n)
	}
	return rc
}

//export PMPI_Type_get_extent_x
func PMPI_Type_get_extent_x(dt int32, lb, extent *int64) int32 {
	return PMPI_Type_get_extent(dt, lb, extent)
}

//export PMPI_Type_get_true_extent
func PMPI_Type_get_true_extent(dt int32, lb, extent *int64) int32 {
	return PMPI_Type_get_extent(dt, lb, extent)
}

//export PMPI_Type_get_true_extent_x
func PMPI_Type_get_true_extent_x(dt int32, lb, extent *int64) int32 {
	return PMPI_Type_get_extent(dt, lb, extent)
}

//export PMPI_Type_extent
func PMPI_Type_extent(dt int32, extent *int64) (rc int32) {
	var lb int64
	return PMPI_Type_get_extent(dt, &lb, extent)
}

//export PMPI_Type_commit
func PMPI_Type_commit(dt *int32) (rc int32) {
	defer guard("MPI_Type_commit", &rc)
	_, rc = typeArg("MPI_Type_commit", *dt)
	return rc
}

//export PMPI_Pack_size
func PMPI_Pack_size(count, dt, comm int32, size *int32) (rc int32) {
	defer guard("MPI_Pack_size", &rc)
	n, rc := typeArg("MPI_Pack_size", dt)
	if rc == errSuccess {
		*size = count * int32(n)
	}
	return rc
}

//export PMPI_Pack
func PMPI_Pack(in unsafe.Pointer, count, dt int32, out unsafe.Pointer, outsize int32, pos *int32, comm int32) (rc int32) {
	defer guard("MPI_Pack", &rc)
	b, err := bufArg(in, count, dt)
	if err == nil && int(*pos)+len(b) > int(outsize) {
		err = errorf(errTruncate, "MPI_Pack: %d bytes at position %d do not fit %d", len(b), *pos, outsize)
	}
	if err != nil {
		return fail("MPI_Pack", nil, commWorld, err)
	}
	copy(byteSlice(out, int(outsize))[*pos:], b)
	*pos += int32(len(b))
	return errSuccess
}

//export PMPI_Unpack
func PMPI_Unpack(in unsafe.Pointer, insize int32, pos *int32, out unsafe.Pointer, count, dt, comm int32) (rc int32) {
	defer guard("MPI_Unpack", &rc)
	b, err := bufArg(out, count, dt)
	if err == nil && int(*pos)+len(b) > int(insize) {
		err = errorf(errTruncate, "MPI_Unpack: %d bytes at position %d are past the %d packed", len(b), *pos, insize)
	}
	if err != nil {
		return fail("MPI_Unpack", nil, commWorld, err)
	}
	copy(b, byteSlice(in, int(insize))[*pos:])
	*pos += int32(len(b))
	return errSuccess
}
