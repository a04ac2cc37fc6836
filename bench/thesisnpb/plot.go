package thesisnpb

import (
	"fmt"

	"gonum.org/v1/plot/plotter"

	"github.com/rhinet-go/martini/internal/plotstyle"
)

// Plot draws benchmark b's Mop/s against processes, a line per class and
// layer (log scale: the classes differ by orders of magnitude), and saves
// it to path (.svg, with a PNG beside it).
func Plot(r *Record, b, path string) error {
	f := plotstyle.New(b+": Mop/s in virtual time (martini profile, "+r.HostSpeed+" hosts)", "processes", "Mop/s (total)")
	f.LogY()
	drawn := 0
	for _, s := range r.SeriesOf(b) {
		var pts plotter.XYs
		for _, np := range r.Procs(b) {
			if v, ok := r.Mops(b, s, np); ok && v > 0 {
				pts = append(pts, plotter.XY{X: float64(np), Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		if _, err := f.AddSeries(s.Name(), pts); err != nil {
			return fmt.Errorf("thesisnpb: plot %s: %w", b, err)
		}
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("thesisnpb: plot %s: no point above 0 Mop/s", b)
	}
	if err := f.Save(path); err != nil {
		return fmt.Errorf("thesisnpb: plot %s: %w", b, err)
	}
	return nil
}
