package main

// MPI-4.0's large-count datatype calls (MPI_Type_contiguous_c ...
// MPI_Unpack_external_c) and MPI_Op_create_c: MPI_Count counts, sizes,
// strides and displacements, the bodies of the others. A datatype of a
// _c constructor records its arguments as large counts (envelope.go).

import "C"

import "unsafe"

// PMPI_Type_contiguous_c implements MPI_Type_contiguous_c.
//
//export PMPI_Type_contiguous_c
func PMPI_Type_contiguous_c(count int64, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_contiguous_c", &rc)
	return typeContiguous("MPI_Type_contiguous_c", true, count, old, out)
}

// PMPI_Type_vector_c implements MPI_Type_vector_c.
//
//export PMPI_Type_vector_c
func PMPI_Type_vector_c(count, blocklen, stride int64, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_vector_c", &rc)
	return typeVector("MPI_Type_vector_c", true, count, blocklen, stride, old, out)
}

// PMPI_Type_create_hvector_c implements MPI_Type_create_hvector_c.
//
//export PMPI_Type_create_hvector_c
func PMPI_Type_create_hvector_c(count, blocklen, stride int64, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hvector_c", &rc)
	return typeHvector("MPI_Type_create_hvector_c", true, count, blocklen, stride, old, out)
}

// PMPI_Type_indexed_c implements MPI_Type_indexed_c.
//
//export PMPI_Type_indexed_c
func PMPI_Type_indexed_c(count int64, blocklens, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_indexed_c", &rc)
	return typeIndexed("MPI_Type_indexed_c", true, count, cWide(blocklens), cWide(displs), old, out)
}

// PMPI_Type_create_indexed_block_c implements MPI_Type_create_indexed_block_c.
//
//export PMPI_Type_create_indexed_block_c
func PMPI_Type_create_indexed_block_c(count, blocklen int64, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_indexed_block_c", &rc)
	return typeIndexedBlock("MPI_Type_create_indexed_block_c", true, count, blocklen, cWide(displs), old, out)
}

// PMPI_Type_create_hindexed_c implements MPI_Type_create_hindexed_c.
//
//export PMPI_Type_create_hindexed_c
func PMPI_Type_create_hindexed_c(count int64, blocklens, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hindexed_c", &rc)
	return typeHindexed("MPI_Type_create_hindexed_c", true, count, cWide(blocklens), cWide(displs), old, out)
}

// PMPI_Type_create_hindexed_block_c implements MPI_Type_create_hindexed_block_c.
//
//export PMPI_Type_create_hindexed_block_c
func PMPI_Type_create_hindexed_block_c(count, blocklen int64, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hindexed_block_c", &rc)
	return typeHindexedBlock("MPI_Type_create_hindexed_block_c", true, count, blocklen, cWide(displs), old, out)
}

// PMPI_Type_create_struct_c implements MPI_Type_create_struct_c.
//
//export PMPI_Type_create_struct_c
func PMPI_Type_create_struct_c(count int64, blocklens, displs, types unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Type_create_struct_c", &rc)
	return typeStruct("MPI_Type_create_struct_c", true, count, cWide(blocklens), cWide(displs), types, out)
}

// PMPI_Type_create_subarray_c implements MPI_Type_create_subarray_c.
//
//export PMPI_Type_create_subarray_c
func PMPI_Type_create_subarray_c(ndims int32, sizes, subsizes, starts unsafe.Pointer, order, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_subarray_c", &rc)
	return typeSubarray("MPI_Type_create_subarray_c", true, ndims, cWide(sizes), cWide(subsizes), cWide(starts), order, old, out)
}

// PMPI_Type_create_darray_c implements MPI_Type_create_darray_c.
//
//export PMPI_Type_create_darray_c
func PMPI_Type_create_darray_c(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_darray_c", &rc)
	return typeDarray("MPI_Type_create_darray_c", true, size, rank, ndims, cWide(gsizes), distribs, dargs, psizes, order, old, out)
}

// PMPI_Type_create_resized_c implements MPI_Type_create_resized_c.
//
//export PMPI_Type_create_resized_c
func PMPI_Type_create_resized_c(old int32, lb, extent int64, out *int32) (rc int32) {
	defer guard("MPI_Type_create_resized_c", &rc)
	return typeResized("MPI_Type_create_resized_c", true, old, lb, extent, out)
}

// PMPI_Type_size_c implements MPI_Type_size_c.
//
//export PMPI_Type_size_c
func PMPI_Type_size_c(h int32, size *int64) (rc int32) {
	defer guard("MPI_Type_size_c", &rc)
	return typeSizeCall("MPI_Type_size_c", h, size)
}

// PMPI_Type_get_extent_c implements MPI_Type_get_extent_c.
//
//export PMPI_Type_get_extent_c
func PMPI_Type_get_extent_c(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_extent_c", &rc)
	return typeExtent("MPI_Type_get_extent_c", h, lb, extent)
}

// PMPI_Type_get_true_extent_c implements MPI_Type_get_true_extent_c.
//
//export PMPI_Type_get_true_extent_c
func PMPI_Type_get_true_extent_c(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_true_extent_c", &rc)
	return typeTrueExtent("MPI_Type_get_true_extent_c", h, lb, extent)
}

// PMPI_Type_get_envelope_c implements MPI_Type_get_envelope_c.
//
//export PMPI_Type_get_envelope_c
func PMPI_Type_get_envelope_c(dt int32, nints, naddrs, ncounts, ntypes *int64, combiner *int32) (rc int32) {
	defer guard("MPI_Type_get_envelope_c", &rc)
	return typeEnvelope("MPI_Type_get_envelope_c", dt, nints, naddrs, ncounts, ntypes, combiner)
}

// PMPI_Type_get_contents_c implements MPI_Type_get_contents_c.
//
//export PMPI_Type_get_contents_c
func PMPI_Type_get_contents_c(dt int32, maxInts, maxAddrs, maxCounts, maxTypes int64, ints, addrs, counts, types unsafe.Pointer) (rc int32) {
	defer guard("MPI_Type_get_contents_c", &rc)
	return typeContents("MPI_Type_get_contents_c", dt, contentsRoom{maxInts, maxAddrs, max(maxCounts, 0), maxTypes}, ints, addrs, counts, types)
}

// PMPI_Pack_size_c implements MPI_Pack_size_c.
//
//export PMPI_Pack_size_c
func PMPI_Pack_size_c(count int64, dt, comm int32, size *int64) (rc int32) {
	defer guard("MPI_Pack_size_c", &rc)
	return packSize("MPI_Pack_size_c", count, dt, size)
}

// PMPI_Pack_c implements MPI_Pack_c.
//
//export PMPI_Pack_c
func PMPI_Pack_c(in unsafe.Pointer, count int64, dt int32, out unsafe.Pointer, outsize int64, pos *int64, comm int32) (rc int32) {
	defer guard("MPI_Pack_c", &rc)
	return packCall("MPI_Pack_c", in, count, dt, out, outsize, pos)
}

// PMPI_Unpack_c implements MPI_Unpack_c.
//
//export PMPI_Unpack_c
func PMPI_Unpack_c(in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, count int64, dt, comm int32) (rc int32) {
	defer guard("MPI_Unpack_c", &rc)
	return unpackCall("MPI_Unpack_c", in, insize, pos, out, count, dt)
}

// PMPI_Pack_external_size_c implements MPI_Pack_external_size_c.
//
//export PMPI_Pack_external_size_c
func PMPI_Pack_external_size_c(datarep *C.char, count int64, dt int32, size *int64) (rc int32) {
	defer guard("MPI_Pack_external_size_c", &rc)
	return packExternalSize("MPI_Pack_external_size_c", datarep, count, dt, size)
}

// PMPI_Pack_external_c implements MPI_Pack_external_c.
//
//export PMPI_Pack_external_c
func PMPI_Pack_external_c(datarep *C.char, in unsafe.Pointer, count int64, dt int32, out unsafe.Pointer, outsize int64, pos *int64) (rc int32) {
	defer guard("MPI_Pack_external_c", &rc)
	return packExternal("MPI_Pack_external_c", datarep, in, count, dt, out, outsize, pos)
}

// PMPI_Unpack_external_c implements MPI_Unpack_external_c.
//
//export PMPI_Unpack_external_c
func PMPI_Unpack_external_c(datarep *C.char, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, count int64, dt int32) (rc int32) {
	defer guard("MPI_Unpack_external_c", &rc)
	return unpackExternal("MPI_Unpack_external_c", datarep, in, insize, pos, out, count, dt)
}

// PMPI_Op_create_c implements MPI_Op_create_c: fn is an
// MPI_User_function_c, called with an MPI_Count of items.
//
//export PMPI_Op_create_c
func PMPI_Op_create_c(fn uintptr, commute int32, op *int32) (rc int32) {
	defer guard("MPI_Op_create_c", &rc)
	return opCreate("MPI_Op_create_c", fn, true, commute, op)
}
