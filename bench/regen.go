package bench

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// plotsDir is the directory, under the results directory, of the plots
// Regenerate draws.
const plotsDir = "plots"

// Regenerate rewrites dir/README.md from the records (*.json) in dir,
// each read by its kind (Kind): first the newest comparison with
// NPB3.4-MPI of each benchmark, class and process count across the
// records, then every NPB kernel run in one table, then a section per
// record, newest first: when and on what it was measured and the
// parameters of the run, its notes, and for each benchmark the comparison
// tables of WriteComparison with links to plots that it draws into
// dir/plots as SVG; NPB kernel runs as a table; a comparison with
// NPB3.4-MPI as the table of WriteNPBComparison; a thesis record as a
// link to its page (ThesisPage), which package bench/nicbench writes. A
// file that is no record it can read is skipped, and the README names it
// and says why. The README and the plots depend on the records only. It
// returns what it read.
func Regenerate(dir string) (*Summary, error) { return RegenerateExcept(dir, nil) }

// RegenerateExcept is Regenerate with the files of dir that the caller
// found unreadable by rules of its own (a thesis record whose runs do not
// decode): they are skipped with the reasons given.
func RegenerateExcept(dir string, bad []Skipped) (*Summary, error) {
	s, err := readResults(dir, bad)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeReadme(&b, dir, s); err != nil {
		return nil, fmt.Errorf("bench: regenerate: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), b.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("bench: regenerate: %w", err)
	}
	return s, nil
}

// writeReadme writes the README of the records s read in dir into b and
// draws their plots.
func writeReadme(b *bytes.Buffer, dir string, s *Summary) error {
	fmt.Fprintln(b, "# Benchmark results")
	fmt.Fprintln(b)
	if len(s.Files) == 0 {
		fmt.Fprintln(b, "No records yet: this directory holds no *.json results.")
	} else {
		fmt.Fprintln(b, "One section per record (*.json) in this directory, newest first:", countKinds(s)+".")
		fmt.Fprintln(b, "Times are per operation in microseconds, medians over the samples; MB = 10^6 bytes.")
		fmt.Fprintln(b, "This file, plots/ and the thesis page are generated from the records by `go run ./cmd/mpibench report`: do not edit them by hand.")
		if err := os.MkdirAll(filepath.Join(dir, plotsDir), 0o755); err != nil {
			return err
		}
	}
	writeSkipped(b, s.Skipped)
	if err := writeNPBSummary(b, s.Files); err != nil {
		return err
	}
	// Every NPB kernel run of the directory in one table first, so that
	// they read side by side (each record holds one run).
	var all Record
	for _, f := range s.Files {
		if f.Record != nil {
			all.Kernels = append(all.Kernels, f.Record.Kernels...)
		}
	}
	if len(all.Kernels) > 1 {
		fmt.Fprintf(b, "\n## NAS Parallel Benchmarks: every run\n\n")
		fmt.Fprintf(b, "The peers.md column holds fixed class A figures of NPB3.4-MPI from peers.md, measured on another machine, not in these runs; %s.\n\n",
			"the figures of NPB3.4-MPI measured in the same run are in the comparisons (`go run ./npb/cmd/npbcompare`)")
		if err := WriteKernels(b, &all); err != nil {
			return err
		}
	}
	for _, f := range s.Files {
		fmt.Fprintln(b)
		if f.Kind == KindThesis || f.Kind == KindThesisNPB {
			writeThesisSection(b, f)
			continue
		}
		if err := writeSection(b, dir, strings.TrimSuffix(f.Name, ".json"), f.Record); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// countKinds says how many records of each kind s holds: "3 benchmark
// suite runs, 5 NPB kernel runs, 1 thesis reproduction".
func countKinds(s *Summary) string {
	names := map[Kind][2]string{
		KindSuite:      {"benchmark suite run", "benchmark suite runs"},
		KindNPB:        {"NPB kernel run", "NPB kernel runs"},
		KindNPBCompare: {"comparison with NPB3.4-MPI", "comparisons with NPB3.4-MPI"},
		KindThesis:     {"thesis reproduction", "thesis reproductions"},
		KindThesisNPB:  {"chapter 8 reproduction", "chapter 8 reproductions"},
	}
	var parts []string
	for _, k := range Kinds {
		switch n := s.Count(k); n {
		case 0:
		case 1:
			parts = append(parts, "1 "+names[k][0])
		default:
			parts = append(parts, strconv.Itoa(n)+" "+names[k][1])
		}
	}
	return strings.Join(parts, ", ")
}

// writeSkipped lists the files that are no readable record.
func writeSkipped(b *bytes.Buffer, skipped []Skipped) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Files skipped\n\nThese *.json files are no record that could be read; no section shows them.\n\n")
	for _, sk := range skipped {
		fmt.Fprintf(b, "- `%s`: %s\n", sk.Name, sk.Why)
	}
}

// writeThesisSection writes the README section of a thesis record.
func writeThesisSection(b *bytes.Buffer, f RecordFile) {
	h := f.Thesis
	what, cmd := "the thesis reproduction", "go run ./cmd/thesis"
	if f.Kind == KindThesisNPB {
		what, cmd = "the thesis's chapter 8 (NPB on PM/RHiNET and PM/RHiNET-VP)", "go run ./cmd/thesis npb"
	}
	fmt.Fprintf(b, "## %s: %s\n\n", h.Time.UTC().Format(time.RFC3339), what)
	fmt.Fprintf(b, "Record: [%s](%s), by `%s`. Its tables and plots: [%s](%s).\n\n",
		f.Name, markdownLink(f.Name), cmd, ThesisPage(f.Name), markdownLink(ThesisPage(f.Name)))
	fmt.Fprintf(b, "- Machine: %s\n", describeMachine(h.Machine))
	fmt.Fprintf(b, "- Go: %s\n", orUnknown(h.GoVersion))
	fmt.Fprintf(b, "- Git revision: %s\n", orUnknown(h.GitRevision))
}

// writeSection writes the README section of the record dir/name.json
// into b and draws its plots.
func writeSection(b *bytes.Buffer, dir, name string, rec *Record) error {
	fmt.Fprintf(b, "## %s\n\n", rec.Time.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "Record: [%s.json](%s)\n\n", name, markdownLink(name+".json"))
	fmt.Fprintf(b, "- Machine: %s\n", describeMachine(rec.Machine))
	fmt.Fprintf(b, "- Go: %s\n", orUnknown(rec.GoVersion))
	fmt.Fprintf(b, "- Git revision: %s\n", orUnknown(rec.GitRevision))
	if len(rec.NPBRuns) > 0 {
		fmt.Fprintf(b, "- Parameters: %s\n", describeComparison(rec.NPBRuns))
	} else {
		fmt.Fprintf(b, "- Parameters: %s\n", describeParams(rec.Params))
	}
	if len(rec.Notes) > 0 {
		fmt.Fprintln(b)
		fmt.Fprintln(b, "Notes:")
		fmt.Fprintln(b)
		for _, n := range rec.Notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}

	for _, bm := range recordBenchmarks(rec) {
		fmt.Fprintf(b, "\n### %s\n\n", bm)
		if err := WriteComparison(b, rec, bm); err != nil {
			return err
		}
		type plotKind struct {
			kind string
			draw func(rec *Record, benchmark, path string) error
		}
		plots := []plotKind{{"latency", PlotLatency}}
		if !IsCollective(bm) {
			plots = append(plots, plotKind{"bandwidth", PlotBandwidth})
		}
		var images []string
		for _, p := range plots {
			file := fmt.Sprintf("%s-%s-%s.svg", name, bm, p.kind)
			err := p.draw(rec, bm, filepath.Join(dir, plotsDir, file))
			switch {
			case errors.Is(err, errNoPoints):
				images = append(images, fmt.Sprintf("(no %s plot: no message size above 0 bytes)", p.kind))
			case err != nil:
				return err
			default:
				images = append(images, fmt.Sprintf("![%s %s](%s)", bm, p.kind, markdownLink(plotsDir+"/"+file)))
			}
		}
		fmt.Fprintln(b, strings.Join(images, " "))
	}
	return writeNPBSections(b, rec)
}

// writeNPBSections writes the tables of rec's NPB kernel runs and of its
// comparison with NPB3.4-MPI, those it has.
func writeNPBSections(b *bytes.Buffer, rec *Record) error {
	if len(rec.Kernels) > 0 {
		fmt.Fprintf(b, "\n### NAS Parallel Benchmarks\n\n")
		if err := WriteKernels(b, rec); err != nil {
			return err
		}
	}
	if len(rec.NPBRuns) > 0 {
		fmt.Fprintf(b, "\n### %s\n\n%s\n\n", npbComparisonTitle, npbComparisonNote)
		if err := WriteNPBComparison(b, PairNPBRuns(rec.NPBRuns)); err != nil {
			return err
		}
	}
	return nil
}

// recordBenchmarks lists the benchmarks rec has series of, in the
// order of AllBenchmarks, names it does not know last.
func recordBenchmarks(rec *Record) []string {
	var present, unknown []string
	for _, s := range rec.Series {
		if !slices.Contains(present, s.Benchmark) {
			present = append(present, s.Benchmark)
		}
	}
	var out []string
	for _, bm := range AllBenchmarks() {
		if slices.Contains(present, bm) {
			out = append(out, bm)
		}
	}
	for _, bm := range present {
		if !slices.Contains(out, bm) {
			unknown = append(unknown, bm)
		}
	}
	return append(out, unknown...)
}

// describeMachine writes what is known of m on one line.
func describeMachine(m Machine) string {
	var parts []string
	cpu := orUnknown(m.CPU)
	if m.Vendor != "" && !strings.Contains(m.CPU, m.Vendor) {
		cpu += " (" + m.Vendor + ")"
	}
	parts = append(parts, cpu)
	if m.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs usable", m.CPUs))
	}
	if m.PackageCores > 0 || m.PackageThreads > 0 {
		parts = append(parts, fmt.Sprintf("cpuid's package %s cores / %s threads",
			countOrUnknown(m.PackageCores), countOrUnknown(m.PackageThreads)))
	}
	if m.CacheLine > 0 {
		parts = append(parts, fmt.Sprintf("cache line %d B", m.CacheLine))
	}
	for _, c := range []struct {
		name string
		size int
	}{{"L1d", m.L1D}, {"L2", m.L2}, {"L3", m.L3}} {
		if c.size > 0 {
			parts = append(parts, c.name+" "+FormatBytes(c.size))
		} else {
			parts = append(parts, c.name+" unknown")
		}
	}
	if m.OS != "" || m.Arch != "" {
		parts = append(parts, orUnknown(m.OS)+"/"+orUnknown(m.Arch))
	}
	return strings.Join(parts, ", ")
}

// describeParams writes the settings of a run on one line.
func describeParams(p Params) string {
	if p.Samples == 0 {
		return fmt.Sprintf("np %d", p.NP) // a record of NPB kernels
	}
	offCache := "no"
	if p.OffCache {
		offCache = "yes"
	}
	order := ""
	if p.Interleaved {
		order = ", benchmark by benchmark"
	}
	return fmt.Sprintf("np %d, budget %s s per size, %d samples, off-cache %s%s",
		p.NP, strconv.FormatFloat(p.Budget, 'g', -1, 64), p.Samples, offCache, order)
}

// orUnknown returns s, or "unknown" for "".
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// countOrUnknown writes n, or "?" when it is not known (0).
func countOrUnknown(n int) string {
	if n <= 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

// markdownLink escapes a relative path for a Markdown link.
func markdownLink(path string) string {
	return (&url.URL{Path: path}).String()
}
