package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Units of the reference figures (Reference.Unit).
const (
	refUnitUsec = "usec"
	refUnitMBps = "MB/s"
)

// cellMissing marks a cell without a value.
const cellMissing = "—"

// thesisColumn titles the column of the Martini thesis figures.
const thesisColumn = "Martini (thesis)"

// floorColumn titles the column of the floor (Record.Floor).
const floorColumn = "cross-core floor"

// WriteComparison writes Markdown tables comparing, side by side, every
// Series of rec measuring benchmark: one row per message size, one
// column per series, t[usec] in the cells; for point-to-point benchmarks
// a second table gives the bandwidth. The Martini thesis figures of the
// benchmark (ThesisFor) in a table's unit follow its size rows, in an
// extra "Martini (thesis)" column; the PingPong latency table of a
// record with a floor (Record.Floor) ends with the floor's row, its value
// in a column of its own. Where two system MPIs or more measured a size,
// the faster one's cell is in bold. Each table has a one-line caption.
func WriteComparison(w io.Writer, rec *Record, benchmark string) error {
	if rec == nil {
		return fmt.Errorf("bench: compare %s: no record", benchmark)
	}
	var series []Series
	for _, s := range rec.Series {
		if s.Benchmark == benchmark {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return fmt.Errorf("bench: compare %s: the record has no series of it", benchmark)
	}

	var b bytes.Buffer
	what := "t[usec]"
	if IsCollective(benchmark) {
		what = "t[usec] of the slowest rank"
	}
	latency := comparison{
		caption: fmt.Sprintf("**%s**, %s, %s%s", benchmark, processesText(series), what, samplesNote(rec.Params.Samples)),
		value:   func(r Row) float64 { return r.T },
		format:  formatUsec,
		refs:    referenceColumns(rec, benchmark, refUnitUsec),
	}
	if err := latency.write(&b, series, benchmark); err != nil {
		return err
	}
	if !IsCollective(benchmark) {
		bandwidth := comparison{
			caption:        fmt.Sprintf("**%s**, %s, Mbytes/sec (MB = 10^6 bytes, from the median t)", benchmark, processesText(series)),
			value:          func(r Row) float64 { return r.MBps },
			format:         formatMBps,
			refs:           referenceColumns(rec, benchmark, refUnitMBps),
			higherIsBetter: true,
		}
		if err := bandwidth.write(&b, series, benchmark); err != nil {
			return err
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("bench: write %s comparison: %w", benchmark, err)
	}
	return nil
}

// comparison is one table of WriteComparison: which value of a Row it
// shows, how, and the reference figures that go with it.
type comparison struct {
	caption string
	value   func(Row) float64
	format  func(float64) string
	refs    []refColumn
	// higherIsBetter: the value is a bandwidth, not a time.
	higherIsBetter bool
}

// refColumn is a column of reference figures in a comparison table: its
// rows follow the size rows, each with its value in this column alone.
type refColumn struct {
	title string
	rows  []refRow
}

// refRow is a row of reference figures: what it is (its first cell) and
// its value.
type refRow struct {
	what  string
	value float64
}

// referenceColumns returns the reference columns of a table of
// benchmark in unit: the thesis figures, and rec's floor for the PingPong
// latency.
func referenceColumns(rec *Record, benchmark, unit string) []refColumn {
	var cols []refColumn
	thesis := refColumn{title: thesisColumn}
	for _, r := range ThesisFor(benchmark) {
		if r.Unit == unit {
			thesis.rows = append(thesis.rows, refRow{"thesis: " + r.What, r.Value})
		}
	}
	if len(thesis.rows) > 0 {
		cols = append(cols, thesis)
	}
	if rec.Floor != nil && benchmark == "PingPong" && unit == refUnitUsec {
		cols = append(cols, refColumn{floorColumn, []refRow{{"floor: " + FloorWhat, rec.Floor.T}}})
	}
	return cols
}

// write renders the table of series into b, caption first.
func (c comparison) write(b *bytes.Buffer, series []Series, benchmark string) error {
	header := []string{"bytes"}
	for _, s := range series {
		header = append(header, seriesTitle(s))
	}
	for _, col := range c.refs {
		header = append(header, col.title)
	}

	var rows [][]string
	for _, size := range unionSizes(series) {
		row := []string{FormatBytes(size)}
		best := c.fasterPeer(series, size)
		for j, s := range series {
			cell := cellMissing
			if i := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Bytes == size }); i >= 0 {
				cell = c.format(c.value(s.Rows[i]))
			}
			if j == best {
				cell = "**" + cell + "**"
			}
			row = append(row, cell)
		}
		for range c.refs {
			row = append(row, "")
		}
		rows = append(rows, row)
	}
	rows = append(rows, c.referenceRows(len(series))...)

	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0] = tw.AlignLeft

	fmt.Fprintf(b, "%s\n\n", c.caption)
	if err := renderMarkdown(b, header, rows, align); err != nil {
		return fmt.Errorf("bench: %s table: %w", benchmark, err)
	}
	fmt.Fprintln(b)
	return nil
}

// fasterPeer returns the index in series of the system MPI faster at size
// (the shorter time, or the higher bandwidth), which the table marks in
// bold; -1 unless two system MPIs or more measured size.
func (c comparison) fasterPeer(series []Series, size int) int {
	if best, peers := fastestPeer(series, size, c.value, c.higherIsBetter); peers >= 2 {
		return best
	}
	return -1
}

// fastestPeer returns the index in series of the system MPI whose value
// at size is the best (the lowest, or the highest if higherIsBetter), -1
// for none, and how many system MPIs measured size.
func fastestPeer(series []Series, size int, value func(Row) float64, higherIsBetter bool) (best, peers int) {
	best = -1
	var bestValue float64
	for j, s := range series {
		i := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Bytes == size })
		if s.Source != SourcePeer || i < 0 {
			continue
		}
		v := value(s.Rows[i])
		peers++
		if best < 0 || (higherIsBetter && v > bestValue) || (!higherIsBetter && v < bestValue) {
			best, bestValue = j, v
		}
	}
	return best, peers
}

// referenceRows returns the rows of the reference columns, after
// n series columns that have no value in them.
func (c comparison) referenceRows(n int) [][]string {
	var rows [][]string
	for i, col := range c.refs {
		for _, r := range col.rows {
			row := []string{r.what}
			for range n {
				row = append(row, cellMissing)
			}
			for j := range c.refs {
				cell := ""
				if j == i {
					cell = c.format(r.value)
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// MarkdownTable writes a Markdown table: the first column aligned left, the
// others right, as the tables of results/ are.
func MarkdownTable(w io.Writer, header []string, rows [][]string) error {
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0] = tw.AlignLeft
	return renderMarkdown(w, header, rows, align)
}

// renderMarkdown writes a Markdown table with the columns aligned as
// align says.
func renderMarkdown(w io.Writer, header []string, rows [][]string, align []tw.Align) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// seriesTitle names a series in a table header or a plot legend.
func seriesTitle(s Series) string {
	if s.Source == SourcePeer {
		switch s.Variant {
		case "", "system MPI":
			return "system MPI"
		default:
			return "system MPI, " + s.Variant
		}
	}
	if s.Variant == "" {
		return "default"
	}
	return s.Variant
}

// unionSizes returns every message size of series, ascending.
func unionSizes(series []Series) []int {
	var sizes []int
	for _, s := range series {
		for _, r := range s.Rows {
			sizes = append(sizes, r.Bytes)
		}
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// processesText says how many processes ran series ("2 processes"); when
// the series differ, it lists their counts ("2/4 processes").
func processesText(series []Series) string {
	var nps []int
	for _, s := range series {
		nps = append(nps, s.NP)
	}
	slices.Sort(nps)
	nps = slices.Compact(nps)
	if len(nps) == 1 && nps[0] == 1 {
		return "1 process"
	}
	list := make([]string, len(nps))
	for i, n := range nps {
		list[i] = strconv.Itoa(n)
	}
	return strings.Join(list, "/") + " processes"
}

// samplesNote says of how many samples the times are the median.
func samplesNote(n int) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return " (1 sample)"
	default:
		return fmt.Sprintf(" (median of %d samples)", n)
	}
}

// FormatBytes writes a message size for people: bytes below 1 KiB
// ("0", "8", "1000"), else in KiB, MiB or GiB ("1 KiB", "4 MiB",
// "1.5 KiB"), with at most two decimals.
func FormatBytes(n int) string {
	units := []struct {
		name string
		size int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n < u.size {
			continue
		}
		if n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
		return strconv.FormatFloat(math.Round(float64(n)/float64(u.size)*100)/100, 'f', -1, 64) + " " + u.name
	}
	return strconv.Itoa(n)
}

// formatUsec writes a time in microseconds compactly, to about three
// significant digits: "0.35", "2.48", "12.3", "1520".
func formatUsec(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return cellMissing
	case math.Abs(v) < 9.995:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case math.Abs(v) < 99.95:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// formatMBps writes a bandwidth in MB/s: no decimals from 100 up, one
// from 10, else two; "0" for none.
func formatMBps(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return cellMissing
	case v == 0:
		return "0"
	case math.Abs(v) < 9.995:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case math.Abs(v) < 99.95:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}
