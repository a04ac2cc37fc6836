// Command storesum exchanges the ranks through the data store: every rank
// puts its rank, fences, gets every rank's and prints the sum.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	job, err := launch.FromEnv()
	if err != nil {
		return err
	}
	defer job.Close()
	seg, err := nicemu.AttachSegment(job.Segment)
	if err != nil {
		return err
	}
	job.Segment = nil
	defer seg.Close()
	if err := job.SetState(launch.RankInitialized); err != nil {
		return err
	}
	if err := job.Store.Put("rank/"+strconv.Itoa(job.Rank), strconv.Itoa(job.Rank)); err != nil {
		return err
	}
	if err := job.Store.Fence(); err != nil {
		return err
	}
	sum := 0
	for r := range job.Size {
		v, err := job.Store.Get("rank/" + strconv.Itoa(r))
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("rank %d put %q: %w", r, v, err)
		}
		sum += n
	}
	if err := job.Store.Fence(); err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: sum %d\n", job.Rank, job.Size, sum)
	return job.SetState(launch.RankFinalized)
}
