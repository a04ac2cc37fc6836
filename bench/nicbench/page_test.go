package nicbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordAndPage: a thesis record survives Encode and DecodeRecord,
// and its page and plots are written from it alone.
func TestRecordAndPage(t *testing.T) {
	rec := &Record{Time: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC), GoVersion: "go1.26.8", Quick: true, Runs: []*Run{thesisRun()}}
	rec.Machine.CPU = "Test CPU"
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(bytes.NewReader(buf.Bytes()))
	if err != nil || !back.Quick || len(back.Runs) != 1 || back.Runs[0].Write[WritePush] != 2.48 {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
	for name, doc := range map[string]string{
		"unknown field": strings.Replace(buf.String(), `"quick"`, `"colour": "blue", "quick"`, 1),
		"no runs":       `{"time": "2026-03-14T09:00:00Z", "machine": {}, "go_version": "go1.26.8", "runs": []}`,
	} {
		if _, err := DecodeRecord(strings.NewReader(doc)); err == nil {
			t.Errorf("DecodeRecord accepted a record with %s", name)
		}
	}

	dir := t.TempDir()
	if err := WritePage(dir, "thesis-x.json", back); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "thesis-x.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2026-03-14 09:00 UTC (Test CPU, go1.26.8)", "a quick run", "| figure",
		"within ±10% of the thesis", "(plots/thesis-x-throughput-martini.svg)", "(plots/thesis-x-pm-rtt-martini.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("page lacks %q:\n%s", want, md)
		}
	}
	for _, plot := range []string{"thesis-x-throughput-martini.svg", "thesis-x-pm-rtt-martini.svg", "thesis-x-throughput-martini.png", "thesis-x-pm-rtt-martini.png"} {
		if fi, err := os.Stat(filepath.Join(dir, "plots", plot)); err != nil || fi.Size() == 0 {
			t.Errorf("plot %s: %v", plot, err)
		}
	}
}
