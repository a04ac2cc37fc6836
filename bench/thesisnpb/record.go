// Package thesisnpb holds the record of the thesis's chapter 8
// reproduction (section 8.6: the NAS Parallel Benchmarks on PM/RHiNET and
// PM/RHiNET-VP, `cmd/thesis npb`), and writes its page: a table of Mop/s
// against processes per benchmark, plots, and the thesis's findings with a
// verdict computed from the data for each.
package thesisnpb

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rhinet-go/martini/bench"
)

// RecordFile is the name of the record in a results directory.
const RecordFile = "thesis-npb.json"

// Layers are the PM message layers of chapter 8, as mpirun -eager names
// them, in the order the page shows them.
var Layers = []string{"pm", "vp"}

// LayerNames are the thesis's names of the layers.
var LayerNames = map[string]string{"pm": "PM/RHiNET", "vp": "PM/RHiNET-VP"}

// Record is the reproduction's record: every run of the sweep, with what
// it ran on. It is written after every run, so that an interrupted sweep
// keeps what finished.
type Record struct {
	// Time is when the sweep that made the record began.
	Time        time.Time     `json:"time"`
	Machine     bench.Machine `json:"machine"`
	GoVersion   string        `json:"go_version"`
	GitRevision string        `json:"git_revision,omitempty"`
	// HostSpeed is the modelled host's speed ("p3-933"): under declared
	// computing the divisor of the calibrations' Mop/s (Calibration),
	// under CPU computing mpirun's -host-speed of every run.
	HostSpeed string `json:"host_speed"`
	// Compute is mpirun's -compute of every run: ComputeDeclared, or ""
	// for the thread's CPU time (the records before declared computing).
	Compute string `json:"compute,omitempty"`
	// Calibrations are the operation rates of the runs under declared
	// computing, one per benchmark and class.
	Calibrations []Calibration `json:"calibrations,omitempty"`
	Points       []Point       `json:"points"`
}

// Point is one run: a benchmark of a class on np processes over a layer,
// in virtual time.
type Point struct {
	Key
	// Mops is NPB's Mop/s in total, in virtual time.
	Mops float64 `json:"mops"`
	// Seconds is NPB's timed part, in virtual seconds.
	Seconds float64 `json:"seconds"`
	// Verified is NPB's verification (a sweep keeps only verified runs).
	Verified bool `json:"verified"`
	// Wall is how long the run took on this machine, in seconds.
	Wall float64 `json:"wall_seconds"`
	// Load is the machine's one-minute load average when the run began
	// (0 when unknown).
	Load float64 `json:"load,omitempty"`
	// Time is when the run began.
	Time time.Time `json:"time"`
	// GitRevision is the revision the run was built from.
	GitRevision string `json:"git_revision,omitempty"`
	// Escapes is how many of the run's processes gave up waiting for the
	// ordering of virtual time at least once (nicemu.EscapeNotice: after
	// 5 s of real time, a process starved of the processor, say) and went
	// on in real order, so that the run's virtual times may differ from
	// another's; nil in runs recorded before it was counted.
	Escapes *int `json:"escapes,omitempty"`
}

// Key names a point of the sweep.
type Key struct {
	Benchmark string `json:"benchmark"` // NPB's name: "CG"
	Class     string `json:"class"`     // "S", "W" or "A"
	Layer     string `json:"layer"`     // "pm" or "vp"
	NP        int    `json:"np"`
}

// String names the point as the sweep's messages do: "CG class A on 16
// processes over PM/RHiNET-VP".
func (k Key) String() string {
	return fmt.Sprintf("%s class %s on %d processes over %s", k.Benchmark, k.Class, k.NP, layerName(k.Layer))
}

func layerName(l string) string { return cmp.Or(LayerNames[l], l) }

// Find returns the point of k, if the record holds it.
func (r *Record) Find(k Key) (Point, bool) {
	i := slices.IndexFunc(r.Points, func(p Point) bool { return p.Key == k })
	if i < 0 {
		return Point{}, false
	}
	return r.Points[i], true
}

// Add puts p into the record, replacing a point of the same key, and keeps
// the points in a fixed order (benchmark, class, layer, processes), so
// that the same points encode to the same bytes.
func (r *Record) Add(p Point) {
	r.Points = slices.DeleteFunc(r.Points, func(q Point) bool { return q.Key == p.Key })
	r.Points = append(r.Points, p)
	slices.SortFunc(r.Points, func(a, b Point) int { return compareKeys(a.Key, b.Key) })
}

func compareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(classOrder(a.Class), classOrder(b.Class)),
		cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.NP, b.NP))
}

// classOrder orders the classes by size (S, W, A, B, C).
func classOrder(c string) int {
	if i := slices.Index([]string{"S", "W", "A", "B", "C"}, c); i >= 0 {
		return i
	}
	return 99
}

// Encode writes r as indented JSON.
func (r *Record) Encode(w io.Writer) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("thesisnpb: encode record: %w", err)
	}
	if _, err := w.Write(append(js, '\n')); err != nil {
		return fmt.Errorf("thesisnpb: encode record: %w", err)
	}
	return nil
}

// Decode reads a Record written by Encode; a field it does not know, or
// a point without a benchmark, class, layer or process count, is an
// error.
func Decode(rd io.Reader) (*Record, error) {
	var r Record
	d := json.NewDecoder(rd)
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("thesisnpb: decode record: %w", err)
	}
	for i, p := range r.Points {
		if p.Benchmark == "" || p.Class == "" || p.Layer == "" || p.NP <= 0 {
			return nil, fmt.Errorf("thesisnpb: decode record: point %d: %+v: want a benchmark, class, layer and process count", i, p.Key)
		}
	}
	return &r, nil
}

// Load reads the record at path.
func Load(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("thesisnpb: %w", err)
	}
	return Decode(bytes.NewReader(data))
}

// Save writes r to path through a temporary file in the same directory
// renamed over it, so that an interruption leaves the old record or the
// new one, never half of one.
func (r *Record) Save(path string) error {
	var b bytes.Buffer
	if err := r.Encode(&b); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".thesis-npb-*.tmp")
	if err != nil {
		return fmt.Errorf("thesisnpb: save: %w", err)
	}
	_, werr := f.Write(b.Bytes())
	cerr := f.Close()
	if err := cmp.Or(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("thesisnpb: save: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("thesisnpb: save: %w", err)
	}
	return nil
}
