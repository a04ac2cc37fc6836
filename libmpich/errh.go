package main

// Error handlers (MPI_Comm_set_errhandler and the others).

import "C"

// PMPI_Comm_set_errhandler implements MPI_Comm_set_errhandler.
//
//export PMPI_Comm_set_errhandler
func PMPI_Comm_set_errhandler(comm, errh int32) (rc int32) {
	defer guard("MPI_Comm_set_errhandler", &rc)
	o, rc := commArg("MPI_Comm_set_errhandler", comm)
	if rc != errSuccess {
		return rc
	}
	if !validErrhandler(errh) {
		return fail("MPI_Comm_set_errhandler", o, comm, errorf(errArg, "invalid error handler %#x", uint32(errh)))
	}
	o.errh.Store(errh)
	return errSuccess
}

// PMPI_Errhandler_set implements MPI_Errhandler_set.
//
//export PMPI_Errhandler_set
func PMPI_Errhandler_set(comm, errh int32) int32 { return PMPI_Comm_set_errhandler(comm, errh) }

// PMPI_Comm_get_errhandler implements MPI_Comm_get_errhandler.
//
//export PMPI_Comm_get_errhandler
func PMPI_Comm_get_errhandler(comm int32, errh *int32) (rc int32) {
	defer guard("MPI_Comm_get_errhandler", &rc)
	o, rc := commArg("MPI_Comm_get_errhandler", comm)
	if rc != errSuccess {
		return rc
	}
	*errh = o.errh.Load()
	return errSuccess
}

// PMPI_Errhandler_get implements MPI_Errhandler_get.
//
//export PMPI_Errhandler_get
func PMPI_Errhandler_get(comm int32, errh *int32) int32 { return PMPI_Comm_get_errhandler(comm, errh) }

// PMPI_Comm_create_errhandler implements MPI_Comm_create_errhandler.
//
//export PMPI_Comm_create_errhandler
func PMPI_Comm_create_errhandler(fn uintptr, errh *int32) (rc int32) {
	defer guard("MPI_Comm_create_errhandler", &rc)
	h, ok := errhs.add(fn)
	if !ok {
		return fail("MPI_Comm_create_errhandler", nil, commWorld, errorf(errNoMem, "too many error handlers"))
	}
	*errh = h
	return errSuccess
}

// PMPI_Errhandler_create implements MPI_Errhandler_create.
//
//export PMPI_Errhandler_create
func PMPI_Errhandler_create(fn uintptr, errh *int32) int32 {
	return PMPI_Comm_create_errhandler(fn, errh)
}

// PMPI_Errhandler_free implements MPI_Errhandler_free.
//
//export PMPI_Errhandler_free
func PMPI_Errhandler_free(errh *int32) (rc int32) {
	defer guard("MPI_Errhandler_free", &rc)
	// The handler stays in the table: communicators it is set on keep
	// using it, as MPI says (a freed handle is only a function pointer).
	if !validErrhandler(*errh) {
		return fail("MPI_Errhandler_free", nil, commWorld, errorf(errArg, "invalid error handler %#x", uint32(*errh)))
	}
	*errh = errhandlerNull
	return errSuccess
}

// PMPI_Comm_call_errhandler implements MPI_Comm_call_errhandler.
//
//export PMPI_Comm_call_errhandler
func PMPI_Comm_call_errhandler(comm, code int32) (rc int32) {
	defer guard("MPI_Comm_call_errhandler", &rc)
	o, rc := commArg("MPI_Comm_call_errhandler", comm)
	if rc != errSuccess {
		return rc
	}
	handleWith("MPI_Comm_call_errhandler", o.errh.Load(), comm, code)
	return errSuccess
}

// isBuiltinErrhandler reports whether h is a predefined error handler.
func isBuiltinErrhandler(h int32) bool {
	return h == errorsAreFatal || h == errorsReturn || h == errorsAbort
}

// validErrhandler reports whether h names an error handler.
func validErrhandler(h int32) bool {
	if isBuiltinErrhandler(h) {
		return true
	}
	_, ok := errhs.get(h)
	return ok
}
