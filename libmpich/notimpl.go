package main

// The functions that the runtime does not provide: stubs_gen.go defines
// them in C, each calling mpichNotImplemented with its name.

import "C"

//export mpichNotImplemented
func mpichNotImplemented(name *C.char) (rc int32) {
	fn := C.GoString(name)
	defer guard(fn, &rc)
	return fail(fn, nil, commWorld, errorf(errOther, "not implemented by this runtime"))
}
