package bench

import (
	"bytes"
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
// each read by its kind (Kind), as a summary of a few screens: the
// suite's records by machine kind and process count, each cell the
// medians over the runs of this runtime's and the system MPI's times
// (writeSuiteSummary), with links to the plots of the newest record of
// each process count, a plot per benchmark and machine, which it draws
// into dir/plots as SVG and PNG (removing the plots of its suite records
// that it no longer draws); the newest
// comparison with NPB3.4-MPI of each benchmark, class and process count;
// every NPB kernel run in one table; and links to the thesis records'
// pages (ThesisPage), which packages bench/nicbench and bench/thesisnpb
// write. A file that is no record it can read is skipped, and the README
// names it and says why. The README and the plots depend on the records
// only. It returns what it read.
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
	if err := removeStalePlots(dir, s.Files, b.String()); err != nil {
		return nil, fmt.Errorf("bench: regenerate: %w", err)
	}
	return s, nil
}

// removeStalePlots removes the plots of dir/plots that readme no longer
// links and that a report drew: named after a suite record of files
// (of a record no longer the newest of its kind), or named as a report
// names its plots, of a benchmark and a kind of plot, after a record
// since removed; with the PNG beside each.
func removeStalePlots(dir string, files []RecordFile, readme string) error {
	var stems []string
	for _, f := range files {
		if f.Kind == KindSuite {
			stems = append(stems, strings.TrimSuffix(f.Name, ".json")+"-")
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, plotsDir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		name := e.Name()
		svg := strings.TrimSuffix(name, filepath.Ext(name)) + ".svg"
		ours := isReportPlot(name) || slices.ContainsFunc(stems, func(stem string) bool { return strings.HasPrefix(name, stem) })
		if !ours || strings.Contains(readme, "("+markdownLink(plotsDir+"/"+svg)+")") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, plotsDir, name)); err != nil {
			return err
		}
	}
	return nil
}

// isReportPlot reports whether name is named as the report names its
// plots: RECORD-BENCHMARK-KIND.svg or .png, BENCHMARK one of the suite's
// and KIND one of its plots.
func isReportPlot(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".svg" && ext != ".png" {
		return false
	}
	base := strings.TrimSuffix(name, ext)
	for _, b := range AllBenchmarks() {
		for _, p := range recordPlots(b) {
			if suffix := "-" + b + "-" + p.kind; strings.HasSuffix(base, suffix) && len(base) > len(suffix) {
				return true
			}
		}
	}
	return false
}

// writeReadme writes the README of the records s read in dir into b and
// draws their plots.
func writeReadme(b *bytes.Buffer, dir string, s *Summary) error {
	fmt.Fprintln(b, "# Benchmark results")
	fmt.Fprintln(b)
	if len(s.Files) == 0 {
		fmt.Fprintln(b, "No records yet: this directory holds no *.json results.")
	} else {
		fmt.Fprintf(b, "A summary of the %d records (*.json) in this directory: %s.\n", len(s.Files), countKinds(s))
		fmt.Fprintln(b, "Times are per operation in microseconds, medians over the samples; MB = 10^6 bytes.")
		fmt.Fprintln(b, "This file, plots/ and the thesis pages are generated from the records by `go run ./cmd/mpibench report`: do not edit them by hand.")
		fmt.Fprintln(b, "Each plot is an SVG with a PNG of the same name beside it, for viewers that do not show SVG.")
		if err := os.MkdirAll(filepath.Join(dir, plotsDir), 0o755); err != nil {
			return err
		}
	}
	writeSkipped(b, s.Skipped)
	if err := writeSuiteSummary(b, dir, s.Files); err != nil {
		return err
	}
	if err := writeNPBSummary(b, s.Files); err != nil {
		return err
	}
	if err := writeKernelRuns(b, s.Files); err != nil {
		return err
	}
	writeThesisLinks(b, s.Files)
	return nil
}

// writeKernelRuns writes every NPB kernel run of files in one table, so
// that they read side by side (each record holds one run).
func writeKernelRuns(b *bytes.Buffer, files []RecordFile) error {
	var all Record
	for _, f := range files {
		if f.Kind == KindNPB && f.Record != nil {
			all.Kernels = append(all.Kernels, f.Record.Kernels...)
		}
	}
	if len(all.Kernels) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\n## NAS Parallel Benchmarks: every kernel run\n\n")
	fmt.Fprintf(b, "Runs of `npb/cmd/npb`. The peers.md column holds fixed class A figures of NPB3.4-MPI from peers.md, measured on another machine, not in these runs; %s.\n\n",
		"the figures of NPB3.4-MPI measured in the same run are in the comparisons above (`go run ./npb/cmd/npbcompare`)")
	return WriteKernels(b, &all)
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

// writeThesisLinks writes a line for each thesis record of files: its
// page, the command that made it, when and on what.
func writeThesisLinks(b *bytes.Buffer, files []RecordFile) {
	first := true
	for _, f := range files {
		if f.Kind != KindThesis && f.Kind != KindThesisNPB {
			continue
		}
		if first {
			fmt.Fprintf(b, "\n## The thesis reproductions\n\n")
			first = false
		}
		h := f.Thesis
		what, cmd := "the NIC's figures (thesis ch. 6-8)", "go run ./cmd/thesis"
		if strings.Contains(f.Name, "virtual") {
			what, cmd = "the NIC's figures in virtual time", "go run ./cmd/thesis -clock virtual"
		}
		if f.Kind == KindThesisNPB {
			what, cmd = "chapter 8, NPB on PM/RHiNET and PM/RHiNET-VP", "go run ./cmd/thesis npb"
		}
		fmt.Fprintf(b, "- [%s](%s): %s, from [%s](%s) by `%s`; %s, on %s, Go %s, revision %s.\n",
			ThesisPage(f.Name), markdownLink(ThesisPage(f.Name)), what, f.Name, markdownLink(f.Name), cmd,
			h.Time.UTC().Format(time.RFC3339), describeMachine(h.Machine), orUnknown(h.GoVersion), orUnknown(h.GitRevision))
	}
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
