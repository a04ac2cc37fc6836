package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// TestMain makes the test binary the npb command when mpirun starts it.
func TestMain(m *testing.M) {
	if os.Getenv("MARTINI_RANK") != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"-class", "Z", "ep"}, {"ep", "cg"}, {"ep", "-class", "A", "cg"}, {"-bogus"}, {"ep", "-bogus"}, {"ep", "-class"}} {
		var out bytes.Buffer
		if code := run(args, &out, &out); code != exitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, code, exitUsage, &out)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, args := range [][]string{{"-class", "A", "cg"}, {"cg", "-class", "A"}, {"-class", "B", "cg", "-class", "A"}} {
		fs := flag.NewFlagSet("npb", flag.ContinueOnError)
		class := fs.String("class", "S", "")
		name, err := parseArgs(fs, args)
		if err != nil || name != "cg" || *class != "A" {
			t.Errorf("%q: %q, class %q, %v; want cg, A", args, name, *class, err)
		}
	}
}

// TestUnsupportedProcs runs CG, which needs a power of two, on three
// processes: NPB's refusal, exit 2.
func TestUnsupportedProcs(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mpirun, "-np", "3", self, "cg", "-class", "S", "-results", "").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || !strings.Contains(string(out), "CG needs a power of two") ||
		strings.Contains(string(out), "npb: npb:") {
		t.Errorf("CG on 3 processes: %v, want exit %d and the rule\n%s", err, exitUsage, out)
	}
}

// TestCommand runs EP class S through mpirun at np=2: a verified run
// writes its record, a corrupted one fails with exitUnverified.
func TestCommand(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	profile := filepath.Join(dir, "cpu.prof")
	out, err := exec.Command(mpirun, "-np", "2", self, "ep", "-class", "S", "-results", results, "-cpuprofile", profile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Verification    =               SUCCESSFUL") {
		t.Fatalf("EP class S: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(results, "npb-*-ep-S-np2.json"))
	if len(files) != 1 {
		t.Fatalf("records: %v", files)
	}
	rec, err := bench.ReadRecord(files[0])
	if err != nil || len(rec.Kernels) != 1 || !rec.Kernels[0].Verified || rec.Kernels[0].Mops <= 0 {
		t.Fatalf("record %+v, %v", rec, err)
	}
	for _, rank := range []string{".0", ".1"} {
		if st, err := os.Stat(profile + rank); err != nil || st.Size() == 0 {
			t.Errorf("CPU profile of rank %s: %v", rank[1:], err)
		}
	}
	out, err = exec.Command(mpirun, "-np", "2", self, "-class", "S", "-results", "", "-corrupt", "ep").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "UNSUCCESSFUL") {
		t.Errorf("corrupted EP: %v\n%s", err, out)
	}
}
