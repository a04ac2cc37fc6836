package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

// Fig 8.8, the PM layers' throughput in bursts (thesis 8.4.3): "up to 1024
// bytes the difference between PM/RHiNET and PM/RHiNET-VP is small, unlike
// the round trips", since PM/RHiNET waits for the ack of the packet it sent
// last before it sends the next, which spaces its packets out in a burst.
// The thesis gives the curves, not their values; the row checks the shape:
// at every size up to 1 KB the two throughputs within fig88Close of each
// other, where the 8-byte round trips are not. Measured as the PM worker's
// bursts in virtual time through MPI (`mpirun -eager pm|vp`), which adds
// the MPI layer's host costs to PM's.

// fig88Sizes are the message sizes of the bursts.
var fig88Sizes = []int{8, 64, 256, 1024}

// fig88Close is how far apart two throughputs that "differ little" may be.
const fig88Close = 1.25

// sectionFig88 is the row's table on the page.
const sectionFig88 = "Chapter 8: PM's throughput in bursts (Fig 8.8)"

// fig88Rows measures the bursts and the 8-byte round trips of both layers
// under mpirun's flags vt (virtual time) and returns the row.
func fig88Rows(ctx context.Context, mpirun, self string, vt []string, quick bool, timeout time.Duration, stderr io.Writer) ([]nicbench.Row, error) {
	run := func(layer string, worker ...string) (float64, error) {
		fmt.Fprintf(stderr, "thesis: Fig 8.8, %s %s\n", layer, strings.Join(worker, " "))
		return runPM(ctx, mpirun, self, nicemu.ProfileMartini, layer, vt, 2, quick, timeout, stderr, worker...)
	}
	holds := true
	var notes []string
	for _, size := range fig88Sizes {
		var t [2]float64
		for i, layer := range []string{launch.EagerPM, launch.EagerVP} {
			v, err := run(layer, "-size", strconv.Itoa(size), "-burst", "200", "-samples", "3")
			if err != nil {
				return nil, err
			}
			t[i] = v
		}
		ratio := t[1] / t[0] // PM/RHiNET's throughput over PM/RHiNET-VP's
		holds = holds && ratio <= fig88Close && ratio >= 1/fig88Close
		notes = append(notes, fmt.Sprintf("%d B %.1f/%.1f MB/s (×%.2f)", size, float64(size)/t[0], float64(size)/t[1], ratio))
	}
	var rtt [2]float64
	for i, layer := range []string{launch.EagerPM, launch.EagerVP} {
		v, err := run(layer, "-size", "8")
		if err != nil {
			return nil, err
		}
		rtt[i] = v
	}
	note := fmt.Sprintf("PM/RHiNET / PM/RHiNET-VP in bursts, in virtual time: %s; 8 B round trips %.1f / %.1f µs (×%.2f)",
		strings.Join(notes, ", "), rtt[0], rtt[1], rtt[1]/rtt[0])
	return []nicbench.Row{nicbench.Check(sectionFig88, "PM/RHiNET and PM/RHiNET-VP in bursts up to 1 KB: little difference, unlike the round trips", "8.4.3, Fig 8.8",
		fmt.Sprintf("throughputs within ×%.2f of each other at %s B", fig88Close, joinSizes(fig88Sizes)), holds, note)}, nil
}

// joinSizes lists sizes, comma-separated.
func joinSizes(sizes []int) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
