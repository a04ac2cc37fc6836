// Command nofinalize joins the job as a rank and records it initialized; rank 0 finalizes, the
// others exit 0 while still initialized.
package main

import (
	"fmt"
	"os"

	"github.com/rhinet-go/martini/llc/launch"
)

func main() {
	job, err := launch.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := job.SetState(launch.RankInitialized); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if job.Rank == 0 {
		job.SetState(launch.RankFinalized)
	} else if err := job.Store.Fence(); err == nil {
		// Let rank 0 exit first, cleanly.
		fmt.Fprintln(os.Stderr, "unexpected: fence without rank 0")
	}
	job.Close()
}
