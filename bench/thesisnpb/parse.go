package thesisnpb

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Report is what a run of npb/cmd/npb reports, read from its output.
type Report struct {
	Benchmark string // "CG"
	Class     string
	NP        int
	Seconds   float64
	Mops      float64
	Verified  bool
}

// ParseReport reads NPB's report (npb.Result.Report) from the output of a
// run: the benchmark, class, processes, time, Mop/s in total and the
// verification. Lines before and after the report are ignored. A report
// that lacks one of these, or a value that does not read, is an error
// naming it.
func ParseReport(out string) (*Report, error) {
	r := &Report{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutSuffix(line, " Benchmark Completed."); ok {
			r.Benchmark, seen["Benchmark Completed."] = name, true
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || r.Benchmark == "" {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		var err error
		switch k {
		case "Class":
			r.Class = v
		case "Total processes":
			r.NP, err = strconv.Atoi(v)
		case "Time in seconds":
			r.Seconds, err = strconv.ParseFloat(v, 64)
		case "Mop/s total":
			r.Mops, err = strconv.ParseFloat(v, 64)
		case "Verification":
			switch v {
			case "SUCCESSFUL":
				r.Verified = true
			case "UNSUCCESSFUL":
			default:
				err = errors.New("want SUCCESSFUL or UNSUCCESSFUL")
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("thesisnpb: NPB's report: %s %q: %w", k, v, err)
		}
		seen[k] = true
	}
	for _, k := range []string{"Benchmark Completed.", "Class", "Total processes", "Time in seconds", "Mop/s total", "Verification"} {
		if !seen[k] {
			return nil, fmt.Errorf("thesisnpb: NPB's report: no %q line", k)
		}
	}
	return r, nil
}
