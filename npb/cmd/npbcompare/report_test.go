package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/npb"
)

// The testdata are real outputs of class S runs: npb-* of NPB3.4-MPI
// (Fortran: BT, CG; C: IS; SP refusing 2 processes), go-* of the Go port
// (MG with -corrupt).
func TestParseReport(t *testing.T) {
	for _, c := range []struct {
		file string
		want npb.Report
	}{
		{"npb-cg-S-np2.txt", npb.Report{Benchmark: "CG", Class: "S", NP: 2, Seconds: 0.69, Mops: 96.43, Verified: true}},
		{"npb-is-S-np1.txt", npb.Report{Benchmark: "IS", Class: "S", NP: 1, Seconds: 0, Mops: 565.36, Verified: true}},
		{"npb-bt-S-np1.txt", npb.Report{Benchmark: "BT", Class: "S", NP: 1, Seconds: 0.07, Mops: 3191.81, Verified: true}},
		{"go-cg-S-np2.txt", npb.Report{Benchmark: "CG", Class: "S", NP: 2, Seconds: 0.23, Mops: 288.07, Verified: true}},
		{"go-is-S-np1.txt", npb.Report{Benchmark: "IS", Class: "S", NP: 1, Seconds: 0.02, Mops: 43.31, Verified: true}},
		{"go-mg-S-np1-corrupt.txt", npb.Report{Benchmark: "MG", Class: "S", NP: 1, Seconds: 0, Mops: 5305.54, Verified: false}},
	} {
		out, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := npb.ParseReport(out)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.file, got, err, c.want)
		}
	}
}

func TestParseReportErrors(t *testing.T) {
	refused, err := os.ReadFile(filepath.Join("testdata", "npb-sp-S-np2-refused.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := npb.ParseReport(refused); !errors.Is(err, npb.ErrNoReport) {
		t.Errorf("SP refusing 2 processes: %v, want ErrNoReport", err)
	}
	good, err := os.ReadFile(filepath.Join("testdata", "go-cg-S-np2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{" Mop/s total     =                   288.07\n", "", `no "Mop/s total" line`},
		{" Verification    =               SUCCESSFUL\n", "", `no "Verification" line`},
		{"288.07", "fast", `Mop/s total "fast"`},
		{"0.23", "", `no "Time in seconds" line`},
		{"=                        2\n", "=                      two\n", `Total processes "two"`},
		{"   SUCCESSFUL\n", "        MAYBE\n", `Verification "MAYBE": want SUCCESSFUL or UNSUCCESSFUL`},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("testdata lacks %q", c.from)
		}
		if _, err := npb.ParseReport([]byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q → %q: %v, want an error saying %s", c.from, c.to, err, c.want)
		}
	}
}

func TestReportCheck(t *testing.T) {
	r := npb.Report{Benchmark: "CG", Class: "S", NP: 2}
	if err := checkReport(r, "CG", "S", 2); err != nil {
		t.Errorf("the same: %v", err)
	}
	for _, c := range []pair{{"EP", "S", 2}, {"CG", "A", 2}, {"CG", "S", 4}} {
		if err := checkReport(r, c.Benchmark, c.Class, c.NP); err == nil || !strings.Contains(err.Error(), "the report is of CG class S on 2 processes") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
