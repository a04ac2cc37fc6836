package main

// The environment: initialization, finalization, clocks, versions and
// error handling (MPI_Init ... MPI_Error_string).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// selfTag is the tag of the communicator creation that makes
// MPI_COMM_SELF.
const selfTag = 0x5e1f

// initRuntime starts the world model (enterWorld) and returns the
// thread level provided.
func initRuntime(fn string) (provided int32, rc int32) {
	if err := enterWorld(); err != nil {
		return 0, fail(fn, nil, commWorld, err)
	}
	lvl, err := mpi.QueryThread()
	if err != nil {
		return 0, fail(fn, nil, commWorld, err)
	}
	return int32(lvl), errSuccess
}

// PMPI_Init implements MPI_Init.
//
//export PMPI_Init
func PMPI_Init(argc, argv unsafe.Pointer) (rc int32) {
	defer guard("MPI_Init", &rc)
	_, rc = initRuntime("MPI_Init")
	return rc
}

// PMPI_Init_thread implements MPI_Init_thread: whatever level required
// asks for, the runtime provides MPI_THREAD_MULTIPLE.
//
//export PMPI_Init_thread
func PMPI_Init_thread(argc, argv unsafe.Pointer, required int32, provided *int32) (rc int32) {
	defer guard("MPI_Init_thread", &rc)
	lvl, rc := initRuntime("MPI_Init_thread")
	if rc == errSuccess && provided != nil {
		*provided = lvl
	}
	return rc
}

// PMPI_Query_thread implements MPI_Query_thread.
//
//export PMPI_Query_thread
func PMPI_Query_thread(provided *int32) (rc int32) {
	defer guard("MPI_Query_thread", &rc)
	lvl, err := mpi.QueryThread()
	if err != nil {
		return fail("MPI_Query_thread", nil, commWorld, err)
	}
	*provided = int32(lvl)
	return errSuccess
}

// PMPI_Is_thread_main implements MPI_Is_thread_main.
//
//export PMPI_Is_thread_main
func PMPI_Is_thread_main(flag *int32) (rc int32) {
	defer guard("MPI_Is_thread_main", &rc)
	*flag = 1 // every thread may call MPI: each counts as the main one
	return errSuccess
}

// PMPI_Finalize implements MPI_Finalize.
//
//export PMPI_Finalize
func PMPI_Finalize() (rc int32) {
	defer guard("MPI_Finalize", &rc)
	// MPI_COMM_SELF's attributes are deleted first, as MPI says: libraries
	// hang their clean-up on them.
	var err error
	if s := self.Load(); s != nil {
		err = deleteAttrs(s, commSelf)
	}
	if err == nil {
		err = leaveWorld()
	}
	return check("MPI_Finalize", nil, commWorld, err)
}

// PMPI_Initialized implements MPI_Initialized: whether MPI_Init was
// called (MPI_Finalize does not change it, as MPI says); sessions do not
// count.
//
//export PMPI_Initialized
func PMPI_Initialized(flag *int32) (rc int32) {
	*flag = boolInt(life.world.Load() != worldBefore)
	return errSuccess
}

// PMPI_Finalized implements MPI_Finalized: whether MPI_Finalize has
// completed; sessions do not count.
//
//export PMPI_Finalized
func PMPI_Finalized(flag *int32) (rc int32) {
	*flag = boolInt(life.world.Load() == worldDone)
	return errSuccess
}

// PMPI_Abort implements MPI_Abort.
//
//export PMPI_Abort
func PMPI_Abort(comm, code int32) (rc int32) {
	defer guard("MPI_Abort", &rc)
	var c *mpi.Comm
	if o, ok := lookupComm(comm); ok {
		c = o.c
	} else if w := world.Load(); w != nil {
		c = w.c
	}
	c.Abort(int(code))
	return errSuccess
}

// PMPI_Wtime implements MPI_Wtime.
//
//export PMPI_Wtime
func PMPI_Wtime() float64 { return mpi.Wtime() }

// PMPI_Wtick implements MPI_Wtick.
//
//export PMPI_Wtick
func PMPI_Wtick() float64 { return mpi.Wtick() }

// PMPI_Get_processor_name implements MPI_Get_processor_name.
//
//export PMPI_Get_processor_name
func PMPI_Get_processor_name(name unsafe.Pointer, n *int32) (rc int32) {
	defer guard("MPI_Get_processor_name", &rc)
	s, err := mpi.GetProcessorName()
	if err != nil {
		return fail("MPI_Get_processor_name", nil, commWorld, err)
	}
	cString(name, maxProcessorName, s, n)
	return errSuccess
}

// PMPI_Get_version implements MPI_Get_version.
//
//export PMPI_Get_version
func PMPI_Get_version(version, subversion *int32) (rc int32) {
	v, s := mpi.GetVersion()
	*version, *subversion = int32(v), int32(s)
	return errSuccess
}

// libraryVersion is what MPI_Get_library_version reports.
const libraryVersion = "martini MPI runtime (github.com/rhinet-go/martini) with MPICH's ABI (libmpich.so.12)"

// PMPI_Get_library_version implements MPI_Get_library_version.
//
//export PMPI_Get_library_version
func PMPI_Get_library_version(s unsafe.Pointer, n *int32) (rc int32) {
	cString(s, maxLibraryVersion, libraryVersion, n)
	return errSuccess
}

// PMPI_Error_string implements MPI_Error_string.
//
//export PMPI_Error_string
func PMPI_Error_string(code int32, s unsafe.Pointer, n *int32) (rc int32) {
	defer guard("MPI_Error_string", &rc)
	cString(s, maxErrorString, errorText(code), n)
	return errSuccess
}

// PMPI_Error_class implements MPI_Error_class.
//
//export PMPI_Error_class
func PMPI_Error_class(code int32, class *int32) (rc int32) {
	*class = classOfCode(code)
	return errSuccess
}

// boolInt returns 1 for true and 0 for false, as C's flags are.
func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
