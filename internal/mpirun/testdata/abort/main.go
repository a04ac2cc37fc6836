// Command abort has rank 1 call MPI Abort (code 7) through the data store
// while the other ranks wait in a fence.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rhinet-go/martini/llc/launch"
)

func main() {
	job, err := launch.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if job.Rank == 1 {
		time.Sleep(100 * time.Millisecond)
		if err := job.Store.Abort(7, "bad input"); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(7)
	}
	if err := job.Store.Fence(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	time.Sleep(60 * time.Second)
}
