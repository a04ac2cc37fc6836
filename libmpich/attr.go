package main

// Attribute caching on communicators (MPI_Comm_create_keyval ...
// MPI_Attr_delete).

/*
typedef int (*mpich_copy_fn)(int, int, void *, void *, void *, int *);
typedef int (*mpich_delete_fn)(int, int, void *, void *);
static int mpich_call_copy(void *fn, int comm, int key, void *extra, void *in, void **out, int *flag) {
	return ((mpich_copy_fn)fn)(comm, key, extra, in, (void *)out, flag);
}
static int mpich_call_delete(void *fn, int comm, int key, void *val, void *extra) {
	return ((mpich_delete_fn)fn)(comm, key, val, extra);
}
*/
import "C"

import "unsafe"

func init() {
	callAttrCopy = func(fn uintptr, comm, key int32, extra, in uintptr) (uintptr, bool, int32) {
		var out unsafe.Pointer
		var flag C.int
		rc := C.mpich_call_copy(ptr(fn), C.int(comm), C.int(key), ptr(extra), ptr(in), &out, &flag)
		return uintptr(out), flag != 0, int32(rc)
	}
	callAttrDelete = func(fn uintptr, comm, key int32, val, extra uintptr) int32 {
		return int32(C.mpich_call_delete(ptr(fn), C.int(comm), C.int(key), ptr(val), ptr(extra)))
	}
}

// ptr returns the C address a as a pointer.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
