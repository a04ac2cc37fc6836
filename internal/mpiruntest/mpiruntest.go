// Package mpiruntest helps tests start jobs: it builds this runtime's
// mpirun for them.
package mpiruntest

import (
	"fmt"
	"os/exec"
	"path/filepath"
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
