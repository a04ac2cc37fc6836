package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestAccumulateCounters runs testdata/counter.c (MPICH's rma/atomic_rmw_gacc,
// atomic_rmw_fop and atomic_rmw_cas in small; TestCPrograms runs it on the
// martini network and on MPICH's library) on this library over TCP and
// over both networks (two hosts that are this one). A result of a derived
// datatype, whose handle is negative as an int32, was taken for no result:
// MPI_Get_accumulate accumulated and left the result untouched.
func TestAccumulateCounters(t *testing.T) {
	dir := buildC(t)
	prog, mpirun := filepath.Join(dir, "counter"), filepath.Join(dir, "mpirun")
	for _, flags := range [][]string{
		{"-transport", "tcp"},
		{"-hosts", "a:1,b:2", "-launch", "env MARTINI_TEST_HOST={host}"},
	} {
		args := append([]string{"-np", "3"}, flags...)
		out, err := runJob(t, dir, mpirun, append(args, prog)...)
		checkOK(t, fmt.Sprintf("mpirun %v counter", args), "counter", 3, out, err)
	}
}
