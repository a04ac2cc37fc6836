package mpirun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// target is what PROGRAM resolved to: an executable to run as is, or a Go
// package to build first.
type target struct {
	path string // the executable, when pkg is empty

	// pkg is what to pass to go build, run in dir: "." for a directory, a
	// file name for a .go file, or an import path.
	pkg, dir string
}

func (t target) needsBuild() bool { return t.pkg != "" }

func (t target) String() string {
	if !t.needsBuild() {
		return t.path
	}
	if t.pkg == "." {
		return "package in " + t.dir
	}
	return t.pkg
}

// resolveProgram decides what PROGRAM names. A name without a slash is an
// executable in PATH (or else a directory of Go files in the current
// directory); a name with a slash is a file or directory, or, when nothing
// of that name exists and it is not explicitly relative or absolute, an
// import path.
func resolveProgram(prog string) (target, error) {
	if prog == "" {
		return target{}, errors.New("empty PROGRAM")
	}
	if !strings.Contains(prog, "/") {
		if path, err := exec.LookPath(prog); err == nil {
			return target{path: path}, nil
		} else if isGoDir(prog) {
			return pkgDir(prog)
		} else {
			return target{}, fmt.Errorf("%s: %w", prog, unwrapExecErr(err))
		}
	}
	st, err := os.Stat(prog)
	switch {
	case err == nil && st.IsDir():
		if !isGoDir(prog) {
			return target{}, fmt.Errorf("%s: a directory without Go files", prog)
		}
		return pkgDir(prog)
	case err == nil && strings.HasSuffix(prog, ".go"):
		abs, err := filepath.Abs(prog)
		if err != nil {
			return target{}, fmt.Errorf("%s: %w", prog, err)
		}
		return target{pkg: filepath.Base(abs), dir: filepath.Dir(abs)}, nil
	case err == nil:
		if st.Mode()&0o111 == 0 {
			return target{}, fmt.Errorf("%s: not executable", prog)
		}
		abs, err := filepath.Abs(prog)
		if err != nil {
			return target{}, fmt.Errorf("%s: %w", prog, err)
		}
		return target{path: abs}, nil
	case errors.Is(err, fs.ErrNotExist) && looksLikeImportPath(prog):
		wd, err := os.Getwd()
		if err != nil {
			return target{}, fmt.Errorf("%s: %w", prog, err)
		}
		return target{pkg: prog, dir: wd}, nil
	}
	return target{}, fmt.Errorf("%s: %w", prog, err)
}

func pkgDir(dir string) (target, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return target{}, fmt.Errorf("%s: %w", dir, err)
	}
	return target{pkg: ".", dir: abs}, nil
}

func isGoDir(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

func looksLikeImportPath(p string) bool {
	return !filepath.IsAbs(p) && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && !strings.HasSuffix(p, ".go")
}

func unwrapExecErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return fmt.Errorf("not found in PATH (%w)", ee.Err)
	}
	return err
}

// build builds t into the executable out with go build, its temporary
// files in work, with the runtime's PGO profile unless t has a
// default.pgo of its own (mpirunbuild.Spec.PGO). The compiler's output
// goes to stderr. However it ends, nothing of the build runs any more
// when build returns.
func build(ctx context.Context, t target, work, out string, stderr io.Writer, verbose bool) error {
	spec := mpirunbuild.Spec{Pkg: t.pkg, Dir: t.dir, Out: out, Work: work, Stdout: stderr, Stderr: stderr, PGO: true}
	if verbose {
		fmt.Fprintf(stderr, "mpirun: building %v: ", t)
		spec.Verbose = stderr
	}
	if err := mpirunbuild.GoBuild(ctx, spec); err != nil {
		return fmt.Errorf("build %v: %w", t, err)
	}
	return nil
}
