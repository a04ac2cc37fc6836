package plotstyle

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// testFigure returns a figure with two series over a byte axis and a
// reference line above both.
func testFigure(t *testing.T) *Figure {
	t.Helper()
	f := New("throughput", "bytes", "MB/s")
	f.LogBytesX()
	i, err := f.AddSeries("one way", plotter.XYs{{X: 8, Y: 3}, {X: 1024, Y: 200}, {X: 1 << 20, Y: 420}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddSeries("both ways", plotter.XYs{{X: 8, Y: 5}, {X: 1 << 20, Y: 440}}); err != nil {
		t.Fatal(err)
	}
	if err := f.AddReference("thesis's peak, 470 MB/s", 470, i); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLegendOutsideData checks that every legend entry is drawn right of
// the data area, and the reference value is within the y axis.
func TestLegendOutsideData(t *testing.T) {
	f := testFigure(t)
	f.fitRanges()
	if f.Plot.Y.Max < 470 {
		t.Errorf("y axis ends at %g, below the reference line at 470", f.Plot.Y.Max)
	}
	rec := &recorder.Canvas{}
	c := draw.NewCanvas(rec, Width, Height)
	plotC, _ := f.layout(c)
	dataMax := f.Plot.DataCanvas(plotC).Max.X
	f.draw(c)
	entries := map[string]bool{"one way": true, "both ways": true, "thesis's peak, 470 MB/s": true}
	found := 0
	for _, a := range rec.Actions {
		s, ok := a.(*recorder.FillString)
		if !ok || !entries[s.String] {
			continue
		}
		found++
		if s.Point.X <= dataMax {
			t.Errorf("legend entry %q drawn at x %v, inside the data area (ends at %v)", s.String, s.Point.X, dataMax)
		}
	}
	if found != 3 {
		t.Errorf("found %d legend entries drawn, want 3", found)
	}
}

// TestSaveWritesSVGAndPNG checks that Save writes the SVG and a PNG
// beside it, and refuses another extension or an empty figure.
func TestSaveWritesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "fig.svg")
	if err := testFigure(t).Save(path); err != nil {
		t.Fatal(err)
	}
	for ext, prefix := range map[string]string{".svg": "<?xml", ".png": "\x89PNG\r\n\x1a\n"} {
		data, err := os.ReadFile(filepath.Join(dir, "sub", "fig"+ext))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(prefix)) {
			t.Errorf("fig%s starts %.12q, want %q", ext, data, prefix)
		}
	}
	svg, _ := os.ReadFile(path)
	for _, want := range []string{"4 KiB", "1 MiB", "thesis&#39;s peak, 470 MB/s"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if err := testFigure(t).Save(filepath.Join(dir, "fig.png")); err == nil {
		t.Error("Save to a .png path: no error")
	}
	if err := New("empty", "x", "y").Save(filepath.Join(dir, "empty.svg")); err == nil {
		t.Error("Save of an empty figure: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "empty.svg")); err == nil {
		t.Error("Save of an empty figure wrote it anyway")
	}
}
