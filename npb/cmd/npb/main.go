// Command npb runs a kernel of the NAS Parallel Benchmarks (Go ports in
// package npb) as an MPI program: start it through mpirun.
//
//	go run ./cmd/mpirun -np 2 ./npb/cmd/npb -class A cg
//
// Rank 0 prints NPB's report and writes a JSON record of the run into the
// results directory (results/local by default, which git ignores), in the
// benchmark suite's format. The exit status is 0
// only when the result verifies.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
	"github.com/rhinet-go/martini/npb"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitUnverified = 3
)

// run is the npb command on args, one rank of the job: it runs the
// kernel between mpi.Init and mpi.Finalize, and rank 0 reports it. It
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, code := parseOptions(args, stderr)
	if o == nil {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, describe(err))
		return exitFailure
	}
	if err := mpi.Init(); err != nil {
		return fail(err)
	}
	w := mpi.World()
	start := time.Now().UTC().Truncate(time.Second)
	r, err := runProfiled(w, o)
	if errors.Is(err, npb.ErrUnsupported) {
		// NPB refuses a process count or class it does not define before
		// it starts: a usage error, on every rank alike.
		if w.Rank() == 0 {
			fmt.Fprintln(stderr, describe(err))
		}
		mpi.Finalize()
		return exitUsage
	}
	if err != nil {
		return fail(err)
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	if w.Rank() != 0 {
		return exitOK
	}
	return report(r, start, o.results, stdout, stderr)
}

// options are the command line of a run: the kernel and its flags.
type options struct {
	kernel     string
	class      npb.Class
	results    string // the directory of the JSON record, "" for none
	corrupt    bool   // perturb the result before verification
	cpuProfile string // the CPU profiles' path, less its .RANK; "" for none
}

// parseOptions reads the command line. It returns nil and the exit
// status when the command is to stop there: help asked for (exitOK) or a
// bad command line (exitUsage, having said why).
func parseOptions(args []string, stderr io.Writer) (*options, int) {
	fs := flag.NewFlagSet("npb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mpirun -np N npb [flags] KERNEL\n\nKERNEL is one of %s; flags may come before or after it.\n\nFlags:\n", strings.Join(npb.Kernels(), ", "))
		fs.PrintDefaults()
	}
	o := &options{}
	classFlag := fs.String("class", "S", "problem class: S, W, A, B or C")
	fs.StringVar(&o.results, "results", bench.LocalResults, "directory for the JSON record (empty: none)")
	fs.BoolVar(&o.corrupt, "corrupt", false, "perturb the result before verification (to see UNSUCCESSFUL)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write each rank's CPU profile of the kernel to `file`.RANK")
	var err error
	if o.kernel, err = parseArgs(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		if !errors.Is(err, errParse) {
			fmt.Fprintf(stderr, "npb: %v\n", err)
			fs.Usage()
		}
		return nil, exitUsage
	}
	if o.class, err = npb.ParseClass(*classFlag); err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitUsage
	}
	return o, exitOK
}

// runProfiled runs the kernel of o on w, under a CPU profile of this rank
// when -cpuprofile asks for one; the profile is stopped, and its error
// kept unless the run failed, however the run went.
func runProfiled(w *mpi.Comm, o *options) (*npb.Result, error) {
	stopProfile, err := startProfile(o.cpuProfile, w.Rank())
	if err != nil {
		return nil, err
	}
	r, err := npb.Run(w, o.kernel, o.class, npb.Options{Corrupt: o.corrupt})
	if perr := stopProfile(); err == nil {
		err = perr
	}
	return r, err
}

// report prints rank 0's NPB report of r and, unless dir is "", writes
// its record into dir (started at start) and names it. It returns the
// exit status: exitUnverified for a result that did not verify.
func report(r *npb.Result, start time.Time, dir string, stdout, stderr io.Writer) int {
	fmt.Fprint(stdout, r.Report())
	if dir != "" {
		path, err := save(r, start, dir)
		if err != nil {
			fmt.Fprintln(stderr, describe(err))
			return exitFailure
		}
		fmt.Fprintf(stdout, "\n Record: %s\n", path)
	}
	if !r.Verified {
		return exitUnverified
	}
	return exitOK
}

// describe returns the message of err, naming this program once.
func describe(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "npb: ") {
		return msg
	}
	return "npb: " + err.Error()
}

// errParse is returned by parseArgs when the flag package has already
// reported the problem.
var errParse = errors.New("flags")

// parseArgs parses the flags, which may stand before or after the one
// benchmark name (npb -class A cg, npb cg -class A), and returns the name.
func parseArgs(fs *flag.FlagSet, args []string) (string, error) {
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", err
			}
			return "", errParse
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(names) {
	case 0:
		return "", errors.New("no benchmark named")
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("one benchmark at a time, not %s", strings.Join(names, " and "))
}

// startProfile starts a CPU profile of this rank into path.RANK when path
// is not empty; the function it returns stops it and closes the file.
func startProfile(path string, rank int) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, rank))
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}

// save writes the record of r into dir and rewrites dir's README.
func save(r *npb.Result, start time.Time, dir string) (string, error) {
	rec := &bench.Record{
		Schema: bench.SchemaVersion, Time: start, Machine: bench.ThisMachine(),
		GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."),
		Params: bench.Params{NP: r.NP},
		Kernels: []bench.Kernel{{Name: r.Kernel, Class: r.Class.String(), Size: r.Size, Iterations: r.Iterations,
			NP: r.NP, Seconds: r.Seconds, Mops: r.Mops, Operation: r.Operation, Verified: r.Verified}},
	}
	return rec.Save(dir, fmt.Sprintf("npb-%s-%s-%v-np%d", start.Format("20060102T150405Z"), strings.ToLower(r.Kernel), r.Class, r.NP))
}
