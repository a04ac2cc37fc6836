package results

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
)

// committed is the project's results directory.
const committed = "../../results"

// copyRecords copies the records (*.json) of from into a new directory.
func copyRecords(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	records, err := filepath.Glob(filepath.Join(from, "*.json"))
	if err != nil || len(records) == 0 {
		t.Fatalf("no records in %s: %v", from, err)
	}
	for _, r := range records {
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(r)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// files returns the contents of every file under dir, by relative path,
// but those of dir/local: the records a user's runs write there
// (bench.LocalResults), which git ignores.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	local := filepath.Join(dir, filepath.Base(bench.LocalResults))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path == local {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommittedResults regenerates the committed results directory from
// its records alone: every record must be read by its kind (a change to
// one command's record format cannot break another's), every kind must
// be there, and the generated files must be the committed ones, byte for
// byte, with none missing and none left over.
func TestCommittedResults(t *testing.T) {
	dir := copyRecords(t, committed)
	s, err := Regenerate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range s.Skipped {
		t.Errorf("skipped %s: %s", sk.Name, sk.Why)
	}
	for _, k := range bench.Kinds {
		if s.Count(k) == 0 {
			t.Errorf("no record of kind %s in %s", k, committed)
		}
	}
	want, got := files(t, committed), files(t, dir)
	for name, data := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: committed but not generated from the records (left over?)", name)
		case !bytes.Equal(g, data):
			t.Errorf("%s: regenerated differs from the committed file: run `go run ./cmd/mpibench report` and commit", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: generated but not committed", name)
		}
	}

	// Twice on the same records: the same bytes.
	if _, err := Regenerate(dir); err != nil {
		t.Fatal(err)
	}
	for name, data := range files(t, dir) {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs between two regenerations", name)
		}
	}
}

// TestBadThesisRecord: a thesis record whose runs do not decode is
// skipped and named in the README, and the other records still make
// their pages.
func TestBadThesisRecord(t *testing.T) {
	dir := copyRecords(t, committed)
	// The real-time record alone: the one that will not decode.
	if err := os.Remove(filepath.Join(dir, nicbench.VirtualRecordFile)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "thesis.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"profile":`, `"colour": "blue", "profile":`, 1)
	if bad == string(data) {
		t.Fatal("thesis.json has no profile field")
	}
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Regenerate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Skipped) != 1 || s.Skipped[0].Name != "thesis.json" || !strings.Contains(s.Skipped[0].Why, `unknown field "colour"`) {
		t.Errorf("skipped %+v, want thesis.json for its unknown field", s.Skipped)
	}
	if s.Count(bench.KindSuite) == 0 || s.Count(bench.KindNPB) == 0 || s.Count(bench.KindThesis) != 0 {
		t.Errorf("read %d suite, %d NPB, %d thesis records", s.Count(bench.KindSuite), s.Count(bench.KindNPB), s.Count(bench.KindThesis))
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "- `thesis.json`: nicbench: decode record: ") || strings.Contains(string(readme), "the thesis reproduction\n") {
		t.Errorf("README does not name the skipped thesis record:\n%s", readme)
	}
	if _, err := os.Stat(filepath.Join(dir, "thesis.md")); err == nil {
		t.Error("thesis.md written from a record that does not decode")
	}
	var buf bytes.Buffer
	WriteSkipped(&buf, "report: ", s)
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "report: skipped thesis.json: ") {
		t.Errorf("WriteSkipped wrote %q", buf.String())
	}
	if slices.ContainsFunc(s.Files, func(f bench.RecordFile) bool { return f.Name == "thesis.json" }) {
		t.Error("the skipped thesis record is among the files read")
	}
}
