package npb

import (
	"slices"
	"strings"
)

// declaring lists the benchmarks whose compute phases declare their
// operations to the virtual clock (mpi.Compute): over the process's local
// part, adding up at one process to NPB's operation count of the timed
// part, so that a run under mpirun -compute declared charges them at the
// job's operation rate.
var declaring = []string{"EP", "IS", "CG", "FT", "BT", "LU", "MG", "SP"}

// Declares reports whether benchmark name (any case) declares its
// operations (mpi.Compute): under mpirun -compute declared a benchmark
// that does not computes in no time.
func Declares(name string) bool {
	return slices.ContainsFunc(declaring, func(n string) bool { return strings.EqualFold(n, name) })
}
