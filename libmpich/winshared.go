package main

// Shared-memory windows (MPI_Win_allocate_shared, MPI_Win_shared_query).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// flavorShared is MPI_WIN_FLAVOR_SHARED.
const flavorShared = 4

// partAddr returns the address of a window part (nil when empty).
func partAddr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// PMPI_Win_allocate_shared implements MPI_Win_allocate_shared.
//
//export PMPI_Win_allocate_shared
func PMPI_Win_allocate_shared(size int64, dispUnit, info, comm int32, baseptr unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Win_allocate_shared", &rc)
	o, rc := commArg("MPI_Win_allocate_shared", comm)
	if rc != errSuccess {
		return rc
	}
	if size < 0 || dispUnit <= 0 {
		return fail("MPI_Win_allocate_shared", o, comm, errorf(errArg, "invalid size %d or displacement unit %d", size, dispUnit))
	}
	// The parts live in the job's shared segment, never in Go's heap.
	w, part, err := mpi.WinAllocateShared[byte](o.c, int(size))
	if err != nil {
		return fail("MPI_Win_allocate_shared", o, comm, err)
	}
	base := partAddr(part)
	rc = addWin("MPI_Win_allocate_shared", o, comm, w, base, size, dispUnit, flavorShared, nil, out)
	if rc == errSuccess {
		setWinHints(*out, info)
		*(*unsafe.Pointer)(baseptr) = base
	}
	return rc
}

// PMPI_Win_shared_query implements MPI_Win_shared_query.
//
//export PMPI_Win_shared_query
func PMPI_Win_shared_query(win, rank int32, size *int64, dispUnit *int32, baseptr unsafe.Pointer) (rc int32) {
	defer guard("MPI_Win_shared_query", &rc)
	o, rc := winArg("MPI_Win_shared_query", win)
	if rc != errSuccess {
		return rc
	}
	part, err := mpi.SharedQuery[byte](o.w, mapRank(rank))
	if err != nil {
		return winCheck("MPI_Win_shared_query", o, err)
	}
	unit := int32(o.dispUnit) // MPI_PROC_NULL: the first part's, usually the same
	if rank >= 0 && int(rank) < len(o.dispUnits) {
		unit = o.dispUnits[rank]
	}
	*size, *dispUnit = int64(len(part)), unit
	*(*unsafe.Pointer)(baseptr) = partAddr(part)
	return errSuccess
}
