// Package mpiruntest helps tests start jobs: it builds this runtime's
// mpirun for them.
package mpiruntest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// Build builds cmd/mpirun into dir and returns the binary's path.
func Build(dir string) (string, error) {
	return mpirunbuild.Build(context.Background(), dir)
}

// ForTest builds mpirun into a temporary directory of t, failing t if it
// cannot; under -short it skips t instead, since such tests start jobs.
func ForTest(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds mpirun and starts jobs")
	}
	path, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Program builds this module's cmd/mpirun and the program in package pkg
// (an import path) into a temporary directory of t, and returns the two
// binaries' paths; it fails t if it cannot, and skips it under -short.
func Program(t testing.TB, pkg string) (mpirun, prog string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds mpirun and a program, and starts jobs")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+"/", "github.com/rhinet-go/martini/cmd/mpirun", pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "mpirun"), filepath.Join(dir, path.Base(pkg))
}

// Run runs name with args for two minutes at most and returns its exit
// code and its output (standard output and error together); it fails t
// if the command cannot run or is killed at the limit.
func Run(t testing.TB, name string, args ...string) (int, string) {
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
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
	return 0, ""
}
