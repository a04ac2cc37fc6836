// Command libmpich is this runtime built as MPICH's shared library, so that
// C and Fortran programs compiled and linked against MPICH (libmpich.so.12)
// run on it unchanged:
//
//	go build -buildmode=c-shared -o libmpich.so.12 ./libmpich
//	LD_LIBRARY_PATH=$PWD mpirun -np 4 ./a.out
//
// It exports MPI's C functions with MPICH's ABI (handles, constants and
// MPI_Status as MPICH 4.0's mpi.h defines them) and maps them onto package
// mpi. Every MPI_ function has a PMPI_ name too, for profiling tools; the
// functions the runtime does not provide return MPI_ERR_OTHER with a
// message naming them (or abort under MPI_ERRORS_ARE_FATAL, the default).
// Only the files that use cgo need a C compiler; the others (the ABI's
// values, the handle tables, the error codes) build and test without one.
// The build uses the runtime's profile for profile-guided optimisation:
// default.pgo is a copy of internal/pgo's mpi.pgo.
package main

import (
	"unsafe"

	// The networks the runtime runs over (the emulated Martini NIC, TCP).
	_ "github.com/rhinet-go/martini/networks"
)

func main() {}

// callErrhandler calls a program's error handler (an
// MPI_Comm_errhandler_function) with the communicator handle and error
// code; set by the cgo part of the library.
var callErrhandler = func(fn uintptr, comm, code int32) {}

// callUserOp calls a program's reduction operation (an MPI_User_function,
// or with large an MPI_User_function_c, whose count is an MPI_Count) on n
// items of datatype dt; set by the cgo part of the library.
var callUserOp = func(fn uintptr, large bool, in, inout unsafe.Pointer, n int, dt int32) {}
