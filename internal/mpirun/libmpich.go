package mpirun

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// The shared library of MPICH's ABI, and the package of this module that
// builds this runtime's.
const (
	libmpichName = "libmpich.so.12"
	libmpichPkg  = "github.com/rhinet-go/martini/libmpich"
	// libmpichMark is a symbol that only this runtime's library defines.
	libmpichMark = "mpichNotImplemented"
)

// mpichBindings are MPICH's Fortran and C++ bindings, which need
// libmpich.so.12: a program linked with --as-needed (Debian's default)
// may name only them in its DT_NEEDED entries.
var mpichBindings = []string{"libmpichfort.so.12", "libmpichcxx.so.12"}

// linksLibmpich reports whether the executable at path needs
// libmpich.so.12 (an ELF file with it, or one of MPICH's bindings, in its
// DT_NEEDED entries).
func linksLibmpich(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(libs, func(lib string) bool {
		return lib == libmpichName || slices.Contains(mpichBindings, lib)
	})
}

// foreignMPI returns the MPI library other than MPICH's that the executable
// at path needs (an ELF file with libmpi.so.N, Open MPI's or Intel MPI's,
// in its DT_NEEDED entries), or "" when it needs none. Such a program
// cannot join a job of this runtime: each rank would run as a job of one.
func foreignMPI(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return ""
	}
	for _, lib := range libs {
		if strings.HasPrefix(lib, "libmpi.so") {
			return lib
		}
	}
	return ""
}

// foreignMPIError says why a program linked against lib cannot run here.
func foreignMPIError(path, lib string) string {
	who := "another MPI's"
	if lib == "libmpi.so.40" {
		who = "Open MPI's"
	}
	return fmt.Sprintf("%s is linked against %s %s, which does not run on this runtime (each rank would be a job of one): "+
		"run it with that MPI's mpirun, or build it with MPICH's mpicc (mpicc.mpich) to run it here on this runtime's %s", path, who, lib, libmpichName)
}

// isOurLibmpich reports whether dir holds this runtime's libmpich.so.12
// (and not MPICH's).
func isOurLibmpich(dir string) bool {
	f, err := elf.Open(filepath.Join(dir, libmpichName))
	if err != nil {
		return false
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(syms, func(s elf.Symbol) bool { return s.Name == libmpichMark })
}

// useLibmpich makes a program linked against libmpich.so.12 run on this
// runtime's library: it puts the library's directory first in
// LD_LIBRARY_PATH, which the ranks inherit. The directory is -libmpich's,
// mpirun's own when the library is there, or else a build of the library
// (in a temporary directory, tmp, that the caller removes when the job has
// ended). code is 0, or mpirun's exit status when no library could be
// found or built.
func useLibmpich(ctx context.Context, sig func() os.Signal, deadline time.Time, path string, opts *options, out *output) (tmp string, code int) {
	if lib := foreignMPI(path); lib != "" {
		out.logf("%s", foreignMPIError(path, lib))
		return "", exitFailure
	}
	if !linksLibmpich(path) {
		return "", 0
	}
	dir := opts.libmpich
	if dir == "" {
		if exe, err := os.Executable(); err == nil && isOurLibmpich(filepath.Dir(exe)) {
			dir = filepath.Dir(exe)
		}
	}
	if dir == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "mpirun-libmpich-"); err != nil {
			out.logf("build %s: %v", libmpichPkg, err)
			return "", exitFailure
		}
		if code := buildLibmpich(ctx, sig, deadline, target{pkg: libmpichPkg}, tmp, opts, out); code != 0 {
			return tmp, code
		}
		dir = tmp
	}
	if !isOurLibmpich(dir) {
		out.logf("%s is linked against %s, and %s holds no libmpich.so.12 of this runtime (go build -buildmode=c-shared -o DIR/%s ./libmpich, then -libmpich DIR)", path, libmpichName, dir, libmpichName)
		return tmp, exitFailure
	}
	if opts.verbose {
		out.logf("%s is linked against %s: running it on this runtime's, in %s", path, libmpichName, dir)
	}
	ld := dir
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		ld += string(os.PathListSeparator) + old
	}
	if err := os.Setenv("LD_LIBRARY_PATH", ld); err != nil {
		out.logf("LD_LIBRARY_PATH: %v", err)
		return tmp, exitFailure
	}
	return tmp, 0
}

// buildLibmpich builds this runtime's libmpich.so.12 into dir, as
// buildProgram builds a program: with the runtime's profile (libmpich's
// default.pgo is a copy of it).
func buildLibmpich(ctx context.Context, sig func() os.Signal, deadline time.Time, t target, dir string, opts *options, out *output) int {
	spec := mpirunbuild.Spec{Pkg: t.pkg, Out: filepath.Join(dir, libmpichName), Work: dir, Stdout: out.stderr, Stderr: out.stderr, BuildMode: "c-shared", PGO: true}
	if opts.verbose {
		spec.Verbose = out.stderr
	}
	return runBuild(ctx, sig, deadline, opts, out, func(bctx context.Context) error {
		err := mpirunbuild.GoBuild(bctx, spec)
		if err != nil {
			err = fmt.Errorf("build %s for a program linked against %s: %w (build it with go build -buildmode=c-shared -o DIR/%s ./libmpich and pass -libmpich DIR)", libmpichPkg, libmpichName, err, libmpichName)
		}
		return err
	})
}
