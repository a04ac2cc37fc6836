// Command thesis reproduces the thesis's measurements of the Martini NIC
// (Tables 6.2 and 6.3, Fig 6.3) on the emulated NIC, under the martini
// timing profile and under native, and writes the table of the thesis's
// figures beside the emulated ones into thesis.md, the runs into thesis.json
// and the throughput curves into plots/ of the results directory,
// results/local by default (ignored by git; -results results replaces the
// committed record), and regenerates the rest of it, as `mpibench report`
// does.
//
//	go run ./cmd/thesis
//	go run ./cmd/thesis -quick -results /tmp/r   # a quick run elsewhere (CI)
//	go run ./cmd/thesis -clock virtual           # in virtual time → results/local/thesis-virtual.md
//
// With -clock virtual the martini profile runs in virtual time (mpirun
// -clock virtual): the figures are the model's, whatever this machine's
// cores, cross-core latency or load, and the record is
// thesis-virtual.json, beside the real-time one.
//
// Each profile is one job of two processes, started through this
// module's mpirun; the processes measure the NIC directly, below MPI.
//
// `thesis npb` reproduces chapter 8 instead (section 8.6, Fig 8.11-8.18):
// the NAS Parallel Benchmarks in virtual time over PM/RHiNET and
// PM/RHiNET-VP, into thesis-npb.json and thesis-npb.md of the results
// directory (npb.go).
//
//	go run ./cmd/thesis npb [-classes S,W,A] [-bench cg,is] [-np 2,4,8,16] [-np-square 4,9,16] [-layers pm,vp] [-resume]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rhinet-go/martini/internal/stopsig"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/bench/results"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

func main() { os.Exit(runUntilSignal(os.Args[1:])) }

// runUntilSignal is run, stopped by any of stopsig.Signals.
func runUntilSignal(args []string) int {
	ctx, stop := stopsig.NotifyContext(context.Background())
	defer stop()
	return run(ctx, args, os.Stdout, os.Stderr)
}

// runPrefix starts the line on which the worker's rank 0 reports its run.
const runPrefix = "RUN "

// run is the thesis command on args: a subcommand that they name, or
// else the plain command. It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if code, ok := runSubcommand(ctx, args, stdout, stderr); ok {
		return code
	}
	o, code := parseThesisFlags(args, stderr)
	if o == nil {
		return code
	}
	return measureProfiles(ctx, o, stdout, stderr)
}

// runSubcommand runs the subcommand that args name, if they name one: a
// job's worker process (worker, pmworker, nicworker) or the chapter 8
// sweep (npb). It reports false when args name none, for the plain
// command to run.
func runSubcommand(ctx context.Context, args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) > 0 && args[0] == "worker" {
		return worker(args[1:], stdout, stderr), true
	}
	if len(args) > 0 && args[0] == "pmworker" {
		return pmWorker(args[1:], stdout, stderr), true
	}
	if len(args) > 0 && args[0] == "nicworker" { // the NICs' comparison (profiles.go)
		return nicWorker(args[1:], stdout, stderr), true
	}
	if len(args) > 0 && args[0] == "npb" {
		return runNPBSweep(ctx, args[1:], stdout, stderr), true
	}
	return 0, false
}

// thesisOptions are the checked flags of the plain command.
type thesisOptions struct {
	resultsDir, mpirun, calibration string
	// profiles are the timing profiles to measure, in order.
	profiles []string
	quick    bool
	// nics says whether a run in virtual time also compares the NICs.
	nics    bool
	timeout time.Duration
	// vt are mpirun's flags of virtual time: nil in real time.
	vt []string
}

// parseThesisFlags reads the flags of the plain command and checks them.
// It returns nil and the exit status when the command is to stop there:
// help asked for (0) or a bad command line (2, having said why).
func parseThesisFlags(args []string, stderr io.Writer) (*thesisOptions, int) {
	fs := flag.NewFlagSet("thesis", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: thesis [flags]\n       thesis npb [flags]   (chapter 8: NPB over PM/RHiNET and PM/RHiNET-VP; thesis npb -h)\n\nReproduces the thesis's NIC measurements under each timing profile and writes results/local/thesis.md (-results DIR for another directory).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	o := &thesisOptions{}
	fs.StringVar(&o.resultsDir, "results", bench.LocalResults, "the results directory: thesis.json is written there and the directory regenerated (thesis.md, plots/, README.md); "+bench.CommittedResults+" for the committed record")
	profiles := fs.String("profiles", nicemu.ProfileMartini+","+nicemu.ProfileNative, "timing profiles to run, comma-separated")
	fs.StringVar(&o.mpirun, "mpirun", "", "the mpirun to use (default: build this module's)")
	fs.BoolVar(&o.quick, "quick", false, "fewer repetitions and smaller transfers (a test run)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "kill a job still running after this long")
	clock := fs.String("clock", nicemu.ClockReal, "the timing profile's `clock`: real, or virtual (martini only; writes thesis-virtual.json)")
	fs.BoolVar(&o.nics, "nics", true, "with -clock virtual, also run the NICs' comparison: the same MPI programs and NPB kernels under "+strings.Join(comparedProfiles, ", "))
	fs.StringVar(&o.calibration, "npb-calibration", defaultCalibration, "with -clock virtual, the thesis-npb record whose calibrations charge the NICs' NPB runs")
	hostSpeed := fs.String("host-speed", "0", "with -clock virtual, mpirun's -host-speed: 0 (the default) counts none of the benchmark loops' own computing, which the thesis's figures hold in the profile's costs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	var ok bool
	if o.vt, ok = virtualOptions(fs, *clock, *hostSpeed, stderr); !ok {
		return nil, 2
	}
	if o.vt != nil && !isSet(fs, "profiles") {
		*profiles = nicemu.ProfileMartini
	}
	o.profiles = strings.Split(*profiles, ",")
	if !checkProfiles(o.profiles, o.vt, stderr) {
		return nil, 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return nil, 2
	}
	return o, 0
}

// checkProfiles checks the names of -profiles: each a timing profile,
// and in virtual time (vt not nil) only martini, whose timing model the
// virtual clock runs. It reports false, having said why, for a bad one.
func checkProfiles(names, vt []string, stderr io.Writer) bool {
	for _, n := range names {
		if _, err := nicemu.LookupProfile(n); err != nil || n == "" {
			fmt.Fprintf(stderr, "thesis: -profiles: %q is not one of %s\n", n, strings.Join(nicemu.Profiles(), ", "))
			return false
		}
		if vt != nil && n != nicemu.ProfileMartini {
			fmt.Fprintf(stderr, "thesis: -clock virtual: the %s profile has no timing model to run in virtual time\n", n)
			return false
		}
	}
	return true
}

// measureProfiles runs a job under each profile of o, with this module's
// mpirun built into a temporary directory unless -mpirun names one, then
// the extra figures of virtual time, and writes the results: the plain
// command's work once its flags are checked. It returns the exit status,
// having said what failed.
func measureProfiles(ctx context.Context, o *thesisOptions, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "thesis: %v\n", err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	if o.mpirun == "" {
		dir, err := os.MkdirTemp("", "thesis")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(dir)
		if o.mpirun, err = mpirunbuild.Build(ctx, dir); err != nil {
			return fail(err)
		}
	}
	runs, err := measureRuns(ctx, o, self, stderr)
	if err != nil {
		return fail(err)
	}
	file := nicbench.RecordFile
	var more extraFigures
	if o.vt != nil {
		file = nicbench.VirtualRecordFile
		if more, err = extras(ctx, o.mpirun, self, o.calibration, o.vt, o.nics, o.quick, o.timeout, stderr); err != nil {
			return fail(err)
		}
	}
	if err := writeResults(o.resultsDir, file, runs, more, o.quick, stdout, stderr); err != nil {
		return fail(err)
	}
	return 0
}

// measureRuns measures each profile of o in turn: its job's NIC figures,
// then its PM figures, as the run of the profile in the record.
func measureRuns(ctx context.Context, o *thesisOptions, self string, stderr io.Writer) ([]*nicbench.Run, error) {
	var runs []*nicbench.Run
	for _, name := range o.profiles {
		fmt.Fprintf(stderr, "thesis: measuring the %s profile\n", name)
		r, err := runJob(ctx, o.mpirun, self, name, o.vt, o.quick, o.timeout, stderr)
		if err != nil {
			return nil, err
		}
		if r.PM, err = measurePM(ctx, o.mpirun, self, name, o.vt, o.quick, o.timeout, stderr); err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// runJob runs the worker under profile through mpirun and returns rank 0's
// run.
func runJob(ctx context.Context, mpirun, self, profile string, vt []string, quick bool, timeout time.Duration, stderr io.Writer) (*nicbench.Run, error) {
	args := append([]string{"-np", "2", "-profile", profile}, vt...)
	args = append(args, "-timeout", timeout.String(), self, "worker", "-profile", profile)
	if quick {
		args = append(args, "-quick")
	}
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // mpirun stops its ranks
	cmd.WaitDelay = 10 * time.Second
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mpirun -profile %s: %w", profile, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), runPrefix)
		if !ok {
			fmt.Fprintln(stderr, sc.Text())
			continue
		}
		var r nicbench.Run
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("reading the %s run: %w", profile, err)
		}
		return &r, nil
	}
	return nil, fmt.Errorf("the %s job reported no run", profile)
}

// worker is one of the two processes of a job: it measures and rank 0
// prints the run.
func worker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("thesis worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "the job's timing profile (for the record)")
	quick := fs.Bool("quick", false, "fewer repetitions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "thesis worker: %v\n", err)
		return 1
	}
	job, err := launch.FromEnv()
	if err != nil {
		return fail(err)
	}
	seg, nic, err := openWorkerNIC(job, *profile)
	if err != nil {
		return fail(err)
	}
	defer nic.Close()
	r, err := measureWorker(job, seg, nic, *profile, *quick)
	if err != nil {
		return fail(err)
	}
	if err := job.Store.Fence(); err != nil {
		return fail(err)
	}
	if job.Rank == 0 {
		line, err := json.Marshal(r)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s%s\n", runPrefix, line)
	}
	return 0
}

// openWorkerNIC checks that the worker runs in a job of two processes that
// mpirun started under profile, attaches the job's NIC segment (taking it
// from job) and opens this rank's NIC on it: the NIC that the worker
// measures directly, below MPI.
func openWorkerNIC(job *launch.Job, profile string) (*nicemu.Segment, *nicemu.NIC, error) {
	if job.Size != 2 {
		return nil, nil, fmt.Errorf("%d processes: the measurements need 2", job.Size)
	}
	if job.Segment == nil {
		return nil, nil, errors.New("no segment: start the worker with mpirun")
	}
	seg, err := nicemu.AttachSegment(job.Segment)
	if err != nil {
		return nil, nil, err
	}
	job.Segment = nil
	if got := seg.Profile(); got != profile {
		return nil, nil, fmt.Errorf("the job runs the %s profile, not %s", got, profile)
	}
	nic, err := nicemu.Open(seg, job.Rank)
	if err != nil {
		return nil, nil, err
	}
	return seg, nic, nil
}

// measureWorker pairs this rank's NIC with the other's and measures the
// pair (fewer repetitions when quick), then stops the NIC's clock and
// completes the run with the segment's handoff and clock, for the record.
func measureWorker(job *launch.Job, seg *nicemu.Segment, nic *nicemu.NIC, profile string, quick bool) (*nicbench.Run, error) {
	pair, err := nicbench.NewPair(nic, job.Store, job.Rank)
	if err != nil {
		return nil, err
	}
	if err := job.SettleBinding(); err != nil {
		return nil, err
	}
	o := nicbench.DefaultOptions()
	if quick {
		o.Reps, o.Samples, o.StreamBytes, o.MissReps = 200, 3, 1<<20, 20
	}
	r, err := pair.Measure(job.Store, profile, o)
	if err != nil {
		return nil, err
	}
	if c := nic.Clock(); c != nil {
		c.Stop() // the peer's last requests need not wait for this clock
	}
	r.Handoff = seg.Handoff().Seconds() * 1e6
	if seg.Clock() == nicemu.ClockVirtual {
		r.Clock = nicemu.ClockVirtual
	}
	return r, nil
}

// writeResults prints the table and, unless dir is "", writes the record
// of runs into dir as thesis.json and regenerates the directory
// (results.Regenerate): thesis.md and its plots from it, and the README.
func writeResults(dir, file string, runs []*nicbench.Run, more extraFigures, quick bool, stdout, stderr io.Writer) error {
	if err := nicbench.WriteTable(stdout, runs); err != nil {
		return err
	}
	ch8, err := ch8RecordRows(runs)
	if err != nil {
		return err
	}
	more.rows = append(more.rows, ch8...)
	if err := more.write(stdout); err != nil {
		return err
	}
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rec := nicbench.Record{Time: time.Now().UTC().Truncate(time.Second), Machine: bench.ThisMachine(),
		GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."), Quick: quick, Runs: runs, Rows: more.rows, NICs: more.nics}
	var js bytes.Buffer
	if err := rec.Encode(&js); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), js.Bytes(), 0o644); err != nil {
		return err
	}
	s, err := results.Regenerate(dir)
	if err != nil {
		return err
	}
	results.WriteSkipped(stderr, "thesis: ", s)
	fmt.Fprintf(stdout, "\nRecord: %s (page: %s)\n", filepath.Join(dir, file), filepath.Join(dir, bench.ThesisPage(file)))
	return nil
}

// virtualOptions checks -clock and -host-speed and returns the mpirun
// flags of virtual time: nil in real time. It reports false, having said
// why, for a bad combination.
func virtualOptions(fs *flag.FlagSet, clock, hostSpeed string, stderr io.Writer) ([]string, bool) {
	switch clock {
	case nicemu.ClockReal:
		if isSet(fs, "host-speed") {
			fmt.Fprintln(stderr, "thesis: -host-speed: only with -clock virtual")
			return nil, false
		}
		return nil, true
	case nicemu.ClockVirtual:
		if _, err := nicemu.ParseHostSpeed(hostSpeed); err != nil {
			fmt.Fprintf(stderr, "thesis: -host-speed: %v\n", err)
			return nil, false
		}
		return []string{"-clock", nicemu.ClockVirtual, "-host-speed", hostSpeed}, true
	}
	fmt.Fprintf(stderr, "thesis: -clock %q: want %s\n", clock, strings.Join(nicemu.Clocks(), " or "))
	return nil, false
}

// isSet reports whether the command line set the flag name.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
