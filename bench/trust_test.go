package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLoadAverage(t *testing.T) {
	if v, err := ParseLoadAverage([]byte("3.52 1.10 0.40 5/321 9876\n")); err != nil || v != 3.52 {
		t.Errorf("ParseLoadAverage = %v, %v, want 3.52", v, err)
	}
	for _, bad := range []string{"", "\n", "busy 1 2", "-1 0 0"} {
		if v, err := ParseLoadAverage([]byte(bad)); err == nil {
			t.Errorf("ParseLoadAverage(%q) = %v, no error", bad, v)
		}
	}
	// The machine's own, where there is one.
	if _, err := os.Stat("/proc/loadavg"); err == nil {
		if v, err := ReadLoadAverage(); err != nil || v < 0 {
			t.Errorf("ReadLoadAverage = %v, %v", v, err)
		}
	}
}

// TestLoadReason: a warning from half a load per CPU up, in words that
// say what the load average is.
func TestLoadReason(t *testing.T) {
	tests := []struct {
		load float64
		cpus int
		want bool
	}{
		{0, 2, false}, {0.99, 2, false}, {1, 2, true}, {3.5, 2, true}, {7.9, 16, false}, {8, 16, true}, {5, 0, false},
	}
	for _, tc := range tests {
		got := LoadReason(tc.load, tc.cpus)
		if (got != "") != tc.want {
			t.Errorf("LoadReason(%g, %d) = %q, want a reason: %v", tc.load, tc.cpus, got, tc.want)
		}
		if got != "" && !strings.Contains(got, "waiting for a CPU") {
			t.Errorf("LoadReason(%g, %d) = %q does not say what a load average is", tc.load, tc.cpus, got)
		}
	}
}

func TestTrustWarning(t *testing.T) {
	if w := TrustWarning([]string{"", ""}); w != "" {
		t.Errorf("no reasons: %q", w)
	}
	drift := DriftReason([]Drift{{Benchmark: "PingPong", Floors: []float64{0.07, 0.31, 0.08}}})
	for _, want := range []string{"while PingPong was measured, so its columns", "PingPong: floor 0.07 to 0.31 µs", "cross-core floor (the time two processes take"} {
		if !strings.Contains(drift, want) {
			t.Errorf("DriftReason = %q lacks %q", drift, want)
		}
	}
	if strings.Contains(drift, "compute gauge") {
		t.Errorf("DriftReason without gauges = %q", drift)
	}
	gauged := DriftReason([]Drift{
		{Benchmark: "PingPong", Floors: []float64{0.06, 0.06, 0.06}, Compute: [][]float64{{0.92, 0.93}, {1.7, 0.93}, {0.92, 0.95}}},
		{Benchmark: "Allreduce", Floors: []float64{0.05, 0.19}},
	})
	for _, want := range []string{"while PingPong and Allreduce were measured, so their columns", "compute gauge (the time each CPU takes",
		"PingPong: floor 0.06 µs, compute gauges 0.92 to 1.7 and 0.93 to 0.95 ms; Allreduce: floor 0.05 to 0.19 µs)"} {
		if !strings.Contains(gauged, want) {
			t.Errorf("DriftReason = %q lacks %q", gauged, want)
		}
	}
	if DriftReason(nil) != "" {
		t.Error("DriftReason of no drifts is not empty")
	}
	w := TrustWarning([]string{LoadReason(3, 2), "", drift})
	if !strings.HasPrefix(w, "The figures of this run may be wrong: other programs") || !strings.Contains(w, "; and the machine's speed changed") ||
		!strings.HasSuffix(w, "rerun on an idle machine before relying on them.") {
		t.Errorf("TrustWarning = %q", w)
	}
}

// TestWarningRecordedAndShown: a record's warning survives encoding and
// decoding, and the results page shows it under its machine.
func TestWarningRecordedAndShown(t *testing.T) {
	rec := readReportRecord(t)
	rec.Schema = SchemaVersion
	rec.Warning = TrustWarning([]string{LoadReason(4, 2)})
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"warning": "The figures of this run may be wrong`) {
		t.Errorf("the JSON lacks the warning:\n%s", &buf)
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil || back.Warning != rec.Warning {
		t.Fatalf("decoded warning %q, %v", back.Warning, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "busy.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := regenerateREADME(t, dir)
	if want := "**Warning**: the figures of 1 run may be wrong, by the run's own checks (they still count in the medians below):\n\n- [busy](busy.json): " + rec.Warning; !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %q:\n%s", want, readme)
	}
}
