package main

// The calls from Go into the program's C functions (error handlers,
// reduction operations) and the data symbols of MPICH's ABI.

/*
#include <stdint.h>
#include <stdlib.h>

typedef void (*mpich_errh_fn)(int *, int *, ...);
static void mpich_call_errh(void *fn, int comm, int code) {
	((mpich_errh_fn)fn)(&comm, &code);
}
typedef void (*mpich_user_fn)(void *, void *, int *, int *);
static void mpich_call_op(void *fn, uintptr_t in, uintptr_t inout, int len, int dt) {
	((mpich_user_fn)fn)((void *)in, (void *)inout, &len, &dt);
}
typedef void (*mpich_user_fn_c)(void *, void *, int64_t *, int *);
static void mpich_call_op_c(void *fn, uintptr_t in, uintptr_t inout, int64_t len, int dt) {
	((mpich_user_fn_c)fn)((void *)in, (void *)inout, &len, &dt);
}
typedef int (*mpich_query_fn)(void *, void *);
static int mpich_call_query(void *fn, uintptr_t extra, void *status) {
	return ((mpich_query_fn)fn)((void *)extra, status);
}
typedef int (*mpich_free_fn)(void *);
static int mpich_call_free(void *fn, uintptr_t extra) {
	return ((mpich_free_fn)fn)((void *)extra);
}
typedef int (*mpich_cancel_fn)(void *, int);
static int mpich_call_cancel(void *fn, uintptr_t extra, int complete) {
	return ((mpich_cancel_fn)fn)((void *)extra, complete);
}
// The values of the predefined communicator attributes: MPI_TAG_UB,
// MPI_HOST (MPI_PROC_NULL: no host is special), MPI_IO (any rank may do
// I/O: MPI_ANY_SOURCE), MPI_WTIME_IS_GLOBAL (no), MPI_UNIVERSE_SIZE and
// MPI_APPNUM (set at initialization), MPI_LASTUSEDCODE.
int mpich_attrs[7] = {0x7fffffff, -1, -2, 0, 1, 0, 78};

// The functions that need no runtime: address arithmetic, conversions of
// handles and statuses between C and Fortran (the same integers and
// layout here), and MPI_DUP_FN.
long PMPI_Aint_add(long base, long disp) { return base + disp; }
long PMPI_Aint_diff(long a, long b) { return a - b; }
int PMPI_File_c2f(void *file) { return 0; }
void *PMPI_File_f2c(int file) { return 0; }
int PMPI_Status_c2f(const int *c, int *f) {
	for (int i = 0; i < 5; i++) f[i] = c[i];
	return 0;
}
int PMPI_Status_f2c(const int *f, int *c) {
	for (int i = 0; i < 5; i++) c[i] = f[i];
	return 0;
}
int PMPI_Alloc_mem(long size, int info, void *baseptr) {
	void *p = malloc(size > 0 ? size : 1);
	if (p == 0)
		return 34; // MPI_ERR_NO_MEM
	*(void **)baseptr = p;
	return 0;
}
int PMPI_Free_mem(void *base) {
	free(base);
	return 0;
}
int PMPI_Get_address(const void *location, long *address) {
	*address = (long)location;
	return 0;
}
int PMPI_Address(void *location, long *address) {
	*address = (long)location;
	return 0;
}
int PMPI_Pcontrol(const int level, ...) { return 0; }
int MPIR_Dup_fn(int obj, int key, void *extra, void *in, void *out, int *flag) {
	*(void **)out = in;
	*flag = 1;
	return 0;
}

// The data symbols of MPICH's ABI: addresses that programs and
// libmpichfort compare arguments with.
int MPIR_C_MPI_UNWEIGHTED;
int MPIR_C_MPI_WEIGHTS_EMPTY;
int *const MPI_UNWEIGHTED = &MPIR_C_MPI_UNWEIGHTED;
int *const MPI_WEIGHTS_EMPTY = &MPIR_C_MPI_WEIGHTS_EMPTY;
int MPIR_F08_MPI_STATUS_IGNORE_OBJ[5];
int MPIR_F08_MPI_STATUSES_IGNORE_OBJ[5];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
int *MPI_F08_STATUS_IGNORE = MPIR_F08_MPI_STATUS_IGNORE_OBJ;
int *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
static int mpich_f_status_ignore[5], mpich_f_statuses_ignore[5];
int *MPI_F_STATUS_IGNORE = mpich_f_status_ignore;
int *MPI_F_STATUSES_IGNORE = mpich_f_statuses_ignore;
void *const MPI_T_PVAR_ALL_HANDLES = (void *)1;
*/
import "C"

import "unsafe"

// setLastUsedCode stores MPI_LASTUSEDCODE's value.
func setLastUsedCode(code int32) { C.mpich_attrs[6] = C.int(code) }

// setUniverse stores the job's size as MPI_UNIVERSE_SIZE.
func setUniverse(n int) { C.mpich_attrs[4] = C.int(n) }

func init() {
	callErrhandler = func(fn uintptr, comm, code int32) {
		C.mpich_call_errh(*(*unsafe.Pointer)(unsafe.Pointer(&fn)), C.int(comm), C.int(code))
	}
	callGreq = func(g *greqObj, what greqCall, complete bool, st *status) int32 {
		var fn uintptr
		switch what {
		case greqQuery:
			fn = g.query
		case greqFree:
			fn = g.free
		default:
			fn = g.cancel
		}
		p := *(*unsafe.Pointer)(unsafe.Pointer(&fn))
		extra := C.uintptr_t(g.extra)
		switch what {
		case greqQuery:
			return int32(C.mpich_call_query(p, extra, unsafe.Pointer(st)))
		case greqFree:
			return int32(C.mpich_call_free(p, extra))
		}
		return int32(C.mpich_call_cancel(p, extra, C.int(boolInt(complete))))
	}
	callUserOp = func(fn uintptr, large bool, in, inout unsafe.Pointer, n int, dt int32) {
		// The operands may be package mpi's buffers: Go memory that holds no
		// pointers and stays put during the call, passed as addresses so that
		// cgo's pointer check does not look at the allocations around them.
		f, a, b := *(*unsafe.Pointer)(unsafe.Pointer(&fn)), C.uintptr_t(uintptr(in)), C.uintptr_t(uintptr(inout))
		if large {
			C.mpich_call_op_c(f, a, b, C.int64_t(n), C.int(dt))
			return
		}
		C.mpich_call_op(f, a, b, C.int(n), C.int(dt))
	}
}

// attrValue returns the address of the value of a predefined communicator
// attribute (MPI_TAG_UB and the others), or nil for an unknown key. The
// values live in C memory, since the program keeps their addresses.
func attrValue(key int32) unsafe.Pointer {
	var i int
	switch key {
	case keyTagUB:
		i = 0
	case keyHost:
		i = 1
	case keyIO:
		i = 2
	case keyWtimeGlobal:
		i = 3
	case keyUniverse:
		i = 4
	case keyAppnum:
		i = 5
	case keyLastUsedCode:
		i = 6
	default:
		return nil
	}
	return unsafe.Pointer(&C.mpich_attrs[i])
}
