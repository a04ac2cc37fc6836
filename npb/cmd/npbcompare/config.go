package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/npb"
)

// config is what the command line asks for.
type config struct {
	ref     string   // the NPB3.4-MPI tree: ref/bin/BENCH.CLASS.x
	classes []string // "A"
	nps     []int
	runs    int
	results string // the directory for the record; "" for none
	bind    string // "auto", "core" or "none"
	names   []string
	quiet   bool
}

// pair is one benchmark, class and process count to compare.
type pair struct {
	Benchmark string // "CG"
	Class     string
	NP        int
}

// usageError is a bad command line: the message says what is wrong.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// parseConfig reads the command line: flags, then benchmark names
// (default: all eight).
func parseConfig(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("npbcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: npbcompare [flags] [BENCHMARK...]\n\nBENCHMARK is any of %s (default: all).\n\nFlags:\n",
			strings.ToLower(strings.Join(allBenchmarks(), " ")))
		fs.PrintDefaults()
	}
	var c config
	fs.StringVar(&c.ref, "ref", "NPB3.4-MPI", "the NPB3.4-MPI source tree, built with its own makefiles: DIR/bin/BENCH.CLASS.x")
	classes := fs.String("class", "A", "problem classes, comma-separated: S, W, A, B, C")
	nps := fs.String("np", "1,2,4", "process counts, comma-separated")
	fs.IntVar(&c.runs, "runs", 3, "runs of each side, alternating")
	fs.StringVar(&c.results, "results", bench.LocalResults, "directory for the JSON record (empty: none; "+bench.CommittedResults+": the committed records)")
	fs.StringVar(&c.bind, "bind", "auto", "pinning of both sides: core, none, or auto (core: rank r on CPU r modulo the CPUs, ranks outnumbering CPUs too)")
	fs.BoolVar(&c.quiet, "q", false, "no line per run, only the medians and the table")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var err error
	if c.classes, err = parseClasses(*classes); err != nil {
		return c, err
	}
	if c.nps, err = parseNPs(*nps); err != nil {
		return c, err
	}
	if c.names, err = parseNames(fs.Args()); err != nil {
		return c, err
	}
	if c.runs < 1 {
		return c, usagef("-runs %d: want at least one run", c.runs)
	}
	if !slices.Contains([]string{"auto", "core", "none"}, c.bind) {
		return c, usagef("-bind %q: want core, none or auto", c.bind)
	}
	return c, nil
}

// allBenchmarks are the benchmarks the Go port has, in NPB's names.
func allBenchmarks() []string {
	names := npb.Kernels()
	slices.Sort(names)
	return names
}

// parseNames reads the benchmark names (any case); none means all.
func parseNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return allBenchmarks(), nil
	}
	var names []string
	for _, a := range args {
		i := slices.IndexFunc(allBenchmarks(), func(n string) bool { return strings.EqualFold(n, a) })
		if i < 0 {
			return nil, usagef("unknown benchmark %q (want any of %s)", a, strings.ToLower(strings.Join(allBenchmarks(), " ")))
		}
		if n := allBenchmarks()[i]; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// parseClasses reads a comma-separated list of class letters.
func parseClasses(list string) ([]string, error) {
	var classes []string
	for _, s := range strings.Split(list, ",") {
		c, err := npb.ParseClass(strings.TrimSpace(s))
		if err != nil {
			return nil, usagef("-class %q: %v", list, err)
		}
		if !slices.Contains(classes, c.String()) {
			classes = append(classes, c.String())
		}
	}
	return classes, nil
}

// parseNPs reads a comma-separated list of process counts.
func parseNPs(list string) ([]int, error) {
	var nps []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, usagef("-np %q: %q is not a positive number of processes", list, s)
		}
		if !slices.Contains(nps, n) {
			nps = append(nps, n)
		}
	}
	return nps, nil
}

// plan lists the pairs to compare, by class, benchmark and process count,
// and the notes of the counts a benchmark refuses, which are skipped. A
// class the Go port does not have, or a process count that no benchmark
// named accepts, is a usage error.
func (c config) plan() (pairs []pair, notes []string, err error) {
	for _, class := range c.classes {
		for _, np := range c.nps {
			var refused []string
			for _, name := range c.names {
				_, err := npb.Check(name, npb.Class(class[0]), np)
				switch {
				case err == nil:
					pairs = append(pairs, pair{name, class, np})
				case errors.Is(err, npb.ErrProcs):
					refused = append(refused, fmt.Sprintf("%s on %s (%s needs %s)", name, processes(np), name, npb.ProcsRule(name)))
				default:
					return nil, nil, usagef("%v", strings.TrimPrefix(err.Error(), "npb: "))
				}
			}
			if len(refused) == len(c.names) {
				return nil, nil, usagef("-np %d: no benchmark named runs on %s: %s", np, processes(np), strings.Join(refused, "; "))
			}
			for _, r := range refused {
				notes = append(notes, "skipped "+r)
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		return strings.Compare(a.Class+a.Benchmark, b.Class+b.Benchmark)
	})
	return pairs, notes, nil
}

// checkReference says whether the reference binary of every pair is in
// c.ref/bin; the error says how to build those missing.
func (c config) checkReference(pairs []pair) error {
	st, err := os.Stat(c.ref)
	if err != nil || !st.IsDir() {
		return usagef("-ref %s: no such directory: give the NPB3.4-MPI source tree whose bin/ holds the reference binaries, built with its own makefiles (npb/reference/README.md)",
			c.ref)
	}
	var missing, makes []string
	for _, p := range pairs {
		path := refBinary(c.ref, p)
		if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			continue
		}
		if !slices.Contains(missing, path) {
			missing = append(missing, path)
			makes = append(makes, fmt.Sprintf("make %s CLASS=%s", strings.ToLower(p.Benchmark), p.Class))
		}
	}
	if len(missing) > 0 {
		return usagef("no reference binary %s: in the NPB3.4-MPI tree %s, build with its makefiles: %s (npb/reference/README.md)",
			strings.Join(missing, ", "), c.ref, strings.Join(makes, ", "))
	}
	return nil
}

// refBinary is the path of the reference binary of p: where NPB3.4-MPI's
// makefiles put it, bin/bench.class.x of the tree.
func refBinary(ref string, p pair) string {
	return filepath.Join(ref, "bin", fmt.Sprintf("%s.%s.x", strings.ToLower(p.Benchmark), p.Class))
}

// bindFor is how the processes of a job are pinned: -bind auto pins at
// every process count, as this module's mpirun does by default when ranks
// outnumber CPUs.
func (c config) bindFor() string {
	if c.bind != "auto" {
		return c.bind
	}
	return "core"
}

// isUsage reports whether err is a bad command line.
func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// processes writes a count of processes: "1 process", "4 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}
