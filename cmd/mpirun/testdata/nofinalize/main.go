// Command nofinalize attaches to the job as a rank; rank 0 finalizes, the
// others exit 0 while still initialized.
package main

import (
	"fmt"
	"os"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

func main() {
	job, err := launch.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	seg, err := nicemu.AttachSegment(job.Segment)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	job.Segment = nil
	seg.SetProcState(job.Rank, nicemu.ProcInitialized)
	if job.Rank == 0 {
		seg.SetProcState(job.Rank, nicemu.ProcFinalized)
	} else if err := job.Store.Fence(); err == nil {
		// Let rank 0 exit first, cleanly.
		fmt.Fprintln(os.Stderr, "unexpected: fence without rank 0")
	}
	job.Close()
}
