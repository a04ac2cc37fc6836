package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// SchemaVersion is the version of the Record format; new records set
// Record.Schema to it.
// Version 2 gives the machine's usable CPUs ("cpus") and names cpuid's
// package figures for what they are ("cpuid_package_cores" and
// "cpuid_package_threads", version 1's "cores" and "threads").
// Version 3 adds the machine's cross-core floor ("floor"), which a record
// need not have. Version 4 adds the warning that the figures may be wrong
// ("warning"), present only when the run had one. Version 5 adds the
// compute gauges of the floor's CPUs ("compute_msec" of the floor and of
// each series), which a record need not have. Version 6 adds each row's
// job floors ("sample_floors_usec") and what MatchSpeeds made of them
// ("samples_left_out", "unmatched_speed"), which a row need not have.
// Decode reads every version from oldestSchema on.
const SchemaVersion = 6

// LocalResults is the results directory that the commands measuring this
// machine (mpibench, thesis, npb) write into by default: results/local,
// which git ignores, so that a run leaves a clone unchanged. The committed
// records live in CommittedResults; a command writes there only when told
// to with -results.
const LocalResults = "results/local"

// CommittedResults is the results directory of the committed records,
// which `mpibench report` regenerates by default.
const CommittedResults = "results"

// oldestSchema is the oldest version of the Record format Decode reads.
const oldestSchema = 1

// Sources of a Series.
const (
	SourceMartini = "martini" // this runtime
	SourcePeer    = "peer"    // the system MPI, running the C benchmark of bench/peer
)

// Record is what one run of the suite measured, with what it ran on: the
// JSON document written into results/.
type Record struct {
	Schema    int       `json:"schema"`
	Time      time.Time `json:"time"`
	Machine   Machine   `json:"machine"`
	GoVersion string    `json:"go_version"`
	// GitRevision is the commit the runtime was built from, with a
	// "+dirty" suffix when the tree had changes; "" when unknown.
	GitRevision string   `json:"git_revision"`
	Params      Params   `json:"params"`
	Series      []Series `json:"series"`
	// Kernels are runs of NAS Parallel Benchmarks kernels (package npb).
	Kernels []Kernel `json:"kernels,omitempty"`
	// NPBRuns are the runs of a comparison of the NAS Parallel Benchmarks'
	// Go ports with the reference NPB3.4-MPI (npb/cmd/npbcompare), both
	// sides.
	NPBRuns []NPBRun `json:"npb_runs,omitempty"`
	// Floor is the cross-core floor of the machine, measured in the same
	// run (MeasureFloor); nil when it was not.
	Floor *Floor `json:"floor,omitempty"`
	// Notes say what the run could not do ("system MPI: mpicc not found").
	Notes []string `json:"notes,omitempty"`
	// Warning says, in plain words, why the figures of the run may be
	// wrong (the machine was busy, or its speed changed while it ran);
	// "" when nothing was noticed (TrustWarning).
	Warning string `json:"warning,omitempty"`
}

// Params are the run's settings.
type Params struct {
	NP         int      `json:"np"`
	Benchmarks []string `json:"benchmarks"`
	Sizes      []int    `json:"sizes"`
	Variants   []string `json:"variants"`
	// Budget is the time each size of each benchmark may take, samples
	// included, in seconds; Samples the number of timed samples.
	Budget   float64 `json:"budget_seconds"`
	Samples  int     `json:"samples"`
	OffCache bool    `json:"off_cache"`
	// Interleaved: the jobs ran benchmark by benchmark, each variant's
	// then the system MPI's, rather than a job per variant over all
	// benchmarks.
	Interleaved bool `json:"interleaved,omitempty"`
}

// Series is one benchmark measured under one variant (or by the peer MPI).
type Series struct {
	Benchmark string `json:"benchmark"` // PingPong, Allreduce, ...
	// Variant names the settings ("default", "eager=4096", "rndv=pull",
	// "system MPI"); Flags are the mpirun flags that made it.
	Variant string   `json:"variant"`
	Flags   []string `json:"flags,omitempty"`
	Source  string   `json:"source"` // SourceMartini or SourcePeer
	NP      int      `json:"np"`
	Rows    []Row    `json:"rows"`
	// Floors are the cross-core floor's t (µs) measured right before,
	// between and right after the jobs of this benchmark, in a run that
	// interleaves them with the system MPI's: floors far apart say that
	// the machine changed between the columns (a virtual machine whose
	// processors moved). Empty otherwise. (Records from before the
	// floors between the jobs hold two, before and after.)
	Floors []float64 `json:"floors_usec,omitempty"`
	// Compute are the compute gauges (Floor.Compute) of the floors'
	// CPUs measured with each of Floors, in ms: a CPU whose gauges are
	// far apart changed its speed between the columns. Empty in records
	// from before the gauge.
	Compute [][]float64 `json:"compute_msec,omitempty"`
}

// SpeedChanged reports whether s's floors around and between its jobs
// are FloorChange or more apart, or a CPU's compute gauges
// ComputeChange: its columns were measured at more than one speed of the
// machine.
func (s Series) SpeedChanged() bool { return FloorsApart(s.Floors) || ComputeApart(s.Compute) }

// Row is one message size of a Series. Times are per operation, in
// microseconds.
type Row struct {
	Bytes int `json:"bytes"`
	Reps  int `json:"reps"` // operations in each sample
	// Samples are the times of the timed samples: for point-to-point
	// benchmarks as IMB's t (PingPong: half the round trip), for
	// collectives the slowest rank's time.
	Samples []float64 `json:"samples_usec"`
	T       float64   `json:"t_usec"` // median of Samples
	// TMin, TMax and TAvg are the fastest, slowest and mean rank's time
	// (medians over the samples), for collectives; 0 otherwise.
	TMin float64 `json:"t_min_usec,omitempty"`
	TMax float64 `json:"t_max_usec,omitempty"`
	TAvg float64 `json:"t_avg_usec,omitempty"`
	// MBps is the bandwidth of point-to-point benchmarks as IMB counts
	// it (MB = 10^6 bytes; Sendrecv counts the bytes twice, Exchange four
	// times), from T; 0 for collectives.
	MBps float64 `json:"mbytes_per_sec,omitempty"`
	// SampleFloors are the job's own cross-core floor, in µs, measured
	// between its ranks 0 and 1 right after each sample (SampleFloor):
	// the state of the machine each sample ran in. Empty where the job
	// did not measure it (more processes than CPUs, no shared memory,
	// -no-floor) and in records from before it.
	SampleFloors []float64 `json:"sample_floors_usec,omitempty"`
	// LeftOut is how many samples T (and MBps) leave out: samples taken
	// while the job's floor read FloorChange times or more the state the
	// columns are compared in (MatchSpeeds). TMin, TMax and TAvg keep
	// every sample.
	LeftOut int `json:"samples_left_out,omitempty"`
	// Unmatched: no sample of this row ran in the state of the
	// machine the lowest floor says, so T compares with the other
	// columns' across states; it is the median of all samples.
	Unmatched bool `json:"unmatched_speed,omitempty"`
}

// Collective reports whether a Series is of a collective benchmark.
func (s Series) Collective() bool { return IsCollective(s.Benchmark) }

// Encode writes r as indented JSON.
func (r *Record) Encode(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	if err := e.Encode(r); err != nil {
		return fmt.Errorf("bench: encode record: %w", err)
	}
	return nil
}

// Decode reads a Record written by Encode, of this schema or an older
// one (Record.Schema keeps the version read). A field it does not know
// is an error.
func Decode(rd io.Reader) (*Record, error) {
	var r Record
	d := json.NewDecoder(rd)
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("bench: decode record: %w", err)
	}
	if r.Schema < oldestSchema || r.Schema > SchemaVersion {
		return nil, fmt.Errorf("bench: record schema %d, this program reads %d to %d", r.Schema, oldestSchema, SchemaVersion)
	}
	return &r, nil
}

// Save writes r into dir (created if need be) as name.json and rewrites
// dir's README and plots from all its records (Regenerate). It returns the
// record's path.
func (r *Record) Save(dir, name string) (string, error) {
	path, err := r.Write(dir, name)
	if err != nil {
		return "", err
	}
	if _, err := Regenerate(dir); err != nil {
		return "", err
	}
	return path, nil
}

// Write writes r into dir (created if need be) as name.json and returns
// the file's path; it regenerates nothing.
func (r *Record) Write(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bench: save record: %w", err)
	}
	path := filepath.Join(dir, name+".json")
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("bench: save record: %w", err)
	}
	if err := r.Encode(f); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("bench: save record: %w", err)
	}
	return path, nil
}

// ReadRecord reads the Record in the file at path.
func ReadRecord(path string) (*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	r, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Kernel is one run of a kernel of the NAS Parallel Benchmarks, as NPB
// reports it.
type Kernel struct {
	Name       string  `json:"name"`  // EP, IS, CG, MG or FT
	Class      string  `json:"class"` // S, W, A, B, C
	Size       string  `json:"size"`
	Iterations int     `json:"iterations"`
	NP         int     `json:"np"`
	Seconds    float64 `json:"seconds"`
	Mops       float64 `json:"mops_total"`
	Operation  string  `json:"operation"`
	Verified   bool    `json:"verified"`
}
