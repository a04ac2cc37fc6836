package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

// Fig 8.9's "Zerocopy" curve (thesis 8.5): with PM/RHiNET's remote memory
// access on, MPICH-SCore sends a message above 16 KB by a rendezvous whose
// data the RMA moves between the users' buffers, without the copies that
// make the PM messages' throughput fall once they leave the L2, and shows
// "more than 300 MB/s". Measured as the PM worker's ping-pong in virtual
// time (`mpirun -eager pm -pm-rma`): half a round trip carries the message
// one way.

// fig89Sizes are the message sizes measured, above the switch to the
// rendezvous.
var fig89Sizes = []int{32 << 10, 256 << 10, 1 << 20}

// fig89Floor is the thesis's figure: "300 MB/s or more".
const fig89Floor = 300.0

// sectionFig89 is the rows' table on the page.
const sectionFig89 = "Chapter 8: MPI throughput with PM's remote memory access (Fig 8.9)"

// fig89Rows measures the Zerocopy curve and returns its row: whether every
// size reaches fig89Floor, the rates, and beside them the rate of the
// largest without the RMA (every message as PM messages), under mpirun's
// flags vt (virtual time).
func fig89Rows(ctx context.Context, mpirun, self string, vt []string, quick bool, timeout time.Duration, stderr io.Writer) ([]nicbench.Row, error) {
	rate := func(size int, rma bool) (float64, error) {
		vt := slices.Clone(vt)
		if rma {
			vt = append(vt, "-pm-rma")
		}
		fmt.Fprintf(stderr, "thesis: Fig 8.9, %d bytes, remote memory access %v\n", size, rma)
		rtt, err := runPM(ctx, mpirun, self, nicemu.ProfileMartini, launch.EagerPM, vt, 2, quick, timeout, stderr,
			"-size", strconv.Itoa(size), "-reps", "10", "-samples", "3")
		if err != nil {
			return 0, err
		}
		return float64(size) / (rtt / 2), nil // bytes per µs: MB/s
	}
	holds := true
	var notes []string
	for _, size := range fig89Sizes {
		r, err := rate(size, true)
		if err != nil {
			return nil, err
		}
		holds = holds && r >= fig89Floor
		notes = append(notes, fmt.Sprintf("%d KB %.0f MB/s", size>>10, r))
	}
	largest := fig89Sizes[len(fig89Sizes)-1]
	pm, err := rate(largest, false)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("one way, in virtual time: %s; without the RMA (every message as PM messages) %d KB %.0f MB/s", strings.Join(notes, ", "), largest>>10, pm)
	return []nicbench.Row{nicbench.Check(sectionFig89, "MPI throughput above 16 KB with PM/RHiNET's RMA on (Zerocopy)", "8.5, Fig 8.9",
		fmt.Sprintf("at least %.0f MB/s from %d KB", fig89Floor, fig89Sizes[0]>>10), holds, note)}, nil
}
