package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench/thesisnpb"
	"github.com/rhinet-go/martini/nicemu"
)

// Calibration of declared computing: a benchmark's operation rate on the
// modelled host is its Mop/s on one process of this machine, in real time
// (NPB's own operation count and clock), divided by the host speed
// (nicemu.HostSpeedP3 for p3-933). The best of a few runs is taken, as the
// least disturbed by other load; the sweep should run on a quiet machine.
// The record keeps every calibration with how it was measured, and a
// resumed sweep re-uses it, so that all runs of a benchmark and class are
// charged at one rate.

// recordCompute is the record's Compute for the sweep's -compute.
func (o *npbOptions) recordCompute() string {
	if o.declared() {
		return thesisnpb.ComputeDeclared
	}
	return ""
}

// calibrate measures the calibrations the points of todo need and the
// record lacks, saving the record after each.
func calibrate(ctx context.Context, o *npbOptions, rec *thesisnpb.Record, path string, todo []thesisnpb.Key, stderr io.Writer) error {
	speed, err := nicemu.ParseHostSpeed(o.hostSpeed)
	if err != nil {
		return fmt.Errorf("-host-speed: %w", err)
	}
	for _, k := range todo {
		if _, ok := rec.FindCalibration(k.Benchmark, k.Class); ok {
			continue
		}
		c, err := measureCalibration(ctx, o, k.Benchmark, k.Class, speed)
		if err != nil {
			return err
		}
		rec.AddCalibration(c)
		if err := rec.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "thesis npb: calibration of %s class %s: %.2f Mop/s on one process here (best of %d, load %.1f), %.3f Mop/s on the modelled host (÷%g)\n",
			c.Benchmark, c.Class, c.Mops, c.Runs, c.Load, c.OpRate, c.HostSpeed)
	}
	return nil
}

// measureCalibration runs benchmark of class on one process in real time
// o.calibrationRuns times and returns the calibration of its best Mop/s.
func measureCalibration(ctx context.Context, o *npbOptions, benchmark, class string, speed float64) (thesisnpb.Calibration, error) {
	args := []string{"-np", "1", "-timeout", o.timeout.String(), o.npbBin, "-results", "", "-class", class, strings.ToLower(benchmark)}
	c := thesisnpb.Calibration{Benchmark: benchmark, Class: class, Runs: o.calibrationRuns, HostSpeed: speed,
		Command: fmt.Sprintf("mpirun -np 1 ./npb/cmd/npb -results '' -class %s %s (real time, no timing profile)", class, strings.ToLower(benchmark)),
		Load:    loadAverage(), Time: time.Now().UTC().Truncate(time.Second)}
	for range o.calibrationRuns {
		r, _, err := runNPB(ctx, o, args)
		if err != nil {
			return c, fmt.Errorf("calibrating %s class %s on one process: %w", benchmark, class, err)
		}
		if r.Benchmark != benchmark || r.Class != class || r.NP != 1 || !(r.Mops > 0) {
			return c, fmt.Errorf("calibrating %s class %s on one process: NPB reported %s class %s on %d processes, %v Mop/s", benchmark, class, r.Benchmark, r.Class, r.NP, r.Mops)
		}
		c.Mops = max(c.Mops, r.Mops)
	}
	c.OpRate = c.Mops / speed
	if _, err := nicemu.ParseOpRate(strconv.FormatFloat(c.OpRate, 'g', -1, 64)); err != nil {
		return c, fmt.Errorf("calibrating %s class %s: %w", benchmark, class, err)
	}
	return c, nil
}
