package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// compareRuns are the runs of a comparison: CG class S at np 2 over three
// alternating runs, and BT class S at np 1 over two.
func compareRuns() []NPBRun {
	run := func(bm string, np int, side string, i int, mops, cpu float64) NPBRun {
		return NPBRun{Benchmark: bm, Class: "S", NP: np, Side: side, Run: i, Seconds: 1, Mops: mops, CPUSeconds: cpu, Bind: "core", Verified: true}
	}
	return []NPBRun{
		run("CG", 2, SideNPB, 1, 100, 2.0), run("CG", 2, SideGo, 1, 90, 2.5),
		run("CG", 2, SideNPB, 2, 300, 1.0), run("CG", 2, SideGo, 2, 150, 2.0),
		run("CG", 2, SideNPB, 3, 200, 3.0), run("CG", 2, SideGo, 3, 120, 4.0),
		run("BT", 1, SideNPB, 1, 40, 1.0), run("BT", 1, SideGo, 1, 50, 0.5),
		run("BT", 1, SideNPB, 2, 60, 3.0), run("BT", 1, SideGo, 2, 70, 1.5),
	}
}

func TestPairNPBRuns(t *testing.T) {
	pairs := PairNPBRuns(compareRuns())
	want := []NPBPair{
		{Benchmark: "CG", Class: "S", NP: 2, GoRuns: 3, NPBRuns: 3, GoMops: 120, NPBMops: 200, GoCPU: 2.5, NPBCPU: 2.0, Verified: true},
		{Benchmark: "BT", Class: "S", NP: 1, GoRuns: 2, NPBRuns: 2, GoMops: 60, NPBMops: 50, GoCPU: 1.0, NPBCPU: 2.0, Verified: true},
	}
	if !reflect.DeepEqual(pairs, want) {
		t.Fatalf("pairs\n%+v\nwant\n%+v", pairs, want)
	}
	if r := pairs[0].MopsRatio(); r != 0.6 {
		t.Errorf("CG Go/NPB Mop/s %v, want 0.6", r)
	}
	if r := pairs[0].CPURatio(); r != 0.8 {
		t.Errorf("CG NPB/Go CPU %v, want 0.8", r)
	}
	if r := pairs[1].MopsRatio(); r != 1.2 {
		t.Errorf("BT Go/NPB Mop/s %v, want 1.2", r)
	}
	if r := pairs[1].CPURatio(); r != 2 {
		t.Errorf("BT NPB/Go CPU %v, want 2", r)
	}

	// One unverified run spoils its pair; a side without runs has no ratio.
	runs := compareRuns()
	runs[3].Verified = false
	runs = runs[:8] // BT: one NPB run, one Go run
	pairs = PairNPBRuns(runs)
	if pairs[0].Verified || !pairs[1].Verified {
		t.Errorf("verified %v, %v; want false, true", pairs[0].Verified, pairs[1].Verified)
	}
	only := PairNPBRuns(runs[6:7]) // BT's NPB run alone
	if len(only) != 1 || only[0].Verified || only[0].GoRuns != 0 || only[0].MopsRatio() != 0 || only[0].CPURatio() != 0 {
		t.Errorf("one side only: %+v", only)
	}
}

func TestWriteNPBComparison(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNPBComparison(&b, PairNPBRuns(compareRuns())); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 {
		t.Fatalf("table:\n%s", &b)
	}
	for i, want := range [][]string{
		{"benchmark", "class", "np", "Go Mop/s", "NPB3.4-MPI Mop/s", "Go/NPB Mop/s", "NPB/Go CPU time", "runs", "verified"},
		nil,
		{"CG", "S", "2", "120.0", "200.0", "0.60", "0.80", "3", "yes"},
		{"BT", "S", "1", "60.0", "50.0", "1.20", "2.00", "2", "yes"},
	} {
		if want == nil {
			continue
		}
		if got := cells(lines[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("line %d: %q, want %q", i, got, want)
		}
	}
	if err := WriteNPBComparison(&b, nil); err == nil {
		t.Error("no pairs gave no error")
	}
}

// cells splits a Markdown table row into its trimmed cells.
func cells(line string) []string {
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// compareRecord is a comparison record of runs at time at, on machine
// kind X with 2 CPUs.
func compareRecord(at time.Time, runs []NPBRun) *Record {
	return &Record{Schema: SchemaVersion, Time: at, Machine: Machine{CPU: "X", CPUs: 2}, GoVersion: "go1.26.8",
		NPBRuns: runs, Notes: []string{"reference: mpirun.openmpi (Open MPI) 4.1.4"}}
}

// TestNPBSummaryByMachine: each machine kind has its own table, in the
// order of its newest record, and a newer comparison on one kind does not
// replace another kind's.
func TestNPBSummaryByMachine(t *testing.T) {
	dir := t.TempDir()
	onX := compareRecord(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), compareRuns())
	onY := compareRecord(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), compareRuns()[:6]) // CG only
	onY.Machine = Machine{CPU: "Y", CPUs: 16}
	for name, rec := range map[string]*Record{"npbcompare-x": onX, "npbcompare-y": onY} {
		if _, err := rec.Write(dir, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Regenerate(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, npb, _ := strings.Cut(readme, "## NAS Parallel Benchmarks against NPB3.4-MPI (same run)")
	y, x, ok := strings.Cut(npb, "### X, 2 CPUs")
	if !ok || !strings.Contains(y, "### Y, 16 CPUs") {
		t.Fatalf("no section of each machine kind, Y's first:\n%s", npb)
	}
	if strings.Count(y, "| CG ") != 1 || strings.Contains(y, "| BT ") || !strings.Contains(y, "npbcompare-y.json") {
		t.Errorf("Y's section holds other than its CG comparison:\n%s", y)
	}
	if strings.Count(x, "| CG ") != 1 || strings.Count(x, "| BT ") != 1 || strings.Contains(x, "npbcompare-y.json") {
		t.Errorf("X's section lacks its comparisons or holds Y's:\n%s", x)
	}
}

// TestNPBComparisonRecords: a comparison record round-trips, is read as
// its kind, and the README's summary takes the newest comparison of each
// benchmark, class and process count across the records.
func TestNPBComparisonRecords(t *testing.T) {
	dir := t.TempDir()
	old := compareRecord(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), compareRuns())
	newer := compareRuns()[:6] // CG only, twice as fast on the Go side
	for i := range newer {
		if newer[i].Side == SideGo {
			newer[i].Mops *= 2
		}
	}
	recent := compareRecord(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), newer)
	for name, rec := range map[string]*Record{"npbcompare-old": old, "npbcompare-new": recent} {
		if _, err := rec.Write(dir, name); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadRecord(filepath.Join(dir, "npbcompare-old.json"))
	if err != nil || !reflect.DeepEqual(back, old) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	s, err := Regenerate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Count(KindNPBCompare) != 2 || len(s.Files) != 2 {
		t.Fatalf("read %+v", s.Files)
	}
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	summary := readme
	for _, want := range []string{
		"2 comparisons with NPB3.4-MPI",
		"## NAS Parallel Benchmarks against NPB3.4-MPI (same run): the newest of each",
		"| record ",
		// BT from the older record, CG from the newer, BT first.
		"| BT        | S     |  1 |     60.0 |             50.0 |         1.20 |            2.00 |    2 | yes      | [2026-11-20T09:00:00Z](npbcompare-old.json) |",
		"| CG        | S     |  2 |    240.0 |            200.0 |         1.20 |            0.80 |    3 | yes      | [2026-11-21T09:00:00Z](npbcompare-new.json) |",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Index(summary, "| BT ") > strings.Index(summary, "| CG ") {
		t.Errorf("summary not sorted by benchmark:\n%s", summary)
	}
	// The older record's CG comparison is superseded: no row shows it.
	if strings.Contains(readme, "|    120.0 |") {
		t.Errorf("the superseded comparison is shown:\n%s", readme)
	}
	if strings.Contains(readme, "every run") {
		t.Errorf("the table of kernel runs without any:\n%s", readme)
	}
}
