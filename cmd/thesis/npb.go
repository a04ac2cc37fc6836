package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/thesisnpb"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/nicemu"
	"github.com/rhinet-go/martini/npb"
)

// The chapter 8 reproduction (thesis 8.6, Fig 8.11-8.18): `thesis npb`
// runs npb/cmd/npb under the martini profile in virtual time over
// PM/RHiNET (mpirun -eager pm) and PM/RHiNET-VP (-eager vp), every
// benchmark, class and process count, and keeps every run in
// thesis-npb.json of the results directory, written after each run. Under declared
// computing (the default) the benchmarks declare their operations, charged
// at a rate calibrated once per benchmark and class (npbcalibrate.go).

// npbOptions are the flags of `thesis npb`.
type npbOptions struct {
	results, mpirun, npbBin, hostSpeed string
	// compute is mpirun's -compute of the runs: declared or cpu.
	compute string
	// calibrationRuns is how many single-process runs measure a
	// calibration.
	calibrationRuns int
	// calibrateOnly stops the sweep once the calibrations its points
	// need are in the record, before any run.
	calibrateOnly bool
	resume        bool
	timeout       time.Duration
	plan          []thesisnpb.Key
}

// declared reports whether the sweep runs under declared computing.
func (o *npbOptions) declared() bool { return o.compute == nicemu.ComputeDeclared }

// parseNPB reads the flags of `thesis npb` and makes the plan: every point
// to run, in the order it runs them (by process count, then class, so that
// an interrupted sweep has the cheaper points: a run's time grows with its
// processes, which outnumber the cores). Bad flags, and points NPB does not
// define, are errors naming them; the flag package has already reported
// its own (errParseFlags).
func parseNPB(args []string, stderr io.Writer) (*npbOptions, error) {
	fs := flag.NewFlagSet("thesis npb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: thesis npb [flags]\n\nRuns the NAS Parallel Benchmarks in virtual time over PM/RHiNET and PM/RHiNET-VP (thesis 8.6) and writes thesis-npb.json and thesis-npb.md into results/local (-results DIR for another directory).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	o := &npbOptions{}
	classes := fs.String("classes", "S,W,A", "problem classes, comma-separated")
	procs := fs.String("np", intList(thesisnpb.DefaultProcs), "process counts of EP, IS, CG, MG, FT and LU")
	squares := fs.String("np-square", intList(thesisnpb.SquareProcs), "process counts of BT and SP (squares)")
	benches := fs.String("bench", strings.Join(npb.Kernels(), ","), "benchmarks, comma-separated (any case)")
	layers := fs.String("layers", strings.Join(thesisnpb.Layers, ","), "PM layers (mpirun -eager): pm (PM/RHiNET), vp (PM/RHiNET-VP)")
	fs.StringVar(&o.results, "results", bench.LocalResults, "the results directory: thesis-npb.json is written there after every run, and the directory regenerated at the end; "+bench.CommittedResults+" for the committed record")
	fs.BoolVar(&o.resume, "resume", false, "extend the existing record: skip the points it holds")
	fs.StringVar(&o.mpirun, "mpirun", "", "the mpirun to use (default: build this module's)")
	fs.StringVar(&o.npbBin, "npb", "", "the npb program to run (default: build this module's npb/cmd/npb)")
	fs.StringVar(&o.hostSpeed, "host-speed", "p3-933", "the modelled host's speed: under -compute declared, what a benchmark's single-process Mop/s on this machine are divided by for its operation rate (mpirun -op-rate); under -compute cpu, mpirun's -host-speed")
	fs.StringVar(&o.compute, "compute", nicemu.ComputeDeclared, "mpirun's -compute: declared (the benchmarks declare their operations, charged at the calibrated rate; no load moves it) or cpu (the ranks' thread CPU time times -host-speed)")
	fs.IntVar(&o.calibrationRuns, "calibration-runs", 3, "under -compute declared, the single-process runs of each benchmark and class whose best Mop/s calibrate its rate")
	fs.BoolVar(&o.calibrateOnly, "calibrate-only", false, "under -compute declared, measure the calibrations the points lack (e.g. on a quiet machine), save them in the record, and stop before the runs")
	fs.DurationVar(&o.timeout, "timeout", time.Hour, "kill a run still going after this long (an error naming it)")
	if err := fs.Parse(args); err != nil {
		return nil, errParseFlags
	}
	if fs.NArg() != 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	speed, err := nicemu.ParseHostSpeed(o.hostSpeed)
	if err != nil {
		return nil, fmt.Errorf("-host-speed: %w", err)
	}
	switch {
	case !slices.Contains(nicemu.Computes(), o.compute):
		return nil, fmt.Errorf("-compute %q: want %s", o.compute, strings.Join(nicemu.Computes(), " or "))
	case o.declared() && speed == 0:
		return nil, errors.New("-host-speed 0: declared computing divides the calibrated Mop/s by it (use -compute cpu)")
	case o.calibrationRuns < 1:
		return nil, fmt.Errorf("-calibration-runs %d: want at least 1", o.calibrationRuns)
	case o.calibrateOnly && !o.declared():
		return nil, errors.New("-calibrate-only: only declared computing is calibrated (-compute declared)")
	}
	if o.plan, err = makePlan(*classes, *benches, *layers, *procs, *squares); err != nil {
		return nil, err
	}
	return o, nil
}

// errParseFlags says that the flag package has reported the problem.
var errParseFlags = errors.New("flags")

// makePlan checks the lists of the flags and returns every point to run:
// by process count, then class, benchmark and layer.
func makePlan(classList, benchList, layerList, procList, squareList string) ([]thesisnpb.Key, error) {
	var classes []npb.Class
	for _, s := range splitList(classList) {
		c, err := npb.ParseClass(s)
		if err != nil {
			return nil, fmt.Errorf("-classes: %w", err)
		}
		classes = append(classes, c)
	}
	var benches []string
	for _, s := range splitList(benchList) {
		name, err := npb.Check(s, npb.Class('S'), 1)
		if err != nil {
			return nil, fmt.Errorf("-bench: %w", err)
		}
		benches = append(benches, name)
	}
	layers := splitList(layerList)
	for _, l := range layers {
		if !slices.Contains(thesisnpb.Layers, l) {
			return nil, fmt.Errorf("-layers: %q: want pm or vp", l)
		}
	}
	procs, err := parseProcs("-np", procList)
	if err != nil {
		return nil, err
	}
	squares, err := parseProcs("-np-square", squareList)
	if err != nil {
		return nil, err
	}
	if len(classes) == 0 || len(benches) == 0 || len(layers) == 0 {
		return nil, errors.New("-classes, -bench and -layers need at least one each")
	}
	var plan []thesisnpb.Key
	for _, c := range classes {
		for _, b := range benches {
			counts := procs
			if slices.Contains(thesisnpb.SquareBenchmarks, b) {
				counts = squares
			}
			for _, np := range counts {
				if _, err := npb.Check(b, c, np); err != nil {
					return nil, fmt.Errorf("%s class %v on %d processes: %w", b, c, np, err)
				}
				for _, l := range layers {
					plan = append(plan, thesisnpb.Key{Benchmark: b, Class: c.String(), Layer: l, NP: np})
				}
			}
		}
	}
	slices.SortStableFunc(plan, func(a, b thesisnpb.Key) int { return a.NP - b.NP })
	return plan, nil
}

// intList writes v as a comma-separated list.
func intList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseProcs reads a list of process counts (flag names it for errors).
func parseProcs(flagName, s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a process count", flagName, f)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// runNPBSweep is `thesis npb`.
func runNPBSweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseNPB(args, stderr)
	switch {
	case errors.Is(err, errParseFlags):
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "thesis npb: %v\n", err)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "thesis npb: %v\n", err)
		return 1
	}
	path := filepath.Join(o.results, thesisnpb.RecordFile)
	rec, err := openSweepRecord(path, o)
	if err != nil {
		return fail(err)
	}
	todo := slices.DeleteFunc(slices.Clone(o.plan), func(k thesisnpb.Key) bool { _, ok := rec.Find(k); return ok })
	fmt.Fprintf(stderr, "thesis npb: %d runs, %d of them already in %s\n", len(o.plan), len(o.plan)-len(todo), path)
	if len(todo) > 0 {
		dir, err := os.MkdirTemp("", "thesis-npb")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(dir)
		if err := o.build(ctx, dir); err != nil {
			return fail(err)
		}
		if o.declared() {
			if err := calibrate(ctx, o, rec, path, todo, stderr); err != nil {
				return fail(err)
			}
		}
	}
	if o.calibrateOnly {
		todo = nil
	}
	sweepErr := sweep(ctx, o, rec, path, todo, stderr)
	if err := writeNPBResults(o.results, rec, stdout, stderr); err != nil {
		return fail(err)
	}
	if sweepErr != nil {
		return fail(sweepErr)
	}
	return 0
}

// build builds mpirun and the npb program into dir unless the flags gave
// them.
func (o *npbOptions) build(ctx context.Context, dir string) error {
	var err error
	if o.mpirun == "" {
		if o.mpirun, err = mpirunbuild.Build(ctx, dir); err != nil {
			return err
		}
	}
	if o.npbBin == "" {
		o.npbBin = filepath.Join(dir, "npb")
		var out strings.Builder
		if err := mpirunbuild.GoBuild(ctx, mpirunbuild.Spec{Pkg: "github.com/rhinet-go/martini/npb/cmd/npb", Out: o.npbBin, Work: dir, Stdout: &out, Stderr: &out}); err != nil {
			return fmt.Errorf("building npb/cmd/npb (run inside the martini module, or pass -npb): %w\n%s", err, out.String())
		}
	}
	return nil
}
