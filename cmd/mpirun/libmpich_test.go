package main

import (
	"os"
	"path/filepath"
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
