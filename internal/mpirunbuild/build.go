// Package mpirunbuild builds this runtime's mpirun, for the commands and
// tests that start jobs from inside the module.
package mpirunbuild

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build builds cmd/mpirun into dir and returns the binary's path. It needs
// the go command and the martini module (run from inside it).
func Build(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "mpirun")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", path, "github.com/rhinet-go/martini/cmd/mpirun").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building mpirun (run inside the martini module, or pass -mpirun): %v\n%s", err, out)
	}
	return path, nil
}
