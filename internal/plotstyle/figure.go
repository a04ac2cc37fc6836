package plotstyle

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of a figure, and the resolution of its PNG.
const (
	Width  = 20 * vg.Centimeter
	Height = 11 * vg.Centimeter
	PNGDPI = 110
)

// Figure is a plot in the project's style: its series and reference lines
// get their styles in the order they are added, and the legend is drawn
// in a column right of the plot.
type Figure struct {
	Plot   *plot.Plot
	legend plot.Legend
	series int       // series added so far
	refs   []float64 // the reference values, which the y axis must show
}

// New returns an empty figure with a title and axis labels, a light grid,
// and linear axes marked by LinearTicks.
func New(title, xLabel, yLabel string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = LinearTicks{}
	p.Y.Tick.Marker = LinearTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xDD}
	g.Horizontal.Color = color.Gray{Y: 0xDD}
	p.Add(g)
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	l.ThumbnailWidth = vg.Points(26)
	return &Figure{Plot: p, legend: l}
}

// LogBytesX makes the x axis logarithmic, marked by ByteTicks.
func (f *Figure) LogBytesX() {
	f.Plot.X.Scale = plot.LogScale{}
	f.Plot.X.Tick.Marker = ByteTicks{}
}

// LogY makes the y axis logarithmic, marked by LogTicks.
func (f *Figure) LogY() {
	f.Plot.Y.Scale = plot.LogScale{}
	f.Plot.Y.Tick.Marker = LogTicks{}
}

// AddSeries draws xys as a line with markers in the next series' style
// (SeriesStyle) and names it in the legend. It returns the series' index,
// for AddReference and AddThesis.
func (f *Figure) AddSeries(name string, xys plotter.XYs) (int, error) {
	i := f.series
	st := SeriesStyle(i)
	if err := f.addLine(name, xys, st, st.Dashes); err != nil {
		return 0, err
	}
	f.series++
	return i, nil
}

// AddThesis draws a published series (the thesis's figures) in the colour
// of the series like with hollow markers and a dashed line, and names it
// in the legend.
func (f *Figure) AddThesis(name string, xys plotter.XYs, like int) error {
	st := SeriesStyle(like)
	st.Shape = draw.RingGlyph{}
	if len(xys) == 1 {
		st.Shape = draw.SquareGlyph{}
	}
	return f.addLine(name, xys, st, []vg.Length{vg.Points(5), vg.Points(3)})
}

// addLine adds xys drawn in st with the dash pattern dashes.
func (f *Figure) addLine(name string, xys plotter.XYs, st Style, dashes []vg.Length) error {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("plotstyle: series %q: %w", name, err)
	}
	l.Color, l.Width, l.Dashes = st.Color, vg.Points(1.5), dashes
	s.Color, s.Shape, s.Radius = st.Color, st.Shape, vg.Points(3)
	f.Plot.Add(l, s)
	f.legend.Add(name, l, s)
	return nil
}

// AddReference draws a published value y as a horizontal dashed line
// across the plot in the colour of the series like, named in the legend.
func (f *Figure) AddReference(name string, y float64, like int) error {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("plotstyle: reference %q: value %v", name, y)
	}
	fn := plotter.NewFunction(func(float64) float64 { return y })
	fn.Color = SeriesStyle(like).Color
	fn.Width = vg.Points(1)
	fn.Dashes = []vg.Length{vg.Points(8), vg.Points(4)}
	fn.Samples = 2
	f.Plot.Add(fn)
	f.legend.Add(name, fn)
	f.refs = append(f.refs, y)
	return nil
}

// Save writes the figure to path, an .svg file, and a PNG beside it
// (path with .png), creating the directory if need be.
func (f *Figure) Save(path string) error {
	if strings.ToLower(filepath.Ext(path)) != ".svg" {
		return fmt.Errorf("plotstyle: %s: want an .svg file", path)
	}
	if f.series == 0 && len(f.refs) == 0 {
		return errors.New("plotstyle: " + path + ": nothing to plot")
	}
	f.fitRanges()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("plotstyle: %w", err)
	}
	svg := vgsvg.New(Width, Height)
	f.draw(draw.New(svg))
	if err := writeFile(path, svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(PNGDPI), vgimg.UseBackgroundColor(color.White))
	f.draw(draw.New(img))
	return writeFile(strings.TrimSuffix(path, filepath.Ext(path))+".png", vgimg.PngCanvas{Canvas: img})
}

// writeFile writes what wt writes to path.
func writeFile(path string, wt io.WriterTo) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plotstyle: %w", err)
	}
	if _, err := wt.WriteTo(out); err != nil {
		out.Close()
		return fmt.Errorf("plotstyle: %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("plotstyle: %w", err)
	}
	return nil
}

// fitRanges widens the axes so that the reference lines show, a
// logarithmic byte axis starts and ends at powers of two and a
// logarithmic y axis holds several labelled ticks (LogRange); a linear
// one ends on a labelled tick.
func (f *Figure) fitRanges() {
	p := f.Plot
	for _, y := range f.refs {
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y), math.Max(p.Y.Max, y*1.05)
	}
	if _, ok := p.X.Tick.Marker.(ByteTicks); ok && p.X.Min > 0 {
		p.X.Min, p.X.Max = pow2Range(p.X.Min, p.X.Max)
	}
	switch p.Y.Tick.Marker.(type) {
	case LogTicks:
		if p.Y.Min > 0 {
			p.Y.Min, p.Y.Max = LogRange(p.Y.Min, p.Y.Max)
		}
	case LinearTicks:
		if p.Y.Max > p.Y.Min {
			// End on a labelled tick, so that the top of the data reads.
			step := linearStep(p.Y.Max - p.Y.Min)
			p.Y.Max = math.Ceil(p.Y.Max/step*(1-1e-9)) * step
		}
	}
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

// legendGap is the space between the plot and the legend column, and
// margin the space above the title and right of the legend.
const (
	legendGap = 4 * vg.Millimeter
	margin    = 2 * vg.Millimeter
)

// layout splits c, less a margin at the top and right, into the plot's part and,
// on the right, the legend's column, as wide as the legend's longest
// entry.
func (f *Figure) layout(c draw.Canvas) (plotC, legendC draw.Canvas) {
	c = draw.Crop(c, 0, -margin, 0, -margin)
	r := f.legend.Rectangle(c)
	width := r.Max.X - r.Min.X
	return draw.Crop(c, 0, -(width + legendGap), 0, 0), draw.Crop(c, c.Size().X-width-legendGap/2, 0, 0, 0)
}

// draw draws the plot into c and the legend in the column right of it,
// level with the top of the data.
func (f *Figure) draw(c draw.Canvas) {
	plotC, legendC := f.layout(c)
	f.Plot.Draw(plotC)
	l := f.legend
	l.YOffs = -f.Plot.Title.TextStyle.Rectangle(f.Plot.Title.Text).Size().Y - f.Plot.Title.Padding - vg.Millimeter
	l.Draw(legendC)
}
