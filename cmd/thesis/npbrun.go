package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
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
// it). A record of another -host-speed is not extended.
func openSweepRecord(path string, o *npbOptions) (*thesisnpb.Record, error) {
	rec, err := thesisnpb.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(o.results, 0o755); err != nil {
			return nil, err
		}
		return &thesisnpb.Record{Time: time.Now().UTC().Truncate(time.Second), Machine: bench.ThisMachine(),
			GoVersion: runtime.Version(), GitRevision: bench.GitRevision("."), HostSpeed: o.hostSpeed}, nil
	case err != nil:
		return nil, err
	case !o.resume:
		return nil, fmt.Errorf("%s exists: -resume extends it (skipping the points it holds); remove it to start over", path)
	case rec.HostSpeed != o.hostSpeed:
		return nil, fmt.Errorf("%s holds runs at -host-speed %s, not %s: the same record cannot mix them", path, rec.HostSpeed, o.hostSpeed)
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
		r, err := runPoint(ctx, o, k)
		if err != nil {
			return err
		}
		wall := time.Since(start).Seconds()
		rec.Add(thesisnpb.Point{Key: k, Mops: r.Mops, Seconds: r.Seconds, Verified: r.Verified,
			Wall: wall, Load: load, Time: start.UTC().Truncate(time.Second), GitRevision: rev})
		if err := rec.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "thesis npb: [%d/%d] %v: %.2f Mop/s in virtual time; took %.1f s (load %.1f)\n",
			i+1, len(todo), k, r.Mops, wall, load)
	}
	return nil
}

// runPoint runs one point through mpirun and returns NPB's report, which
// must be of the point and verified.
func runPoint(ctx context.Context, o *npbOptions, k thesisnpb.Key) (*npb.Report, error) {
	args := []string{"-np", strconv.Itoa(k.NP), "-profile", nicemu.ProfileMartini, "-clock", nicemu.ClockVirtual,
		"-host-speed", o.hostSpeed, "-eager", k.Layer, "-timeout", o.timeout.String(),
		o.npbBin, "-results", "", "-class", k.Class, strings.ToLower(k.Benchmark)}
	cmd := exec.CommandContext(ctx, o.mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // mpirun stops its ranks
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	r, perr := npb.ParseReport(out.Bytes())
	switch {
	case perr == nil && !r.Verified:
		return nil, fmt.Errorf("%v: NPB's verification was UNSUCCESSFUL", k)
	case runErr != nil:
		return nil, fmt.Errorf("%v: mpirun %s: %w\n%s", k, strings.Join(args, " "), runErr, tail(out.String(), 20))
	case perr != nil:
		return nil, fmt.Errorf("%v: %w\n%s", k, perr, tail(out.String(), 20))
	case r.Benchmark != k.Benchmark || r.Class != k.Class || r.NP != k.NP:
		return nil, fmt.Errorf("%v: NPB reported %s class %s on %d processes", k, r.Benchmark, r.Class, r.NP)
	}
	return &r, nil
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
	return nil
}
