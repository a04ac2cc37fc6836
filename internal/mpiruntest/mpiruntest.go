// Package mpiruntest helps tests start jobs: it builds this runtime's
// mpirun for them.
package mpiruntest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build builds cmd/mpirun into dir and returns the binary's path.
func Build(dir string) (string, error) {
	path := filepath.Join(dir, "mpirun")
	out, err := exec.Command("go", "build", "-o", path, "github.com/rhinet-go/martini/cmd/mpirun").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building mpirun: %v\n%s", err, out)
	}
	return path, nil
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
