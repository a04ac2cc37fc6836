package bench

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// LoadAverage returns the machine's load average over the last minute:
// how many programs were running or waiting for a CPU, on average.
type LoadAverage func() (float64, error)

// ReadLoadAverage reads the one-minute load average from /proc/loadavg.
func ReadLoadAverage() (float64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("bench: load average: %w", err)
	}
	return ParseLoadAverage(data)
}

// ParseLoadAverage reads the one-minute load average, the first field of
// /proc/loadavg ("0.52 0.31 0.20 1/123 4567").
func ParseLoadAverage(data []byte) (float64, error) {
	fields := bytes.Fields(data)
	if len(fields) == 0 {
		return 0, fmt.Errorf("bench: load average: empty")
	}
	v, err := strconv.ParseFloat(string(fields[0]), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bench: load average %q: not a load", fields[0])
	}
	return v, nil
}

// BusyShare is the load average per CPU, before a run starts, at or above
// which other programs held enough of the CPUs that the run's processes
// had to share them: the figures can then be many times too slow.
const BusyShare = 0.5

// LoadReason says in plain words that the machine was busy when a run
// began, when load (the one-minute load average) is BusyShare of cpus or
// more; "" otherwise, or when cpus is unknown.
func LoadReason(load float64, cpus int) string {
	if cpus <= 0 || load < BusyShare*float64(cpus) {
		return ""
	}
	return fmt.Sprintf("other programs were keeping the machine busy when the run began "+
		"(load average %.2f on %d CPUs: on average %.2f programs were running or waiting for a CPU over the last minute), "+
		"so the benchmark's processes had to share the CPUs with them", load, cpus, load)
}

// FloorWhatPlain explains the cross-core floor to a reader who has not
// met the term.
const FloorWhatPlain = "the time two processes take to pass one cache line back and forth: " +
	"the fastest exchange this machine can do, and a gauge of its speed"

// Drift is a benchmark whose jobs ran at more than one speed of the
// machine, with what said so: the cross-core floors (µs) and the compute
// gauges of the floor's CPUs (ms, one per CPU; nil when not measured)
// measured around and between its jobs.
type Drift struct {
	Benchmark string
	Floors    []float64
	Compute   [][]float64
}

// DriftReason says in plain words that the machine's speed changed while
// the benchmarks of drifts were measured, each with the range its floors
// and gauges read ("" for none).
func DriftReason(drifts []Drift) string {
	if len(drifts) == 0 {
		return ""
	}
	names := make([]string, len(drifts))
	readings := make([]string, len(drifts))
	gauged := false
	for i, d := range drifts {
		names[i] = d.Benchmark
		readings[i] = fmt.Sprintf("%s: floor %s µs", d.Benchmark, spanText(d.Floors))
		if len(d.Compute) > 0 {
			gauged = true
			cpus := make([]string, len(d.Compute[0]))
			for cpu := range cpus {
				col := make([]float64, len(d.Compute))
				for k, g := range d.Compute {
					col[k] = g[cpu]
				}
				cpus[cpu] = spanText(col)
			}
			readings[i] += fmt.Sprintf(", compute gauges %s ms", strings.Join(cpus, " and "))
		}
	}
	what := fmt.Sprintf("the cross-core floor (%s)", FloorWhatPlain)
	if gauged {
		what += fmt.Sprintf(" or a CPU's compute gauge (%s)", ComputeWhatPlain)
	}
	return fmt.Sprintf("the machine's speed changed while %s %s measured, so %s columns were not measured under the same conditions: "+
		"%s moved around and between the jobs (%s)", AndList(names), plural(len(names), "was", "were"), plural(len(names), "its", "their"),
		what, strings.Join(readings, "; "))
}

// ComputeWhatPlain explains the compute gauge to a reader who has not met
// the term.
const ComputeWhatPlain = "the time each CPU takes for a fixed loop of ordinary instructions, " +
	"which a virtual machine's host can nearly double by running other work on the same core"

// spanText formats the range of values: "0.05 to 0.19", or one value
// where they all read alike to three digits.
func spanText(values []float64) string {
	lo, hi := fmt.Sprintf("%.3g", slices.Min(values)), fmt.Sprintf("%.3g", slices.Max(values))
	if lo == hi {
		return lo
	}
	return lo + " to " + hi
}

// AndList joins items as "A", "A and B", "A, B and C".
func AndList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// plural returns one for n of 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TrustWarning joins the reasons a run's figures cannot be trusted into
// one warning to print and to record ("" for none).
func TrustWarning(reasons []string) string {
	var rs []string
	for _, r := range reasons {
		if r != "" {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return ""
	}
	return "The figures of this run may be wrong: " + strings.Join(rs, "; and ") +
		". Times measured this way can be several times too long; rerun on an idle machine before relying on them."
}
