package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// TestMpiexec builds mpiexec, mpirun and the hello example, runs a job of
// three ranks with mpiexec -n 3, and checks that mpiexec answers -version
// and -h as mpirun does: the same launcher under another name.
func TestMpiexec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the launchers and a program, and starts a job")
	}
	gocmd, err := mpirunbuild.GoTool()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	build := exec.Command(gocmd, "build", "-o", dir+"/", ".", "../mpirun", "../../examples/hello")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mpiexec, mpirun := filepath.Join(dir, "mpiexec"), filepath.Join(dir, "mpirun")

	code, out := mpiruntest.Run(t, mpiexec, "-n", "3", filepath.Join(dir, "hello"))
	for _, want := range []string{"hello from rank 0 of 3\n", "rank 1 says 1\n", "rank 2 says 4\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("mpiexec -n 3 hello: exit %d, output %q, want a line %q", code, out, want)
		}
	}
	for _, args := range [][]string{{"-version"}, {"-h"}} {
		code, got := mpiruntest.Run(t, mpiexec, args...)
		wantCode, want := mpiruntest.Run(t, mpirun, args...)
		if code != wantCode || got != want || got == "" {
			t.Errorf("mpiexec %v: exit %d, %q; mpirun's: exit %d, %q", args, code, got, wantCode, want)
		}
	}
}
