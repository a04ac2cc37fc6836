package bench

import (
	"bytes"
	"fmt"
	"os"
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

// DriftReason says in plain words that the machine's speed changed while
// benchmark was measured: floors lists the cross-core floor measured
// before, between and after its jobs ("0.05, 0.19 and 0.06"), in µs.
func DriftReason(benchmark, floors string) string {
	return fmt.Sprintf("the machine's speed changed while %s was measured "+
		"(its cross-core floor, %s, read %s µs around and between its jobs), "+
		"so its columns were not measured under the same conditions", benchmark, FloorWhatPlain, floors)
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
