package mpi_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/llc/network"
)

// A program that imports no network fails in Init with an error naming the
// import to add.
func TestInitWithoutNetwork(t *testing.T) {
	gocmd, err := mpirunbuild.GoTool()
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(t.TempDir(), "nonet")
	if out, err := exec.Command(gocmd, "build", "-o", bin, "./testdata/nonet").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err == nil {
		t.Fatalf("Init without a network succeeded:\n%s", out)
	}
	if want := `import _ "` + network.Import + `"`; !strings.Contains(string(out), want) {
		t.Errorf("Init without a network: %s\nwant an error naming %s", out, want)
	}
}
