package thesisnpb

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	_ "gonum.org/v1/plot/vg/vgsvg" // .svg
)

// Plot draws benchmark b's Mop/s against processes, a line per class and
// layer (log scale: the classes differ by orders of magnitude), and saves
// it to path (.svg).
func Plot(r *Record, b, path string) error {
	p := plot.New()
	p.Title.Text = b + ": Mop/s in virtual time (martini profile, " + r.HostSpeed + " hosts)"
	p.X.Label.Text = "processes"
	p.Y.Label.Text = "Mop/s (total)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var lines []any
	for _, s := range r.SeriesOf(b) {
		var pts plotter.XYs
		for _, np := range r.Procs(b) {
			if v, ok := r.Mops(b, s, np); ok && v > 0 {
				pts = append(pts, plotter.XY{X: float64(np), Y: v})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, s.Name(), pts)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("thesisnpb: plot %s: no point above 0 Mop/s", b)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return fmt.Errorf("thesisnpb: plot %s: %w", b, err)
	}
	p.Legend.Top = true
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("thesisnpb: plot %s: %w", b, err)
	}
	if err := p.Save(16*vg.Centimeter, 11*vg.Centimeter, path); err != nil {
		return fmt.Errorf("thesisnpb: plot %s: %w", b, err)
	}
	return nil
}
