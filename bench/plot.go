package bench

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	_ "gonum.org/v1/plot/vg/vgimg" // .png
	_ "gonum.org/v1/plot/vg/vgsvg" // .svg
)

// The size of the plots.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
)

// PlotLatency draws t[usec] against the message size for every Series
// of rec measuring benchmark, one line per series, both axes
// logarithmic, and saves it to path, a .png or .svg file. Size 0, which
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
// and saves it to path, a .png or .svg file.
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
// benchmark in rec and saves the plot to path.
func plotSeries(rec *Record, benchmark, path, yLabel string, logY bool, y func(Row) float64) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("%s: want a .png or .svg file", path)
	}
	if rec == nil {
		return errors.New("no record")
	}
	var series []Series
	var lines []any // for plotutil.AddLinePoints: title, XYs, title, XYs...
	for _, s := range rec.Series {
		if s.Benchmark != benchmark {
			continue
		}
		series = append(series, s)
		if xys := plotPoints(s, y); len(xys) > 0 {
			lines = append(lines, seriesTitle(s), xys)
		}
	}
	if len(series) == 0 {
		return errors.New("the record has no series of it")
	}
	if len(lines) == 0 {
		return errNoPoints
	}

	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s", benchmark, processesText(series))
	p.X.Label.Text = "message size [bytes]"
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}

	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = pow2Range(p.X.Min, p.X.Max)
	p.X.Tick.Marker = pow2Ticks{}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = decadeRange(p.Y.Min, p.Y.Max)
		p.Y.Tick.Marker = decadeTicks{}
	} else {
		p.Y.Min = 0
	}

	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

// pow2Range widens [lo, hi], above 0, to powers of two, at least one
// apart.
func pow2Range(lo, hi float64) (float64, float64) {
	a, b := math.Floor(math.Log2(lo)), math.Ceil(math.Log2(hi))
	if a == b {
		a, b = a-1, b+1
	}
	return math.Exp2(a), math.Exp2(b)
}

// decadeRange widens [lo, hi], above 0, to powers of ten, at least one
// apart.
func decadeRange(lo, hi float64) (float64, float64) {
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if a == b {
		b++
	}
	return math.Pow(10, a), math.Pow(10, b)
}

// pow2Ticks marks the powers of two of a log axis of message sizes,
// labelling every one, or every second, fourth... so that at most eight
// have a label ("16", "1 KiB").
type pow2Ticks struct{}

// Ticks returns the ticks between min and max, which must be above 0.
func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := int(math.Ceil(math.Log2(min))), int(math.Floor(math.Log2(max)))
	step := 1
	for (hi-lo)/step > 8 {
		step *= 2
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if e%step == 0 && e >= 0 && e < 63 {
			t.Label = FormatBytes(1 << e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// decadeTicks marks a log axis at 1, 2, ..., 9 times the powers of ten,
// labelling the powers of ten, and 2× and 5× them when the axis spans
// two decades at most.
type decadeTicks struct{}

// Ticks returns the ticks between min and max, which must be above 0.
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	dense := hi-lo <= 2
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v, err := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64) // exact, unlike m * 10^e
			if err != nil || v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
