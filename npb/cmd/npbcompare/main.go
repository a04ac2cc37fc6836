// Command npbcompare measures the Go ports of the NAS Parallel Benchmarks
// (package npb) against the reference NPB3.4-MPI in the same run: for
// each benchmark, class and process count it runs the reference binary
// through the system MPI's mpirun and the Go port through this module's
// mpirun alternately, and prints the medians of their Mop/s and CPU time
// and the ratios Go/NPB (Mop/s) and NPB/Go (CPU time).
//
//	go run ./npb/cmd/npbcompare -ref ~/src/NPB3.4-MPI -class A -np 1,2,4 -runs 3 bt cg ep ft is lu mg sp
//
// The reference is an NPB3.4-MPI source tree that the user built with its
// own makefiles (-ref, whose bin/ holds BENCH.CLASS.x; npb/reference's
// README says how). Every run must verify. A process
// count that a benchmark refuses (BT and SP need squares; IS, CG, MG and
// FT powers of two; LU a grid xdim·ydim with ydim ≤ xdim ≤ 2·ydim) is
// skipped with a note. The command writes a JSON record of every run of
// both sides into the results directory (results/local, ignored by git,
// unless -results says otherwise), whose README then tables the
// comparison. The CPU time of a run is the rusage of its launcher, which
// counts the ranks it started and waited for.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/rhinet-go/martini/internal/stopsig"

	"github.com/rhinet-go/martini/bench"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitUnverified = 3 // a run did not verify, as npb's own status
)

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseConfig(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		if isUsage(err) {
			fmt.Fprintf(stderr, "npbcompare: %v\n", err)
		}
		return exitUsage
	}
	ctx, stop := stopsig.NotifyContext(context.Background())
	defer stop()
	err = compare(ctx, c, stdout)
	switch {
	case err == nil:
		return exitOK
	case isUsage(err):
		fmt.Fprintf(stderr, "npbcompare: %v\n", err)
		return exitUsage
	case errors.Is(err, errUnverified):
		fmt.Fprintf(stderr, "npbcompare: %v\n", err)
		return exitUnverified
	}
	fmt.Fprintf(stderr, "npbcompare: %v\n", err)
	return exitFailure
}

// compare checks everything it needs, builds the Go side into a temporary
// directory (removed however it ends), runs the pairs and writes the
// record.
func compare(ctx context.Context, c config, stdout io.Writer) (err error) {
	pairs, notes, err := c.plan()
	if err != nil {
		return err
	}
	if err := c.checkReference(pairs); err != nil {
		return err
	}
	l := launchers{refDir: c.ref}
	if l.refMpirun, err = findRefMpirun(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	tmp, err := os.MkdirTemp("", "npbcompare-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
			err = fmt.Errorf("removing %s: %w", tmp, rerr)
		}
	}()
	if l.goMpirun, l.goNPB, err = buildGo(ctx, tmp); err != nil {
		return err
	}
	start := time.Now().UTC().Truncate(time.Second)
	var runs []bench.NPBRun
	for _, p := range pairs {
		pr, err := comparePair(ctx, c, l, p, stdout)
		runs = append(runs, pr...)
		if err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout)
	if err := bench.WriteNPBComparison(stdout, bench.PairNPBRuns(runs)); err != nil {
		return err
	}
	if c.results == "" {
		return nil
	}
	notes = append([]string{"reference: " + c.ref + "/bin, launched by " + refVersion(ctx, l.refMpirun)}, notes...)
	path, err := save(c, start, runs, notes)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Record: %s\n", path)
	return nil
}

// comparePair runs both sides of p alternately, the reference first,
// c.runs times each, and prints each run and the medians.
func comparePair(ctx context.Context, c config, l launchers, p pair, stdout io.Writer) ([]bench.NPBRun, error) {
	bind := c.bindFor()
	fmt.Fprintf(stdout, "%s class %s, %s, %d alternating runs (bind %s)\n", p.Benchmark, p.Class, processes(p.NP), c.runs, bind)
	var runs []bench.NPBRun
	for i := 1; i <= c.runs; i++ {
		var line []string
		for _, side := range []string{bench.SideNPB, bench.SideGo} {
			r, err := l.runSide(ctx, side, p, bind, i)
			if err != nil {
				return runs, err
			}
			runs = append(runs, r)
			line = append(line, fmt.Sprintf("%-10s %10.2f Mop/s %8.2f s CPU", sideName(side), r.Mops, r.CPUSeconds))
		}
		if !c.quiet {
			fmt.Fprintf(stdout, "run %d: %s\n", i, strings.Join(line, "   "))
		}
	}
	m := bench.PairNPBRuns(runs)[0]
	fmt.Fprintf(stdout, "median: NPB3.4-MPI %.2f Mop/s, Go %.2f Mop/s, Go/NPB %.2f\n", m.NPBMops, m.GoMops, m.MopsRatio())
	fmt.Fprintf(stdout, "median CPU time: NPB3.4-MPI %.2f s, Go %.2f s, NPB/Go %.2f\n", m.NPBCPU, m.GoCPU, m.CPURatio())
	return runs, nil
}

// save writes the record of the runs into c.results and regenerates its
// README.
func save(c config, start time.Time, runs []bench.NPBRun, notes []string) (string, error) {
	rec := &bench.Record{
		Schema: bench.SchemaVersion, Time: start, Machine: bench.ThisMachine(),
		GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."),
		Params:  bench.Params{Benchmarks: c.names},
		NPBRuns: runs, Notes: notes,
	}
	name := fmt.Sprintf("npbcompare-%s-%s", start.Format("20060102T150405Z"), strings.Join(c.classes, ""))
	return rec.Save(c.results, name)
}
