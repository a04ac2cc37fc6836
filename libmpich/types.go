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
	var n int64
	if rc = typeSizeCall("MPI_Type_size", h, &n); rc == errSuccess {
		*size = countInt(n) // MPI_UNDEFINED past 2^31-1 bytes
	}
	return rc
}

// typeSizeCall stores the size of datatype h at size: MPI_Type_size and
// its _x and _c forms.
func typeSizeCall(fn string, h int32, size *int64) int32 {
	dt, rc := typeArg(fn, h)
	if rc == errSuccess {
		*size = int64(dt.Size())
	}
	return rc
}

// PMPI_Type_size_x implements MPI_Type_size_x.
//
//export PMPI_Type_size_x
func PMPI_Type_size_x(h int32, size *int64) (rc int32) {
	defer guard("MPI_Type_size_x", &rc)
	return typeSizeCall("MPI_Type_size_x", h, size)
}

// PMPI_Type_get_extent implements MPI_Type_get_extent.
//
//export PMPI_Type_get_extent
func PMPI_Type_get_extent(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_extent", &rc)
	return typeExtent("MPI_Type_get_extent", h, lb, extent)
}

// typeExtent stores MPI's lower bound and extent of datatype h:
// MPI_Type_get_extent and its _x and _c forms.
func typeExtent(fn string, h int32, lb, extent *int64) int32 {
	b, err := boundsOf(h)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*lb, *extent = int64(b.lb), int64(b.extent)
	return errSuccess
}

// PMPI_Type_get_extent_x implements MPI_Type_get_extent_x.
//
//export PMPI_Type_get_extent_x
func PMPI_Type_get_extent_x(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_extent_x", &rc)
	return typeExtent("MPI_Type_get_extent_x", h, lb, extent)
}

// PMPI_Type_get_true_extent implements MPI_Type_get_true_extent.
//
//export PMPI_Type_get_true_extent
func PMPI_Type_get_true_extent(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_true_extent", &rc)
	return typeTrueExtent("MPI_Type_get_true_extent", h, lb, extent)
}

// typeTrueExtent stores the true lower bound and extent of datatype h:
// MPI_Type_get_true_extent and its _x and _c forms.
func typeTrueExtent(fn string, h int32, lb, extent *int64) int32 {
	dt, rc := typeArg(fn, h)
	if rc == errSuccess {
		*lb, *extent = int64(dt.TrueLowerBound()), int64(dt.TrueExtent())
	}
	return rc
}

// PMPI_Type_get_true_extent_x implements MPI_Type_get_true_extent_x.
//
//export PMPI_Type_get_true_extent_x
func PMPI_Type_get_true_extent_x(h int32, lb, extent *int64) (rc int32) {
	defer guard("MPI_Type_get_true_extent_x", &rc)
	return typeTrueExtent("MPI_Type_get_true_extent_x", h, lb, extent)
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
	var n int64
	if rc = packSize("MPI_Pack_size", int64(count), dt, &n); rc == errSuccess {
		*size = countInt(n) // MPI_UNDEFINED past 2^31-1 bytes
	}
	return rc
}

// packSize stores at size the bytes that MPI_Pack takes for count items
// of datatype dt: MPI_Pack_size and MPI_Pack_size_c.
func packSize(fn string, count int64, dt int32, size *int64) int32 {
	d, rc := typeArg(fn, dt)
	if rc != errSuccess {
		return rc
	}
	if err := checkCount(count, d.Size()); err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*size = count * int64(d.Size())
	return errSuccess
}

// PMPI_Pack implements MPI_Pack.
//
//export PMPI_Pack
func PMPI_Pack(in unsafe.Pointer, count, dt int32, out unsafe.Pointer, outsize int32, pos *int32, comm int32) (rc int32) {
	defer guard("MPI_Pack", &rc)
	p := int64(*pos)
	if rc = packCall("MPI_Pack", in, int64(count), dt, out, int64(outsize), &p); rc == errSuccess {
		*pos = int32(p)
	}
	return rc
}

// packCall packs count items of datatype dt at in into the outsize bytes at
// out from position *pos on, and moves *pos past them: MPI_Pack and
// MPI_Pack_c.
func packCall(fn string, in unsafe.Pointer, count int64, dt int32, out unsafe.Pointer, outsize int64, pos *int64) int32 {
	b, err := sendBytes(in, count, dt)
	if err == nil && (*pos < 0 || *pos+int64(len(b)) > outsize) {
		err = errorf(errTruncate, "%d bytes at position %d do not fit %d", len(b), *pos, outsize)
	}
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	copy(byteSlice(out, int(outsize))[*pos:], b)
	*pos += int64(len(b))
	return errSuccess
}

// PMPI_Unpack implements MPI_Unpack.
//
//export PMPI_Unpack
func PMPI_Unpack(in unsafe.Pointer, insize int32, pos *int32, out unsafe.Pointer, count, dt, comm int32) (rc int32) {
	defer guard("MPI_Unpack", &rc)
	p := int64(*pos)
	if rc = unpackCall("MPI_Unpack", in, int64(insize), &p, out, int64(count), dt); rc == errSuccess {
		*pos = int32(p)
	}
	return rc
}

// unpackCall unpacks count items of datatype dt into out from the insize
// bytes at in, from position *pos on, and moves *pos past them:
// MPI_Unpack and MPI_Unpack_c.
func unpackCall(fn string, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, count int64, dt int32) int32 {
	cb, err := cbufOf(out, count, dt)
	n := len(cb.bytes())
	if cb.dt != nil {
		n = cb.count * cb.dt.Size()
	}
	if err == nil && (*pos < 0 || *pos+int64(n) > insize) {
		err = errorf(errTruncate, "%d bytes at position %d are past the %d packed", n, *pos, insize)
	}
	if err == nil {
		src := byteSlice(in, int(insize))[*pos : int(*pos)+n]
		if cb.dt == nil {
			copy(cb.bytes(), src)
		} else {
			_, err = mpi.Unpack(src, cb.bytes(), cb.count, cb.dt)
		}
	}
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*pos += int64(n)
	return errSuccess
}
