package tcp

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The LLC paper's Table 3 measures a design by the share of a network's
// library that must be written anew for the network: the translator's
// lines over all the library's lines as built for that network (LLC/IB:
// 6,764 of 13,595, 50.2%; LLC/Tofu 58.6%). Here the TCP network's new
// code is this package; the library as built for it is every package of
// the module that it depends on. The engine's share leaves out the
// adapters to launchers and data stores (llc/launch, llc/pmi,
// llc/datastore), the joining of networks (llc/mux) and internal helpers,
// so that it counts only the protocol engine and what translators share.
// A line is a non-blank line of a non-test Go file that is not only a
// comment.

// packageLines returns the lines of the module's packages that pkg
// depends on (pkg included), by import path relative to the module.
func packageLines(t *testing.T, pkg string) map[string]int {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if eq .Module.Path "github.com/rhinet-go/martini"}}{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}{{end}}{{end}}`,
		pkg).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	lines := make(map[string]int)
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		path := strings.TrimPrefix(strings.TrimPrefix(f[0], "github.com/rhinet-go/martini"), "/")
		for _, name := range f[2:] {
			lines[path] += codeLines(t, filepath.Join(f[1], name))
		}
	}
	return lines
}

// codeLines counts the lines of file that are neither blank nor only a
// comment.
func codeLines(t *testing.T, file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s := bufio.NewScanner(bytes.NewReader(b)); s.Scan(); {
		if l := strings.TrimSpace(s.Text()); l != "" && !strings.HasPrefix(l, "//") {
			n++
		}
	}
	return n
}

// TestNewNetworkShare reports the TCP network's share of new code, and
// fails when the engine's share passes 20%, the goal of the design:
// code that a network need not know belongs below the translators, in
// the packages they share.
func TestNewNetworkShare(t *testing.T) {
	lines := packageLines(t, ".")
	own := lines["llc/tcp"]
	if own == 0 {
		t.Fatalf("no lines counted for llc/tcp: %v", lines)
	}
	all, engine := 0, 0
	for path, n := range lines {
		all += n
		switch {
		case strings.HasPrefix(path, "internal/"), path == "llc/launch", path == "llc/pmi", path == "llc/datastore", path == "llc/mux":
		default:
			engine += n
		}
	}
	t.Logf("llc/tcp: %d lines; of the library as built for TCP, %d: %.1f%%; of the engine and the translators' shared packages, %d: %.1f%%",
		own, all, 100*float64(own)/float64(all), engine, 100*float64(own)/float64(engine))
	if 5*own > engine {
		t.Errorf("llc/tcp is %.1f%% of the engine and what translators share (%d of %d lines), above the goal of 20%%: move what the network need not know into the shared packages",
			100*float64(own)/float64(engine), own, engine)
	}
}
