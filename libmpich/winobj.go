package main

import (
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// winObj is what a window handle names: a window of package mpi over the
// bytes of the program's memory, with the displacement units the
// processes gave, which this library applies (package mpi's window counts
// in bytes): a displacement counts in the target's unit.
type winObj struct {
	w        *mpi.Win
	base     unsafe.Pointer
	size     int64
	dispUnit int
	// dispUnits are every process's displacement units, by rank in the
	// window's communicator.
	dispUnits []int32
	comm      *commObj
	errh      atomic.Int32 // the window's error handler
	handle    int32
	// owned is memory MPI_Win_allocate took, freed with the window.
	owned unsafe.Pointer
	// attrs is C memory holding MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
	// MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL, whose addresses the
	// program gets.
	attrs unsafe.Pointer
	// pending are the gets into origins that are not contiguous, unpacked
	// by the synchronisations that complete them.
	pending pendingUnpacks
}

// disp is the byte displacement of displacement tdisp at target (a rank
// of the window's communicator, or MPI_PROC_NULL, which moves nothing).
func (o *winObj) disp(target int32, tdisp int64) int {
	if target < 0 || int(target) >= len(o.dispUnits) {
		return int(tdisp)
	}
	return int(tdisp) * int(o.dispUnits[target])
}

// wins are the windows.
var wins = newTable[*winObj](kindWin)

// Lock types of MPI_Win_lock.
const (
	lockExclusive = 234
	lockShared    = 235
)

// Window attributes (MPI_Win_get_attr) and flavors.
const (
	keyWinBase         int32 = 0x66000001
	keyWinSize         int32 = 0x66000003
	keyWinDispUnit     int32 = 0x66000005
	keyWinCreateFlavor int32 = 0x66000007
	keyWinModel        int32 = 0x66000009
	flavorCreate             = 1
	flavorAllocate           = 2
	modelUnified             = 2
)
