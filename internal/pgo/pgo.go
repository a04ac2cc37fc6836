// Package pgo holds the runtime's profile for profile-guided optimisation:
// a CPU profile of the benchmark suite's ranks (mpibench worker) at 2 and 4
// processes, point-to-point and collectives at 8 B, 1 KiB and 64 KiB.
//
// Built with it, the compiler inlines the message path's hot calls across
// the layers (the endpoint's drain and progress, the translator's Execute
// and Poll, the NIC's BOTF kick) and devirtualises the engine's calls into
// its transport, which the LLC boundary keeps behind an interface in the
// source: about a tenth fewer instructions an 8-byte message
// (docs/decisions.md, the profile-guided build).
//
// mpirun builds a rank program, and this runtime's libmpich.so.12, with
// it (mpirunbuild.Spec.PGO) unless the main package has a default.pgo of
// its own; cmd/mpibench and libmpich carry a copy as their default.pgo,
// so that go run ./cmd/mpibench and go build -buildmode=c-shared
// ./libmpich use it too. A program built with go build by hand gets it
// with -pgo=PATH/internal/pgo/mpi.pgo, or by copying that file next to
// its main package as default.pgo.
//
// gen.sh regenerates mpi.pgo and the copy from a fresh profile of the
// suite.
package pgo

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

//go:embed mpi.pgo
var profile []byte

// Profile returns the profile's bytes (pprof's format, gzipped).
func Profile() []byte { return profile }

// Write writes the profile into dir as mpi.pgo and returns its path.
func Write(dir string) (string, error) {
	path := filepath.Join(dir, "mpi.pgo")
	if err := os.WriteFile(path, profile, 0o644); err != nil {
		return "", fmt.Errorf("writing the PGO profile: %w", err)
	}
	return path, nil
}
