package thesisnpb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func point(b, c, l string, np int, mops float64) Point {
	return Point{Key: Key{Benchmark: b, Class: c, Layer: l, NP: np}, Mops: mops, Verified: true}
}

// TestRecordResume: a record saved after each run reads back whole, finds
// the points it holds (which a resumed sweep skips) and not the others,
// keeps its points in one order whatever the order of the runs, and
// leaves no temporary file behind.
func TestRecordResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RecordFile)
	rec := &Record{Time: time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), HostSpeed: "p3-933"}
	for _, p := range []Point{point("IS", "W", "vp", 4, 3), point("CG", "S", "pm", 2, 1), point("CG", "S", "pm", 4, 2)} {
		rec.Add(p)
		if err := rec.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	rec.Add(point("CG", "S", "pm", 2, 5)) // a point run again replaces the old one
	if err := rec.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Points) != 3 || got.Points[0].Key != (Key{"CG", "S", "pm", 2}) || got.Points[0].Mops != 5 || got.Points[2].Benchmark != "IS" {
		t.Errorf("points %+v", got.Points)
	}
	if _, ok := got.Find(Key{"IS", "W", "vp", 4}); !ok {
		t.Error("the record does not find a point it holds")
	}
	if _, ok := got.Find(Key{"IS", "W", "pm", 4}); ok {
		t.Error("the record finds a point it does not hold")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"points": [], "colour": 1}`, `unknown field "colour"`},
		{`{"points": [{"benchmark": "CG", "class": "S", "layer": "pm"}]}`, "want a benchmark, class, layer and process count"},
		{`[1]`, "cannot unmarshal"},
	} {
		if _, err := Decode(strings.NewReader(c.js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.js, err, c.want)
		}
	}
}

// TestRecordCalibrations: calibrations read back whole, in one order, a
// calibration of the same benchmark and class replacing the old one.
func TestRecordCalibrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), RecordFile)
	rec := &Record{HostSpeed: "p3-933", Compute: ComputeDeclared}
	for _, c := range []Calibration{{Benchmark: "IS", Class: "W", OpRate: 1}, {Benchmark: "CG", Class: "W", OpRate: 2},
		{Benchmark: "CG", Class: "S", OpRate: 3}, {Benchmark: "IS", Class: "W", OpRate: 4}} {
		rec.AddCalibration(c)
	}
	if err := rec.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range got.Calibrations {
		order = append(order, c.Benchmark+c.Class)
	}
	if strings.Join(order, ",") != "CGS,CGW,ISW" || got.Compute != ComputeDeclared {
		t.Errorf("calibrations %v, compute %q", order, got.Compute)
	}
	if c, ok := got.FindCalibration("IS", "W"); !ok || c.OpRate != 4 {
		t.Errorf("IS W: %+v, %v: want the second calibration", c, ok)
	}
	if _, ok := got.FindCalibration("IS", "S"); ok {
		t.Error("IS S found")
	}
}
