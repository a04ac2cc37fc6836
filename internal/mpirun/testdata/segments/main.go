// Command segments is an MPI program that reports, once every rank has
// initialized, the network its messages take and how many Martini
// segments (memfds named martini-segment) it and its launcher (its
// parent: mpirun, or mpirun's agent) hold:
//
//	rank R: network N, segments: fds F, mapped M, launcher L
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks"
)

// segmentName is how a segment's memfd shows in /proc.
const segmentName = "/memfd:martini-segment"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if err := w.Barrier(); err != nil {
		return err
	}
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	fmt.Printf("rank %d: network %s, segments: fds %d, mapped %d, launcher %d\n", w.Rank(), st.Network,
		openSegments("/proc/self/fd"), strings.Count(string(maps), segmentName), openSegments(fmt.Sprintf("/proc/%d/fd", os.Getppid())))
	if err := w.Barrier(); err != nil {
		return err
	}
	return mpi.Finalize()
}

// openSegments counts the descriptors of dir (a /proc/PID/fd) that are
// segments.
func openSegments(dir string) int {
	links, _ := filepath.Glob(filepath.Join(dir, "*"))
	n := 0
	for _, l := range links {
		if target, err := os.Readlink(l); err == nil && strings.HasPrefix(target, segmentName) {
			n++
		}
	}
	return n
}
