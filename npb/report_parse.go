package npb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Report is what a run's output says in NPB's closing report, which
// NPB3.4-MPI (Fortran and C) and this port (Result.Report) print alike:
//
//	CG Benchmark Completed.
//	Class           =                        S
//	Time in seconds =                     0.69
//	Total processes =                        2
//	Mop/s total     =                    96.43
//	Verification    =               SUCCESSFUL
type Report struct {
	Benchmark string // "CG"
	Class     string
	NP        int
	Seconds   float64
	Mops      float64
	Verified  bool
}

// ErrNoReport says that an output holds no NPB report.
var ErrNoReport = errors.New(`no NPB report in the output (no "Benchmark Completed" line)`)

// ParseReport reads the closing report in a run's output: the lines of
// the form "Key = value" after the "XX Benchmark Completed" line. Class,
// time, Mop/s and verification must be there; an output without the
// report is ErrNoReport.
func ParseReport(out []byte) (Report, error) {
	var r Report
	fields := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutSuffix(strings.TrimSuffix(line, "."), " Benchmark Completed"); ok && !strings.Contains(name, " ") {
			r.Benchmark, fields = name, map[string]string{}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && r.Benchmark != "" {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("reading the output: %w", err)
	}
	if r.Benchmark == "" {
		return r, ErrNoReport
	}
	return r, r.fill(fields)
}

// fill sets r's figures from the fields of its report.
func (r *Report) fill(fields map[string]string) error {
	for _, k := range []string{"Class", "Time in seconds", "Mop/s total", "Verification"} {
		if fields[k] == "" {
			return fmt.Errorf("the %s report has no %q line", r.Benchmark, k)
		}
	}
	r.Class = fields["Class"]
	switch v := fields["Verification"]; v {
	case "SUCCESSFUL", "UNSUCCESSFUL":
		r.Verified = v == "SUCCESSFUL"
	default:
		return fmt.Errorf("the report's Verification %q: want SUCCESSFUL or UNSUCCESSFUL", v)
	}
	var err error
	if r.Seconds, err = reportFloat(fields, "Time in seconds"); err != nil {
		return err
	}
	if r.Mops, err = reportFloat(fields, "Mop/s total"); err != nil {
		return err
	}
	if np := fields["Total processes"]; np != "" {
		if r.NP, err = strconv.Atoi(np); err != nil {
			return fmt.Errorf("the report's Total processes %q: %w", np, err)
		}
	}
	return nil
}

// reportFloat reads the number of field k.
func reportFloat(fields map[string]string, k string) (float64, error) {
	v, err := strconv.ParseFloat(fields[k], 64)
	if err != nil {
		return 0, fmt.Errorf("the report's %s %q: %w", k, fields[k], err)
	}
	return v, nil
}
