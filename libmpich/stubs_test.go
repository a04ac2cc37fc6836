package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStubsCurrent checks that stubs_gen.go matches the Go files: every
// function they export as PMPI_X has its MPI_X jump and no stub (run
// go run gen_stubs.go after adding one).
func TestStubsCurrent(t *testing.T) {
	gen, err := os.ReadFile("stubs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`(?m)^//export PMPI_(\w+)$`)
	n := 0
	for _, f := range files {
		if f == "stubs_gen.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			n++
			name := m[1]
			if !strings.Contains(string(gen), "MPICH_ALIAS(MPI_"+name+", PMPI_"+name+")") {
				t.Errorf("MPI_%s: no jump to PMPI_%s in stubs_gen.go", name, name)
			}
			if strings.Contains(string(gen), "int PMPI_"+name+"(void)") {
				t.Errorf("PMPI_%s is implemented and stubbed: run go run gen_stubs.go", name)
			}
		}
	}
	if n == 0 {
		t.Error("no //export PMPI_ found")
	}
}
