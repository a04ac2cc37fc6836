package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

// Lines the worker's rank 0 writes for the driver.
const (
	progressPrefix = "PROGRESS "
	seriesPrefix   = "SERIES "
)

// startCPUProfile starts writing the process's CPU profile to path; stop
// ends it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// workerArgs returns the command line of a worker measuring benchmarks.
func workerArgs(benchmarks []string, o *suiteOptions) []string {
	args := []string{"worker", "-bench", strings.Join(benchmarks, ","), "-sizes", bench.FormatSizes(o.sizes),
		"-budget", o.budget.String(), "-samples", fmt.Sprint(o.samples), "-offcache", fmt.Sprint(o.offCache)}
	if o.sampleFloors {
		args = append(args, "-sample-floors")
	}
	return args
}

// worker is one rank of a benchmark job: it measures the benchmarks of
// its command line and rank 0 writes a SERIES line of JSON for each, and
// a PROGRESS line before each size, to stdout.
func worker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mpibench worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("bench", "", "benchmarks")
	sizes := fs.String("sizes", "", "sizes")
	budget := fs.Duration("budget", 100*time.Millisecond, "time per size")
	samples := fs.Int("samples", 5, "samples per size")
	offCache := fs.Int("offcache", 0, "off-cache arena bytes")
	sampleFloors := fs.Bool("sample-floors", false, "measure the job's cross-core floor between ranks 0 and 1 after each sample")
	cpuprofile := fs.String("cpuprofile", "", "write each rank's CPU profile to `prefix`.RANK")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "mpibench worker: %v\n", err)
		return 1
	}
	benchmarks, err := bench.ParseBenchmarks(*list)
	if err != nil {
		return fail(err)
	}
	o := bench.Options{Budget: *budget, Samples: *samples, OffCache: *offCache}
	if o.Sizes, err = bench.ParseSizes(*sizes); err != nil {
		return fail(err)
	}
	if err := mpi.Init(); err != nil {
		return fail(err)
	}
	w := mpi.World()
	if *cpuprofile != "" {
		stop, err := startCPUProfile(fmt.Sprintf("%s.%d", *cpuprofile, w.Rank()))
		if err != nil {
			return fail(err)
		}
		defer stop()
	}
	o.Progress = func(b string, size int) { fmt.Fprintf(stdout, "%s%s %d\n", progressPrefix, b, size) }
	if *sampleFloors {
		// Without shared memory (over TCP) the job measures without.
		o.SampleFloor, _ = bench.NewSampleFloor(w)
	}
	for _, b := range benchmarks {
		s, err := bench.Measure(w, b, o)
		if err != nil {
			return fail(err)
		}
		if w.Rank() == 0 {
			line, err := json.Marshal(s)
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "%s%s\n", seriesPrefix, line)
		}
	}
	if o.SampleFloor != nil {
		if err := o.SampleFloor.Free(); err != nil {
			return fail(err)
		}
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	return 0
}
