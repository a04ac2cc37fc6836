// Command mpiexec is mpirun under the name that the MPI standard and
// MPICH's Hydra give the launcher: the same program, with the same flags,
// MPICH's among them (-n, -f, -hosts, -genv, -wdir...), and the same
// behaviour. go doc ./cmd/mpirun describes them.
//
// Usage:
//
//	mpiexec -n N [flags] PROGRAM [args...]
package main

import (
	"os"

	"github.com/rhinet-go/martini/internal/mpirun"
)

func main() { os.Exit(mpirun.Main()) }
