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
	// hints are the window's info hints (MPI_Win_get_info): MPI's
	// defaults, as the program set them. None changes what this runtime
	// does: each promises what the program will not do.
	hints *infoObj
}

// winHintDefaults are MPI's window hints and their defaults ("": none,
// reported once set).
var winHintDefaults = [][2]string{
	{"no_locks", "false"}, {"accumulate_ordering", "rar,raw,war,waw"},
	{"accumulate_ops", "same_op_no_op"}, {"same_size", "false"}, {"same_disp_unit", "false"},
	{"alloc_shared_noncontig", ""},
}

// newWinHints returns the hints of a new window: the defaults.
func newWinHints() *infoObj {
	h := newInfo()
	for _, kv := range winHintDefaults {
		if kv[1] != "" {
			h.set(kv[0], kv[1])
		}
	}
	return h
}

// setHints takes the window hints of info (MPI_INFO_NULL: none).
func (o *winObj) setHints(info int32) {
	in, ok := lookupInfo(info)
	if !ok {
		return
	}
	for _, kv := range winHintDefaults {
		if v, ok := in.get(kv[0]); ok {
			o.hints.set(kv[0], v)
		}
	}
}

// setWinHints takes the hints of info into window h, just made.
func setWinHints(h, info int32) {
	if o, ok := wins.get(h); ok {
		o.setHints(info)
	}
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
	flavorDynamic            = 3
	modelUnified             = 2
)

// errRMAAttach is MPI_ERR_RMA_ATTACH: memory that cannot be attached to a
// dynamic window.
const errRMAAttach int32 = 56
