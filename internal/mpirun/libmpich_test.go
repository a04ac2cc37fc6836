package mpirun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksLibmpich checks the recognition of a program linked against
// libmpich.so.12 and of this runtime's library: MPICH's Fortran bindings
// need libmpich.so.12, this test binary does not, and MPICH's own
// library is not this runtime's.
func TestLinksLibmpich(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if linksLibmpich(exe) {
		t.Errorf("%s: recognised as linked against %s", exe, libmpichName)
	}
	if linksLibmpich(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a missing file recognised as linked against libmpich")
	}
	const mpichDir = "/usr/lib/x86_64-linux-gnu"
	fort := filepath.Join(mpichDir, "libmpichfort.so.12")
	if _, err := os.Stat(fort); err != nil {
		t.Skipf("%s not installed (Debian's libmpich-dev): no ELF file that needs libmpich.so.12", fort)
	}
	if !linksLibmpich(fort) {
		t.Errorf("%s: not recognised as linked against %s", fort, libmpichName)
	}
	if isOurLibmpich(mpichDir) {
		t.Errorf("MPICH's %s taken for this runtime's", libmpichName)
	}
}

// TestForeignMPIRefused checks that a program linked against Open MPI's
// libmpi.so.40 is refused, naming the library, before any rank starts.
func TestForeignMPIRefused(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if lib := foreignMPI(exe); lib != "" {
		t.Errorf("%s: taken for a program linked against %s", exe, lib)
	}
	mpicc, err := exec.LookPath("mpicc.openmpi")
	if err != nil {
		t.Skip("no mpicc.openmpi (Open MPI) here")
	}
	dir := t.TempDir()
	src, prog := filepath.Join(dir, "hello.c"), filepath.Join(dir, "hello")
	code := "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mpicc, "-o", prog, src).CombinedOutput(); err != nil {
		t.Skipf("mpicc.openmpi: %v\n%s", err, out)
	}
	r := mpirun(t, "-n", "2", prog)
	if r.code != exitFailure || !strings.Contains(r.stderr, "linked against Open MPI's libmpi.so.40") || r.stdout != "" {
		t.Errorf("exit %d, stderr %q: want %d and the library named", r.code, r.stderr, exitFailure)
	}
}
