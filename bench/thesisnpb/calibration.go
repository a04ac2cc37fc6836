package thesisnpb

import (
	"cmp"
	"slices"
	"time"
)

// ComputeDeclared is Record.Compute for a sweep under declared computing
// (mpirun -compute declared): the benchmarks declare their operations,
// charged at the operation rate of their Calibration.
const ComputeDeclared = "declared"

// Calibration is the modelled host's speed on one benchmark and class, for
// declared computing: the benchmark's Mop/s on one process of this
// machine in real time (the best of Runs runs, NPB's own count and clock),
// divided by the record's host speed, is the operation rate (mpirun
// -op-rate) at which its runs of the sweep are charged. It is measured
// once per record and re-used by a resumed sweep, so that every run of a
// benchmark and class is charged at one rate.
type Calibration struct {
	Benchmark string `json:"benchmark"` // NPB's name: "CG"
	Class     string `json:"class"`
	// Mops is the best of the runs' Mop/s on this machine.
	Mops float64 `json:"mops"`
	// Runs is how many runs were measured.
	Runs int `json:"runs"`
	// HostSpeed is the factor Mops was divided by (13 for p3-933).
	HostSpeed float64 `json:"host_speed"`
	// OpRate is Mops / HostSpeed: the modelled host's Mop/s.
	OpRate float64 `json:"op_rate"`
	// Command is how each run was made.
	Command string `json:"command"`
	// Load is the machine's one-minute load average before the first run
	// (0 when unknown).
	Load float64 `json:"load,omitempty"`
	// Time is when the first run began.
	Time time.Time `json:"time"`
}

// FindCalibration returns the calibration of benchmark and class, if the
// record holds it.
func (r *Record) FindCalibration(benchmark, class string) (Calibration, bool) {
	i := slices.IndexFunc(r.Calibrations, func(c Calibration) bool { return c.Benchmark == benchmark && c.Class == class })
	if i < 0 {
		return Calibration{}, false
	}
	return r.Calibrations[i], true
}

// AddCalibration puts c into the record, replacing one of the same
// benchmark and class, in a fixed order (benchmark, class).
func (r *Record) AddCalibration(c Calibration) {
	r.Calibrations = slices.DeleteFunc(r.Calibrations, func(d Calibration) bool {
		return d.Benchmark == c.Benchmark && d.Class == c.Class
	})
	r.Calibrations = append(r.Calibrations, c)
	slices.SortFunc(r.Calibrations, func(a, b Calibration) int {
		return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(classOrder(a.Class), classOrder(b.Class)))
	})
}
