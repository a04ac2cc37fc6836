package mpirun

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestLinksLibmpichFortran checks that a Fortran program that names only
// MPICH's libmpichfort.so.12 (linked with --as-needed, as NPB's are) is
// recognised as an MPICH program: without it, each rank would run alone
// on MPICH's library.
func TestLinksLibmpichFortran(t *testing.T) {
	mpif90, err := exec.LookPath("mpif90.mpich")
	if err != nil {
		t.Skip("no mpif90.mpich (MPICH's Fortran compiler) here")
	}
	dir := t.TempDir()
	src, prog := filepath.Join(dir, "hello.f90"), filepath.Join(dir, "hello")
	code := "program hello\n  include 'mpif.h'\n  integer ierr\n  call MPI_INIT(ierr)\n  call MPI_FINALIZE(ierr)\nend program\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mpif90, "-Wl,--as-needed", "-o", prog, src).CombinedOutput(); err != nil {
		t.Skipf("mpif90.mpich cannot build a program: %v\n%s", err, out)
	}
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(libs, libmpichName) || !slices.Contains(libs, "libmpichfort.so.12") {
		t.Skipf("%s needs %v: not the case this test is for", prog, libs)
	}
	if !linksLibmpich(prog) {
		t.Errorf("%s (needs %v): not recognised as linked against %s", prog, libs, libmpichName)
	}
}
