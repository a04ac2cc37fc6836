package main

import (
	"bufio"
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
	"slices"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/results"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// Defaults of the short comparison the plain command runs.
const (
	defaultBenchmarks = "PingPong,Sendrecv,Barrier,Allreduce"
	defaultSizes      = "0,8,64,512,4k,32k,256k,1m,4m"
	defaultVariants   = "default;path=push;path=aotf;rndv=pull;no-cma"
)

// Defaults of -short, a quick check of the short comparison: the same
// benchmarks and variants, fewer sizes, a smaller budget and fewer
// samples.
const (
	shortSizes   = "8,1k,64k"
	shortBudget  = 20 * time.Millisecond
	shortSamples = 3
)

// suiteOptions are the settings of a run of the suite.
type suiteOptions struct {
	np         int
	benchmarks []string
	sizes      []int
	variants   []bench.Variant
	budget     time.Duration
	samples    int
	offCache   int // bytes of the off-cache arena, 0 for off
	peer       bool
	peerNames  []string // the system MPIs by name (bench.PeerOpenMPI, bench.PeerMPICH); "" for every one found
	interleave bool     // a job per benchmark, the system MPI's after each
	noFloor    bool     // skip the cross-core floor
	// sampleFloors: each job measures its own floor after each sample
	// (bench.SampleFloor), where the floor is measured and the job has a
	// CPU for each process.
	sampleFloors bool
	retries      int    // how many times a group whose floors moved apart is measured again
	results      string // directory of the records, "" for none
	quiet        bool
	timeout      time.Duration
	mpirun       string // "" to build it
	// loadAverage reads the machine's load average before the run.
	loadAverage bench.LoadAverage
}

// loadAverage is what a run reads the machine's load average with; a
// test replaces it with a fake.
var loadAverage bench.LoadAverage = bench.ReadLoadAverage

const suiteUsage = `usage: mpibench [flags]                 measure and print the comparison tables
       mpibench report [-results DIR]    regenerate DIR/README.md, DIR/plots and DIR/thesis.md from its records

Runs the benchmarks of the Intel MPI Benchmarks (PingPong, PingPing,
Sendrecv, Exchange, Barrier, Bcast, Reduce, Allreduce, Allgather, Gather,
Scatter, Alltoall, IMB-NBC's nonblocking collectives, and IMB-RMA's
Unidir_put, Unidir_get, Accumulate) on this runtime under each variant
(through mpirun), and on each system MPI installed (Open MPI, MPICH; see
-peer), benchmark by benchmark: each variant's job, then the system
MPIs', for one benchmark before the next (-interleave=false: a job per
variant, then the system MPIs'); with PingPong, also the machine's
cross-core floor (a cache-line ping-pong between two processes); prints
IMB-style listings and tables comparing them, and writes a JSON record
into the results directory.

Flags:
`

// parseSuiteFlags parses the command line of a run; it returns
// flag.ErrHelp when help was asked for and errUsage for a bad command
// line, having written why to stderr.
func parseSuiteFlags(args []string, stderr io.Writer) (*suiteOptions, error) {
	o := &suiteOptions{loadAverage: loadAverage}
	fs := flag.NewFlagSet("mpibench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, suiteUsage)
		fs.PrintDefaults()
	}
	raw := o.defineFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	if err := o.fromFlags(fs, raw); err != nil {
		fmt.Fprintf(stderr, "mpibench: %v\n", err)
		return nil, errUsage
	}
	return o, nil
}

// suiteFlags are the flags of a run whose values the options do not hold
// as given: suiteOptions.fromFlags reads and checks them into the options.
type suiteFlags struct {
	benchList, sizeList, variantList, compare, peer *string
	offCache, short                                 *bool
}

// defineFlags defines every flag of a run on fs: those the options hold
// as given are parsed into o, the others into the suiteFlags returned.
func (o *suiteOptions) defineFlags(fs *flag.FlagSet) *suiteFlags {
	f := &suiteFlags{}
	fs.IntVar(&o.np, "np", 2, "number of processes")
	f.benchList = fs.String("bench", defaultBenchmarks, "benchmarks, comma-separated, or all")
	f.sizeList = fs.String("sizes", defaultSizes, "message sizes in bytes: a list, ranges of powers of two (0-4m), k and m suffixes")
	f.variantList = fs.String("variants", defaultVariants, "variants compared, `;`-separated: default, eager=BYTES, rndv=pull|push|split, path=botf|push|aotf, no-cma, no-hugepages, no-shared-lines, no-offload, coll=SELECTION, build=DIR (another build's mpibench, and its mpirun if DIR has one: two builds paired in one run)")
	f.compare = fs.String("compare", "", "add the variants of comparison `groups`, comma-separated: "+strings.Join(bench.CompareGroups, ", ")+" (with -compare, -variants defaults to default alone)")
	fs.DurationVar(&o.budget, "budget", 100*time.Millisecond, "time each message size of each benchmark may take")
	fs.IntVar(&o.samples, "samples", 5, "timed samples per size (the table shows their median)")
	f.offCache = fs.Bool("off-cache", false, "use buffers outside the caches (an arena twice the last-level cache)")
	f.peer = fs.String("peer", "auto", "measure the system MPIs too, a column each: auto (every one on PATH: Open MPI by mpicc.openmpi and mpirun.openmpi, MPICH by mpicc.mpich and mpiexec.hydra, and whatever mpicc and mpirun are when they are another; also true), openmpi or mpich (that MPI alone, by its Debian names), openmpi,mpich or all (both, a column each, saying which is missing), or off (also false)")
	fs.BoolVar(&o.interleave, "interleave", true, "measure benchmark by benchmark, each variant's job then the system MPI's, so that a machine whose speed changes during the run (a VM whose processors move) weighs on both alike; false: a job per variant, then the system MPI's, for all benchmarks")
	fs.IntVar(&o.retries, "retries", 2, "measure a benchmark's jobs again, up to this many times, when the machine's speed changed while they ran (the cross-core floor doubled or halved: the jobs' own after each sample, where they have a CPU per process, else the floor before, between and after them in a run with the system MPI); 0: never")
	fs.BoolVar(&o.noFloor, "no-floor", false, "skip the cross-core floor (a cache-line ping-pong between two processes), measured with PingPong")
	fs.StringVar(&o.results, "results", bench.LocalResults, "directory of the JSON records and their README (empty: write none; "+bench.CommittedResults+": the committed records)")
	f.short = fs.Bool("short", false, "a quick check: sizes "+shortSizes+", -budget "+shortBudget.String()+", -samples "+fmt.Sprint(shortSamples)+" (flags given explicitly win)")
	fs.BoolVar(&o.quiet, "q", false, "quiet: no progress display and no IMB listings, only the comparison tables")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "stop a job, or the floor's measurement, that runs longer than this")
	fs.StringVar(&o.mpirun, "mpirun", "", "this runtime's mpirun (default: built from the module)")
	return f
}

// fromFlags completes o from the parsed flags of fs and f: it reads the
// lists, applies -short and -compare, and checks the whole, returning
// the first thing wrong.
func (o *suiteOptions) fromFlags(fs *flag.FlagSet, f *suiteFlags) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *f.short {
		applyShort(fs, f.sizeList, o)
	}
	var err error
	if o.benchmarks, err = bench.ParseBenchmarks(*f.benchList); err != nil {
		return err
	}
	if o.sizes, err = bench.ParseSizes(*f.sizeList); err != nil {
		return err
	}
	if err := o.parseVariants(fs, f); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.peerNames, err = parsePeers(*f.peer); err != nil {
		return err
	}
	o.peer = len(o.peerNames) > 0
	if *f.offCache {
		o.offCache = 2 * bench.ThisMachine().LastLevelCache()
	}
	return nil
}

// parseVariants sets the variants of the run: those of -variants (default
// alone when -compare is given without it), then those of each -compare
// group not already among them, each build=DIR made absolute and checked.
func (o *suiteOptions) parseVariants(fs *flag.FlagSet, f *suiteFlags) error {
	if *f.compare != "" && !isSet(fs, "variants") {
		*f.variantList = "default"
	}
	var err error
	if o.variants, err = bench.ParseVariants(*f.variantList); err != nil {
		return err
	}
	for _, g := range strings.Split(*f.compare, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		vs, err := bench.CompareGroup(g, o.benchmarks)
		if err != nil {
			return err
		}
		for _, v := range vs {
			if !slices.ContainsFunc(o.variants, func(w bench.Variant) bool { return w.Name == v.Name }) {
				o.variants = append(o.variants, v)
			}
		}
	}
	for i := range o.variants {
		if o.variants[i].Build == "" {
			continue
		}
		if err := resolveBuild(&o.variants[i]); err != nil {
			return err
		}
	}
	return nil
}

// check checks the settings that a run needs to make sense: a variant,
// enough processes for its benchmarks, a positive budget, sample count
// and timeout, and retries that are not negative.
func (o *suiteOptions) check() error {
	switch {
	case len(o.variants) == 0:
		return errors.New("no variant to run")
	case o.np < 1:
		return fmt.Errorf("-np %d: need at least 1 process", o.np)
	case o.np < 2 && slices.ContainsFunc(o.benchmarks, func(b string) bool { return !bench.IsCollective(b) }):
		return fmt.Errorf("-np %d: point-to-point benchmarks need at least 2 processes", o.np)
	case o.budget <= 0:
		return fmt.Errorf("-budget %v: must be positive", o.budget)
	case o.samples < 1:
		return fmt.Errorf("-samples %d: need at least 1", o.samples)
	case o.timeout <= 0:
		return fmt.Errorf("-timeout %v: must be positive", o.timeout)
	case o.retries < 0:
		return fmt.Errorf("-retries %d: must be 0 or more", o.retries)
	}
	return nil
}

// parsePeers reads -peer: the names of the system MPIs to measure, [""]
// for every one found (bench.FindPeers), none for off.
func parsePeers(value string) ([]string, error) {
	switch value {
	case "auto", "true":
		return []string{""}, nil
	case "off", "false":
		return nil, nil
	case "all":
		return []string{bench.PeerOpenMPI, bench.PeerMPICH}, nil
	}
	var names []string
	for _, n := range strings.Split(value, ",") {
		if n != bench.PeerOpenMPI && n != bench.PeerMPICH {
			return nil, fmt.Errorf("-peer %q: want auto, openmpi, mpich, openmpi,mpich, all or off", value)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// applyShort sets the defaults of -short for the flags not given.
func applyShort(fs *flag.FlagSet, sizeList *string, o *suiteOptions) {
	if !isSet(fs, "sizes") {
		*sizeList = shortSizes
	}
	if !isSet(fs, "budget") {
		o.budget = shortBudget
	}
	if !isSet(fs, "samples") {
		o.samples = shortSamples
	}
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// benchmarksOf returns the benchmarks of group that variant v measures.
func (o *suiteOptions) benchmarksOf(v bench.Variant, group []string) []string {
	if v.Only == nil {
		return group
	}
	return slices.DeleteFunc(slices.Clone(group), func(b string) bool { return !slices.Contains(v.Only, b) })
}

// steps counts the sizes the run measures over all variants.
func (o *suiteOptions) steps() int {
	n := 0
	for _, v := range o.variants {
		for _, b := range o.benchmarksOf(v, o.benchmarks) {
			n += len(bench.SizesOf(b, o.sizes))
		}
	}
	return n
}

// runSuite runs every variant, and the system MPI, prints the results and
// saves the record; it returns the exit status.
func runSuite(ctx context.Context, o *suiteOptions, stdout, stderr io.Writer) int {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "mpibench: "+format+"\n", a...) }
	tmp, err := os.MkdirTemp("", "mpibench-")
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	exe, err := os.Executable()
	if err != nil {
		logf("finding this program to start its workers: %v", err)
		return 1
	}
	if o.mpirun == "" {
		if o.mpirun, err = mpirunbuild.Build(ctx, tmp); err != nil {
			logf("%v", err)
			return 1
		}
	}
	rec := &bench.Record{
		Schema: bench.SchemaVersion, Time: time.Now().UTC().Truncate(time.Second), Machine: bench.ThisMachine(),
		GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."),
		Params: bench.Params{NP: o.np, Benchmarks: o.benchmarks, Sizes: o.sizes, Budget: o.budget.Seconds(),
			Samples: o.samples, OffCache: o.offCache > 0, Interleaved: o.interleave},
	}
	o.sampleFloors = !o.noFloor && o.np <= rec.Machine.CPUs
	busy := o.loadReason(rec.Machine.CPUs)
	others, _ := bench.StartOthersCPU() // nil where /proc cannot tell
	if err := measure(ctx, o, rec, exe, tmp, stderr); err != nil {
		logf("%v", err)
		return 1
	}
	rec.Warning = trustWarning(rec, busy, othersReason(others, rec.Machine.CPUs))
	if ctx.Err() != nil {
		logf("interrupted")
		return 130
	}
	if err := printRecord(rec, o.quiet, stdout); err != nil {
		logf("%v", err)
		return 1
	}
	if o.results != "" {
		if err := saveRecord(rec, o.results, o.quiet, stdout, stderr); err != nil {
			logf("%v", err)
			return 1
		}
	}
	return 0
}

// measure runs the jobs of every variant and of the system MPI, group of
// benchmarks by group (groups), and the floor, and adds what they measured
// to rec: the variants' series in their order, then the system MPI's.
func measure(ctx context.Context, o *suiteOptions, rec *bench.Record, exe, tmp string, stderr io.Writer) error {
	var progress *bench.Progress
	if !o.quiet {
		progress = bench.NewProgress(stderr, o.steps())
	}
	peer := findPeer(ctx, o, tmp)
	ours := make([][]bench.Series, len(o.variants))
	var theirs []bench.Series
	floors := newGroupFloors(ctx, o, peer, exe)
	for _, group := range o.groups() {
		mine, peers, err := measureGroup(ctx, o, rec, group, exe, peer, floors, progress, stderr)
		if err != nil {
			progress.Done()
			return err
		}
		for i := range mine {
			ours[i] = append(ours[i], mine[i]...)
		}
		for _, p := range peers {
			theirs = append(theirs, p...)
		}
	}
	progress.Done()
	for _, v := range o.variants {
		rec.Params.Variants = append(rec.Params.Variants, v.Name)
	}
	for _, s := range ours {
		rec.Series = append(rec.Series, s...)
	}
	measureFloor(ctx, o, rec, exe, stderr)
	for _, job := range peer.jobs {
		if o.peer && !o.quiet {
			fmt.Fprintln(stderr, job.note)
		}
		rec.Notes = append(rec.Notes, job.note)
	}
	rec.Series = append(rec.Series, theirs...)
	return nil
}

// measureGroup runs the jobs of every variant and of the system MPI for
// the benchmarks of group, with the cross-core floor measured before,
// between and after them, and compares the columns' samples of one state
// of the machine (bench.MatchSpeeds). It measures them again where they
// ran in different states (steady): by the jobs' own floors where they
// measure them, else by the floors between the jobs. rec notes each try
// again, and a last try whose columns still differ.
func measureGroup(ctx context.Context, o *suiteOptions, rec *bench.Record, group []string, exe string, peer *peerJobs, floors *groupFloors, progress *bench.Progress, stderr io.Writer) (mine, peers [][]bench.Series, err error) {
	var unmatched []string // MatchSpeeds' notes of the last try
	notes, err := floors.steady(o.retries, group, func(again bool) error {
		if again {
			progress.Grow(len(o.variants))
		}
		mine = make([][]bench.Series, len(o.variants))
		for i, v := range o.variants {
			series, err := runJob(ctx, o, v, o.benchmarksOf(v, group), exe, progress, stderr)
			if err != nil {
				return fmt.Errorf("variant %s: %w", v.Name, err)
			}
			mine[i] = series
			floors.between()
		}
		peers = peer.run(group, floors.between)
		// The concatenated series share their rows with mine and
		// peers, which MatchSpeeds sets.
		unmatched = bench.MatchSpeeds(slices.Concat(append(mine, peers...)...))
		return nil
	}, func() (string, bool) {
		if !o.sampleFloors || len(unmatched) == 0 {
			return "", o.sampleFloors
		}
		return fmt.Sprintf("floor: by the jobs' own floors, the columns of %s ran in different states of the machine (%s); measured again",
			strings.Join(group, ","), unmatched[0]), true
	})
	rec.Notes = append(rec.Notes, notes...)
	if err != nil {
		return nil, nil, err
	}
	if note := floors.mark(append(mine, peers...), group); note != "" {
		rec.Notes = append(rec.Notes, note)
	}
	rec.Notes = append(rec.Notes, unmatched...)
	return mine, peers, nil
}

// groupFloors measures the cross-core floor and the compute gauge
// (bench.Floor) around and between the jobs of each group of an
// interleaved run with the system MPI, to tell whether the machine
// changed while a benchmark's columns were measured.
type groupFloors struct {
	measure func() speed
	last    speed
	seen    []speed // the speeds of the group being measured, in order
}

// speed is one measurement of groupFloors: the floor's t in µs and the
// compute gauge of its CPUs in ms, 0 and nil when not measured.
type speed struct {
	floor   float64
	compute []float64
}

// newGroupFloors returns the floors of a run: measured (quickly: 3
// samples of 10 ms, and the gauge) only when the run interleaves jobs
// that it compares, of the system MPI or of two variants or more (a pair
// of builds), and does not skip the floor.
func newGroupFloors(ctx context.Context, o *suiteOptions, peer *peerJobs, exe string) *groupFloors {
	f := &groupFloors{measure: func() speed { return speed{} }}
	if !o.interleave || o.noFloor || !peer.measuring() && len(o.variants) < 2 {
		return f
	}
	f.measure = func() speed {
		fl, err := bench.MeasureFloor(ctx, []string{exe, floorChildArg}, bench.FloorOptions{Samples: 3, Budget: 10 * time.Millisecond, Timeout: o.timeout})
		if err != nil {
			return speed{}
		}
		return speed{fl.T, fl.Compute}
	}
	f.last = f.measure()
	return f
}

// begin starts the floors of a group's jobs with the last one measured,
// the floor before them.
func (f *groupFloors) begin() { f.seen = append(f.seen[:0], f.last) }

// between measures the floor after a job of the group.
func (f *groupFloors) between() {
	f.last = f.measure()
	f.seen = append(f.seen, f.last)
}

// steady runs the jobs of group (run, which measures the floor after each
// job with between, and is told whether it runs them again) until the
// machine kept one speed, at most retries times more: columns compare
// only when measured at one speed (a virtual machine whose processors
// move apart and together changes its speed for seconds at a time). The
// speed is judged by byJobs where it judges (the jobs' own floors): it
// returns the note of a try again, "" for none, and whether it judged;
// where it did not, the floors between the jobs judge. It returns a note
// for each try it made again, and run's error. The compute gauges are
// noted (mark) but make no try again: where a host slows a CPU by sharing
// its core, the CPU changes speed about as often as a job takes, so that
// a try again rarely finds one speed throughout and only makes the run
// longer.
func (f *groupFloors) steady(retries int, group []string, run func(again bool) error, byJobs func() (again string, judged bool)) (notes []string, err error) {
	for try := 0; ; try++ {
		f.begin()
		if err := run(try > 0); err != nil {
			return notes, err
		}
		note, judged := byJobs()
		if !judged && bench.FloorsApart(f.floors()) {
			note = f.note("measured again", group)
		}
		if try >= retries || note == "" {
			return notes, nil
		}
		notes = append(notes, note)
	}
}

// floors returns the floors of the group so far.
func (f *groupFloors) floors() []float64 {
	out := make([]float64, len(f.seen))
	for i, s := range f.seen {
		out[i] = s.floor
	}
	return out
}

// computes returns the compute gauges of the group so far, nil unless
// every one is known.
func (f *groupFloors) computes() [][]float64 {
	out := make([][]float64, len(f.seen))
	for i, s := range f.seen {
		if len(s.compute) == 0 {
			return nil
		}
		out[i] = slices.Clone(s.compute)
	}
	return out
}

// apart reports whether the group's floors so far are
// bench.FloorChange or more apart, or a CPU's compute gauges
// bench.ComputeChange, all of them known.
func (f *groupFloors) apart() bool {
	return bench.FloorsApart(f.floors()) || bench.ComputeApart(f.computes())
}

// note says that the machine's speed changed while group was measured,
// and what was done about it.
func (f *groupFloors) note(done string, group []string) string {
	return fmt.Sprintf("floor: the machine's speed changed while %s was measured (%s); %s",
		strings.Join(group, ","), speedsText(f.floors(), f.computes()), done)
}

// speedsText lists the floors and gauges of a group's jobs.
func speedsText(floors []float64, computes [][]float64) string {
	text := fmt.Sprintf("its cross-core floor before, between and after the jobs: %s µs", floorList(floors))
	if computes != nil {
		text += fmt.Sprintf("; its CPUs' compute gauge: %s ms", bench.ComputeList(computes))
	}
	return text
}

// mark sets the floors and gauges of the group's jobs (before, between
// and after them) in every series of jobs and returns a note when they
// are apart ("" otherwise, or when any floor is unknown).
func (f *groupFloors) mark(jobs [][]bench.Series, group []string) string {
	floors := f.floors()
	if slices.ContainsFunc(floors, func(t float64) bool { return t <= 0 }) {
		return ""
	}
	for _, series := range jobs {
		for i := range series {
			series[i].Floors = slices.Clone(floors)
			series[i].Compute = f.computes()
		}
	}
	if !f.apart() {
		return ""
	}
	return f.note("the columns were not measured at one speed", group)
}

// floorList formats floors as "0.05, 0.19 and 0.06".
func floorList(floors []float64) string {
	parts := make([]string, len(floors))
	for i, t := range floors {
		parts[i] = fmt.Sprintf("%.3g", t)
	}
	return bench.AndList(parts)
}

// groups returns the groups of benchmarks measured one after the other:
// each benchmark alone (-interleave), or all of them together.
func (o *suiteOptions) groups() [][]string {
	if !o.interleave {
		return [][]string{o.benchmarks}
	}
	groups := make([][]string, len(o.benchmarks))
	for i, b := range o.benchmarks {
		groups[i] = []string{b}
	}
	return groups
}

// saveRecord writes rec into the results directory dir and regenerates
// the directory.
func saveRecord(rec *bench.Record, dir string, quiet bool, stdout, stderr io.Writer) error {
	path, err := rec.Write(dir, fmt.Sprintf("%s-np%d", rec.Time.Format("20060102T150405Z"), rec.Params.NP))
	if err != nil {
		return err
	}
	s, err := results.Regenerate(dir)
	if err != nil {
		return err
	}
	results.WriteSkipped(stderr, "mpibench: ", s)
	sep := "\n"
	if quiet {
		sep = ""
	}
	fmt.Fprintf(stdout, "%sRecord: %s (tables and plots of all records: %s)\n", sep, path, filepath.Join(dir, "README.md"))
	return nil
}

// runJob runs the job of variant v over benchmarks and returns its series
// (none, running nothing, for no benchmarks).
func runJob(ctx context.Context, o *suiteOptions, v bench.Variant, benchmarks []string, exe string, progress *bench.Progress, stderr io.Writer) ([]bench.Series, error) {
	if len(benchmarks) == 0 {
		return nil, nil
	}
	prog, mpirun := buildPrograms(v, exe, o.mpirun)
	args := append([]string{"-np", fmt.Sprint(o.np), "-timeout", o.timeout.String()}, v.Flags...)
	args = append(append(args, prog), workerArgs(benchmarks, o)...)
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // mpirun stops its ranks
	cmd.WaitDelay = 10 * time.Second
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", mpirun, err)
	}
	var series []bench.Series
	var parseErr error
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, progressPrefix):
			progress.Step(v.Name + " " + strings.TrimPrefix(line, progressPrefix) + " B")
		case strings.HasPrefix(line, seriesPrefix):
			var s bench.Series
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, seriesPrefix)), &s); err != nil && parseErr == nil {
				parseErr = fmt.Errorf("reading the worker's results: %w", err)
			}
			s.Variant, s.Flags = v.Name, v.Flags
			series = append(series, s)
		default:
			fmt.Fprintln(stderr, line) // the program's own output
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("mpirun %s: %w", strings.Join(v.Flags, " "), err)
	}
	if parseErr != nil {
		return nil, parseErr
	}
	if len(series) != len(benchmarks) {
		return nil, fmt.Errorf("the job reported %d of %d benchmarks", len(series), len(benchmarks))
	}
	return series, nil
}

// peerJobs runs the jobs of the system MPIs, each once found and its
// benchmark built.
type peerJobs struct {
	ctx  context.Context
	o    *suiteOptions
	jobs []*peerJob
}

// peerJob is one system MPI's: note says what it is, or why it measures
// nothing (more).
type peerJob struct {
	p       *bench.Peer // nil: nothing to run
	bin     string
	variant string // of its series: bench.PeerVariant, or its family beside another MPI
	note    string
}

// findPeer finds the system MPIs and builds their benchmark in dir,
// unless the run measures none; with two or more, each gets a column of
// its own named after its family.
func findPeer(ctx context.Context, o *suiteOptions, dir string) *peerJobs {
	j := &peerJobs{ctx: ctx, o: o}
	if !o.peer {
		j.jobs = []*peerJob{{note: "system MPI: not measured (-peer off)"}}
		return j
	}
	found := lookPeers(o.peerNames)
	for i, f := range found {
		job := &peerJob{variant: bench.PeerVariant}
		j.jobs = append(j.jobs, job)
		p := f.p
		if f.err != nil {
			job.note = f.err.Error()
			continue
		}
		if len(found) > 1 {
			job.variant = p.Family()
		}
		sub := filepath.Join(dir, fmt.Sprintf("peer%d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			job.note = fmt.Sprintf("system MPI (%s): %v", p.Version, err)
			continue
		}
		bin, err := p.Build(ctx, sub)
		if err != nil {
			job.note = fmt.Sprintf("system MPI (%s): could not build the C benchmark: %v", p.Version, err)
			continue
		}
		job.p, job.bin, job.note = p, bin, "system MPI: "+p.Version
	}
	return j
}

// buildPrograms returns the mpibench whose workers run v's jobs and the
// mpirun that starts them: this program (exe) and the run's mpirun, or
// those of the build v names, its mpirun if its directory has one.
func buildPrograms(v bench.Variant, exe, mpirun string) (string, string) {
	if v.Build == "" {
		return exe, mpirun
	}
	if m := filepath.Join(v.Build, "mpirun"); isProgram(m) {
		mpirun = m
	}
	return filepath.Join(v.Build, "mpibench"), mpirun
}

// resolveBuild makes the directory of a build=DIR variant absolute and
// checks that it holds an mpibench.
func resolveBuild(v *bench.Variant) error {
	dir, err := filepath.Abs(v.Build)
	if err != nil {
		return fmt.Errorf("variant %s: %w", v.Name, err)
	}
	if !isProgram(filepath.Join(dir, "mpibench")) {
		return fmt.Errorf("variant %s: no mpibench program in %s (build one with go build -o %s/ ./cmd/mpibench ./cmd/mpirun)", v.Name, dir, dir)
	}
	v.Build = dir
	return nil
}

// isProgram reports whether path is an executable file.
func isProgram(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// foundPeer is a system MPI looked for: found, or why not.
type foundPeer struct {
	p   *bench.Peer
	err error
}

// lookPeers looks for the system MPIs of -peer's names: every one that
// bench.FindPeers finds for "" (auto), else each by its name.
func lookPeers(names []string) []foundPeer {
	var found []foundPeer
	for _, name := range names {
		if name != "" {
			p, err := bench.FindPeerNamed(name)
			found = append(found, foundPeer{p, err})
			continue
		}
		peers, err := bench.FindPeers()
		if err != nil {
			found = append(found, foundPeer{err: err})
		}
		for _, p := range peers {
			found = append(found, foundPeer{p: p})
		}
	}
	return found
}

// measuring reports whether a system MPI is left to run.
func (j *peerJobs) measuring() bool {
	return slices.ContainsFunc(j.jobs, func(job *peerJob) bool { return job.p != nil })
}

// run measures benchmarks on each system MPI, one job after the other.
// After one's job fails it runs no more, and its note says why (the
// series measured before stay).
func (j *peerJobs) run(benchmarks []string, after func()) [][]bench.Series {
	o := j.o
	var out [][]bench.Series
	for _, job := range j.jobs {
		if job.p == nil {
			continue
		}
		series, err := job.p.Run(j.ctx, job.bin, bench.PeerJob{NP: o.np, Benchmarks: benchmarks, Sizes: o.sizes,
			Budget: o.budget.Seconds(), Samples: o.samples, OffCache: o.offCache, SampleFloors: o.sampleFloors})
		after()
		if err != nil {
			job.note = fmt.Sprintf("system MPI (%s): %v", job.p.Version, err)
			job.p = nil
			continue
		}
		for i := range series {
			series[i].Variant = job.variant
		}
		out = append(out, series)
	}
	return out
}

// printRecord prints the floor's line and the IMB listing of every
// series (unless quiet), the comparison table of every benchmark, and the
// record's warning that its figures may be wrong, once, at the end.
func printRecord(rec *bench.Record, quiet bool, w io.Writer) error {
	if !quiet {
		if rec.Floor != nil {
			fmt.Fprintf(w, "%s\n\n", rec.Floor.Describe())
		}
		for _, s := range rec.Series {
			if err := bench.WriteIMB(w, s); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	}
	for _, b := range rec.Params.Benchmarks {
		if !slices.ContainsFunc(rec.Series, func(s bench.Series) bool { return s.Benchmark == b }) {
			continue // no variant measured it
		}
		if err := bench.WriteComparison(w, rec, b); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if slow := bench.SlowStarts(rec.Series, slowStart); len(slow) > 0 {
		fmt.Fprintf(w, "First samples above %g times their median:\n", float64(slowStart))
		for _, l := range slow {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if rec.Warning != "" {
		fmt.Fprintf(w, "\nWARNING: %s\n", rec.Warning)
	}
	return nil
}

// slowStart is how many times its median a size's first sample may take
// before printRecord lists it (bench.SlowStarts): more shows state that
// the first operations after Init still set up.
const slowStart = 2

// loadReason reads the load average before a run on cpus CPUs and says
// why it is too high for trustworthy figures (bench.LoadReason); "" when
// it is not, or cannot be read.
func (o *suiteOptions) loadReason(cpus int) string {
	if o.loadAverage == nil {
		return ""
	}
	load, err := o.loadAverage()
	if err != nil {
		return ""
	}
	return bench.LoadReason(load, cpus)
}

// othersReason says that other programs kept the machine's cpus CPUs
// busy while the run measured (bench.OthersReason); "" when they did not,
// or when others (nil) could not tell.
func othersReason(others *bench.OthersCPU, cpus int) string {
	if others == nil {
		return ""
	}
	share, err := others.Share(cpus)
	if err != nil {
		return ""
	}
	return bench.OthersReason(share, cpus)
}

// trustWarning returns the run's one warning that its figures may be
// wrong: busy (the machine was busy when it began, other programs kept it
// busy while it ran: "" for neither) and the benchmarks whose floors,
// before, between and after their jobs, are bench.FloorChange or more apart, or
// whose compute gauges are bench.ComputeChange (bench.TrustWarning); ""
// when neither.
func trustWarning(rec *bench.Record, busy ...string) string {
	var drifts []bench.Drift
	for _, b := range rec.Params.Benchmarks {
		if s, ok := driftOf(rec, b); ok {
			drifts = append(drifts, bench.Drift{Benchmark: b, Floors: s.Floors, Compute: s.Compute})
		}
	}
	return bench.TrustWarning(append(slices.Clone(busy), bench.DriftReason(drifts)))
}

// driftOf returns a series of benchmark b whose floors around and
// between its jobs are bench.FloorChange or more apart, or whose compute gauges
// are bench.ComputeChange.
func driftOf(rec *bench.Record, b string) (bench.Series, bool) {
	for _, s := range rec.Series {
		if s.Benchmark == b && s.SpeedChanged() {
			return s, true
		}
	}
	return bench.Series{}, false
}
