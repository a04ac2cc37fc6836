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
// newest first: for each, the machine and the parameters of the run,
// its notes, and for each benchmark the comparison tables of
// WriteComparison with links to plots that it draws into dir/plots as
// SVG. The README depends on the records only.
func Regenerate(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("bench: regenerate: %w", err)
	}
	type file struct {
		name string // base name without .json
		rec  *Record
	}
	var files []file
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		rec, err := ReadRecord(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("bench: regenerate: %w", err)
		}
		files = append(files, file{strings.TrimSuffix(e.Name(), ".json"), rec})
	}
	slices.SortStableFunc(files, func(a, b file) int {
		if c := b.rec.Time.Compare(a.rec.Time); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})

	var b bytes.Buffer
	fmt.Fprintln(&b, "# Benchmark results")
	fmt.Fprintln(&b)
	if len(files) == 0 {
		fmt.Fprintln(&b, "No records yet: this directory holds no *.json results.")
	} else {
		fmt.Fprintln(&b, "One section per record (*.json) in this directory, newest first.")
		fmt.Fprintln(&b, "Times are per operation in microseconds, medians over the samples; MB = 10^6 bytes.")
		fmt.Fprintln(&b, "This file and plots/ are generated from the records: do not edit them by hand.")
		if err := os.MkdirAll(filepath.Join(dir, plotsDir), 0o755); err != nil {
			return fmt.Errorf("bench: regenerate: %w", err)
		}
	}
	// Every NPB kernel run of the directory in one table first, so that
	// they read side by side (each record holds one run).
	var all Record
	for _, f := range files {
		all.Kernels = append(all.Kernels, f.rec.Kernels...)
	}
	if len(all.Kernels) > 1 {
		fmt.Fprintf(&b, "\n## NAS Parallel Benchmarks: every run\n\n")
		if err := WriteKernels(&b, &all); err != nil {
			return fmt.Errorf("bench: regenerate: %w", err)
		}
	}
	for _, f := range files {
		fmt.Fprintln(&b)
		if err := writeSection(&b, dir, f.name, f.rec); err != nil {
			return fmt.Errorf("bench: regenerate: %s.json: %w", f.name, err)
		}
	}

	path := filepath.Join(dir, "README.md")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("bench: regenerate: %w", err)
	}
	return nil
}

// writeSection writes the README section of the record dir/name.json
// into b and draws its plots.
func writeSection(b *bytes.Buffer, dir, name string, rec *Record) error {
	fmt.Fprintf(b, "## %s\n\n", rec.Time.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "Record: [%s.json](%s)\n\n", name, markdownLink(name+".json"))
	fmt.Fprintf(b, "- Machine: %s\n", describeMachine(rec.Machine))
	fmt.Fprintf(b, "- Go: %s\n", orUnknown(rec.GoVersion))
	fmt.Fprintf(b, "- Git revision: %s\n", orUnknown(rec.GitRevision))
	fmt.Fprintf(b, "- Parameters: %s\n", describeParams(rec.Params))
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
	if len(rec.Kernels) > 0 {
		fmt.Fprintf(b, "\n### NAS Parallel Benchmarks\n\n")
		if err := WriteKernels(b, rec); err != nil {
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
	if m.Cores > 0 || m.Threads > 0 {
		parts = append(parts, fmt.Sprintf("%s cores / %s threads", countOrUnknown(m.Cores), countOrUnknown(m.Threads)))
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
	return fmt.Sprintf("np %d, budget %s s per size, %d samples, off-cache %s",
		p.NP, strconv.FormatFloat(p.Budget, 'g', -1, 64), p.Samples, offCache)
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
