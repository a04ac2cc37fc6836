package bench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter/tw"
)

// Sides of an NPBRun.
const (
	SideGo  = "go"  // the Go port of package npb, through this runtime's mpirun
	SideNPB = "npb" // the reference NPB3.4-MPI, through the system MPI's mpirun
)

// NPBRun is one run of a NAS Parallel Benchmark in a comparison of the Go
// port with the reference NPB3.4-MPI measured in the same session
// (npb/cmd/npbcompare): what the benchmark's report said and the CPU time
// the run took.
type NPBRun struct {
	Benchmark string `json:"benchmark"` // "BT", "CG", ...
	Class     string `json:"class"`     // S, W, A, B, C
	NP        int    `json:"np"`
	Side      string `json:"side"` // SideGo or SideNPB
	// Run numbers the runs of a side from 1; the runs of the two sides of
	// one benchmark, class and process count alternate.
	Run     int     `json:"run"`
	Seconds float64 `json:"seconds"`    // the timed part, as the report says
	Mops    float64 `json:"mops_total"` // Mop/s in total, as the report says
	// CPUSeconds is the user and system time of the launcher and of the
	// processes it waited for: the whole job.
	CPUSeconds float64 `json:"cpu_seconds"`
	// Bind is how the processes were pinned: "core" or "none".
	Bind     string `json:"bind"`
	Verified bool   `json:"verified"`
}

// NPBPair is what the runs of both sides of one benchmark, class and
// process count give: medians and ratios.
type NPBPair struct {
	Benchmark string
	Class     string
	NP        int
	// GoRuns and NPBRuns count the runs of each side.
	GoRuns, NPBRuns int
	// GoMops and NPBMops are the medians of the Mop/s; GoCPU and NPBCPU
	// of the CPU seconds.
	GoMops, NPBMops float64
	GoCPU, NPBCPU   float64
	// Verified says whether every run of both sides verified.
	Verified bool
}

// MopsRatio is the Go port's median Mop/s over the reference's (above 1:
// the port is faster); 0 without a reference figure.
func (p NPBPair) MopsRatio() float64 { return ratio(p.GoMops, p.NPBMops) }

// CPURatio is the reference's median CPU time over the Go port's (above
// 1: the port needs less CPU time); 0 without a Go figure.
func (p NPBPair) CPURatio() float64 { return ratio(p.NPBCPU, p.GoCPU) }

// ratio is a/b, or 0 when b is not positive.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// pairKey identifies an NPBPair.
type pairKey struct {
	benchmark, class string
	np               int
}

// PairNPBRuns groups runs by benchmark, class and process count, in the
// order they first appear, and gives each group's medians.
func PairNPBRuns(runs []NPBRun) []NPBPair {
	var keys []pairKey
	groups := map[pairKey][]NPBRun{}
	for _, r := range runs {
		k := pairKey{r.Benchmark, r.Class, r.NP}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	pairs := make([]NPBPair, 0, len(keys))
	for _, k := range keys {
		pairs = append(pairs, pairOf(k, groups[k]))
	}
	return pairs
}

// pairOf gives the medians of the runs of one group.
func pairOf(k pairKey, runs []NPBRun) NPBPair {
	p := NPBPair{Benchmark: k.benchmark, Class: k.class, NP: k.np, Verified: true}
	var goMops, npbMops, goCPU, npbCPU []float64
	for _, r := range runs {
		p.Verified = p.Verified && r.Verified
		switch r.Side {
		case SideGo:
			goMops, goCPU = append(goMops, r.Mops), append(goCPU, r.CPUSeconds)
		case SideNPB:
			npbMops, npbCPU = append(npbMops, r.Mops), append(npbCPU, r.CPUSeconds)
		}
	}
	p.GoRuns, p.NPBRuns = len(goMops), len(npbMops)
	p.GoMops, p.NPBMops = median(goMops), median(npbMops)
	p.GoCPU, p.NPBCPU = median(goCPU), median(npbCPU)
	p.Verified = p.Verified && p.GoRuns > 0 && p.NPBRuns > 0
	return p
}

// npbComparisonHeader is the header of the tables of comparisons; the
// summary adds a column naming the record.
var npbComparisonHeader = []string{"benchmark", "class", "np", "Go Mop/s", "NPB3.4-MPI Mop/s",
	"Go/NPB Mop/s", "NPB/Go CPU time", "runs", "verified"}

// WriteNPBComparison writes the pairs of a comparison of the Go port with
// NPB3.4-MPI as a Markdown table: one row per benchmark, class and
// process count with the medians and ratios (Go/NPB in Mop/s, NPB/Go in
// CPU time: above 1, the port does better), the runs of each side and
// whether every run verified.
func WriteNPBComparison(w io.Writer, pairs []NPBPair) error {
	if len(pairs) == 0 {
		return fmt.Errorf("bench: no NPB comparison runs")
	}
	rows := make([][]string, 0, len(pairs))
	for _, p := range pairs {
		rows = append(rows, pairRow(p))
	}
	return writeNPBTable(w, npbComparisonHeader, rows)
}

// pairRow is the row of p in a comparison table.
func pairRow(p NPBPair) []string {
	runs := strconv.Itoa(p.GoRuns)
	if p.GoRuns != p.NPBRuns {
		runs = fmt.Sprintf("%d Go, %d NPB", p.GoRuns, p.NPBRuns)
	}
	verified := "no"
	if p.Verified {
		verified = "yes"
	}
	return []string{p.Benchmark, p.Class, strconv.Itoa(p.NP), fmt.Sprintf("%.1f", p.GoMops), fmt.Sprintf("%.1f", p.NPBMops),
		formatRatio(p.MopsRatio()), formatRatio(p.CPURatio()), runs, verified}
}

// formatRatio writes a ratio with two decimals, or cellMissing for 0.
func formatRatio(r float64) string {
	if r == 0 {
		return cellMissing
	}
	return fmt.Sprintf("%.2f", r)
}

// writeNPBTable renders a comparison table: benchmark, class, verified
// and the record aligned left, the figures right.
func writeNPBTable(w io.Writer, header []string, rows [][]string) error {
	align := make([]tw.Align, len(header))
	for i, h := range header {
		align[i] = tw.AlignRight
		if i < 2 || h == "verified" || h == "record" {
			align[i] = tw.AlignLeft
		}
	}
	if err := renderMarkdown(w, header, rows, align); err != nil {
		return fmt.Errorf("bench: NPB comparison table: %w", err)
	}
	fmt.Fprintln(w)
	return nil
}

// npbComparisonTitle is the title of the sections of comparisons.
const npbComparisonTitle = "NAS Parallel Benchmarks against NPB3.4-MPI (same run)"

// npbComparisonNote says what the comparison tables hold.
const npbComparisonNote = "The Go port and NPB3.4-MPI (gfortran/gcc -O3, system MPI) run alternately on the same machine " +
	"by `go run ./npb/cmd/npbcompare`; medians over the runs. Go/NPB Mop/s and NPB/Go CPU time " +
	"(user and system of the whole job, the launcher's start included, which weighs most in short runs such as class S): above 1, the Go port does better."

// latestPair is the newest comparison of a benchmark, class and process
// count, with the record it comes from.
type latestPair struct {
	NPBPair
	record string    // the record's file name
	time   time.Time // when the record's run began
}

// npbGroup is the newest comparisons of one machine kind.
type npbGroup struct {
	key   machineKey // the peer left empty: the reference is NPB3.4-MPI itself
	pairs []latestPair
}

// kindPair identifies a comparison of one machine kind.
type kindPair struct {
	machineKey
	pairKey
}

// newestPairs combines the comparisons of the records of files (newest
// first) by machine kind, in the order of each kind's newest record,
// keeping the newest of each benchmark, class and process count of a kind,
// sorted by benchmark, class (S, W, A, B, C) and process count: a ratio
// measured on one machine never stands in for another's.
func newestPairs(files []RecordFile) []npbGroup {
	var groups []npbGroup
	at := map[machineKey]int{} // a kind's index in groups
	seen := map[kindPair]bool{}
	for _, f := range files {
		if f.Record == nil {
			continue
		}
		mk := machineKey{cpu: f.Record.Machine.CPU, cpus: f.Record.Machine.CPUs}
		for _, p := range PairNPBRuns(f.Record.NPBRuns) {
			k := kindPair{mk, pairKey{p.Benchmark, p.Class, p.NP}}
			if seen[k] {
				continue
			}
			seen[k] = true
			i, ok := at[mk]
			if !ok {
				i = len(groups)
				at[mk] = i
				groups = append(groups, npbGroup{key: mk})
			}
			groups[i].pairs = append(groups[i].pairs, latestPair{p, f.Name, f.Record.Time})
		}
	}
	for _, g := range groups {
		slices.SortFunc(g.pairs, func(a, b latestPair) int {
			return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark),
				cmp.Compare(strings.Index("SWABC", a.Class), strings.Index("SWABC", b.Class)),
				cmp.Compare(a.NP, b.NP))
		})
	}
	return groups
}

// writeNPBSummary writes, for each machine kind, the newest comparison of
// each benchmark, class and process count across the records of files,
// with a link to its record named by its time; nothing when no record
// holds one.
func writeNPBSummary(w io.Writer, files []RecordFile) error {
	groups := newestPairs(files)
	if len(groups) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n## %s: the newest of each\n\n", npbComparisonTitle)
	fmt.Fprintf(w, "%s Each row is the newest comparison of its benchmark, class and process count on its kind of machine.\n\n", npbComparisonNote)
	header := append(slices.Clone(npbComparisonHeader), "record")
	for _, g := range groups {
		fmt.Fprintf(w, "### %s\n\n", g.key)
		rows := make([][]string, 0, len(g.pairs))
		for _, p := range g.pairs {
			rows = append(rows, append(pairRow(p.NPBPair), fmt.Sprintf("[%s](%s)", p.time.UTC().Format(time.RFC3339), markdownLink(p.record))))
		}
		if err := writeNPBTable(w, header, rows); err != nil {
			return err
		}
	}
	return nil
}
