package bench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// suiteSet is the suite's records of one machine kind at one process
// count, newest first: the runs a cell of the summary is the median of.
type suiteSet struct {
	np    int
	files []RecordFile
}

// machineGroup is the suite's records of one machine kind, by process
// count.
type machineGroup struct {
	key     machineKey
	machine Machine // of the newest record
	sets    []suiteSet
}

// machineKey identifies a kind of machine in the records: the CPU model
// and the CPUs the run could use; and the system MPI measured beside, by
// family, where it is not Open MPI (whose records came first), so that
// one MPI's times are never the median of another's.
type machineKey struct {
	cpu  string
	cpus int
	peer string
}

// String names the machine kind in a heading.
func (k machineKey) String() string {
	s := orUnknown(k.cpu)
	if k.cpus > 0 {
		s += fmt.Sprintf(", %d CPUs", k.cpus)
	}
	if k.peer != "" {
		s += ", against " + k.peer
	}
	return s
}

// peerFamily is the MPI family or families a record's notes name as its
// system MPIs ("system MPI: MPICH Hydra 4.0.2"): "MPICH", "Open MPI and
// MPICH" for a run that measured both, the first such note's own word for
// another MPI, or "" for Open MPI alone and for a record that measured
// none.
func peerFamily(rec *Record) string {
	var families []string
	other := ""
	for _, n := range rec.Notes {
		v, ok := strings.CutPrefix(n, "system MPI: ")
		if !ok || strings.Contains(v, "not found") || strings.Contains(v, "not measured") {
			continue
		}
		switch f := familyOf(v); {
		case f == "Open MPI" || f == "MPICH":
			if !slices.Contains(families, f) {
				families = append(families, f)
			}
		case other == "":
			other = f
		}
	}
	switch {
	case len(families) == 0:
		return other
	case len(families) == 1 && families[0] == "Open MPI":
		return ""
	}
	return strings.Join(families, " and ")
}

// groupSuite groups the suite's records of files (newest first) by
// machine kind and process count: the kinds in the order of their newest
// record, the counts ascending.
func groupSuite(files []RecordFile) []machineGroup {
	var groups []machineGroup
	for _, f := range files {
		if f.Kind != KindSuite || f.Record == nil {
			continue
		}
		k := machineKey{f.Record.Machine.CPU, f.Record.Machine.CPUs, peerFamily(f.Record)}
		i := slices.IndexFunc(groups, func(g machineGroup) bool { return g.key == k })
		if i < 0 {
			groups = append(groups, machineGroup{key: k, machine: f.Record.Machine})
			i = len(groups) - 1
		}
		g := &groups[i]
		np := f.Record.Params.NP
		j := slices.IndexFunc(g.sets, func(s suiteSet) bool { return s.np == np })
		if j < 0 {
			g.sets = append(g.sets, suiteSet{np: np})
			j = len(g.sets) - 1
		}
		g.sets[j].files = append(g.sets[j].files, f)
	}
	for i := range groups {
		slices.SortFunc(groups[i].sets, func(a, b suiteSet) int { return cmp.Compare(a.np, b.np) })
	}
	return groups
}

// ownSeries returns the series of rec that the summary shows for this
// runtime at benchmark: the default variant's, or else the first of this
// runtime's; ok is false when there is none.
func ownSeries(rec *Record, benchmark string) (Series, bool) {
	var first *Series
	for i, s := range rec.Series {
		if s.Benchmark != benchmark || s.Source != SourceMartini {
			continue
		}
		if s.Variant == "default" {
			return s, true
		}
		if first == nil {
			first = &rec.Series[i]
		}
	}
	if first == nil {
		return Series{}, false
	}
	return *first, true
}

// fasterPeer returns the time of the faster system MPI of rec at
// benchmark and size, and its name when the record measured several (the
// Variant of its series); 0 when none measured it.
func fasterPeer(rec *Record, benchmark string, size int) (float64, string) {
	var series []Series
	for _, s := range rec.Series {
		if s.Benchmark == benchmark {
			series = append(series, s)
		}
	}
	best, peers := fastestPeer(series, size, func(r Row) float64 { return r.T }, false)
	switch {
	case best < 0:
		return 0, ""
	case peers < 2:
		return rowAt(series[best], size), ""
	}
	return rowAt(series[best], size), series[best].Variant
}

// unmatchedAt reports whether a column of rec at benchmark and size ran
// in another state of the machine than the others (Row.Unmatched).
func unmatchedAt(rec *Record, benchmark string, size int) bool {
	for _, s := range rec.Series {
		if s.Benchmark != benchmark {
			continue
		}
		if i := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Bytes == size }); i >= 0 && s.Rows[i].Unmatched {
			return true
		}
	}
	return false
}

// rowAt returns the time of s at size, or 0 when s has no such row.
func rowAt(s Series, size int) float64 {
	if i := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Bytes == size }); i >= 0 {
		return s.Rows[i].T
	}
	return 0
}

// summaryCell writes the cell of benchmark at size over the runs of set:
// the medians of this runtime's and the system MPI's times and the
// median of the runs' ratios, "0.150 / 0.130 (1.15)"; this runtime's
// alone without a system MPI; cellMissing without either. Where the runs
// measured several system MPIs, a run's is its faster one at that size,
// and the cell names the one faster in most runs: "0.150 / 0.130 MPICH (1.15)".
// A run whose columns at that point ran in different states of the
// machine (Row.Unmatched) is left out, unless every run there is such a
// run.
func summaryCell(set suiteSet, benchmark string, size int) string {
	files := slices.DeleteFunc(slices.Clone(set.files), func(f RecordFile) bool { return unmatchedAt(f.Record, benchmark, size) })
	if len(files) == 0 {
		files = set.files
	}
	var own, peer, ratios []float64
	wins := map[string]int{}
	for _, f := range files {
		to := 0.0
		if o, ok := ownSeries(f.Record, benchmark); ok {
			to = rowAt(o, size)
		}
		tp, name := fasterPeer(f.Record, benchmark, size)
		if to > 0 {
			own = append(own, to)
		}
		if tp > 0 {
			peer = append(peer, tp)
			wins[name]++
		}
		if to > 0 && tp > 0 {
			ratios = append(ratios, to/tp)
		}
	}
	switch {
	case len(own) == 0:
		return cellMissing
	case len(peer) == 0:
		return formatUsec(median(own))
	}
	theirs := formatUsec(median(peer))
	if name := mostWins(wins); name != "" {
		theirs += " " + name
	}
	if len(ratios) == 0 {
		return formatUsec(median(own)) + " / " + theirs
	}
	return fmt.Sprintf("%s / %s (%.2f)", formatUsec(median(own)), theirs, median(ratios))
}

// mostWins returns the name counted most often in wins, the first by name
// among equals.
func mostWins(wins map[string]int) string {
	best := ""
	for _, name := range slices.Sorted(maps.Keys(wins)) {
		if wins[name] > wins[best] {
			best = name
		}
	}
	return best
}

// groupSizes returns, for each benchmark the group measured (in the order
// of AllBenchmarks, unknown names last), the sizes measured, ascending.
func groupSizes(g machineGroup) ([]string, map[string][]int) {
	sizes := map[string][]int{}
	var present []string
	for _, set := range g.sets {
		for _, f := range set.files {
			for _, s := range f.Record.Series {
				if !slices.Contains(present, s.Benchmark) {
					present = append(present, s.Benchmark)
				}
				for _, r := range s.Rows {
					if !slices.Contains(sizes[s.Benchmark], r.Bytes) {
						sizes[s.Benchmark] = append(sizes[s.Benchmark], r.Bytes)
					}
				}
			}
		}
	}
	order := recordBenchmarks(&Record{Series: seriesNamed(present)})
	for _, bm := range order {
		slices.Sort(sizes[bm])
	}
	return order, sizes
}

// seriesNamed returns one empty Series per benchmark name.
func seriesNamed(names []string) []Series {
	out := make([]Series, len(names))
	for i, n := range names {
		out[i].Benchmark = n
	}
	return out
}

// writeSuiteSummary writes the summary of the suite's records: a section
// per machine kind with its records, the cross-core floor, a table of
// every benchmark and size against the process counts, and the plots of
// the newest record of each process count that has each benchmark, which
// it draws into dir/plots.
func writeSuiteSummary(b *bytes.Buffer, dir string, files []RecordFile) error {
	groups := groupSuite(files)
	if len(groups) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\n## The benchmark suite against the system MPI\n\n")
	fmt.Fprintln(b, "One section per machine (the CPU model and the CPUs a run could use), from the records of `go run ./cmd/mpibench`.")
	fmt.Fprintln(b, "A cell is this runtime's default / the system MPI's time in µs, medians over the runs of that process count, and the median of the runs' ratios: below 1, this runtime is faster.")
	fmt.Fprintln(b, "Where a run measured two system MPIs, its ratio is to the faster of them at that point, and the cell names the one faster in most runs.")
	fmt.Fprintln(b, "A run whose columns at a point ran in different states of the machine, by the floors its jobs measured after each sample (docs/benchmarks.md, \"The jobs' own floor\"), is left out of that cell, unless every run there is such a run.")
	fmt.Fprintln(b, "Collectives: the slowest rank's time. Every sample is in the records (*.json).")
	for _, g := range groups {
		if err := writeMachineSection(b, dir, g); err != nil {
			return err
		}
	}
	return nil
}

// writeMachineSection writes the summary section of one machine kind.
func writeMachineSection(b *bytes.Buffer, dir string, g machineGroup) error {
	fmt.Fprintf(b, "\n### %s\n\n", g.key)
	fmt.Fprintf(b, "%s. Records:\n\n", describeMachine(g.machine))
	for _, set := range g.sets {
		links := make([]string, len(set.files))
		for i, f := range set.files {
			links[i] = fmt.Sprintf("[%s](%s)", strings.TrimSuffix(f.Name, ".json"), markdownLink(f.Name))
		}
		fmt.Fprintf(b, "- np %d, %s: %s\n", set.np, runsText(len(set.files)), strings.Join(links, ", "))
	}
	if floors := groupFloors(g); floors != "" {
		fmt.Fprintf(b, "\nCross-core floor (%s), median of the records: %s.\n", FloorWhatPlain, floors)
	}
	if gauges := groupComputes(g); gauges != "" {
		fmt.Fprintf(b, "\nCompute gauge of the floor's two CPUs (%s), median of the records: %s.\n", ComputeWhatPlain, gauges)
	}
	writeGroupWarnings(b, g)
	fmt.Fprintln(b)
	header := []string{"benchmark", "bytes"}
	for _, set := range g.sets {
		header = append(header, fmt.Sprintf("np %d", set.np))
	}
	order, sizes := groupSizes(g)
	var rows [][]string
	for _, bm := range order {
		for _, size := range sizes[bm] {
			row := []string{bm, FormatBytes(size)}
			for _, set := range g.sets {
				row = append(row, summaryCell(set, bm, size))
			}
			rows = append(rows, row)
		}
	}
	if err := MarkdownTable(b, header, rows); err != nil {
		return fmt.Errorf("bench: summary of %s: %w", g.key, err)
	}
	if err := writeGroupPairs(b, g); err != nil {
		return err
	}
	return writeGroupPlots(b, dir, g)
}

// writeGroupWarnings lists the records of g that warn that their figures
// may be wrong (Record.Warning), with the warning.
func writeGroupWarnings(b *bytes.Buffer, g machineGroup) {
	var lines []string
	for _, set := range g.sets {
		for _, f := range set.files {
			if f.Record != nil && f.Record.Warning != "" {
				lines = append(lines, fmt.Sprintf("- [%s](%s): %s", strings.TrimSuffix(f.Name, ".json"), markdownLink(f.Name), f.Record.Warning))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**Warning**: the figures of %s may be wrong, by the run's own checks (they still count in the medians below):\n\n%s\n",
		runsText(len(lines)), strings.Join(lines, "\n"))
}

// runsText says "1 run" or "N runs".
func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}

// groupFloors writes the median cross-core floor of each process count's
// records that measured one: "np 2 0.07 µs, np 4 0.06 µs"; "" for none.
func groupFloors(g machineGroup) string {
	var parts []string
	for _, set := range g.sets {
		var ts []float64
		for _, f := range set.files {
			if f.Record.Floor != nil {
				ts = append(ts, f.Record.Floor.T)
			}
		}
		if len(ts) > 0 {
			parts = append(parts, fmt.Sprintf("np %d %s µs", set.np, formatUsec(median(ts))))
		}
	}
	return strings.Join(parts, ", ")
}

// groupComputes writes the median compute gauge of each of the floor's
// CPUs over each process count's records that measured them: "np 2
// 0.93/0.94 ms"; "" for none.
func groupComputes(g machineGroup) string {
	var parts []string
	for _, set := range g.sets {
		var cpu [2][]float64
		for _, f := range set.files {
			if fl := f.Record.Floor; fl != nil && len(fl.Compute) == 2 {
				cpu[0], cpu[1] = append(cpu[0], fl.Compute[0]), append(cpu[1], fl.Compute[1])
			}
		}
		if len(cpu[0]) > 0 {
			parts = append(parts, fmt.Sprintf("np %d %s ms", set.np, ComputeList([][]float64{{median(cpu[0]), median(cpu[1])}})))
		}
	}
	return strings.Join(parts, ", ")
}

// writeGroupPlots draws, for each benchmark of g, the latency (and, point
// to point, bandwidth) plot of the newest record of every process count
// that has the benchmark, together, a line per series and process count,
// into dir/plots, and links them: a plot per benchmark and machine shows
// how the times grow with the processes, and keeps the plots few as
// process counts are added. A newer record of some benchmarks alone
// leaves the others' plots as they were. Each file is named after the
// newest of the records it draws.
func writeGroupPlots(b *bytes.Buffer, dir string, g machineGroup) error {
	order, _ := groupSizes(g)
	var links []string
	for _, bm := range order {
		merged, name := newestWith(g, bm)
		for _, p := range recordPlots(bm) {
			file := fmt.Sprintf("%s-%s-%s.svg", name, bm, p.kind)
			err := p.draw(merged, bm, filepath.Join(dir, plotsDir, file))
			switch {
			case errors.Is(err, errNoPoints):
				continue
			case err != nil:
				return fmt.Errorf("%s: %w", name, err)
			}
			links = append(links, fmt.Sprintf("[%s %s](%s)", bm, p.kind, markdownLink(plotsDir+"/"+file)))
		}
	}
	fmt.Fprintf(b, "\nPlots of the newest record of each process count that has the benchmark, a line per series and process count: %s\n", strings.Join(links, ", "))
	return nil
}

// newestWith returns the series of benchmark from the newest record of
// each process count of g that has it, and the name of the newest of
// those records.
func newestWith(g machineGroup, benchmark string) (*Record, string) {
	merged := &Record{}
	name := ""
	for _, set := range g.sets {
		for _, f := range set.files { // newest first
			i := slices.IndexFunc(f.Record.Series, func(s Series) bool { return s.Benchmark == benchmark })
			if i < 0 {
				continue
			}
			for _, s := range f.Record.Series[i:] {
				if s.Benchmark == benchmark {
					merged.Series = append(merged.Series, s)
				}
			}
			name = max(name, strings.TrimSuffix(f.Name, ".json"))
			break
		}
	}
	return merged, name
}

// plotKind is a kind of plot of a benchmark and how it is drawn.
type plotKind struct {
	kind string
	draw func(rec *Record, benchmark, path string) error
}

// recordPlots returns the plots of benchmark: latency, and bandwidth for
// point to point.
func recordPlots(benchmark string) []plotKind {
	plots := []plotKind{{"latency", PlotLatency}}
	if !IsCollective(benchmark) {
		plots = append(plots, plotKind{"bandwidth", PlotBandwidth})
	}
	return plots
}
