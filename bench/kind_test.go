package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeResultsDir writes files (name → contents) into a new directory.
func writeResultsDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	kindNPBRecord = `{"schema": 2, "time": "2026-03-15T10:00:00Z", "machine": {"cpu": "X", "cpus": 2}, "go_version": "go1.26.8",
		"git_revision": "", "params": {"np": 2, "benchmarks": null, "sizes": null, "variants": null, "budget_seconds": 0, "samples": 0, "off_cache": false},
		"series": null, "kernels": [{"name": "EP", "class": "S", "size": "33554432", "iterations": 0, "np": 2, "seconds": 0.5, "mops_total": 60, "operation": "Random numbers generated", "verified": true}]}`
	kindThesisRecord = `{"time": "2026-03-13T08:00:00Z", "machine": {"cpu": "Y", "cores": 254, "threads": 254}, "go_version": "go1.26.8", "runs": [{"profile": "martini"}]}`
)

// TestRegenerateKinds: every kind of record is read by its kind, and a
// file that is none is skipped, named with why in the README, without
// stopping the regeneration (a thesis record made the README's
// regeneration fail on "unknown field runs").
func TestRegenerateKinds(t *testing.T) {
	dir := writeKindsDir(t)
	s, err := RegenerateExcept(dir, []Skipped{{"late.json", "its runs do not decode"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Count(KindSuite) != 1 || s.Count(KindNPB) != 1 || s.Count(KindThesis) != 1 || len(s.Files) != 3 {
		t.Errorf("read %+v", s.Files)
	}
	if s.Files[0].Name != "npb-ep.json" || s.Files[2].Name != "thesis.json" || s.Files[2].Thesis.Machine.PackageCores != 254 {
		t.Errorf("files %+v, want newest first, the thesis record's header read", s.Files)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(readme)
	checkKindsSkipped(t, s.Skipped, out)
	checkKindsREADME(t, dir, out)
}

// writeKindsDir writes a results directory of a record of every kind, a
// thesis record to skip, and files that are no records.
func writeKindsDir(t *testing.T) string {
	t.Helper()
	suite, err := os.ReadFile(reportRecordPath)
	if err != nil {
		t.Fatal(err)
	}
	return writeResultsDir(t, map[string]string{
		"suite.json":   string(suite),
		"npb-ep.json":  kindNPBRecord,
		"thesis.json":  kindThesisRecord,
		"broken.json":  `{"schema": 2, "time": `,
		"future.json":  `{"schema": 99}`,
		"other.json":   `{"hello": "world"}`,
		"notes.txt":    "not a record",
		"late.json":    kindThesisRecord,
		"array.json":   `[1, 2]`,
		"unknown.json": strings.Replace(kindNPBRecord, `"go_version"`, `"colour": "blue", "go_version"`, 1),
	})
}

// checkKindsSkipped checks that every file that is no record was skipped,
// saying why, and named with why in the README out.
func checkKindsSkipped(t *testing.T, got []Skipped, out string) {
	t.Helper()
	skipped := map[string]string{
		"broken.json":  "not a JSON object: unexpected end of JSON input",
		"future.json":  "record schema 99",
		"other.json":   "not a record of a known kind",
		"array.json":   "not a JSON object",
		"unknown.json": `unknown field "colour"`,
		"late.json":    "its runs do not decode",
	}
	if len(got) != len(skipped) {
		t.Errorf("skipped %+v, want %d files", got, len(skipped))
	}
	for _, sk := range got {
		if want := skipped[sk.Name]; want == "" || !strings.Contains(sk.Why, want) {
			t.Errorf("skipped %s: %q, want it to say %q", sk.Name, sk.Why, want)
		}
		if line := "- `" + sk.Name + "`: " + sk.Why + "\n"; !strings.Contains(out, line) {
			t.Errorf("README lacks %q", line)
		}
	}
}

// checkKindsREADME checks the README's sections of every kind, and that it
// does not name the directory dir.
func checkKindsREADME(t *testing.T, dir, out string) {
	t.Helper()
	for _, want := range []string{
		"1 benchmark suite run, 1 NPB kernel run, 1 thesis reproduction",
		"## Files skipped",
		"## The thesis reproductions",
		"- [thesis.md](thesis.md): the NIC's figures (thesis ch. 6-8), from [thesis.json](thesis.json) by `go run ./cmd/thesis`; 2026-03-13T08:00:00Z, on Y",
		"cpuid's package 254 cores / 254 threads",
		"## NAS Parallel Benchmarks: every kernel run",
		"| EP ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("README lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, dir) {
		t.Errorf("README names the directory %s:\n%s", dir, out)
	}
}
