// Package mpiruntest helps tests start jobs: it builds this runtime's
// mpirun for them.
package mpiruntest

import (
	"context"
	"testing"

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
