package npb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpiruntest"
	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

// Kernel tests run through mpirun: the test binary, started by mpirun
// (MARTINI_RANK is set) with NPB_TEST_KERNEL and NPB_TEST_CLASS, runs that
// kernel as one rank instead of the tests, and rank 0 prints the report.
const (
	envKernel  = "NPB_TEST_KERNEL"
	envClass   = "NPB_TEST_CLASS"
	envCorrupt = "NPB_TEST_CORRUPT"
)

func TestMain(m *testing.M) {
	if os.Getenv("MARTINI_RANK") != "" && os.Getenv(envKernel) != "" {
		os.Exit(rankMain())
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// rankMain runs the kernel of the environment as one rank; it exits 3 when
// the result does not verify.
func rankMain() int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "npb test rank %s: %v\n", os.Getenv("MARTINI_RANK"), err)
		return 1
	}
	class, err := ParseClass(os.Getenv(envClass))
	if err != nil {
		return fail(err)
	}
	if err := mpi.Init(); err != nil {
		return fail(err)
	}
	w := mpi.World()
	r, err := Run(w, os.Getenv(envKernel), class, Options{Corrupt: os.Getenv(envCorrupt) == "1"})
	if err != nil {
		return fail(err)
	}
	if w.Rank() == 0 {
		fmt.Print(r.Report())
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	if w.Rank() == 0 && !r.Verified {
		return 3
	}
	return 0
}

var (
	buildOnce sync.Once
	buildDir  string
	mpirunBin string
	buildErr  error
)

// mpirun builds this runtime's mpirun once per test binary.
func mpirun(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "npb-test-"); buildErr != nil {
			return
		}
		mpirunBin, buildErr = mpiruntest.Build(buildDir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return mpirunBin
}

// runKernel runs kernel of class on np processes and returns rank 0's
// output and the job's exit status.
func runKernel(t *testing.T, kernel string, class Class, np int, corrupt bool) (string, int) {
	t.Helper()
	return runKernelWith(t, kernel, class, corrupt, mpirun(t), "-np", fmt.Sprint(np))
}

// runKernelWith runs kernel of class with the command name and args
// (mpirun and its flags, without the program), and returns rank 0's
// output and the job's exit status.
func runKernelWith(t *testing.T, kernel string, class Class, corrupt bool, name string, args ...string) (string, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs an NPB kernel as a job")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append(args, "-timeout", "9m", self)...)
	c := "0"
	if corrupt {
		c = "1"
	}
	cmd.Env = append(os.Environ(), envKernel+"="+kernel, envClass+"="+class.String(), envCorrupt+"="+c)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s class %v %v: %v", kernel, class, args, err)
		}
		code = ee.ExitCode()
	}
	if code != 0 && code != 3 {
		t.Fatalf("%s class %v %v: exit %d\nstdout:\n%s\nstderr:\n%s", kernel, class, args, code, &stdout, &stderr)
	}
	return stdout.String() + stderr.String(), code
}

// checkKernel runs kernel of class at every np and expects it to verify,
// then once corrupted at the first np and expects UNSUCCESSFUL and a
// failing exit status.
func checkKernel(t *testing.T, kernel string, class Class, nps ...int) {
	t.Helper()
	for _, np := range nps {
		t.Run(fmt.Sprintf("%v/np=%d", class, np), func(t *testing.T) {
			out, code := runKernel(t, kernel, class, np, false)
			if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
				t.Errorf("%s class %v np=%d did not verify (exit %d):\n%s", kernel, class, np, code, out)
			}
		})
	}
	t.Run(fmt.Sprintf("%v/np=%d/corrupted", class, nps[0]), func(t *testing.T) {
		out, code := runKernel(t, kernel, class, nps[0], true)
		if code == 0 || !strings.Contains(out, "UNSUCCESSFUL") {
			t.Errorf("%s class %v corrupted: exit %d, want UNSUCCESSFUL and a failing exit:\n%s", kernel, class, code, out)
		}
	})
}
