package main

// Queries on datatypes and packing (MPI_Type_size ... MPI_Unpack).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// typeArg returns the datatype of handle h over bytes, or an error code.
func typeArg(fn string, h int32) (*mpi.Datatype, int32) {
	dt, _, err := typeBase(h)
	if err != nil {
		return nil, fail(fn, nil, commWorld, err)
	}
	return dt, errSuccess
}

// PMPI_Type_size implements MPI_Type_size.
//
//export PMPI_Type_size
func PMPI_Type_size(h int32, size *int32) (rc int32) {
	defer guard("MPI_Type_size", &rc)
	dt, rc := typeArg("MPI_Type_size", h)
	if rc == errSuccess {
		*size = int32(dt.Size())
	}
	return rc
}

// PMPI_Type_size_x implements MPI_Type_size_x.
//
//export PMPI_Type_size_x
func PMPI_Type_size_x(h int32, size *int64) (rc int32) {
	defer guard("MPI_Type_size_x", &rc)
	dt, rc := typeArg("MPI_Type_size_x", h)
	if rc == errSuccess {
		*size = int64(dt.Size())
	}
	return rc
}

// PMPI_Type_get_extent implements MPI_Type_get_extent.
//
//export PMPI_Type_get_extent
func PMPI_Type_get_extent(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_extent", &rc)
	b, err := boundsOf(h)
	if err != nil {
		return fail("MPI_Type_get_extent", nil, commWorld, err)
	}
	*lb, *extent = int64(b.lb), int64(b.extent)
	return errSuccess
}

// PMPI_Type_get_extent_x implements MPI_Type_get_extent_x.
//
//export PMPI_Type_get_extent_x
func PMPI_Type_get_extent_x(h int32, lb, extent *int64) int32 {
	return PMPI_Type_get_extent(h, lb, extent)
}

// PMPI_Type_get_true_extent implements MPI_Type_get_true_extent.
//
//export PMPI_Type_get_true_extent
func PMPI_Type_get_true_extent(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_true_extent", &rc)
	dt, rc := typeArg("MPI_Type_get_true_extent", h)
	if rc == errSuccess {
		*lb, *extent = int64(dt.TrueLowerBound()), int64(dt.TrueExtent())
	}
	return rc
}

// PMPI_Type_get_true_extent_x implements MPI_Type_get_true_extent_x.
//
//export PMPI_Type_get_true_extent_x
func PMPI_Type_get_true_extent_x(h int32, lb, extent *int64) int32 {
	return PMPI_Type_get_true_extent(h, lb, extent)
}

// PMPI_Type_extent implements MPI_Type_extent.
//
//export PMPI_Type_extent
func PMPI_Type_extent(h int32, extent *int64) (rc int32) {
	var lb int64
	return PMPI_Type_get_extent(h, &lb, extent)
}

// PMPI_Type_lb implements MPI_Type_lb.
//
//export PMPI_Type_lb
func PMPI_Type_lb(h int32, lb *int64) (rc int32) {
	var extent int64
	return PMPI_Type_get_extent(h, lb, &extent)
}

// PMPI_Type_ub implements MPI_Type_ub.
//
//export PMPI_Type_ub
func PMPI_Type_ub(h int32, ub *int64) (rc int32) {
	var lb, extent int64
	rc = PMPI_Type_get_extent(h, &lb, &extent)
	*ub = lb + extent
	return rc
}

// PMPI_Type_commit implements MPI_Type_commit.
//
//export PMPI_Type_commit
func PMPI_Type_commit(h *int32) (rc int32) {
	defer guard("MPI_Type_commit", &rc)
	_, rc = typeArg("MPI_Type_commit", *h)
	return rc
}

// PMPI_Type_free implements MPI_Type_free.
//
//export PMPI_Type_free
func PMPI_Type_free(h *int32) (rc int32) {
	defer guard("MPI_Type_free", &rc)
	if _, ok := userTypes.get(*h); ok {
		if err := freeObjAttrs(&typeAttrs, *h); err != nil {
			return fail("MPI_Type_free", nil, commWorld, err)
		}
	}
	if _, ok := userTypes.remove(*h); !ok {
		return fail("MPI_Type_free", nil, commWorld, errorf(errType, "invalid or predefined datatype %#x", uint32(*h)))
	}
	*h = datatypeNull
	return errSuccess
}

// PMPI_Pack_size implements MPI_Pack_size.
//
//export PMPI_Pack_size
func PMPI_Pack_size(count, dt, comm int32, size *int32) (rc int32) {
	defer guard("MPI_Pack_size", &rc)
	d, rc := typeArg("MPI_Pack_size", dt)
	if rc == errSuccess {
		*size = count * int32(d.Size())
	}
	return rc
}

// PMPI_Pack implements MPI_Pack.
//
//export PMPI_Pack
func PMPI_Pack(in unsafe.Pointer, count, dt int32, out unsafe.Pointer, outsize int32, pos *int32, comm int32) (rc int32) {
	defer guard("MPI_Pack", &rc)
	b, err := sendBytes(in, count, dt)
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

// PMPI_Unpack implements MPI_Unpack.
//
//export PMPI_Unpack
func PMPI_Unpack(in unsafe.Pointer, insize int32, pos *int32, out unsafe.Pointer, count, dt, comm int32) (rc int32) {
	defer guard("MPI_Unpack", &rc)
	cb, err := bufOf(out, count, dt)
	n := len(cb.b)
	if cb.dt != nil {
		n = cb.count * cb.dt.Size()
	}
	if err == nil && int(*pos)+n > int(insize) {
		err = errorf(errTruncate, "MPI_Unpack: %d bytes at position %d are past the %d packed", n, *pos, insize)
	}
	if err == nil {
		src := byteSlice(in, int(insize))[*pos : int(*pos)+n]
		if cb.dt == nil {
			copy(cb.b, src)
		} else {
			_, err = mpi.Unpack(src, cb.b, cb.count, cb.dt)
		}
	}
	if err != nil {
		return fail("MPI_Unpack", nil, commWorld, err)
	}
	*pos += int32(n)
	return errSuccess
}
