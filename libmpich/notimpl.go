package main

// The functions that the runtime does not provide: stubs_gen.go defines
// them in C, each calling mpichNotImplemented with its name.

import "C"

// mpichNotImplemented is what the stubs of stubs_gen.go call: it fails
// with MPI_ERR_OTHER naming the function.
//
//export mpichNotImplemented
func mpichNotImplemented(name *C.char) (rc int32) {
	fn := C.GoString(name)
	defer guard(fn, &rc)
	return fail(fn, nil, commWorld, errorf(errOther, "not implemented by this runtime"))
}
