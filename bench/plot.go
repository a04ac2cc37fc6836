package bench

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/rhinet-go/martini/internal/plotstyle"
)

// PlotLatency draws t[usec] against the message size for every Series
// of rec measuring benchmark, one line per series (named with its process
// count where the series have several), both axes
// logarithmic, and saves it to path, an .svg file, with a PNG beside it. Size 0, which
// a log axis cannot show, is left out.
func PlotLatency(rec *Record, benchmark, path string) error {
	err := plotSeries(rec, benchmark, path, "t [µs]", true, func(r Row) float64 { return r.T })
	if err != nil {
		return fmt.Errorf("bench: plot %s latency: %w", benchmark, err)
	}
	return nil
}

// PlotBandwidth draws Mbytes/sec against the message size (log axis)
// for every Series of rec measuring benchmark, a point-to-point one,
// and saves it to path, an .svg file, with a PNG beside it.
func PlotBandwidth(rec *Record, benchmark, path string) error {
	var err error
	if IsCollective(benchmark) {
		err = fmt.Errorf("%s is a collective, without a bandwidth", benchmark)
	} else {
		err = plotSeries(rec, benchmark, path, "Mbytes/sec (MB = 10⁶ bytes)", false, func(r Row) float64 { return r.MBps })
	}
	if err != nil {
		return fmt.Errorf("bench: plot %s bandwidth: %w", benchmark, err)
	}
	return nil
}

// errNoPoints says that no series has a point a plot can show (only
// size 0, like Barrier).
var errNoPoints = errors.New("no message size above 0 bytes with a value to plot")

// plotSeries draws y against the message size for the series of
// benchmark in rec and saves the plot to path, an .svg file, with a PNG
// beside it.
func plotSeries(rec *Record, benchmark, path, yLabel string, logY bool, y func(Row) float64) error {
	if !strings.EqualFold(filepath.Ext(path), ".svg") {
		return fmt.Errorf("%s: want an .svg file (a .png is written beside it)", path)
	}
	if rec == nil {
		return errors.New("no record")
	}
	var series []Series
	for _, s := range rec.Series {
		if s.Benchmark == benchmark {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return errors.New("the record has no series of it")
	}
	f := plotstyle.New(fmt.Sprintf("%s, %s", benchmark, processesText(series)), "message size", yLabel)
	f.LogBytesX()
	if logY {
		f.LogY()
	} else {
		f.Plot.Y.Min = 0
	}
	severalNP := slices.ContainsFunc(series, func(s Series) bool { return s.NP != series[0].NP })
	drawn := 0
	for _, s := range series {
		if xys := plotPoints(s, y); len(xys) > 0 {
			title := seriesTitle(s)
			if severalNP {
				title = fmt.Sprintf("np %d, %s", s.NP, title)
			}
			if _, err := f.AddSeries(title, xys); err != nil {
				return err
			}
			drawn++
		}
	}
	if drawn == 0 {
		return errNoPoints
	}
	return f.Save(path)
}

// plotPoints returns the points of s a log-log plot can show: sizes and
// values above 0.
func plotPoints(s Series, y func(Row) float64) plotter.XYs {
	var xys plotter.XYs
	for _, r := range s.Rows {
		v := y(r)
		if r.Bytes > 0 && v > 0 && !math.IsInf(v, 0) {
			xys = append(xys, plotter.XY{X: float64(r.Bytes), Y: v})
		}
	}
	return xys
}
