package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/results"
	"github.com/rhinet-go/martini/bench/thesisnpb"
	"github.com/rhinet-go/martini/nicemu"
	"github.com/rhinet-go/martini/npb"
)

// openSweepRecord returns the record to extend: the one at path with
// -resume (a new one when there is none), a new one otherwise, which must
// not overwrite a record a sweep left (that takes -resume, or removing
// it). A record of another -host-speed or -compute is not extended.
func openSweepRecord(path string, o *npbOptions) (*thesisnpb.Record, error) {
	rec, err := thesisnpb.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(o.results, 0o755); err != nil {
			return nil, err
		}
		return &thesisnpb.Record{Time: time.Now().UTC().Truncate(time.Second), Machine: bench.ThisMachine(),
			GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."), HostSpeed: o.hostSpeed, Compute: o.recordCompute()}, nil
	case err != nil:
		return nil, err
	case !o.resume:
		return nil, fmt.Errorf("%s exists: -resume extends it (skipping the points it holds); remove it to start over", path)
	case rec.HostSpeed != o.hostSpeed:
		return nil, fmt.Errorf("%s holds runs at -host-speed %s, not %s: the same record cannot mix them", path, rec.HostSpeed, o.hostSpeed)
	case rec.Compute != o.recordCompute():
		return nil, fmt.Errorf("%s holds runs under -compute %s, not %s: the same record cannot mix them", path, cmp.Or(rec.Compute, nicemu.ComputeCPU), o.compute)
	}
	rec.Machine, rec.GoVersion, rec.GitRevision = bench.ThisMachine(), runtime.Version(), bench.GitRevision(".")
	return rec, nil
}

// sweep runs the points of todo in order, adding each to rec and saving
// rec to path after each. A run that fails or does not verify stops the
// sweep with an error naming it.
func sweep(ctx context.Context, o *npbOptions, rec *thesisnpb.Record, path string, todo []thesisnpb.Key, stderr io.Writer) error {
	rev := bench.GitRevision(".")
	for i, k := range todo {
		load := loadAverage()
		start := time.Now()
		r, escapes, err := runPoint(ctx, o, rec, k)
		if err != nil {
			return err
		}
		wall := time.Since(start).Seconds()
		rec.Add(thesisnpb.Point{Key: k, Mops: r.Mops, Seconds: r.Seconds, Verified: r.Verified,
			Wall: wall, Load: load, Time: start.UTC().Truncate(time.Second), GitRevision: rev, Escapes: &escapes})
		if err := rec.Save(path); err != nil {
			return err
		}
		note := ""
		if escapes > 0 {
			note = fmt.Sprintf("; %s escaped the ordering of virtual time", thesisnpb.Processes(escapes))
		}
		fmt.Fprintf(stderr, "thesis npb: [%d/%d] %v: %.2f Mop/s in virtual time; took %.1f s (load %.1f)%s\n",
			i+1, len(todo), k, r.Mops, wall, load, note)
	}
	return nil
}

// runPoint runs one point through mpirun and returns NPB's report, which
// must be of the point and verified, and how many of its processes
// escaped the ordering of virtual time; under declared computing it is
// charged at the record's calibration of its benchmark and class.
func runPoint(ctx context.Context, o *npbOptions, rec *thesisnpb.Record, k thesisnpb.Key) (*npb.Report, int, error) {
	args := []string{"-np", strconv.Itoa(k.NP), "-profile", nicemu.ProfileMartini, "-clock", nicemu.ClockVirtual}
	if o.declared() {
		c, ok := rec.FindCalibration(k.Benchmark, k.Class)
		if !ok {
			return nil, 0, fmt.Errorf("%v: no calibration of %s class %s in the record", k, k.Benchmark, k.Class)
		}
		args = append(args, "-compute", nicemu.ComputeDeclared, "-op-rate", strconv.FormatFloat(c.OpRate, 'g', -1, 64))
	} else {
		args = append(args, "-host-speed", o.hostSpeed)
	}
	args = append(args, "-eager", k.Layer, "-timeout", o.timeout.String(),
		o.npbBin, "-results", "", "-class", k.Class, strings.ToLower(k.Benchmark))
	r, escapes, err := runNPB(ctx, o, args)
	if err != nil {
		return nil, 0, fmt.Errorf("%v: %w", k, err)
	}
	if r.Benchmark != k.Benchmark || r.Class != k.Class || r.NP != k.NP {
		return nil, 0, fmt.Errorf("%v: NPB reported %s class %s on %d processes", k, r.Benchmark, r.Class, r.NP)
	}
	return r, escapes, nil
}

// runNPB runs mpirun with args and returns NPB's report, which must be
// verified, and how many processes escaped the ordering of virtual time
// (countEscapes).
func runNPB(ctx context.Context, o *npbOptions, args []string) (*npb.Report, int, error) {
	cmd := exec.CommandContext(ctx, o.mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // mpirun stops its ranks
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	r, perr := npb.ParseReport(out.Bytes())
	switch {
	case perr == nil && !r.Verified:
		return nil, 0, errors.New("NPB's verification was UNSUCCESSFUL")
	case runErr != nil:
		return nil, 0, fmt.Errorf("mpirun %s: %w\n%s", strings.Join(args, " "), runErr, tail(out.String(), 20))
	case perr != nil:
		return nil, 0, fmt.Errorf("%w\n%s", perr, tail(out.String(), 20))
	}
	return &r, countEscapes(out.String()), nil
}

// countEscapes returns how many processes of a run's output reported an
// escape from the ordering of virtual time (each reports its first only).
func countEscapes(out string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "nicemu: virtual time: process ") && strings.Contains(line, nicemu.EscapeNotice) {
			n++
		}
	}
	return n
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// loadAverage returns the machine's one-minute load average (0 when it
// cannot be read).
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// writeNPBResults prints the page's tables and regenerates the results
// directory (the page and plots of the record among the rest).
func writeNPBResults(dir string, rec *thesisnpb.Record, stdout, stderr io.Writer) error {
	if len(rec.Points) == 0 {
		return nil
	}
	if err := thesisnpb.WriteTables(stdout, rec); err != nil {
		return err
	}
	s, err := results.Regenerate(dir)
	if err != nil {
		return err
	}
	results.WriteSkipped(stderr, "thesis npb: ", s)
	fmt.Fprintf(stdout, "\nRecord: %s (page: %s)\n", filepath.Join(dir, thesisnpb.RecordFile), filepath.Join(dir, bench.ThesisPage(thesisnpb.RecordFile)))
	return nil
}
