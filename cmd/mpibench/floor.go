package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rhinet-go/martini/bench"
)

// floorChildArg is the hidden first argument that makes mpibench the
// child process of the floor measurement (bench.MeasureFloor).
const floorChildArg = "floor-child"

// floorChild is the child of the floor measurement; it returns the exit
// status.
func floorChild(args []string, stderr io.Writer) int {
	if err := bench.FloorChild(args, stderr); err != nil {
		fmt.Fprintf(stderr, "mpibench %s: %v\n", floorChildArg, err)
		return 1
	}
	return 0
}

// measureFloor measures the machine's cross-core floor into rec when the
// run measures PingPong, with the run's samples, budget and timeout (as
// a job's), this program serving as the child. A floor it cannot
// measure, or that -no-floor skips, is a note of the record.
func measureFloor(ctx context.Context, o *suiteOptions, rec *bench.Record, exe string, stderr io.Writer) {
	if !slices.Contains(o.benchmarks, "PingPong") {
		return
	}
	if o.noFloor {
		rec.Notes = append(rec.Notes, "floor: not measured (-no-floor)")
		return
	}
	f, err := bench.MeasureFloor(ctx, []string{exe, floorChildArg}, bench.FloorOptions{Samples: o.samples, Budget: o.budget, Timeout: o.timeout})
	if err != nil {
		note := "floor: not measured: " + strings.TrimPrefix(err.Error(), "bench: floor: ")
		if !o.quiet {
			fmt.Fprintln(stderr, note)
		}
		rec.Notes = append(rec.Notes, note)
		return
	}
	rec.Floor = f
}
