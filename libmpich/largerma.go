package main

// MPI-4.0's large-count one-sided calls (MPI_Put_c ...
// MPI_Win_shared_query_c). The one-sided path (rmaplan.go, win.go,
// accumulate.go) plans its runs with C int counts and displacement
// units: these entry points narrow their MPI_Count counts and MPI_Aint
// displacement units and call the other forms (whose names the errors
// found past the narrowing carry); a count past 2^31-1 is
// MPI_ERR_COUNT.

import "C"

import (
	"math"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// rmaCounts returns the counts of the one-sided call fn on window win as
// the C ints the one-sided path takes, or fn's error code (MPI_ERR_COUNT,
// handled by the window's error handler) for one that is negative or
// past 2^31-1.
func rmaCounts(fn string, win int32, counts ...int64) (c [3]int32, rc int32) {
	for i, n := range counts {
		if n < 0 || n > math.MaxInt32 {
			o, rc := winArg(fn, win)
			if rc != errSuccess {
				return c, rc
			}
			err := checkCount(n, 0)
			if err == nil {
				err = errorf(errCount, "count %d: the one-sided calls of this runtime take counts up to %d", n, math.MaxInt32)
			}
			return c, winCheck(fn, o, err)
		}
		c[i] = int32(n)
	}
	return c, errSuccess
}

// narrowRMA calls call with the counts of the one-sided call fn on
// window win narrowed to C ints (rmaCounts), or returns the error code
// of one that does not fit.
func narrowRMA(fn string, win int32, call func(c [3]int32) int32, counts ...int64) int32 {
	c, rc := rmaCounts(fn, win, counts...)
	if rc != errSuccess {
		return rc
	}
	return call(c)
}

// PMPI_Put_c implements MPI_Put_c.
//
//export PMPI_Put_c
func PMPI_Put_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, win int32) (rc int32) {
	defer guard("MPI_Put_c", &rc)
	return narrowRMA("MPI_Put_c", win, func(c [3]int32) int32 {
		return PMPI_Put(origin, c[0], otype, target, tdisp, c[1], ttype, win)
	}, ocount, tcount)
}

// PMPI_Get_c implements MPI_Get_c.
//
//export PMPI_Get_c
func PMPI_Get_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, win int32) (rc int32) {
	defer guard("MPI_Get_c", &rc)
	return narrowRMA("MPI_Get_c", win, func(c [3]int32) int32 {
		return PMPI_Get(origin, c[0], otype, target, tdisp, c[1], ttype, win)
	}, ocount, tcount)
}

// PMPI_Rput_c implements MPI_Rput_c.
//
//export PMPI_Rput_c
func PMPI_Rput_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rput_c", &rc)
	return narrowRMA("MPI_Rput_c", win, func(c [3]int32) int32 {
		return rma("MPI_Rput_c", false, mpi.Rput[byte], origin, c[0], otype, target, tdisp, c[1], ttype, win, req)
	}, ocount, tcount)
}

// PMPI_Rget_c implements MPI_Rget_c.
//
//export PMPI_Rget_c
func PMPI_Rget_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rget_c", &rc)
	return narrowRMA("MPI_Rget_c", win, func(c [3]int32) int32 {
		return rma("MPI_Rget_c", true, mpi.Rget[byte], origin, c[0], otype, target, tdisp, c[1], ttype, win, req)
	}, ocount, tcount)
}

// PMPI_Accumulate_c implements MPI_Accumulate_c.
//
//export PMPI_Accumulate_c
func PMPI_Accumulate_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, op, win int32) (rc int32) {
	defer guard("MPI_Accumulate_c", &rc)
	return narrowRMA("MPI_Accumulate_c", win, func(c [3]int32) int32 {
		return PMPI_Accumulate(origin, c[0], otype, target, tdisp, c[1], ttype, op, win)
	}, ocount, tcount)
}

// PMPI_Raccumulate_c implements MPI_Raccumulate_c.
//
//export PMPI_Raccumulate_c
func PMPI_Raccumulate_c(origin unsafe.Pointer, ocount int64, otype, target int32, tdisp, tcount int64, ttype, op, win int32, req *int32) (rc int32) {
	defer guard("MPI_Raccumulate_c", &rc)
	return narrowRMA("MPI_Raccumulate_c", win, func(c [3]int32) int32 {
		return PMPI_Raccumulate(origin, c[0], otype, target, tdisp, c[1], ttype, op, win, req)
	}, ocount, tcount)
}

// PMPI_Get_accumulate_c implements MPI_Get_accumulate_c.
//
//export PMPI_Get_accumulate_c
func PMPI_Get_accumulate_c(origin unsafe.Pointer, ocount int64, otype int32, result unsafe.Pointer, rcount int64, rtype, target int32, tdisp, tcount int64, ttype, op, win int32) (rc int32) {
	defer guard("MPI_Get_accumulate_c", &rc)
	return narrowRMA("MPI_Get_accumulate_c", win, func(c [3]int32) int32 {
		return PMPI_Get_accumulate(origin, c[0], otype, result, c[1], rtype, target, tdisp, c[2], ttype, op, win)
	}, ocount, rcount, tcount)
}

// PMPI_Rget_accumulate_c implements MPI_Rget_accumulate_c.
//
//export PMPI_Rget_accumulate_c
func PMPI_Rget_accumulate_c(origin unsafe.Pointer, ocount int64, otype int32, result unsafe.Pointer, rcount int64, rtype, target int32, tdisp, tcount int64, ttype, op, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rget_accumulate_c", &rc)
	return narrowRMA("MPI_Rget_accumulate_c", win, func(c [3]int32) int32 {
		return PMPI_Rget_accumulate(origin, c[0], otype, result, c[1], rtype, target, tdisp, c[2], ttype, op, win, req)
	}, ocount, rcount, tcount)
}

// dispUnitArg returns the MPI_Aint displacement unit du of the window
// call fn on communicator comm as the C int the windows keep, or fn's
// error code (MPI_ERR_ARG) for one that is not positive or past 2^31-1.
func dispUnitArg(fn string, comm int32, du int64) (int32, int32) {
	if du > 0 && du <= math.MaxInt32 {
		return int32(du), errSuccess
	}
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return 0, rc
	}
	return 0, fail(fn, o, comm, errorf(errArg, "invalid displacement unit %d", du))
}

// PMPI_Win_create_c implements MPI_Win_create_c.
//
//export PMPI_Win_create_c
func PMPI_Win_create_c(base unsafe.Pointer, size, dispUnit int64, info, comm int32, out *int32) (rc int32) {
	defer guard("MPI_Win_create_c", &rc)
	du, rc := dispUnitArg("MPI_Win_create_c", comm, dispUnit)
	if rc != errSuccess {
		return rc
	}
	return PMPI_Win_create(base, size, du, info, comm, out)
}

// PMPI_Win_allocate_c implements MPI_Win_allocate_c.
//
//export PMPI_Win_allocate_c
func PMPI_Win_allocate_c(size, dispUnit int64, info, comm int32, baseptr unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Win_allocate_c", &rc)
	du, rc := dispUnitArg("MPI_Win_allocate_c", comm, dispUnit)
	if rc != errSuccess {
		return rc
	}
	return PMPI_Win_allocate(size, du, info, comm, baseptr, out)
}

// PMPI_Win_allocate_shared_c implements MPI_Win_allocate_shared_c.
//
//export PMPI_Win_allocate_shared_c
func PMPI_Win_allocate_shared_c(size, dispUnit int64, info, comm int32, baseptr unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Win_allocate_shared_c", &rc)
	du, rc := dispUnitArg("MPI_Win_allocate_shared_c", comm, dispUnit)
	if rc != errSuccess {
		return rc
	}
	return PMPI_Win_allocate_shared(size, du, info, comm, baseptr, out)
}

// PMPI_Win_shared_query_c implements MPI_Win_shared_query_c.
//
//export PMPI_Win_shared_query_c
func PMPI_Win_shared_query_c(win, rank int32, size, dispUnit *int64, baseptr unsafe.Pointer) (rc int32) {
	defer guard("MPI_Win_shared_query_c", &rc)
	var du int32
	if rc = PMPI_Win_shared_query(win, rank, size, &du, baseptr); rc == errSuccess {
		*dispUnit = int64(du)
	}
	return rc
}
