// Command mpibench is the benchmark suite of the runtime: the benchmarks
// of the Intel MPI Benchmarks (the successor of PMB) run on this runtime
// under several settings side by side and, when it is installed, on the
// system's C MPI, with the Martini NIC's published figures and the
// machine's cross-core floor (a cache-line ping-pong between two
// processes) as reference rows. Every run writes a JSON record into
// results/local/ (ignored by git; -results DIR for another directory),
// regenerates that directory and prints where it wrote; `mpibench report`
// regenerates everything in the committed results/ from its records:
// README.md, the plots and the thesis pages.
//
//	go run ./cmd/mpibench                        # the short comparison
//	go run ./cmd/mpibench -short                 # a quick check of it (CI)
//	go run ./cmd/mpibench -bench all -sizes 0-4m -compare eager,rndv,path,copy
//	go run ./cmd/mpibench -bench Allreduce,Bcast -compare coll
//	go run ./cmd/mpibench report
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rhinet-go/martini/internal/stopsig"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/results"
)

// errUsage is returned by the flag parsers for a bad command line.
var errUsage = errors.New("bad command line")

// main stops the run in progress on any of stopsig.Signals: a run killed
// by the signal would leave its jobs' directory behind.
func main() {
	ctx, stop := stopsig.NotifyContext(context.Background())
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is mpibench with command line args; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "worker":
			return worker(args[1:], stdout, stderr)
		case "report":
			return report(args[1:], stdout, stderr)
		case floorChildArg:
			return floorChild(args[1:], stderr)
		}
	}
	o, err := parseSuiteFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	return runSuite(ctx, o, stdout, stderr)
}

// report rewrites every generated file of a results directory from its
// records (results.Regenerate): README.md, the plots and the thesis page.
// A file that is no readable record is named on stderr, with why, and
// does not stop it.
func report(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mpibench report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dir string
	fs.StringVar(&dir, "results", bench.CommittedResults, "the results directory")
	fs.StringVar(&dir, "dir", bench.CommittedResults, "the same as -results")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mpibench report: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	s, err := results.Regenerate(dir)
	if err != nil {
		fmt.Fprintf(stderr, "mpibench report: %v\n", err)
		return 1
	}
	results.WriteSkipped(stderr, "mpibench report: ", s)
	fmt.Fprintf(stdout, "wrote %s from %d records (%s)\n", filepath.Join(dir, "README.md"), len(s.Files), kindCounts(s))
	return 0
}

// kindCounts says how many records of each kind s read: "suite 3, npb 5,
// thesis 1".
func kindCounts(s *bench.Summary) string {
	parts := make([]string, len(bench.Kinds))
	for i, k := range bench.Kinds {
		parts[i] = fmt.Sprintf("%s %d", k, s.Count(k))
	}
	return strings.Join(parts, ", ")
}
