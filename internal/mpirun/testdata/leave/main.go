// Command leave has rank 1 leave the job with exit status 0, before MPI
// Init or after it without Finalize, and the other ranks react to the
// error that gives them:
//
//	leave init|finalize exit|panic|abort
//
// (exit: exit status 1; panic: a panic; abort: MPI Abort with code 3).
package main

import (
	"fmt"
	"os"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	when, react := os.Args[1], os.Args[2]
	rank1 := os.Getenv("MARTINI_RANK") == "1"
	if when == "init" && rank1 {
		os.Exit(0)
	}
	if err := mpi.Init(); err != nil {
		fail(react, err)
	}
	if when == "finalize" && rank1 {
		os.Exit(0)
	}
	if err := mpi.Finalize(); err != nil {
		fail(react, err)
	}
}

func fail(react string, err error) {
	switch react {
	case "panic":
		panic(err)
	case "abort":
		mpi.World().Abort(3)
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
