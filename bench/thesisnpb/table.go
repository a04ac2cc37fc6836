package thesisnpb

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rhinet-go/martini/bench"
)

// Series is one line of a benchmark's plot: a class over a layer.
type Series struct {
	Class, Layer string
}

// Name is the series' label: "class A, PM/RHiNET-VP".
func (s Series) Name() string { return "class " + s.Class + ", " + layerName(s.Layer) }

// Benchmarks returns the benchmarks the record holds points of, in NPB's
// order (EP IS CG MG FT BT SP LU), names it does not know last.
func (r *Record) Benchmarks() []string {
	order := []string{"EP", "IS", "CG", "MG", "FT", "BT", "SP", "LU"}
	var out []string
	for _, p := range r.Points {
		if !slices.Contains(out, p.Benchmark) {
			out = append(out, p.Benchmark)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(order, a) - rank(order, b) })
	return out
}

func rank(order []string, s string) int {
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}

// SeriesOf returns the series of benchmark b the record holds, classes in
// size order, layers in the order of Layers.
func (r *Record) SeriesOf(b string) []Series {
	var out []Series
	for _, p := range r.Points {
		s := Series{p.Class, p.Layer}
		if p.Benchmark == b && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Series) int {
		if c := classOrder(a.Class) - classOrder(b.Class); c != 0 {
			return c
		}
		return rank(Layers, a.Layer) - rank(Layers, b.Layer)
	})
	return out
}

// Procs returns the process counts of benchmark b's points, ascending.
func (r *Record) Procs(b string) []int {
	var out []int
	for _, p := range r.Points {
		if p.Benchmark == b && !slices.Contains(out, p.NP) {
			out = append(out, p.NP)
		}
	}
	slices.Sort(out)
	return out
}

// Mops returns the Mop/s of benchmark b, series s, on np processes.
func (r *Record) Mops(b string, s Series, np int) (float64, bool) {
	p, ok := r.Find(Key{Benchmark: b, Class: s.Class, Layer: s.Layer, NP: np})
	return p.Mops, ok
}

// WriteTables writes a Markdown table per benchmark: Mop/s against
// processes, a column per class and layer ("—" where the record has no
// run).
func WriteTables(w io.Writer, r *Record) error {
	for _, b := range r.Benchmarks() {
		fmt.Fprintf(w, "\n### %s\n\nMop/s in total, virtual time.\n\n", b)
		if err := writeTable(w, r, b); err != nil {
			return err
		}
	}
	return nil
}

func writeTable(w io.Writer, r *Record, b string) error {
	series := r.SeriesOf(b)
	header := []string{"processes"}
	for _, s := range series {
		header = append(header, s.Class+", "+layerName(s.Layer))
	}
	var rows [][]string
	for _, np := range r.Procs(b) {
		row := []string{strconv.Itoa(np)}
		for _, s := range series {
			if v, ok := r.Mops(b, s, np); ok {
				row = append(row, strconv.FormatFloat(v, 'f', 1, 64))
			} else {
				row = append(row, "—")
			}
		}
		rows = append(rows, row)
	}
	return bench.MarkdownTable(w, header, rows)
}
