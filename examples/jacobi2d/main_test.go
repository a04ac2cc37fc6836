package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// build builds mpirun and this example into a temporary directory.
func build(t *testing.T) (mpirun, jacobi string) {
	t.Helper()
	dir := t.TempDir()
	const mod = "github.com/rhinet-go/martini/"
	cmd := exec.Command("go", "build", "-o", dir+"/", mod+"cmd/mpirun", mod+"examples/jacobi2d")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "mpirun"), filepath.Join(dir, "jacobi2d")
}

// runCmd runs name with args and returns its exit code and output.
func runCmd(t *testing.T, name string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return 0, ""
}

// The parallel solution equals the serial one on every process grid,
// oversubscribed (8 ranks on 2 cores) included, with blocks of unequal
// sizes.
func TestJacobiMatchesSerial(t *testing.T) {
	mpirun, jacobi := build(t)
	for _, np := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			code, out := runCmd(t, mpirun, "-np", fmt.Sprint(np), "-timeout", "60s", jacobi, "-n", "30", "-iters", "60")
			if code != 0 || !strings.Contains(out, "solution identical to the serial one") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}

func TestJacobiBadArguments(t *testing.T) {
	mpirun, jacobi := build(t)
	if code, out := runCmd(t, jacobi, "-n", "0"); code != 2 || !strings.Contains(out, "must be positive") {
		t.Errorf("-n 0: exit %d:\n%s", code, out)
	}
	code, out := runCmd(t, mpirun, "-np", "6", "-timeout", "60s", jacobi, "-n", "2")
	if code == 0 || !strings.Contains(out, "too large for a side of 2 points") {
		t.Errorf("6 ranks for 2×2 points: exit %d:\n%s", code, out)
	}
}
