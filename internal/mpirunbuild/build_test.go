package mpirunbuild

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	for line, want := range map[string]struct {
		state byte
		pgrp  int
	}{
		"42 (compile) R 41 40 40 0 -1":        {'R', 40},
		"42 (a) b (c) S 1 77 77 0 -1":         {'S', 77},
		"7 (zombie) Z 1 7 7 0 -1 4194316 0 0": {'Z', 7},
	} {
		state, pgrp, ok := parseStat([]byte(line))
		if !ok || state != want.state || pgrp != want.pgrp {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d", line, state, pgrp, ok, want.state, want.pgrp)
		}
	}
	for _, bad := range []string{"", "42 (x", "42 (x) RR 1 2", "42 (x) R 1"} {
		if _, _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

// TestGoBuildCancelled: a build whose context is already cancelled reports
// it and leaves nothing in its work directory.
func TestGoBuildCancelled(t *testing.T) {
	if _, err := GoTool(); err != nil {
		t.Skip(err)
	}
	work := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := GoBuild(ctx, Spec{Pkg: "github.com/rhinet-go/martini/cmd/mpirun", Out: filepath.Join(work, "out"), Work: work})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("GoBuild = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("left in the work directory: %v", entries)
	}
}

// TestGoBuildPGO: with PGO the build gets the runtime's profile, unless
// the main package has a default.pgo, and the profile's copy is gone
// afterwards.
func TestGoBuildPGO(t *testing.T) {
	if _, err := GoTool(); err != nil {
		t.Skip(err)
	}
	work, dir := t.TempDir(), t.TempDir()
	files := map[string]string{
		"go.mod":  "module pgotest\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func() string {
		var verbose strings.Builder
		err := GoBuild(context.Background(), Spec{Pkg: ".", Dir: dir, Out: filepath.Join(work, "prog"), Work: work, Verbose: &verbose, PGO: true})
		if err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(work); len(entries) != 1 {
			t.Errorf("left in the work directory: %v", entries)
		}
		return verbose.String()
	}
	if line := build(); !strings.Contains(line, "-pgo="+filepath.Join(work, "gotmp-")) || !strings.Contains(line, "mpi.pgo") {
		t.Errorf("without a default.pgo the build ran %q, want -pgo= the runtime's profile", line)
	}
	if !hasDefaultPGO(context.Background(), "go", t.TempDir(), Spec{Pkg: "github.com/rhinet-go/martini/cmd/mpibench"}) {
		t.Error("hasDefaultPGO(cmd/mpibench) = false, want true (its default.pgo)")
	}
	if hasDefaultPGO(context.Background(), "go", t.TempDir(), Spec{Pkg: "github.com/rhinet-go/martini/examples/pingpong"}) {
		t.Error("hasDefaultPGO(examples/pingpong) = true, want false")
	}
	if err := os.WriteFile(filepath.Join(dir, "default.pgo"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if line := build(); strings.Contains(line, "-pgo=") {
		t.Errorf("with a default.pgo the build ran %q, want no -pgo flag", line)
	}
}
