package main

// One-sided communication (MPI_Win_create ... MPI_Win_unlock_all): windows
// of bytes, puts and gets of contiguous datatypes, fences, locks and
// flushes, and the active-target epochs; dynamic windows
// (MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach).

/*
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// newWin makes a window of size bytes at base over communicator comm and
// stores its handle at out.
func newWin(fn string, base unsafe.Pointer, size int64, dispUnit, comm int32, flavor int64, owned unsafe.Pointer, out *int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	if size < 0 || dispUnit <= 0 {
		return fail(fn, o, comm, errorf(errArg, "invalid size %d or displacement unit %d", size, dispUnit))
	}
	w, err := mpi.WinCreate(o.c, byteSlice(base, int(size)))
	if err != nil {
		return fail(fn, o, comm, err)
	}
	return addWin(fn, o, comm, w, base, size, dispUnit, flavor, owned, out)
}

// addWin gives window w a handle and stores it at out.
func addWin(fn string, o *commObj, comm int32, w *mpi.Win, base unsafe.Pointer, size int64, dispUnit int32, flavor int64, owned unsafe.Pointer, out *int32) int32 {
	units := make([]int32, o.c.Size())
	if err := mpi.Allgather(o.c, []int32{dispUnit}, units); err != nil {
		// The communicator failed: a collective Free would fail too.
		return fail(fn, o, comm, err)
	}
	attrs := C.calloc(4, 8)
	vals := unsafe.Slice((*int64)(attrs), 4)
	vals[0], vals[1], vals[2], vals[3] = size, int64(dispUnit), flavor, modelUnified
	wo := &winObj{w: w, base: base, size: size, dispUnit: int(dispUnit), dispUnits: units, comm: o, owned: owned, attrs: attrs, hints: newWinHints()}
	wo.errh.Store(errorsAreFatal)
	h, ok := wins.add(wo)
	if !ok {
		return fail(fn, o, comm, errorf(errNoMem, "too many windows"))
	}
	wo.handle = h
	*out = h
	return errSuccess
}

// PMPI_Win_create implements MPI_Win_create.
//
//export PMPI_Win_create
func PMPI_Win_create(base unsafe.Pointer, size int64, dispUnit, info, comm int32, out *int32) (rc int32) {
	defer guard("MPI_Win_create", &rc)
	if rc = newWin("MPI_Win_create", base, size, dispUnit, comm, flavorCreate, nil, out); rc == errSuccess {
		setWinHints(*out, info)
	}
	return rc
}

// PMPI_Win_allocate implements MPI_Win_allocate.
//
//export PMPI_Win_allocate
func PMPI_Win_allocate(size int64, dispUnit, info, comm int32, baseptr unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Win_allocate", &rc)
	mem := C.calloc(C.size_t(max(size, 1)), 1)
	if mem == nil {
		return fail("MPI_Win_allocate", nil, commWorld, errorf(errNoMem, "cannot allocate %d bytes", size))
	}
	rc = newWin("MPI_Win_allocate", mem, size, dispUnit, comm, flavorAllocate, mem, out)
	if rc == errSuccess {
		setWinHints(*out, info)
	}
	if rc != errSuccess {
		C.free(mem)
		return rc
	}
	*(*unsafe.Pointer)(baseptr) = mem
	return errSuccess
}

// winArg returns the window of handle h, or the error code of an invalid
// one.
func winArg(fn string, h int32) (*winObj, int32) {
	o, ok := wins.get(h)
	if !ok {
		return nil, fail(fn, nil, commWorld, errorf(errWin, "invalid window %#x", uint32(h)))
	}
	return o, errSuccess
}

// onWin runs f on the window of handle h and handles its error with the
// window's error handler: the body of the calls that only act on a window.
func onWin(fn string, h int32, f func(o *winObj) error) int32 {
	o, rc := winArg(fn, h)
	if rc != errSuccess {
		return rc
	}
	return winCheck(fn, o, f(o))
}

// winCheck handles the error of a call on window o with the window's
// error handler.
func winCheck(fn string, o *winObj, err error) int32 {
	if err == nil {
		return errSuccess
	}
	return raise(fn, o.errh.Load(), o.handle, err)
}

// PMPI_Win_free implements MPI_Win_free.
//
//export PMPI_Win_free
func PMPI_Win_free(win *int32) (rc int32) {
	defer guard("MPI_Win_free", &rc)
	o, rc := winArg("MPI_Win_free", *win)
	if rc != errSuccess {
		return rc
	}
	if err := freeObjAttrs(&winAttrs, *win); err != nil {
		return winCheck("MPI_Win_free", o, err)
	}
	if err := o.w.Free(); err != nil {
		return winCheck("MPI_Win_free", o, err)
	}
	wins.remove(*win)
	C.free(o.attrs)
	if o.owned != nil {
		C.free(o.owned)
	}
	*win = winNull
	return errSuccess
}

// PMPI_Put implements MPI_Put.
//
//export PMPI_Put
func PMPI_Put(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, win int32) (rc int32) {
	defer guard("MPI_Put", &rc)
	o, rc := winArg("MPI_Put", win)
	if rc != errSuccess {
		return rc
	}
	p, err := planRMA(o, origin, ocount, otype, false, target, tdisp, tcount, ttype)
	if err == nil {
		err = p.each(func(b []byte, at int) error { return mpi.Put(o.w, b, mapRank(target), at) })
	}
	return winCheck("MPI_Put", o, err)
}

// PMPI_Get implements MPI_Get.
//
//export PMPI_Get
func PMPI_Get(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, win int32) (rc int32) {
	defer guard("MPI_Get", &rc)
	o, rc := winArg("MPI_Get", win)
	if rc != errSuccess {
		return rc
	}
	p, err := planRMA(o, origin, ocount, otype, true, target, tdisp, tcount, ttype)
	if err == nil {
		err = p.each(func(b []byte, at int) error { return mpi.Get(o.w, b, mapRank(target), at) })
	}
	if err == nil && p.unpack != nil {
		o.pending.add(target, p.unpack)
	}
	return winCheck("MPI_Get", o, err)
}

// syncWin runs f, a synchronisation of window h that completes the
// operations to target (all targets if negative), then unpacks the gets
// it completed.
func syncWin(fn string, h, target int32, f func(o *winObj) error) int32 {
	return onWin(fn, h, func(o *winObj) error {
		err := f(o)
		if err == nil {
			o.pending.done(target)
		}
		return err
	})
}

// PMPI_Win_fence implements MPI_Win_fence.
//
//export PMPI_Win_fence
func PMPI_Win_fence(assert, win int32) (rc int32) {
	defer guard("MPI_Win_fence", &rc)
	return syncWin("MPI_Win_fence", win, -1, func(o *winObj) error { return o.w.Fence() })
}

// PMPI_Win_lock implements MPI_Win_lock.
//
//export PMPI_Win_lock
func PMPI_Win_lock(kind, rank, assert, win int32) (rc int32) {
	defer guard("MPI_Win_lock", &rc)
	o, rc := winArg("MPI_Win_lock", win)
	if rc != errSuccess {
		return rc
	}
	lt := mpi.LockShared
	switch kind {
	case lockExclusive:
		lt = mpi.LockExclusive
	case lockShared:
	default:
		return winCheck("MPI_Win_lock", o, errorf(errArg, "invalid lock type %d", kind))
	}
	if rank == cProcNull {
		return errSuccess // an epoch of no target, as MPICH allows
	}
	return winCheck("MPI_Win_lock", o, o.w.Lock(lt, mapRank(rank)))
}

// PMPI_Win_unlock implements MPI_Win_unlock.
//
//export PMPI_Win_unlock
func PMPI_Win_unlock(rank, win int32) (rc int32) {
	defer guard("MPI_Win_unlock", &rc)
	return syncWin("MPI_Win_unlock", win, rank, func(o *winObj) error { return onTarget(rank, func() error { return o.w.Unlock(mapRank(rank)) }) })
}

// PMPI_Win_lock_all implements MPI_Win_lock_all.
//
//export PMPI_Win_lock_all
func PMPI_Win_lock_all(assert, win int32) (rc int32) {
	defer guard("MPI_Win_lock_all", &rc)
	return onWin("MPI_Win_lock_all", win, func(o *winObj) error { return o.w.LockAll() })
}

// PMPI_Win_unlock_all implements MPI_Win_unlock_all.
//
//export PMPI_Win_unlock_all
func PMPI_Win_unlock_all(win int32) (rc int32) {
	defer guard("MPI_Win_unlock_all", &rc)
	return syncWin("MPI_Win_unlock_all", win, -1, func(o *winObj) error { return o.w.UnlockAll() })
}

// PMPI_Win_flush implements MPI_Win_flush.
//
//export PMPI_Win_flush
func PMPI_Win_flush(rank, win int32) (rc int32) {
	defer guard("MPI_Win_flush", &rc)
	return syncWin("MPI_Win_flush", win, rank, func(o *winObj) error { return onTarget(rank, func() error { return o.w.Flush(mapRank(rank)) }) })
}

// PMPI_Win_flush_all implements MPI_Win_flush_all.
//
//export PMPI_Win_flush_all
func PMPI_Win_flush_all(win int32) (rc int32) {
	defer guard("MPI_Win_flush_all", &rc)
	return syncWin("MPI_Win_flush_all", win, -1, func(o *winObj) error { return o.w.FlushAll() })
}

// PMPI_Win_flush_local implements MPI_Win_flush_local.
//
//export PMPI_Win_flush_local
func PMPI_Win_flush_local(rank, win int32) (rc int32) {
	defer guard("MPI_Win_flush_local", &rc)
	return syncWin("MPI_Win_flush_local", win, rank, func(o *winObj) error { return onTarget(rank, func() error { return o.w.FlushLocal(mapRank(rank)) }) })
}

// PMPI_Win_flush_local_all implements MPI_Win_flush_local_all.
//
//export PMPI_Win_flush_local_all
func PMPI_Win_flush_local_all(win int32) (rc int32) {
	defer guard("MPI_Win_flush_local_all", &rc)
	return syncWin("MPI_Win_flush_local_all", win, -1, func(o *winObj) error { return o.w.FlushLocalAll() })
}

// PMPI_Win_sync implements MPI_Win_sync.
//
//export PMPI_Win_sync
func PMPI_Win_sync(win int32) (rc int32) {
	defer guard("MPI_Win_sync", &rc)
	return onWin("MPI_Win_sync", win, func(o *winObj) error { return o.w.Sync() })
}

// pscw runs an active-target call (MPI_Win_post, MPI_Win_start) with the
// group of handle group.
func pscw(fn string, win, group int32, call func(w *mpi.Win, g mpi.Group) error) int32 {
	o, rc := winArg(fn, win)
	if rc != errSuccess {
		return rc
	}
	g, rc := groupArg(fn, group)
	if rc != errSuccess {
		return rc
	}
	return winCheck(fn, o, call(o.w, g))
}

// PMPI_Win_post implements MPI_Win_post.
//
//export PMPI_Win_post
func PMPI_Win_post(group, assert, win int32) (rc int32) {
	defer guard("MPI_Win_post", &rc)
	return pscw("MPI_Win_post", win, group, (*mpi.Win).Post)
}

// PMPI_Win_start implements MPI_Win_start.
//
//export PMPI_Win_start
func PMPI_Win_start(group, assert, win int32) (rc int32) {
	defer guard("MPI_Win_start", &rc)
	return pscw("MPI_Win_start", win, group, (*mpi.Win).Start)
}

// PMPI_Win_complete implements MPI_Win_complete.
//
//export PMPI_Win_complete
func PMPI_Win_complete(win int32) (rc int32) {
	defer guard("MPI_Win_complete", &rc)
	return syncWin("MPI_Win_complete", win, -1, func(o *winObj) error { return o.w.Complete() })
}

// PMPI_Win_wait implements MPI_Win_wait.
//
//export PMPI_Win_wait
func PMPI_Win_wait(win int32) (rc int32) {
	defer guard("MPI_Win_wait", &rc)
	return onWin("MPI_Win_wait", win, func(o *winObj) error { return o.w.Wait() })
}

// PMPI_Win_get_group implements MPI_Win_get_group.
//
//export PMPI_Win_get_group
func PMPI_Win_get_group(win int32, group *int32) (rc int32) {
	defer guard("MPI_Win_get_group", &rc)
	o, rc := winArg("MPI_Win_get_group", win)
	if rc != errSuccess {
		return rc
	}
	return storeGroup("MPI_Win_get_group", o.w.Group(), nil, group)
}

// PMPI_Win_get_attr implements MPI_Win_get_attr.
//
//export PMPI_Win_get_attr
func PMPI_Win_get_attr(win, key int32, val unsafe.Pointer, flag *int32) (rc int32) {
	defer guard("MPI_Win_get_attr", &rc)
	o, rc := winArg("MPI_Win_get_attr", win)
	if rc != errSuccess {
		return rc
	}
	var p unsafe.Pointer
	switch key {
	case keyWinBase:
		p = o.base
	case keyWinSize:
		p = o.attrs
	case keyWinDispUnit:
		p = unsafe.Add(o.attrs, 8)
	case keyWinCreateFlavor:
		p = unsafe.Add(o.attrs, 16)
	case keyWinModel:
		p = unsafe.Add(o.attrs, 24)
	default:
		getObjAttr(&winAttrs, win, key, val, flag)
		return errSuccess
	}
	*flag = 1
	*(*unsafe.Pointer)(val) = p
	return errSuccess
}

// onTarget runs f, a synchronisation with target rank, unless rank is
// MPI_PROC_NULL, which has no epoch to end.
func onTarget(rank int32, f func() error) error {
	if rank == cProcNull {
		return nil
	}
	return f()
}

// PMPI_Win_create_dynamic implements MPI_Win_create_dynamic: a window of
// no memory, whose displacements are addresses (MPI_Get_address, or
// MPI_BOTTOM plus an address) and whose displacement unit is 1.
//
//export PMPI_Win_create_dynamic
func PMPI_Win_create_dynamic(info, comm int32, out *int32) (rc int32) {
	const fn = "MPI_Win_create_dynamic"
	defer guard(fn, &rc)
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	w, err := mpi.WinCreateDynamic(o.c)
	if err != nil {
		return fail(fn, o, comm, err)
	}
	if rc = addWin(fn, o, comm, w, nil, 0, 1, flavorDynamic, nil, out); rc == errSuccess {
		setWinHints(*out, info)
	}
	return rc
}

// PMPI_Win_attach implements MPI_Win_attach.
//
//export PMPI_Win_attach
func PMPI_Win_attach(win int32, base unsafe.Pointer, size int64) (rc int32) {
	const fn = "MPI_Win_attach"
	defer guard(fn, &rc)
	return onWin(fn, win, func(o *winObj) error {
		if size < 0 {
			return errorf(errArg, "invalid size %d", size)
		}
		return attachErr(mpi.Attach(o.w, unsafe.Slice((*byte)(base), size)))
	})
}

// PMPI_Win_detach implements MPI_Win_detach.
//
//export PMPI_Win_detach
func PMPI_Win_detach(win int32, base unsafe.Pointer) (rc int32) {
	const fn = "MPI_Win_detach"
	defer guard(fn, &rc)
	return onWin(fn, win, func(o *winObj) error {
		return attachErr(mpi.Detach(o.w, unsafe.Slice((*byte)(base), 0)))
	})
}

// attachErr gives err, of Attach or Detach, the class MPI_ERR_RMA_ATTACH
// where memory could not be attached.
func attachErr(err error) error {
	if errors.Is(err, mpi.ErrRMAAttach) {
		return errorf(errRMAAttach, "%v", err)
	}
	return err
}
