package nicbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/plotter"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/internal/plotstyle"
	"github.com/rhinet-go/martini/nicemu"
)

// Figure is a figure of the thesis that the reproduction measures.
type Figure struct {
	What   string  // what it is
	Unit   string  // "µs", "MB/s" or "B"
	Thesis float64 // the thesis's value
	Source string  // where in the thesis
	// Of returns the figure measured in a run.
	Of func(r *Run) (float64, error)
}

func write(kind string) func(*Run) (float64, error) {
	return func(r *Run) (float64, error) { return r.Write[kind], nil }
}

func read(kind string) func(*Run) (float64, error) {
	return func(r *Run) (float64, error) { return r.Read[kind], nil }
}

// The thesis's peak PUSH throughputs (Fig 6.3), MB/s.
const (
	ThesisOneWayPeak        = 444
	ThesisBidirectionalPeak = 470
)

// Figures are the thesis's figures the reproduction measures, in the order
// of its table.
var Figures = []Figure{
	{"8 B remote write, PUSH", "µs", 2.48, "Table 6.2", write(WritePush)},
	{"8 B remote write, BOTF", "µs", 2.14, "Table 6.2", write(WriteBOTF)},
	{"8 B remote write, AOTF", "µs", 1.74, "Table 6.2", write(WriteAOTF)},
	{"8 B remote read, PULL", "µs", 3.26, "Table 6.3", read(ReadPull)},
	{"8 B remote read, BOTF pull request", "µs", 3.08, "Table 6.3", read(ReadBOTFPull)},
	{"PUSH throughput, one way, peak", "MB/s", ThesisOneWayPeak, "Fig 6.3", func(r *Run) (float64, error) { return Peak(r.OneWay), nil }},
	{"PUSH throughput, bidirectional, peak", "MB/s", ThesisBidirectionalPeak, "Fig 6.3", func(r *Run) (float64, error) { return Peak(r.Bidirectional), nil }},
	{"Size_half (one way reaches half its peak)", "B", 1024, "6.1.3, Fig 6.3", func(r *Run) (float64, error) {
		return SizeHalf(r.Sizes, r.OneWay, Peak(r.OneWay))
	}},
	{"PATLB miss on every send: SOFT − HARD round trip, 32 B", "µs", 10, "7.5.2, Fig 7.9", miss(32, func(m MissPoint) float64 { return m.Soft - m.Hard })},
	{"PATLB miss on every send: HARD's saving over SOFT, 32 B", "%", 21, "7.5.2, Fig 7.9", miss(32, func(m MissPoint) float64 { return 100 * m.Saving() })},
	{"PATLB miss on every send: HARD's saving over SOFT, 2 KB", "%", 16, "7.5.2, Fig 7.9", miss(2048, func(m MissPoint) float64 { return 100 * m.Saving() })},
	{"PM/RHiNET round trip, 8 B, 2 processes", "µs", PMThesis["pm"][2], "8.4.3, Fig 8.7", pm("pm", 2)},
	{"PM/RHiNET-VP round trip, 8 B, 2 processes", "µs", PMThesis["vp"][2], "8.4.3, Fig 8.7", pm("vp", 2)},
	{"PM/RHiNET round trip, 8 B, 16 processes", "µs", PMThesis["pm"][16], "8.3.2, Fig 8.4", pm("pm", 16)},
}

func miss(size int, f func(MissPoint) float64) func(*Run) (float64, error) {
	return func(r *Run) (float64, error) {
		for _, m := range r.PATLB {
			if m.Size == size {
				return f(m), nil
			}
		}
		return 0, fmt.Errorf("nicbench: no PATLB-miss round trip of %d B", size)
	}
}

func pm(transport string, procs int) func(*Run) (float64, error) {
	return func(r *Run) (float64, error) {
		v, ok := r.PM[transport][procs]
		if !ok {
			return 0, fmt.Errorf("nicbench: no %s round trip at %d processes", transport, procs)
		}
		return v, nil
	}
}

// Tolerance is how far from the thesis a figure of the martini profile may
// land and still count as reproduced.
const Tolerance = 0.10

// WriteTable writes the reproduction table as Markdown: each figure of the
// thesis beside its value under each run's profile; the deviation is shown
// for the martini profile.
func WriteTable(w io.Writer, runs []*Run) error {
	header := []string{"figure", "thesis", "source"}
	for _, r := range runs {
		header = append(header, r.Name())
		if r.Profile == nicemu.ProfileMartini {
			header = append(header, "deviation", fmt.Sprintf("within ±%.0f%%", 100*Tolerance))
		}
	}
	var rows [][]string
	for _, f := range Figures {
		row := []string{f.What + " (" + f.Unit + ")", format(f.Thesis, f.Unit), f.Source}
		for _, r := range runs {
			v, err := f.Of(r)
			if err != nil {
				row = append(row, "—")
				if r.Profile == nicemu.ProfileMartini {
					row = append(row, "—", "no")
				}
				continue
			}
			row = append(row, format(v, f.Unit))
			if r.Profile == nicemu.ProfileMartini {
				dev := (v - f.Thesis) / f.Thesis
				ok := "yes"
				if math.Abs(dev) > Tolerance {
					ok = "no"
				}
				row = append(row, fmt.Sprintf("%+.1f%%", 100*dev), ok)
			}
		}
		rows = append(rows, row)
	}
	return bench.MarkdownTable(w, header, rows)
}

func format(v float64, unit string) string {
	switch unit {
	case "µs":
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Reproduced reports whether every figure of the martini run lands within
// Tolerance of the thesis, and lists those that do not.
func Reproduced(r *Run) (bool, []string) {
	var off []string
	for _, f := range Figures {
		v, err := f.Of(r)
		if err != nil || math.Abs(v-f.Thesis)/f.Thesis > Tolerance {
			off = append(off, f.What)
		}
	}
	return len(off) == 0, off
}

// PlotThroughput draws a run's one-way and bidirectional throughput
// against the transfer size, under the martini profile with the thesis's
// peaks (Fig 6.3) as reference lines in the colour of their curve (other
// profiles model other hardware), and saves it to path (.svg, with a PNG
// beside it).
func PlotThroughput(r *Run, path string) error {
	f := plotstyle.New("PUSH throughput, "+r.Name()+" profile", "bytes per PUSH", "MB/s (MB = 10⁶ bytes)")
	f.LogBytesX()
	f.Plot.Y.Min = 0
	one, bi := make(plotter.XYs, len(r.Sizes)), make(plotter.XYs, len(r.Sizes))
	for i, s := range r.Sizes {
		one[i] = plotter.XY{X: float64(s), Y: r.OneWay[i]}
		bi[i] = plotter.XY{X: float64(s), Y: r.Bidirectional[i]}
	}
	lines := []struct {
		name, ref string
		xys       plotter.XYs
		thesis    float64
	}{
		{"one way", "thesis's peak", one, ThesisOneWayPeak},
		{"bidirectional (sum)", "thesis's peak", bi, ThesisBidirectionalPeak},
	}
	for _, l := range lines {
		i, err := f.AddSeries(l.name, l.xys)
		if err != nil {
			return fmt.Errorf("nicbench: plot: %w", err)
		}
		if r.Profile != nicemu.ProfileMartini {
			continue
		}
		if err := f.AddReference(fmt.Sprintf("%s, %g MB/s", l.ref, l.thesis), l.thesis, i); err != nil {
			return fmt.Errorf("nicbench: plot: %w", err)
		}
	}
	if err := f.Save(path); err != nil {
		return fmt.Errorf("nicbench: plot: %w", err)
	}
	return nil
}

// PMThesis are the thesis's PM round trips (µs) by transport and job size:
// Fig 8.7 at 2 processes, Fig 8.4 at 16 (PM/RHiNET only; up to 8
// processes the thesis found it "almost unchanged").
var PMThesis = map[string]map[int]float64{"pm": {2: 10.1, 16: 11.9}, "vp": {2: 25.5}}

// PMNames are the PM transports' names as the thesis writes them.
var PMNames = map[string]string{"pm": "PM/RHiNET", "vp": "PM/RHiNET-VP"}

// WritePMTable writes the PM round trips of each run against the number
// of processes, beside the thesis's, as Markdown.
func WritePMTable(w io.Writer, runs []*Run) error {
	header := []string{"processes"}
	for _, tr := range []string{"pm", "vp"} {
		header = append(header, PMNames[tr]+", thesis")
		for _, r := range runs {
			header = append(header, PMNames[tr]+", "+r.Name())
		}
	}
	var procs []int
	for _, r := range runs {
		for _, tr := range r.PM {
			for n := range tr {
				if !slices.Contains(procs, n) {
					procs = append(procs, n)
				}
			}
		}
	}
	slices.Sort(procs)
	var rows [][]string
	for _, n := range procs {
		row := []string{strconv.Itoa(n)}
		for _, tr := range []string{"pm", "vp"} {
			row = append(row, value(PMThesis[tr], n))
			for _, r := range runs {
				row = append(row, value(r.PM[tr], n))
			}
		}
		rows = append(rows, row)
	}
	return bench.MarkdownTable(w, header, rows)
}

func value(m map[int]float64, n int) string {
	if v, ok := m[n]; ok {
		return format(v, "µs")
	}
	return "—"
}

// PlotPM draws a run's PM round trips against the number of processes,
// with the thesis's points as dashed lines in the colour of the emulated
// transport, and saves it to path (.svg, with a PNG beside it).
func PlotPM(r *Run, path string) error {
	f := plotstyle.New("PM round trip (8 B), "+r.Name()+" profile", "processes in the job", "round trip (µs)")
	f.Plot.Y.Min = 0
	for _, tr := range []string{"pm", "vp"} {
		i, err := f.AddSeries(PMNames[tr]+" (emulated)", points(r.PM[tr]))
		if err != nil {
			return fmt.Errorf("nicbench: plot: %w", err)
		}
		if err := f.AddThesis(PMNames[tr]+" (thesis)", points(PMThesis[tr]), i); err != nil {
			return fmt.Errorf("nicbench: plot: %w", err)
		}
	}
	if err := f.Save(path); err != nil {
		return fmt.Errorf("nicbench: plot: %w", err)
	}
	return nil
}

func points(m map[int]float64) plotter.XYs {
	var xs []int
	for n := range m {
		xs = append(xs, n)
	}
	slices.Sort(xs)
	pts := make(plotter.XYs, len(xs))
	for i, n := range xs {
		pts[i] = plotter.XY{X: float64(n), Y: m[n]}
	}
	return pts
}
