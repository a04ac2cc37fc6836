package thesisnpb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritePage writes the page of a full synthetic sweep twice and checks
// its parts and that the same record gives the same bytes.
func TestWritePage(t *testing.T) {
	dir := t.TempDir()
	checkFullPage(t, dir)
	checkDeclaredPage(t, dir)
	checkEscapesPage(t, dir)
	checkPartialPage(t, dir)
}

// checkFullPage writes the page of a full synthetic sweep into dir twice,
// and checks its parts, its plots, and that it wrote the same bytes.
func checkFullPage(t *testing.T, dir string) {
	t.Helper()
	rec := synthetic(nil)
	if err := WritePage(dir, RecordFile, rec); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "thesis-npb.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1. EP scales ideally", "**Here: reproduced.**", "### IS", "![LU](plots/thesis-npb-lu.svg)", "## How long the runs took", "| 16        |", cpuComputing} {
		if !strings.Contains(string(md), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(string(md), "Points not run yet") {
		t.Error("a full sweep lists points not run")
	}
	for _, b := range AllBenchmarks {
		for _, ext := range []string{".svg", ".png"} {
			if _, err := os.Stat(filepath.Join(dir, "plots", "thesis-npb-"+strings.ToLower(b)+ext)); err != nil {
				t.Error(err)
			}
		}
	}
	if err := WritePage(dir, RecordFile, rec); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "thesis-npb.md"))
	if !bytes.Equal(md, again) {
		t.Error("the same record wrote another page")
	}
}

// checkDeclaredPage writes the page of a sweep of declared computing, and
// checks that it says so and lists the calibration.
func checkDeclaredPage(t *testing.T, dir string) {
	t.Helper()
	declared := synthetic(nil)
	declared.Compute = ComputeDeclared
	declared.AddCalibration(Calibration{Benchmark: "CG", Class: "S", Mops: 1300, Runs: 3, HostSpeed: 13, OpRate: 100, Command: "mpirun -np 1 npb cg"})
	if err := WritePage(dir, RecordFile, declared); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "thesis-npb.md"))
	for _, want := range []string{"-compute declared -op-rate R", "| CG | S | 1300.00 | 3 | 0.0 | 13 | 100.000 |", "Each measured as `mpirun -np 1 npb cg`.", declaredComputing} {
		if !strings.Contains(string(md), want) {
			t.Errorf("a declared sweep's page lacks %q", want)
		}
	}
	if strings.Contains(string(md), cpuComputing) {
		t.Error("a declared sweep's page says its computing is CPU time")
	}
}

// checkEscapesPage writes the page of a sweep whose points counted
// escapes, one of them, and checks that it says so.
func checkEscapesPage(t *testing.T, dir string) {
	t.Helper()
	one, none := 1, 0
	counted := synthetic(func(k Key, m float64) float64 { return m })
	for i := range counted.Points {
		counted.Points[i].Escapes = &none
	}
	counted.Points[3].Escapes = &one
	if err := WritePage(dir, RecordFile, counted); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "thesis-npb.md"))
	if want := fmt.Sprintf("went on in real order, so that the run's virtual times may differ from another's): 1 of the %d runs that counted them: ", len(counted.Points)); !strings.Contains(string(md), want) {
		t.Errorf("a record with an escape: the page lacks %q", want)
	}
}

// checkPartialPage writes the page of a sweep of one point, and checks
// that it lists the points not run and how to run them.
func checkPartialPage(t *testing.T, dir string) {
	t.Helper()
	partial := &Record{}
	partial.Add(point("CG", "S", "pm", 2, 100))
	if err := WritePage(dir, RecordFile, partial); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "thesis-npb.md"))
	if !strings.Contains(string(md), "`go run ./cmd/thesis npb -resume` runs them") || !strings.Contains(string(md), "- class A: EP np 2 pm") {
		t.Error("a partial sweep's page does not list the points not run")
	}
}
