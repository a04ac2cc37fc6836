package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/netns"
	"github.com/rhinet-go/martini/internal/slurmtest"
)

// cPrograms are the C programs of testdata, each printing "<name> ok rank"
// on every rank when all its checks pass.
var cPrograms = []string{"p2p", "coll", "comm", "errors", "more", "types", "typecoll", "rma", "threads", "extended", "layouts", "dynamic", "largecount", "counter", "sessions", "reductions"}

// buildC builds the library, mpirun and the C programs into a temporary
// directory, or skips the test when a C compiler, cgo or MPICH's mpicc is
// missing.
func buildC(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds libmpich.so.12 and the C programs, and starts jobs")
	}
	if _, err := exec.LookPath("mpicc.mpich"); err != nil {
		t.Skip("mpicc.mpich not found (Debian's libmpich-dev): the C programs cannot be built")
	}
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(gotool, "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("cgo is disabled or no C compiler: the library cannot be built")
	}
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run(gotool, "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libmpich.so.12"), ".")
	run(gotool, "build", "-o", filepath.Join(dir, "mpirun"), "../cmd/mpirun")
	for _, p := range cPrograms {
		run("mpicc.mpich", "-w", "-pthread", "-o", filepath.Join(dir, p), filepath.Join("testdata", p+".c"))
	}
	return dir
}

// TestFortranProgram builds testdata/fortran.f90 with MPICH's mpif90, whose
// libmpichfort.so.12 calls the C functions of whichever libmpich.so.12 is
// found, and runs it on this library at 1 to 4 processes.
func TestFortranProgram(t *testing.T) {
	if _, err := exec.LookPath("mpif90.mpich"); err != nil {
		t.Skip("mpif90.mpich not found: no Fortran program")
	}
	dir := buildC(t)
	prog := filepath.Join(dir, "fortran")
	if out, err := exec.Command("mpif90.mpich", "-o", prog, filepath.Join("testdata", "fortran.f90")).CombinedOutput(); err != nil {
		t.Skipf("mpif90.mpich cannot build a program (gfortran missing?): %v\n%s", err, out)
	}
	for np := 1; np <= 4; np++ {
		out, err := runJob(t, dir, filepath.Join(dir, "mpirun"), "-np", fmt.Sprint(np), prog)
		checkOK(t, fmt.Sprintf("mpirun -np %d fortran", np), "fortran", np, out, err)
	}
}

// runJob runs a command with LD_LIBRARY_PATH set to lib (none if empty)
// and returns its combined output and error.
func runJob(t *testing.T, lib string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	if lib != "" {
		cmd.Env = append(cmd.Env, "LD_LIBRARY_PATH="+lib+string(os.PathListSeparator)+os.Getenv("LD_LIBRARY_PATH"))
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// checkOK checks that every one of np ranks printed prog's ok line.
func checkOK(t *testing.T, what, prog string, np int, out string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v\n%s", what, err, out)
		return
	}
	for r := 0; r < np; r++ {
		if line := fmt.Sprintf("%s ok rank %d of %d", prog, r, np); !strings.Contains(out, line) {
			t.Errorf("%s: no %q in the output:\n%s", what, line, out)
		}
	}
}

// TestCPrograms builds the C programs of testdata with MPICH's mpicc and
// runs them on this library under this module's mpirun at 1 to 4
// processes, then once under MPICH's own mpiexec.hydra on MPICH's library
// (the reference) and on this one.
func TestCPrograms(t *testing.T) {
	dir := buildC(t)
	mpirun := filepath.Join(dir, "mpirun")
	for _, p := range cPrograms {
		for np := 1; np <= 4; np++ {
			out, err := runJob(t, dir, mpirun, "-np", fmt.Sprint(np), filepath.Join(dir, p))
			checkOK(t, fmt.Sprintf("mpirun -np %d %s", np, p), p, np, out, err)
			if p == "p2p" && !strings.Contains(out, "library: martini") {
				t.Errorf("%s ran on another library than this one:\n%s", p, out)
			}
		}
	}
	hydra, err := exec.LookPath("mpiexec.hydra")
	if err != nil {
		t.Log("mpiexec.hydra not found: no reference runs on MPICH")
		return
	}
	for _, p := range cPrograms {
		out, err := runJob(t, "", hydra, "-n", "2", filepath.Join(dir, p))
		checkOK(t, "mpiexec.hydra (MPICH's library) "+p, p, 2, out, err)
		// Over Hydra too the ranks of one host share memory: rma's shared
		// windows run.
		out, err = runJob(t, "", hydra, "-n", "2", "-env", "LD_LIBRARY_PATH", dir, filepath.Join(dir, p))
		checkOK(t, "mpiexec.hydra (this library) "+p, p, 2, out, err)
	}
}

// TestMpirunFindsLibmpich checks that mpirun runs a program linked
// against libmpich.so.12 on this runtime's library without
// LD_LIBRARY_PATH: the one next to mpirun's executable, or -libmpich's.
func TestMpirunFindsLibmpich(t *testing.T) {
	dir := buildC(t)
	prog := filepath.Join(dir, "p2p")
	for _, args := range [][]string{{"-np", "2", prog}, {"-np", "2", "-libmpich", dir, prog}} {
		out, err := runJob(t, "", filepath.Join(dir, "mpirun"), args...)
		checkOK(t, "mpirun "+strings.Join(args, " "), "p2p", 2, out, err)
		if !strings.Contains(out, "library: martini") {
			t.Errorf("mpirun %s: the program ran on another library:\n%s", strings.Join(args, " "), out)
		}
	}
}

// TestCFatalError checks that an error under the default
// MPI_ERRORS_ARE_FATAL aborts the job with a message naming the function.
func TestCFatalError(t *testing.T) {
	dir := buildC(t)
	out, err := runJob(t, dir, filepath.Join(dir, "mpirun"), "-np", "2", filepath.Join(dir, "errors"), "fatal")
	if err == nil || !strings.Contains(out, "Fatal error in MPI_Send: MPI_ERR_RANK") || strings.Contains(out, "fatal error returned") {
		t.Errorf("errors fatal: err %v, want an abort naming MPI_Send:\n%s", err, out)
	}
}

// TestCProgramsUnderSrun runs the C programs on this library under a real
// Slurm's srun --mpi=pmi2 with LD_LIBRARY_PATH naming it, as a cluster's
// user would: 2 processes on one node, then 4 across two nodes (two
// network namespaces, martini within each and TCP between).
func TestCProgramsUnderSrun(t *testing.T) {
	dir := buildC(t)
	env := []string{"LD_LIBRARY_PATH=" + dir}
	run := func(c *slurmtest.Cluster, np int, flags ...string) {
		for _, p := range cPrograms {
			args := append(append([]string{"-n", fmt.Sprint(np), "--mpi=pmi2"}, flags...), filepath.Join(dir, p))
			out, _, err := c.Srun(time.Minute, env, args...)
			what := "srun " + strings.Join(args[:len(args)-1], " ") + " " + p
			checkOK(t, what, p, np, out, err)
			if p == "p2p" && !strings.Contains(out, "library: martini") {
				t.Errorf("%s ran on another library than this one:\n%s", what, out)
			}
		}
	}
	run(slurmtest.Start(t), 2, "--overcommit")
	run(slurmtest.StartOn(t, netns.New(t, 2)), 4, "-N", "2")
}
