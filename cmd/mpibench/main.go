// Command mpibench is the benchmark suite of the runtime: the benchmarks
// of the Intel MPI Benchmarks (the successor of PMB) run on this runtime
// under several settings side by side and, when it is installed, on the
// system's C MPI, with the Martini NIC's published figures as reference
// rows. Every run writes a JSON record into results/;
// `mpibench report` rewrites results/README.md and the plots from the
// records.
//
//	go run ./cmd/mpibench                        # the short comparison
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
	"os/signal"
	"syscall"

	"github.com/rhinet-go/martini/bench"
)

// errUsage is returned by the flag parsers for a bad command line.
var errUsage = errors.New("bad command line")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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

// report rewrites the README and plots of a results directory.
func report(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mpibench report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "results", "the results directory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := bench.Regenerate(*dir); err != nil {
		fmt.Fprintf(stderr, "mpibench report: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s/README.md\n", *dir)
	return 0
}
