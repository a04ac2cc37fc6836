// Command pmijob prints the job that launch.FromEnv returns under a PMI
// launcher, for the package's tests: run it as mpiexec.hydra -n N
// pmijob. Every rank prints "rank R of N: launcher L key K segment S
// local I of M tcp ADDR shared T", after a FenceCollect of every rank's
// key through the job's Store; T is what the host's first rank wrote in
// the segment that it made and the others opened (launch.ShareSegment),
// "-" for a job that makes none.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rhinet-go/martini/llc/launch"
	"golang.org/x/sys/unix"
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
	segment := j.Segment != nil
	shared, err := share(j)
	if err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: launcher %s key %s segment %v local %d of %d tcp %s shared %s\n", j.Rank, j.Size, j.Launcher, launch.FormatPGID(j.PGID), segment,
		j.LocalRank, j.LocalSize, j.TCPAddr, shared)
	return j.Close()
}

// share makes the host's segment, a memory file in which the first rank
// writes its rank, and returns what the process reads there.
func share(j *launch.Job) (string, error) {
	if !j.MakesSegment() {
		return "-", nil
	}
	err := j.ShareSegment(func() (*os.File, error) {
		fd, err := unix.MemfdCreate("pmijob", unix.MFD_CLOEXEC)
		if err != nil {
			return nil, err
		}
		f := os.NewFile(uintptr(fd), "pmijob")
		_, err = f.WriteString("first-" + strconv.Itoa(j.Rank))
		return f, err
	})
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.NewSectionReader(j.Segment, 0, 64))
	if err != nil {
		return "", err
	}
	if err := j.Store.Fence(); err != nil { // the first rank keeps the file open until everyone has it
		return "", err
	}
	// The others of the host watch this process: it ends as finalized.
	return string(b), j.SetState(launch.RankFinalized)
}
