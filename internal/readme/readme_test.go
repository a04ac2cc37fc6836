package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// firstProgram returns the Go code block under the README's "A first
// program" heading.
func firstProgram(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## A first program\n")
	if !ok {
		t.Fatal(`README.md has no "## A first program" section`)
	}
	_, code, ok := strings.Cut(after, "```go\n")
	if !ok {
		t.Fatal("the first program's section has no ```go block")
	}
	code, _, ok = strings.Cut(code, "```")
	if !ok {
		t.Fatal("the first program's code block is not closed")
	}
	return code
}

// TestFirstProgram builds the README's first program in a package of the
// module, as a reader would paste it, and runs it on 2 processes.
func TestFirstProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code := firstProgram(t, string(readme))
	// A directory inside the module, so that its imports resolve; testdata
	// keeps it out of ./... while it exists.
	dir, err := os.MkdirTemp("testdata", "first")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	mpirun, prog := mpiruntest.Program(t, "github.com/rhinet-go/martini/internal/readme/"+filepath.ToSlash(dir))
	rc, out := mpiruntest.Run(t, mpirun, "-np", "2", prog)
	if rc != 0 {
		t.Fatalf("mpirun -np 2 (the first program): exit %d\n%s", rc, out)
	}
	if want := "rank 1 got [1 2 3] from rank 0"; !strings.Contains(out, want) {
		t.Fatalf("the first program printed %q, want a line %q", out, want)
	}
}

// ownModuleRecipe returns the command lines of the code block that follows
// the README's "From a module of your own" paragraph.
func ownModuleRecipe(t *testing.T, readme string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "**From a module of your own**")
	if !ok {
		t.Fatal(`README.md has no "From a module of your own" paragraph`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("the paragraph has no code block")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("its code block is not closed")
	}
	return strings.Split(strings.TrimSpace(block), "\n")
}

// TestOwnModule follows the README's recipe for a module of one's own, in
// a directory outside this module, with the first program as its main
// package: the commands, with the clone's path for /path/to/martini, must
// build it and run it on 2 processes.
func TestOwnModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and starts a job")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(firstProgram(t, string(readme))), 0o644); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, line := range ownModuleRecipe(t, string(readme)) {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(line, "/path/to/martini", root))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off") // as in a directory of its own
		if out, err = cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	if want := "rank 1 got [1 2 3] from rank 0"; !strings.Contains(string(out), want) {
		t.Fatalf("the recipe's last command printed %q, want a line %q", out, want)
	}
}
