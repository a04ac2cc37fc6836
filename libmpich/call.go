package main

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// guard is deferred by every exported function: a panic becomes an
// MPI_ERR_INTERN error of fn (handled as any error), never a crash
// across the C boundary. MPI_Send and MPI_Recv defer a closure that does
// the same (recovered), one call fewer on the message path.
func guard(fn string, rc *int32) {
	if r := recover(); r != nil {
		*rc = recovered(fn, r)
	}
}

// recovered handles r, a panic recovered in fn, as an MPI_ERR_INTERN error
// of fn and returns its code.
func recovered(fn string, r any) int32 {
	return fail(fn, nil, commWorld, errorf(errIntern, "internal error: %v", r))
}

// check returns MPI_SUCCESS for a nil err and otherwise hands err to fail.
func check(fn string, o *commObj, h int32, err error) int32 {
	if err == nil {
		return errSuccess
	}
	return fail(fn, o, h, err)
}

// commArg returns the communicator of handle h, or the error code of an
// invalid one. MPI_COMM_WORLD and MPI_COMM_SELF are found inline, without
// a lock.
func commArg(fn string, h int32) (*commObj, int32) {
	if o := fastComm(h); o != nil {
		return o, errSuccess
	}
	return anyCommArg(fn, h)
}

// anyCommArg is commArg for any handle.
func anyCommArg(fn string, h int32) (*commObj, int32) {
	o, ok := lookupComm(h)
	if !ok {
		if !mpi.Initialized() || mpi.Finalized() {
			return nil, fail(fn, nil, commWorld, errorf(errOther, "MPI is not initialized"))
		}
		return nil, fail(fn, nil, commWorld, errorf(errComm, "invalid communicator %#x", uint32(h)))
	}
	return o, errSuccess
}

// fastComm returns the communicator of MPI_COMM_WORLD or MPI_COMM_SELF
// without a lock, or nil for any other handle (and before MPI_Init or
// after MPI_Finalize): the caller then takes the full path of commArg.
func fastComm(h int32) *commObj {
	switch h {
	case commWorld:
		return world.Load()
	case commSelf:
		return self.Load()
	}
	return nil
}

// plainBytes returns the bytes of count items at p of a predefined
// datatype h whose handle encodes its size (MPI_BYTE, MPI_INT, MPI_DOUBLE
// and the others of fixed size); ok is false for any other datatype and
// for a negative or huge count, which cbufOf then resolves or refuses.
func plainBytes(p unsafe.Pointer, count int64, h int32) (b []byte, ok bool) {
	n := int(h >> 8 & 0xff)
	if uint32(h)>>24 != 0x4c || n == 0 || uint64(count) > maxPlainItems {
		return nil, false
	}
	return byteSlice(p, int(count)*n), true
}

// typeSize returns the size in bytes of an item of datatype h.
func typeSize(h int32) (int, bool) {
	if uint32(h)>>24 == 0x4c {
		if n := int(h >> 8 & 0xff); n > 0 {
			return n, true
		}
	}
	if ti, ok := predefinedTypes[h]; ok {
		return ti.size, true
	}
	return 0, false
}

// writeStatus stores *st at p, unless p is MPI_STATUS_IGNORE. It takes a
// pointer: a Status passed by value is copied by 16-byte moves whose
// loads span the smaller stores that wrote it (docs/decisions.md, "Stores
// and loads of different sizes").
func writeStatus(p unsafe.Pointer, st *mpi.Status) {
	if p == nil || uintptr(p) == statusIgnoreAddr {
		return
	}
	s := (*status)(p)
	s.source = unmapRank(st.Source)
	s.tag = int32(st.Tag)
	s.setCount(int64(st.Bytes), st.Cancelled)
}

// emptyStatus is the status of a null or inactive request.
var emptyStatus = mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}

// cString copies s into the C buffer p of max bytes, NUL-terminated, and
// stores its length at n.
func cString(p unsafe.Pointer, max int, s string, n *int32) {
	if len(s) > max-1 {
		s = s[:max-1]
	}
	if p != nil {
		b := unsafe.Slice((*byte)(p), len(s)+1)
		copy(b, s)
		b[len(s)] = 0
	}
	if n != nil {
		*n = int32(len(s))
	}
}
