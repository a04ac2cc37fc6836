package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// TestMain lets the test binary serve as the suite's worker and as the
// floor's child: mpibench starts its own executable with "worker" under
// mpirun, and with floorChildArg to measure the floor.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(worker(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == floorChildArg {
		os.Exit(floorChild(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

// TestFlags checks the suite's flags: the defaults, explicit flags,
// -short, -peer, and flags that must be refused with a message.
func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	t.Run("defaults", func(t *testing.T) { testFlagsDefaults(t, &stderr) })
	t.Run("explicit", func(t *testing.T) { testFlagsExplicit(t, &stderr) })
	t.Run("short", func(t *testing.T) { testFlagsShort(t, &stderr) })
	t.Run("peer", func(t *testing.T) { testFlagsPeer(t, &stderr) })
	t.Run("bad", func(t *testing.T) { testFlagsBad(t, &stderr) })
}

// testFlagsDefaults checks the options with no flags.
func testFlagsDefaults(t *testing.T, stderr *bytes.Buffer) {
	o, err := parseSuiteFlags(nil, stderr)
	if err != nil {
		t.Fatalf("defaults: %v\n%s", err, stderr)
	}
	if o.np != 2 || len(o.benchmarks) != 4 || len(o.sizes) != 9 || len(o.variants) != 5 || !o.peer || o.results != bench.LocalResults || o.noFloor {
		t.Errorf("defaults = %+v", o)
	}
}

// testFlagsExplicit checks -np, -bench, -compare, -sizes, -peer, -q and
// -no-floor, and that a collective's variant measures that collective
// alone.
func testFlagsExplicit(t *testing.T, stderr *bytes.Buffer) {
	o, err := parseSuiteFlags([]string{"-np", "3", "-bench", "allreduce,bcast", "-compare", "coll,copy", "-sizes", "0-1k", "-peer", "off", "-q", "-no-floor"}, stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var names []string
	for _, v := range o.variants {
		names = append(names, v.Name)
	}
	for _, want := range []string{"default", "no-cma", "coll=allreduce=ring", "coll=bcast=binomial"} {
		if !strings.Contains(strings.Join(names, ";"), want) {
			t.Errorf("-compare coll,copy: variants %v lack %s", names, want)
		}
	}
	if o.peer || !o.quiet || len(o.sizes) != 12 || !o.noFloor {
		t.Errorf("parsed %+v", o)
	}
	for _, v := range o.variants {
		if got := o.benchmarksOf(v, o.benchmarks); strings.HasPrefix(v.Name, "coll=allreduce") && (len(got) != 1 || got[0] != "Allreduce") {
			t.Errorf("variant %s measures %v, want Allreduce alone", v.Name, got)
		}
	}
}

// testFlagsShort checks -short alone and with explicit flags.
func testFlagsShort(t *testing.T, stderr *bytes.Buffer) {
	o, err := parseSuiteFlags([]string{"-short", "-peer=false"}, stderr)
	if err != nil {
		t.Fatalf("-short: %v\n%s", err, stderr)
	}
	if len(o.sizes) != 3 || o.budget != shortBudget || o.samples != shortSamples || o.peer || len(o.variants) != 5 || len(o.benchmarks) != 4 {
		t.Errorf("-short = %+v", o)
	}
	o, err = parseSuiteFlags([]string{"-short", "-sizes", "8", "-samples", "7"}, stderr)
	if err != nil || len(o.sizes) != 1 || o.samples != 7 || o.budget != shortBudget {
		t.Errorf("-short with explicit flags: %v, %+v", err, o)
	}
}

// testFlagsPeer checks the peer implementations each -peer names.
func testFlagsPeer(t *testing.T, stderr *bytes.Buffer) {
	for peer, want := range map[string]string{"all": "openmpi,mpich", "mpich,openmpi,mpich": "mpich,openmpi", "auto": "", "off": "<none>"} {
		o, err := parseSuiteFlags([]string{"-peer", peer}, stderr)
		got := strings.Join(o.peerNames, ",")
		if len(o.peerNames) == 0 {
			got = "<none>"
		}
		if err != nil || got != want || o.peer != (want != "<none>") {
			t.Errorf("-peer %s: %v, names %q (peer %v), want %q", peer, err, got, o.peer, want)
		}
	}
}

// testFlagsBad checks that bad flags are refused, with a message.
func testFlagsBad(t *testing.T, stderr *bytes.Buffer) {
	for _, bad := range [][]string{
		{"-np", "1"},               // point-to-point needs 2
		{"-peer", "openmpi,lam"},   //
		{"-bench", "PingPang"},     // unknown benchmark
		{"-sizes", "4-1"},          // backwards range
		{"-variants", "eager=big"}, // bad variant
		{"-compare", "speed"},      // unknown group
		{"-samples", "0"},          //
		{"-budget", "0s"},          //
		{"-peer", "maybe"},         //
		{"extra"},                  // stray argument
		{"-variants", "rndv=fast"}, //
		{"-variants", "coll=x=y"},  //
		{"-variants", "default=1"}, //
		{"-timeout", "-1s"},        //
		{"-retries", "-1"},         //
		{"-bench", "Barrier", "-np", "0"},
	} {
		stderr.Reset()
		if _, err := parseSuiteFlags(bad, stderr); err == nil || stderr.Len() == 0 {
			t.Errorf("%v: accepted (or no message): %v", bad, err)
		}
	}
}

// TestRunTiny runs the suite end to end at np=2 on two variants, into a
// temporary results directory, and checks the tables and the record.
func TestRunTiny(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Barrier has no size: it is measured although 0 is not among the
	// sizes.
	code := run(ctx, []string{"-np", "2", "-bench", "PingPong,Allreduce,Barrier", "-sizes", "8,4k", "-variants", "default;rndv=pull",
		"-budget", "10ms", "-samples", "2", "-peer", "off", "-mpirun", mpirun, "-results", results}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	out := stdout.String()
	for _, want := range []string{"# Benchmarking PingPong", "#bytes #repetitions", "t_max[usec]", "| default", "rndv=pull", "Martini (thesis)", "Record: ",
		"# Benchmarking Barrier", "**Barrier**"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	checkTinyRecord(t, onlyRecord(t, results), out)
	if _, err := os.Stat(filepath.Join(results, "README.md")); err != nil {
		t.Errorf("no README regenerated: %v", err)
	}
	runTinyQuiet(t, ctx, mpirun, &stdout, &stderr)
}

// checkTinyRecord checks TestRunTiny's record: its series, measured
// benchmark by benchmark and recorded variant by variant, the floor, and
// every row.
func checkTinyRecord(t *testing.T, rec *bench.Record, out string) {
	t.Helper()
	if len(rec.Series) != 6 || rec.Params.NP != 2 || len(rec.Notes) == 0 {
		t.Fatalf("record: %d series, np %d, notes %v", len(rec.Series), rec.Params.NP, rec.Notes)
	}
	if rec.Schema != bench.SchemaVersion || rec.Machine.CPUs < 1 {
		t.Errorf("record schema %d, machine %+v", rec.Schema, rec.Machine)
	}
	// Measured benchmark by benchmark, recorded variant by variant.
	var order []string
	for _, s := range rec.Series {
		order = append(order, s.Variant+"/"+s.Benchmark)
	}
	if want := "default/PingPong default/Allreduce default/Barrier rndv=pull/PingPong rndv=pull/Allreduce rndv=pull/Barrier"; !rec.Params.Interleaved || strings.Join(order, " ") != want {
		t.Errorf("series %v (interleaved %v), want %s", order, rec.Params.Interleaved, want)
	}
	checkFloor(t, rec, out)
	checkTinyRows(t, rec)
}

// checkTinyRows checks that each series has a row per size (Barrier one,
// of 0 bytes) with times, samples, repetitions and bandwidths, and the
// job's floor after each sample where the machine has a CPU per rank.
func checkTinyRows(t *testing.T, rec *bench.Record) {
	t.Helper()
	floors := rec.Machine.CPUs >= rec.Params.NP
	for _, s := range rec.Series {
		want := 2
		if s.Benchmark == "Barrier" {
			want = 1
		}
		if len(s.Rows) != want {
			t.Errorf("%s/%s: %d rows, want %d", s.Benchmark, s.Variant, len(s.Rows), want)
		}
		for _, r := range s.Rows {
			if (s.Benchmark == "Barrier") != (r.Bytes == 0) {
				t.Errorf("%s/%s: a row of %d bytes", s.Benchmark, s.Variant, r.Bytes)
			}
			if r.T <= 0 || len(r.Samples) != 2 || r.Reps < 1 || (s.Benchmark == "PingPong" && r.Bytes > 0 && r.MBps <= 0) ||
				(s.Collective() && (r.TMin <= 0 || r.TMin > r.TMax)) {
				t.Errorf("%s/%s: bad row %+v", s.Benchmark, s.Variant, r)
			}
			if floors && (len(r.SampleFloors) != len(r.Samples) || slices.Min(r.SampleFloors) <= 0) {
				t.Errorf("%s/%s, %d bytes: the job's floors %v for %d samples", s.Benchmark, s.Variant, r.Bytes, r.SampleFloors, len(r.Samples))
			}
		}
	}
}

// runTinyQuiet: quiet, the tables alone. A forced algorithm that does not
// apply at a size (shared, above a barrier's payload) leaves that size out.
func runTinyQuiet(t *testing.T, ctx context.Context, mpirun string, stdout, stderr *bytes.Buffer) {
	t.Helper()
	stdout.Reset()
	code := run(ctx, []string{"-np", "2", "-bench", "Barrier,Bcast", "-sizes", "0,8,32k", "-variants", "coll=bcast=shared",
		"-budget", "5ms", "-samples", "1", "-peer", "off", "-mpirun", mpirun, "-results", "", "-q"}, stdout, stderr)
	out := stdout.String()
	if code != 0 || strings.Contains(out, "# Benchmarking") || !strings.Contains(out, "**Barrier**") ||
		!strings.Contains(out, "**Bcast**") || strings.Contains(out, "32 KiB") {
		t.Errorf("quiet run: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestRunNonblocking runs the nonblocking collectives (IMB-NBC's pure
// mode) at np=2: a series of each, Ibarrier once at 0 bytes, the others
// at every size (the reductions' sizes multiples of 4), with the
// collectives' times of the slowest rank.
func TestRunNonblocking(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	results := t.TempDir()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, []string{"-np", "2", "-bench", strings.Join(bench.Nonblocking, ","), "-sizes", "8,4k", "-variants", "default",
		"-budget", "5ms", "-samples", "1", "-peer", "off", "-no-floor", "-q", "-mpirun", mpirun, "-results", results}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	rec := onlyRecord(t, results)
	if len(rec.Series) != len(bench.Nonblocking) {
		t.Fatalf("%d series, want %d", len(rec.Series), len(bench.Nonblocking))
	}
	for i, s := range rec.Series {
		want := []int{8, 4096}
		if s.Benchmark == "Ibarrier" {
			want = []int{0}
		}
		var got []int
		for _, r := range s.Rows {
			got = append(got, r.Bytes)
			if r.T <= 0 || r.TMin <= 0 || r.TMin > r.TMax || r.MBps != 0 {
				t.Errorf("%s %d B: bad row %+v", s.Benchmark, r.Bytes, r)
			}
		}
		if s.Benchmark != bench.Nonblocking[i] || !s.Collective() || !slices.Equal(got, want) {
			t.Errorf("series %d: %s (collective %v) at %v bytes, want %s at %v", i, s.Benchmark, s.Collective(), got, bench.Nonblocking[i], want)
		}
		if !strings.Contains(stdout.String(), "**"+s.Benchmark+"**") {
			t.Errorf("no table of %s:\n%s", s.Benchmark, &stdout)
		}
	}
}

// TestRunBuild pairs two builds in one run: a build=DIR variant's jobs
// run DIR's mpibench (here a script that notes each start, then runs
// this test's program), benchmark by benchmark beside this build's, and
// its series carry the variant's name.
func TestRunBuild(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, results := t.TempDir(), t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\ntouch %s/ran.$$\nexec %s \"$@\"\n", dir, exe)
	if err := os.WriteFile(filepath.Join(dir, "mpibench"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	variant := "build=" + dir
	code := run(ctx, []string{"-np", "2", "-bench", "PingPong,Barrier", "-sizes", "8", "-variants", "default;" + variant,
		"-budget", "5ms", "-samples", "1", "-peer", "off", "-no-floor", "-q", "-mpirun", mpirun, "-results", results}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	var got []string
	for _, s := range onlyRecord(t, results).Series {
		got = append(got, s.Variant+"/"+s.Benchmark)
	}
	if want := "default/PingPong default/Barrier " + variant + "/PingPong " + variant + "/Barrier"; strings.Join(got, " ") != want {
		t.Errorf("series %v, want %s", got, want)
	}
	// Two jobs (PingPong's, Barrier's) of two processes each.
	if ran, _ := filepath.Glob(filepath.Join(dir, "ran.*")); len(ran) != 4 {
		t.Errorf("the build's mpibench started %d times, want 4", len(ran))
	}
	for _, bad := range []string{"build=" + t.TempDir(), "build=" + filepath.Join(dir, "absent")} {
		stderr.Reset()
		if _, err := parseSuiteFlags([]string{"-variants", "default;" + bad}, &stderr); err == nil || !strings.Contains(stderr.String(), "no mpibench") {
			t.Errorf("%s: %v; want an error saying it has no mpibench\n%s", bad, err, &stderr)
		}
	}
}

// TestRunBothPeers runs the suite against Open MPI and MPICH in one run:
// a column of each, named after its MPI, and a note of each.
func TestRunBothPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs both system MPIs")
	}
	for _, name := range []string{bench.PeerOpenMPI, bench.PeerMPICH} {
		if _, err := bench.FindPeerNamed(name); err != nil {
			t.Skip(err)
		}
	}
	mpirun := mpiruntest.ForTest(t)
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	results := t.TempDir()
	code := run(ctx, []string{"-np", "2", "-bench", "PingPong,Bcast", "-sizes", "8", "-variants", "default", "-budget", "5ms", "-samples", "1",
		"-peer", "all", "-no-floor", "-q", "-mpirun", mpirun, "-results", results}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if out := stdout.String(); !strings.Contains(out, "system MPI, Open MPI") || !strings.Contains(out, "system MPI, MPICH") || !strings.Contains(out, "**") {
		t.Errorf("tables lack a column of each MPI:\n%s", out)
	}
	rec := onlyRecord(t, results)
	var got []string
	for _, s := range rec.Series {
		got = append(got, s.Source+"/"+s.Variant+"/"+s.Benchmark)
	}
	want := "martini/default/PingPong martini/default/Bcast peer/Open MPI/PingPong peer/MPICH/PingPong peer/Open MPI/Bcast peer/MPICH/Bcast"
	if strings.Join(got, " ") != want {
		t.Errorf("series %v, want %s", got, want)
	}
	if readme, err := os.ReadFile(filepath.Join(results, "README.md")); err != nil || !strings.Contains(string(readme), "against Open MPI and MPICH") {
		t.Errorf("results page: %v, no section against both MPIs", err)
	}
}

// onlyRecord reads the one record of the results directory dir, failing
// the test unless there is exactly one.
func onlyRecord(t *testing.T, dir string) *bench.Record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("records: %v", files)
	}
	rec, err := bench.ReadRecord(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// checkFloor checks the floor of a run measuring PingPong with 2
// samples: in its record, its listing (out) and its table, or, on a
// machine with a single CPU, a note saying why there is none.
func checkFloor(t *testing.T, rec *bench.Record, out string) {
	t.Helper()
	if rec.Machine.CPUs < 2 {
		if rec.Floor != nil || !slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, bench.ErrFloorCPUs.Error()) }) {
			t.Errorf("%d CPU: floor %+v, notes %q", rec.Machine.CPUs, rec.Floor, rec.Notes)
		}
		return
	}
	if f := rec.Floor; f == nil || f.T <= 0 || len(f.Samples) != 2 {
		t.Errorf("record floor %+v, notes %q", f, rec.Notes)
	}
	for _, want := range []string{"# floor: " + bench.FloorWhat, "| floor: " + bench.FloorWhat, "cross-core floor"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestGroups: -interleave measures the benchmarks one at a time, and
// -interleave=false all in one job; a variant limited to some benchmarks
// runs no job for a group it has none of.
func TestGroups(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseSuiteFlags([]string{"-bench", "Bcast,Allreduce", "-compare", "coll"}, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	if g := o.groups(); len(g) != 2 || len(g[0]) != 1 || g[0][0] != "Bcast" || g[1][0] != "Allreduce" {
		t.Errorf("interleaved groups %v", g)
	}
	limited := 0
	for _, v := range o.variants {
		if strings.HasPrefix(v.Name, "coll=allreduce") {
			limited++
			if got := o.benchmarksOf(v, []string{"Bcast"}); len(got) != 0 {
				t.Errorf("variant %s measures %v of Bcast's group", v.Name, got)
			}
		}
	}
	if limited == 0 {
		t.Errorf("-compare coll: no Allreduce variant among %v", o.variants)
	}
	if o, err = parseSuiteFlags([]string{"-bench", "Bcast,Allreduce", "-interleave=false"}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	if g := o.groups(); len(g) != 1 || strings.Join(g[0], ",") != "Bcast,Allreduce" {
		t.Errorf("groups without -interleave %v", g)
	}
}

// TestGroupFloors: the floors before, between and after a group's jobs
// land in every series of them, and floors bench.FloorChange or more apart make
// a note naming the group; an unknown floor marks nothing.
func TestGroupFloors(t *testing.T) {
	f := fakeFloors(0.03, 0.05, 0.17, 0.18, 0.18, 0)
	jobs := [][]bench.Series{{{Benchmark: "Reduce"}}, {{Benchmark: "Reduce", Source: bench.SourcePeer}}}
	f.begin()
	f.between()
	f.between()
	note := f.mark(jobs, []string{"Reduce"})
	if !strings.Contains(note, "while Reduce was measured") || !strings.Contains(note, "0.03, 0.05 and 0.17 µs") {
		t.Errorf("note %q", note)
	}
	for _, job := range jobs {
		if fl := job[0].Floors; !slices.Equal(fl, []float64{0.03, 0.05, 0.17}) {
			t.Errorf("%s floors %v", job[0].Source, fl)
		}
	}
	rec := &bench.Record{Params: bench.Params{Benchmarks: []string{"Reduce"}}, Series: slices.Concat(jobs...)}
	if warn := trustWarning(rec); !strings.Contains(warn, "Reduce: floor 0.03 to 0.17 µs") || !strings.Contains(warn, "while Reduce was measured") {
		t.Errorf("the run's warning %q", warn)
	}
	jobs = [][]bench.Series{{{Benchmark: "Bcast"}}}
	f.begin()
	f.between()
	if note := f.mark(jobs, []string{"Bcast"}); note != "" || len(jobs[0][0].Floors) != 2 {
		t.Errorf("floors 0.17 and 0.18: note %q, floors %v", note, jobs[0][0].Floors)
	}
	if warn := trustWarning(&bench.Record{Params: bench.Params{Benchmarks: []string{"Bcast"}}, Series: jobs[0]}); warn != "" {
		t.Errorf("a warning for floors 0.17 and 0.18: %q", warn)
	}
	jobs = [][]bench.Series{{{Benchmark: "Alltoall"}}}
	f.begin()
	f.between()
	f.between()
	if note := f.mark(jobs, []string{"Alltoall"}); note != "" || jobs[0][0].Floors != nil {
		t.Errorf("an unknown floor: note %q, floors %v", note, jobs[0][0].Floors)
	}
}

// fakeFloors returns groupFloors whose measurements are ts, in order, the
// first taken as the floor before the first group, and 0 (unknown) once
// they run out.
func fakeFloors(ts ...float64) *groupFloors {
	speeds := make([]speed, len(ts))
	for i, t := range ts {
		speeds[i] = speed{floor: t}
	}
	return fakeSpeeds(speeds...)
}

// fakeSpeeds is fakeFloors of floors and compute gauges.
func fakeSpeeds(ss ...speed) *groupFloors {
	f := &groupFloors{measure: func() speed {
		if len(ss) == 0 {
			return speed{}
		}
		v := ss[0]
		ss = ss[1:]
		return v
	}}
	f.last = f.measure()
	return f
}

// TestGroupCompute: a CPU whose compute gauge moved by
// bench.ComputeChange or more between a group's jobs makes a note and a
// warning, though the floors stayed; the gauges land in the series; a
// group whose gauges stayed within it marks none.
func TestGroupCompute(t *testing.T) {
	fast, slow := []float64{0.92, 0.93}, []float64{1.7, 0.93}
	f := fakeSpeeds(speed{0.06, fast}, speed{0.06, slow}, speed{0.06, fast}, speed{0.06, []float64{0.95, 0.96}})
	jobs := [][]bench.Series{{{Benchmark: "PingPong"}}, {{Benchmark: "PingPong", Source: bench.SourcePeer}}}
	f.begin()
	f.between()
	f.between()
	note := f.mark(jobs, []string{"PingPong"})
	if !strings.Contains(note, "while PingPong was measured") || !strings.Contains(note, "compute gauge: 0.92/0.93, 1.7/0.93 and 0.92/0.93 ms") {
		t.Errorf("note %q", note)
	}
	for _, job := range jobs {
		if c := job[0].Compute; len(c) != 3 || !slices.Equal(c[1], slow) {
			t.Errorf("%s gauges %v", job[0].Source, c)
		}
	}
	rec := &bench.Record{Params: bench.Params{Benchmarks: []string{"PingPong"}}, Series: slices.Concat(jobs...)}
	if warn := trustWarning(rec); !strings.Contains(warn, "PingPong: floor 0.06 µs, compute gauges 0.92 to 1.7 and 0.93 ms") {
		t.Errorf("the run's warning %q", warn)
	}
	jobs = [][]bench.Series{{{Benchmark: "Bcast"}}}
	f.begin()
	f.between()
	if note := f.mark(jobs, []string{"Bcast"}); note != "" || len(jobs[0][0].Compute) != 2 {
		t.Errorf("gauges within %g: note %q, gauges %v", bench.ComputeChange, note, jobs[0][0].Compute)
	}
	// Gauges apart, floors steady: one try, no note of a try again.
	f = fakeSpeeds(speed{0.06, fast}, speed{0.06, slow}, speed{0.06, fast})
	tries := 0
	notes, err := f.steady(2, []string{"Reduce"}, func(bool) error { tries++; f.between(); f.between(); return nil }, betweenJobs)
	if err != nil || tries != 1 || len(notes) != 0 {
		t.Errorf("gauges apart: %d tries, notes %q, err %v; want one try", tries, notes, err)
	}
}

// TestGroupFloorsMeasured: a run measures the floors and gauges between
// its jobs when it compares jobs, a pair of variants without a system
// MPI too, and not for one variant alone or with -no-floor.
func TestGroupFloorsMeasured(t *testing.T) {
	if _, err := bench.MeasureFloor(context.Background(), []string{"true"}, bench.FloorOptions{Samples: 1, Budget: time.Millisecond}); errors.Is(err, bench.ErrFloorCPUs) {
		t.Skipf("no floor here: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	two := []bench.Variant{{Name: "default"}, {Name: "build=/old"}}
	tests := []struct {
		name     string
		o        suiteOptions
		measured bool
	}{
		{"two variants", suiteOptions{interleave: true, variants: two}, true},
		{"one variant", suiteOptions{interleave: true, variants: two[:1]}, false},
		{"-no-floor", suiteOptions{interleave: true, noFloor: true, variants: two}, false},
		{"not interleaved", suiteOptions{variants: two}, false},
	}
	for _, tc := range tests {
		tc.o.timeout = time.Minute
		f := newGroupFloors(context.Background(), &tc.o, &peerJobs{}, exe)
		if got := f.last.floor > 0; got != tc.measured {
			t.Errorf("%s: floor %v, want one measured: %v", tc.name, f.last.floor, tc.measured)
		}
		if tc.measured && len(f.last.compute) != 2 {
			t.Errorf("%s: gauges %v", tc.name, f.last.compute)
		}
	}
}

// TestComputeApart: one CPU's gauges ComputeChange apart are apart,
// whichever CPU; gauges within it, fewer than two, or any unknown, not.
func TestComputeApart(t *testing.T) {
	tests := []struct {
		gauges [][]float64
		want   bool
	}{
		{[][]float64{{0.92, 0.93}, {0.93, 1.7}}, true},
		{[][]float64{{1.7, 0.93}, {0.92, 0.93}, {1.6, 0.94}}, true},
		{[][]float64{{0.92, 0.93}, {1.1, 1.1}}, false},
		{[][]float64{{0.92, 0.93}}, false},
		{[][]float64{{0.92, 0.93}, {0, 1.7}}, false},
		{[][]float64{{0.92, 0.93}, {1.7}}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := bench.ComputeApart(tc.gauges); got != tc.want {
			t.Errorf("ComputeApart(%v) = %v, want %v", tc.gauges, got, tc.want)
		}
	}
}

// TestGroupSteady: a group whose floors moved apart is measured again
// until they agree, at most the retries allowed, with a note for each try
// again; the floors that stand are the last try's; a job's error stops
// the tries.
func TestGroupSteady(t *testing.T) {
	tests := []struct {
		name    string
		floors  []float64 // before the first try, then two jobs a try
		retries int
		tries   int
		last    []float64
	}{
		{"steady", []float64{0.05, 0.06, 0.05}, 2, 1, []float64{0.05, 0.06, 0.05}},
		{"again once", []float64{0.05, 0.19, 0.06, 0.05, 0.06}, 2, 2, []float64{0.06, 0.05, 0.06}},
		{"the last try stands", []float64{0.05, 0.19, 0.2, 0.06, 0.2, 0.05, 0.2}, 2, 3, []float64{0.2, 0.05, 0.2}},
		{"no retries", []float64{0.05, 0.19, 0.06}, 0, 1, []float64{0.05, 0.19, 0.06}},
		{"floors unknown", []float64{0, 0, 0}, 2, 1, []float64{0, 0, 0}},
	}
	for _, tc := range tests {
		f := fakeFloors(tc.floors...)
		tries := 0
		notes, err := f.steady(tc.retries, []string{"Reduce"}, func(again bool) error {
			if again != (tries > 0) {
				t.Errorf("%s: try %d told again %v", tc.name, tries+1, again)
			}
			tries++
			f.between()
			f.between()
			return nil
		}, betweenJobs)
		if err != nil || tries != tc.tries || len(notes) != tc.tries-1 || !slices.Equal(f.floors(), tc.last) {
			t.Errorf("%s: %d tries (want %d), notes %q, floors %v (want %v), err %v", tc.name, tries, tc.tries, notes, f.seen, tc.last, err)
		}
		for _, n := range notes {
			if !strings.Contains(n, "while Reduce was measured") || !strings.HasSuffix(n, "measured again") {
				t.Errorf("%s: note %q", tc.name, n)
			}
		}
	}
	f := fakeFloors(0.05, 0.19, 0.06)
	failed := errors.New("the job failed")
	if _, err := f.steady(2, []string{"Reduce"}, func(bool) error { f.between(); return failed }, betweenJobs); err != failed {
		t.Errorf("a job's error: %v", err)
	}

	// Judged by the jobs' own floors, the floors between the jobs do not
	// count: floors apart but the jobs matched make one try; jobs that
	// differ twice then match make three, with the jobs' notes.
	f = fakeFloors(0.05, 0.19, 0.06, 0.05, 0.06, 0.05, 0.06)
	tries := 0
	matched := func() (string, bool) { return "", true }
	if notes, _ := f.steady(2, []string{"Reduce"}, func(bool) error { tries++; f.between(); f.between(); return nil }, matched); tries != 1 || len(notes) != 0 {
		t.Errorf("jobs matched, floors between apart: %d tries, notes %q", tries, notes)
	}
	tries = 0
	differ := func() (string, bool) {
		if tries < 3 {
			return fmt.Sprintf("try %d differs", tries), true
		}
		return "", true
	}
	notes, _ := f.steady(5, []string{"Reduce"}, func(bool) error { tries++; return nil }, differ)
	if tries != 3 || !slices.Equal(notes, []string{"try 1 differs", "try 2 differs"}) {
		t.Errorf("jobs that differ twice: %d tries, notes %q", tries, notes)
	}
}

// betweenJobs is steady's judge where the jobs measure no floors of their
// own.
func betweenJobs() (string, bool) { return "", false }

// TestLoadReason: a load average of half the CPUs or more before the run
// makes a reason to warn; a lower one, or one that cannot be read, none.
func TestLoadReason(t *testing.T) {
	tests := []struct {
		load float64
		err  error
		cpus int
		want bool
	}{
		{3.5, nil, 2, true},
		{1.0, nil, 2, true},
		{0.9, nil, 2, false},
		{3.5, nil, 16, false},
		{9, errors.New("no /proc"), 2, false},
	}
	for _, tc := range tests {
		o := &suiteOptions{loadAverage: func() (float64, error) { return tc.load, tc.err }}
		if got := o.loadReason(tc.cpus); (got != "") != tc.want {
			t.Errorf("load %g (err %v) on %d CPUs: reason %q, want one: %v", tc.load, tc.err, tc.cpus, got, tc.want)
		}
	}
	if o, err := parseSuiteFlags(nil, io.Discard); err != nil || o.loadAverage == nil {
		t.Errorf("parseSuiteFlags: %v, load average reader set: %v", err, o != nil && o.loadAverage != nil)
	}
}

// TestPrintWarningOnce: the run's warning is printed once, after the
// tables, in words that explain the floor.
func TestPrintWarningOnce(t *testing.T) {
	rec := &bench.Record{Params: bench.Params{Benchmarks: []string{"PingPong", "Barrier"}},
		Series: []bench.Series{
			{Benchmark: "PingPong", Variant: "default", Source: bench.SourceMartini, NP: 2, Floors: []float64{0.07, 0.31}, Rows: []bench.Row{{Bytes: 8, T: 0.2}}},
			{Benchmark: "Barrier", Variant: "default", Source: bench.SourceMartini, NP: 2, Floors: []float64{0.31, 0.9}, Rows: []bench.Row{{T: 1}}},
		}}
	rec.Warning = trustWarning(rec, bench.LoadReason(3, 2))
	var out bytes.Buffer
	if err := printRecord(rec, true, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if n := strings.Count(text, "WARNING"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, text)
	}
	for _, want := range []string{"busy", "load average 3.00 on 2 CPUs", "while PingPong and Barrier were measured", "PingPong: floor 0.07 to 0.31 µs; Barrier: floor 0.31 to 0.9 µs", "pass one cache line back and forth"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "WARNING") < strings.Index(text, "**Barrier**") {
		t.Errorf("the warning comes before the tables:\n%s", text)
	}
}

// TestRunNoFloor: -no-floor skips the floor. The run also reads a fake,
// high load average: its warning is printed and recorded.
func TestRunNoFloor(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	defer func(f bench.LoadAverage) { loadAverage = f }(loadAverage)
	loadAverage = func() (float64, error) { return 64, nil }
	results := filepath.Join(t.TempDir(), "results")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, []string{"-np", "2", "-bench", "PingPong", "-sizes", "8", "-variants", "default", "-budget", "5ms", "-samples", "1",
		"-peer", "off", "-mpirun", mpirun, "-results", results, "-no-floor"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	rec := onlyRecord(t, results)
	if rec.Floor != nil || !slices.Contains(rec.Notes, "floor: not measured (-no-floor)") || strings.Contains(stdout.String(), "floor") {
		t.Errorf("-no-floor: floor %+v, notes %q, output:\n%s", rec.Floor, rec.Notes, &stdout)
	}
	if !strings.Contains(rec.Warning, "load average 64.00") || strings.Count(stdout.String(), "WARNING: "+rec.Warning) != 1 {
		t.Errorf("load average 64: record's warning %q, output:\n%s", rec.Warning, &stdout)
	}
	readme, err := os.ReadFile(filepath.Join(results, "README.md"))
	if err != nil || !strings.Contains(string(readme), rec.Warning) {
		t.Errorf("the results page lacks the warning (%v)", err)
	}
}

// TestRunFails: a job that fails is an error naming the variant.
func TestRunFails(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-bench", "Barrier", "-variants", "default", "-peer", "off", "-results", "",
		"-mpirun", "/nonexistent/mpirun"}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "variant default") {
		t.Errorf("exit %d, stderr %q", code, &stderr)
	}
}

// TestReport: report regenerates a results directory whatever kinds of
// records it holds, and names the files it skips without failing.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../../bench/testdata/record.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"suite.json": string(raw), "broken.json": "{"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"report", "-results", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, &stderr)
	}
	if !strings.Contains(stderr.String(), "skipped broken.json: not a JSON object") || !strings.Contains(stdout.String(), "suite 1, npb 0, npb-compare 0, thesis 0") {
		t.Errorf("stdout %q, stderr %q", &stdout, &stderr)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || !strings.Contains(string(readme), "- `broken.json`: not a JSON object") {
		t.Errorf("README: %v\n%s", err, readme)
	}
	for _, bad := range [][]string{{"report", "extra"}, {"report", "-bogus"}} {
		if code := run(context.Background(), bad, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
	if code := run(context.Background(), []string{"report", "-results", filepath.Join(dir, "absent")}, &stdout, &stderr); code != 1 {
		t.Errorf("report of a missing directory: exit %d, want 1", code)
	}
}
