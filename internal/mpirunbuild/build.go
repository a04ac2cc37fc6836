// Package mpirunbuild runs the go command for this runtime's launchers:
// mpirun builds its ranks' program with it, and the commands and tests that
// start jobs build mpirun itself.
//
// A build runs as a process group of its own (the go command and the
// compilers and linkers it starts), with its temporary files (GOTMPDIR)
// in a directory of the caller's. However the build ends (success,
// failure, cancellation), no process of it is left when GoBuild returns
// and its temporary files are gone.
package mpirunbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/pgo"
)

// Spec describes one go build.
type Spec struct {
	// Pkg is what to build: an import path, "." or a .go file.
	Pkg string
	// Dir is the directory to build in; "" is the current one.
	Dir string
	// Out is the executable to write.
	Out string
	// Work is a directory of the caller's in which the go command keeps
	// its temporary files while it runs.
	Work string
	// Stdout and Stderr receive the go command's output; nil discards it.
	Stdout, Stderr io.Writer
	// Verbose, if not nil, receives the command line before it runs.
	Verbose io.Writer
	// PGO builds with the runtime's profile (internal/pgo), unless the
	// main package has a default.pgo of its own, which the go command
	// then uses.
	PGO bool
	// BuildMode, if not empty, is passed as -buildmode (c-shared for the
	// libmpich shared library).
	BuildMode string
}

// groupGrace bounds how long GoBuild waits for the processes of a killed
// build to be gone.
const groupGrace = 5 * time.Second

// GoBuild runs go build -o s.Out s.Pkg in s.Dir. When ctx is cancelled
// first, it kills the build (the whole process group) and returns an error
// wrapping ctx.Err(). In every case no process of the build runs any more
// when it returns, and the build's temporary directory is removed.
func GoBuild(ctx context.Context, s Spec) (err error) {
	gocmd, err := GoTool()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(s.Work, "gotmp-")
	if err != nil {
		return fmt.Errorf("go build %s: temporary directory: %w", s.Pkg, err)
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
			err = fmt.Errorf("go build %s: %w", s.Pkg, rerr)
		}
	}()
	args := []string{"build", "-o", s.Out}
	if s.BuildMode != "" {
		args = append(args, "-buildmode="+s.BuildMode)
	}
	if s.PGO && !hasDefaultPGO(ctx, gocmd, tmp, s) {
		prof, err := pgo.Write(tmp)
		if err != nil {
			return fmt.Errorf("go build %s: %w", s.Pkg, err)
		}
		args = append(args, "-pgo="+prof)
	}
	args = append(args, s.Pkg)
	if s.Verbose != nil {
		fmt.Fprintf(s.Verbose, "(cd %s && GOTMPDIR=%s %s %s)\n", dirName(s.Dir), tmp, gocmd, strings.Join(args, " "))
	}
	if err := runGo(ctx, gocmd, s.Dir, tmp, args, s.Stdout, s.Stderr); err != nil {
		return fmt.Errorf("go build %s: %w", s.Pkg, err)
	}
	return nil
}

// runGo runs the go command gocmd with args in dir, its temporary files in
// tmp, as a process group of its own. When ctx is cancelled first, it
// kills the group and returns an error wrapping ctx.Err(). In every case
// no process of the group runs any more when it returns.
func runGo(ctx context.Context, gocmd, dir, tmp string, args []string, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// The go command leads a group of its own, so that its compilers die
	// with it: killing the go command alone orphans them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }
	// A process that left the group cannot hold the output open forever.
	cmd.WaitDelay = groupGrace
	if err := cmd.Start(); err != nil {
		return err
	}
	werr := cmd.Wait()
	// Whichever way the go command ended, end what is left of its group
	// before its temporary files are removed.
	if gerr := endGroup(cmd.Process.Pid); gerr != nil {
		return gerr
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return werr
}

// hasDefaultPGO reports whether the main package s builds has a
// default.pgo: in s.Dir for "." and .go files, in the directory go list
// names for an import path (false when go list fails: the build then says
// why). go list runs as runGo runs the build, its temporary files in tmp.
func hasDefaultPGO(ctx context.Context, gocmd, tmp string, s Spec) bool {
	dir := s.Dir
	if s.Pkg != "." && !strings.HasSuffix(s.Pkg, ".go") {
		var out bytes.Buffer
		if runGo(ctx, gocmd, s.Dir, tmp, []string{"list", "-f", "{{.Dir}}", s.Pkg}, &out, nil) != nil {
			return false
		}
		dir = strings.TrimSpace(out.String())
	}
	_, err := os.Stat(filepath.Join(dirName(dir), "default.pgo"))
	return err == nil
}

func dirName(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// GoTool returns the go command to build with: the one in PATH, or else
// the one in $GOROOT/bin.
func GoTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is not in PATH (needed to build a Go package)")
}

// Build builds cmd/mpirun into dir and returns the binary's path. It needs
// the go command and the martini module (run from inside it).
func Build(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "mpirun")
	var out bytes.Buffer
	err := GoBuild(ctx, Spec{Pkg: "github.com/rhinet-go/martini/cmd/mpirun", Out: path, Work: dir, Stdout: &out, Stderr: &out})
	if err != nil {
		return "", fmt.Errorf("building mpirun (run inside the martini module, or pass -mpirun): %w\n%s", err, out.Bytes())
	}
	return path, nil
}
