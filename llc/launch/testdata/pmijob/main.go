// Command pmijob prints the job that launch.FromEnv returns under a PMI
// launcher, for the package's tests: run it as mpiexec.hydra -n N
// pmijob. Every rank prints "rank R of N: launcher L key K segment S",
// after a FenceCollect of every rank's key through the job's Store.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/rhinet-go/martini/llc/launch"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pmijob:", err)
		os.Exit(1)
	}
}

func run() error {
	j, err := launch.FromEnv()
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.Store.Put("rank/"+strconv.Itoa(j.Rank), launch.FormatPGID(j.PGID)); err != nil {
		return err
	}
	kv, err := j.Store.FenceCollect("rank/")
	if err != nil {
		return err
	}
	for r := range j.Size {
		if k := kv["rank/"+strconv.Itoa(r)]; k != launch.FormatPGID(j.PGID) {
			return fmt.Errorf("rank %d has job key %q, rank %d %s", r, k, j.Rank, launch.FormatPGID(j.PGID))
		}
	}
	fmt.Printf("rank %d of %d: launcher %s key %s segment %v\n", j.Rank, j.Size, j.Launcher, launch.FormatPGID(j.PGID), j.Segment != nil)
	return j.Close()
}
