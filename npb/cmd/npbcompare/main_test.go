package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/bench"
)

// TestBadArguments: every bad command line is refused before anything is
// built or run, with exit 2 and a message naming the problem.
func TestBadArguments(t *testing.T) {
	empty := t.TempDir() // a reference directory without binaries
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ref", empty, "xx"}, `unknown benchmark "xx" (want any of bt cg ep ft is lu mg sp)`},
		{[]string{"-ref", empty, "-np", "2", "bt", "sp"}, "-np 2: no benchmark named runs on 2 processes: BT on 2 processes (BT needs a square number of processes); SP on 2"},
		{[]string{"-ref", empty, "-np", "3", "cg"}, "CG needs a power of two"},
		{[]string{"-ref", empty, "-np", "1,0"}, `-np "1,0": "0" is not a positive number of processes`},
		{[]string{"-ref", empty, "-np", "two"}, `"two" is not a positive number`},
		{[]string{"-ref", empty, "-runs", "0"}, "-runs 0: want at least one run"},
		{[]string{"-ref", empty, "-class", "Z"}, `-class "Z"`},
		{[]string{"-ref", empty, "-class", "C", "ep"}, fmt.Sprintf("no reference binary %s/bin/ep.C.x", empty)},
		{[]string{"-ref", empty, "-bind", "socket"}, `-bind "socket"`},
		{[]string{"-ref", filepath.Join(empty, "none"), "ep"}, "none: no such directory: give the NPB3.4-MPI source tree whose bin/ holds the reference binaries"},
		{[]string{"-ref", empty, "-class", "S", "-np", "1,2", "cg", "bt"},
			fmt.Sprintf(`no reference binary %[1]s/bin/bt.S.x, %[1]s/bin/cg.S.x: in the NPB3.4-MPI tree %[1]s, build with its makefiles: make bt CLASS=S, make cg CLASS=S (npb/reference/README.md)`, empty)},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
	} {
		var out bytes.Buffer
		if code := run(c.args, &out, &out); code != exitUsage || !strings.Contains(out.String(), c.want) {
			t.Errorf("%q: exit %d, want %d and %q in\n%s", c.args, code, exitUsage, c.want, &out)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"-h"}, &out, &out); code != exitOK || !strings.Contains(out.String(), "usage: npbcompare") {
		t.Errorf("-h: exit %d\n%s", code, &out)
	}
}

// TestPlan: the default plan of all eight at np 1, 2, 4 runs BT and SP at
// the squares only, with a note for each count skipped.
func TestPlan(t *testing.T) {
	c, err := parseConfig([]string{"-class", "a"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	pairs, notes, err := c.plan()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pairs {
		got = append(got, fmt.Sprintf("%s%s%d", p.Benchmark, p.Class, p.NP))
	}
	want := "BTA1 BTA4 CGA1 CGA2 CGA4 EPA1 EPA2 EPA4 FTA1 FTA2 FTA4 ISA1 ISA2 ISA4 LUA1 LUA2 LUA4 MGA1 MGA2 MGA4 SPA1 SPA4"
	if strings.Join(got, " ") != want {
		t.Errorf("pairs %s\nwant  %s", strings.Join(got, " "), want)
	}
	wantNotes := []string{
		"skipped BT on 2 processes (BT needs a square number of processes)",
		"skipped SP on 2 processes (SP needs a square number of processes)",
	}
	if fmt.Sprint(notes) != fmt.Sprint(wantNotes) {
		t.Errorf("notes %q, want %q", notes, wantNotes)
	}
}

func TestBindFor(t *testing.T) {
	c := config{bind: "auto"}
	if c.bindFor() != "core" {
		t.Errorf("auto: %s", c.bindFor())
	}
	c.bind = "none"
	if c.bindFor() != "none" {
		t.Errorf("-bind none: %s", c.bindFor())
	}
}

// fakeReference makes a reference directory whose binaries print the
// testdata files (name → file, exit status) and a launcher that runs the
// last argument, as mpirun would run the binary.
func fakeReference(t *testing.T, binaries map[string]string) launchers {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, script string) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range binaries {
		write(filepath.Join(dir, "bin", name), body)
	}
	launcher := filepath.Join(dir, "mpirun")
	write(launcher, `for a; do last=$a; done; exec "$last"`)
	return launchers{refMpirun: []string{launcher}, refDir: dir}
}

// TestRunSide runs fake reference binaries that print real reports: a
// verified run gives its figures and CPU time, an unverified one
// errUnverified, a report of another benchmark or none an error naming
// the run, and a cancelled run the cancellation.
func TestRunSide(t *testing.T) {
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	l := fakeReference(t, map[string]string{
		"cg.S.x": "cat " + filepath.Join(abs, "npb-cg-S-np2.txt"),
		"mg.S.x": "cat " + filepath.Join(abs, "go-mg-S-np1-corrupt.txt"),
		"ep.S.x": "cat " + filepath.Join(abs, "npb-cg-S-np2.txt"),
		"sp.S.x": "cat " + filepath.Join(abs, "npb-sp-S-np2-refused.txt") + "; exit 16",
	})
	ctx := context.Background()
	r, err := l.runSide(ctx, bench.SideNPB, pair{"CG", "S", 2}, "core", 1)
	want := bench.NPBRun{Benchmark: "CG", Class: "S", NP: 2, Side: bench.SideNPB, Run: 1, Seconds: 0.69, Mops: 96.43,
		CPUSeconds: r.CPUSeconds, Bind: "core", Verified: true}
	if err != nil || r != want || r.CPUSeconds < 0 {
		t.Errorf("CG: %+v, %v; want %+v", r, err, want)
	}
	if _, err := l.runSide(ctx, bench.SideNPB, pair{"MG", "S", 1}, "core", 2); !errors.Is(err, errUnverified) ||
		!strings.Contains(err.Error(), "NPB3.4-MPI run 2 of MG class S on 1 process did not verify") {
		t.Errorf("MG corrupted: %v", err)
	}
	if _, err := l.runSide(ctx, bench.SideNPB, pair{"EP", "S", 2}, "core", 1); err == nil ||
		!strings.Contains(err.Error(), "the report is of CG class S on 2 processes, not EP class S on 2 processes") {
		t.Errorf("EP printing CG's report: %v", err)
	}
	if _, err := l.runSide(ctx, bench.SideNPB, pair{"SP", "S", 2}, "core", 1); err == nil ||
		!strings.Contains(err.Error(), "NPB3.4-MPI run 1 of SP class S on 2 processes failed: exit status 16") ||
		!strings.Contains(err.Error(), "Expecting a square number of processes") {
		t.Errorf("SP refusing 2 processes: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.runSide(cancelled, bench.SideNPB, pair{"CG", "S", 2}, "core", 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// referenceForTest returns a directory of class S reference binaries
// (NPB_REF_S, or /tmp/npbref-S) with ep and is built, or skips t.
func referenceForTest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the Go side and runs both")
	}
	if _, err := findRefMpirun(); err != nil {
		t.Skipf("no reference MPI: %v", err)
	}
	dir := os.Getenv("NPB_REF_S")
	if dir == "" {
		dir = "/tmp/npbref-S"
	}
	for _, b := range []string{"ep", "is"} {
		if _, err := os.Stat(filepath.Join(dir, "bin", b+".S.x")); err != nil {
			t.Skipf("no class S reference in %s (set NPB_REF_S to an NPB3.4-MPI tree in which make ep CLASS=S and make is CLASS=S have run): %v", dir, err)
		}
	}
	return dir
}

// TestCompare runs EP and IS class S on one process against the
// reference, twice each, into a results directory: every run is in the
// record, verified, and the README shows the comparison.
func TestCompare(t *testing.T) {
	ref := referenceForTest(t)
	results, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	args := []string{"-ref", ref, "-class", "S", "-np", "1", "-runs", "2", "-results", results, "is", "ep"}
	if code := run(args, &out, &out); code != exitOK {
		t.Fatalf("exit %d\n%s", code, &out)
	}
	for _, want := range []string{"EP class S, 1 process, 2 alternating runs (bind core)", "run 2: NPB3.4-MPI",
		"median: NPB3.4-MPI ", "median CPU time: ", "| IS        | S     |  1 |", "Record: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(results, "npbcompare-*-S.json"))
	if len(files) != 1 {
		t.Fatalf("records %v", files)
	}
	rec, err := bench.ReadRecord(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.NPBRuns) != 8 || len(rec.Notes) == 0 || !strings.HasPrefix(rec.Notes[0], "reference: "+ref+"/bin, launched by ") {
		t.Fatalf("record: %d runs, notes %q", len(rec.NPBRuns), rec.Notes)
	}
	for _, r := range rec.NPBRuns {
		if !r.Verified || r.Mops <= 0 || r.CPUSeconds <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	readme, err := os.ReadFile(filepath.Join(results, "README.md"))
	if err != nil || !strings.Contains(string(readme), "## NAS Parallel Benchmarks against NPB3.4-MPI (same run): the newest of each") {
		t.Errorf("README: %v\n%s", err, readme)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "npbcompare-*")); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// TestUnverifiedExit: a reference run that does not verify (a fake
// launcher, REF_MPIRUN, runs a binary printing a real UNSUCCESSFUL
// report) stops the comparison with exit 3, naming the run, and writes
// no record.
func TestUnverifiedExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go side")
	}
	abs, err := filepath.Abs(filepath.Join("testdata", "go-mg-S-np1-corrupt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	l := fakeReference(t, map[string]string{"mg.S.x": "cat " + abs})
	t.Setenv("REF_MPIRUN", l.refMpirun[0])
	results := t.TempDir()
	var out bytes.Buffer
	code := run([]string{"-ref", l.refDir, "-class", "S", "-np", "1", "-runs", "1", "-results", results, "mg"}, &out, &out)
	if code != exitUnverified || !strings.Contains(out.String(), "npbcompare: NPB3.4-MPI run 1 of MG class S on 1 process did not verify") {
		t.Errorf("exit %d, want %d\n%s", code, exitUnverified, &out)
	}
	if files, _ := filepath.Glob(filepath.Join(results, "*")); len(files) > 0 {
		t.Errorf("files written: %v", files)
	}
}
