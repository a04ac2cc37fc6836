package main

// Names of datatypes and windows, and the error handlers of windows.

import "C"

import "unsafe"

// setName names handle h, which valid says is live.
func setName(fn string, h int32, valid bool, name *C.char) int32 {
	if !valid {
		return fail(fn, nil, commWorld, errorf(errArg, "invalid handle %#x", uint32(h)))
	}
	objectNames.Store(h, C.GoString(name))
	return errSuccess
}

// PMPI_Type_set_name implements MPI_Type_set_name.
//
//export PMPI_Type_set_name
func PMPI_Type_set_name(dt int32, name *C.char) (rc int32) {
	defer guard("MPI_Type_set_name", &rc)
	_, ok := dataSize(dt)
	return setName("MPI_Type_set_name", dt, ok, name)
}

// PMPI_Type_get_name implements MPI_Type_get_name.
//
//export PMPI_Type_get_name
func PMPI_Type_get_name(dt int32, name unsafe.Pointer, n *int32) (rc int32) {
	defer guard("MPI_Type_get_name", &rc)
	if _, ok := dataSize(dt); !ok && dt != typeLB && dt != typeUB {
		return fail("MPI_Type_get_name", nil, commWorld, errorf(errType, "invalid datatype %#x", uint32(dt)))
	}
	cString(name, maxObjectName, objectName(dt), n)
	return errSuccess
}

// PMPI_Win_set_name implements MPI_Win_set_name.
//
//export PMPI_Win_set_name
func PMPI_Win_set_name(win int32, name *C.char) (rc int32) {
	defer guard("MPI_Win_set_name", &rc)
	_, ok := wins.get(win)
	return setName("MPI_Win_set_name", win, ok, name)
}

// PMPI_Win_get_name implements MPI_Win_get_name.
//
//export PMPI_Win_get_name
func PMPI_Win_get_name(win int32, name unsafe.Pointer, n *int32) (rc int32) {
	defer guard("MPI_Win_get_name", &rc)
	if _, rc = winArg("MPI_Win_get_name", win); rc != errSuccess {
		return rc
	}
	cString(name, maxObjectName, objectName(win), n)
	return errSuccess
}

// PMPI_Win_set_errhandler implements MPI_Win_set_errhandler.
//
//export PMPI_Win_set_errhandler
func PMPI_Win_set_errhandler(win, errh int32) (rc int32) {
	defer guard("MPI_Win_set_errhandler", &rc)
	o, rc := winArg("MPI_Win_set_errhandler", win)
	if rc != errSuccess {
		return rc
	}
	if !validErrhandler(errh) {
		return fail("MPI_Win_set_errhandler", nil, commWorld, errorf(errArg, "invalid error handler %#x", uint32(errh)))
	}
	o.errh.Store(errh)
	return errSuccess
}

// PMPI_Win_get_errhandler implements MPI_Win_get_errhandler.
//
//export PMPI_Win_get_errhandler
func PMPI_Win_get_errhandler(win int32, errh *int32) (rc int32) {
	defer guard("MPI_Win_get_errhandler", &rc)
	o, rc := winArg("MPI_Win_get_errhandler", win)
	if rc == errSuccess {
		*errh = o.errh.Load()
	}
	return rc
}

// PMPI_Win_create_errhandler implements MPI_Win_create_errhandler.
//
//export PMPI_Win_create_errhandler
func PMPI_Win_create_errhandler(fn uintptr, errh *int32) int32 {
	return PMPI_Comm_create_errhandler(fn, errh)
}

// PMPI_Win_call_errhandler implements MPI_Win_call_errhandler.
//
//export PMPI_Win_call_errhandler
func PMPI_Win_call_errhandler(win, code int32) (rc int32) {
	defer guard("MPI_Win_call_errhandler", &rc)
	o, rc := winArg("MPI_Win_call_errhandler", win)
	if rc != errSuccess {
		return rc
	}
	handleWith("MPI_Win_call_errhandler", o.errh.Load(), win, code)
	return errSuccess
}
