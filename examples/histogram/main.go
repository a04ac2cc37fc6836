// Command histogram builds a histogram one-sidedly: every rank draws
// normally distributed numbers and adds one to the bin of each with
// Accumulate (MPI_Accumulate with MPI_SUM) into a window of int64 counts,
// under a shared lock on every rank (LockAll), without the owners of the
// bins taking part. The bins live on rank 0, or, with -distributed, bin b
// on rank b mod size. On the Martini network each Accumulate of an int64
// is one fetch-and-add of the NIC.
//
// Rank 0 then checks the histogram against the same numbers counted
// serially (it draws every rank's numbers from their seeds): a difference
// is an error (exit 1).
//
//	go run ./cmd/mpirun -np 4 ./examples/histogram
//	go run ./cmd/mpirun -np 4 ./examples/histogram -n 100000 -bins 40 -distributed
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	n := flag.Int("n", 20000, "numbers each rank draws")
	bins := flag.Int("bins", 24, "bins over [-4, 4)")
	seed := flag.Uint64("seed", 1, "seed of the random numbers (rank r draws from seed, r)")
	distributed := flag.Bool("distributed", false, "spread the bins over the ranks instead of keeping them on rank 0")
	flag.Parse()
	if *n < 0 || *bins < 1 {
		fmt.Fprintln(os.Stderr, "histogram: -n must not be negative and -bins must be positive")
		os.Exit(2)
	}
	if err := run(*n, *bins, *seed, *distributed); err != nil {
		log.Fatal("histogram: ", err)
	}
}

// layout places bin b: on rank owner at displacement disp.
type layout struct {
	bins, size  int
	distributed bool
}

func (l layout) place(b int) (owner, disp int) {
	if !l.distributed {
		return 0, b
	}
	return b % l.size, b / l.size
}

// local returns the number of bins rank r holds.
func (l layout) local(r int) int {
	if !l.distributed {
		if r == 0 {
			return l.bins
		}
		return 0
	}
	return (l.bins - r + l.size - 1) / l.size
}

// bin returns the bin of x, or -1 outside [-4, 4).
func bin(x float64, bins int) int {
	b := int((x + 4) / 8 * float64(bins))
	if x < -4 || b >= bins {
		return -1
	}
	return b
}

// draw returns the n numbers of rank r.
func draw(n int, seed uint64, r int) []float64 {
	rng := rand.New(rand.NewPCG(seed, uint64(r)))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	return xs
}

func run(n, bins int, seed uint64, distributed bool) (err error) {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, mpi.Finalize()) }()
	w := mpi.World()
	l := layout{bins: bins, size: w.Size(), distributed: distributed}
	win, counts, err := mpi.WinAllocate[int64](w, l.local(w.Rank()))
	if err != nil {
		return err
	}
	if err := fill(win, l, draw(n, seed, w.Rank())); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil { // every count is in place
		return err
	}
	hist, err := collect(w, l, counts)
	if err != nil {
		return err
	}
	if err := win.Free(); err != nil {
		return err
	}
	if w.Rank() != 0 {
		return nil
	}
	return check(hist, n, seed, w.Size())
}

// fill adds one to the bin of each of xs, one-sidedly.
func fill(win *mpi.Win, l layout, xs []float64) error {
	if err := win.LockAll(); err != nil {
		return err
	}
	one := []int64{1}
	for _, x := range xs {
		if b := bin(x, l.bins); b >= 0 {
			owner, disp := l.place(b)
			if err := mpi.Accumulate(win, one, owner, disp, mpi.Sum); err != nil {
				return err
			}
		}
	}
	return win.UnlockAll()
}

// collect gathers the bins on rank 0, in bin order.
func collect(w *mpi.Comm, l layout, counts []int64) ([]int64, error) {
	if !l.distributed {
		return slices.Clone(counts), nil
	}
	sizes := make([]int, w.Size())
	displs := make([]int, w.Size())
	for r := range sizes {
		sizes[r] = l.local(r)
		if r > 0 {
			displs[r] = displs[r-1] + sizes[r-1]
		}
	}
	var all []int64
	if w.Rank() == 0 {
		all = make([]int64, l.bins)
	}
	if err := mpi.Gatherv(w, counts, all, sizes, displs, 0); err != nil {
		return nil, err
	}
	if w.Rank() != 0 {
		return nil, nil
	}
	hist := make([]int64, l.bins)
	for r := range sizes { // rank r holds bins r, r+size, ...
		for i := range sizes[r] {
			hist[r+i*l.size] = all[displs[r]+i]
		}
	}
	return hist, nil
}

// check compares hist with the serial count of every rank's numbers and
// prints it.
func check(hist []int64, n int, seed uint64, size int) error {
	want := make([]int64, len(hist))
	for r := range size {
		for _, x := range draw(n, seed, r) {
			if b := bin(x, len(hist)); b >= 0 {
				want[b]++
			}
		}
	}
	peak := slices.Max(want)
	for b, c := range hist {
		lo := -4 + 8*float64(b)/float64(len(hist))
		bar := 0
		if peak > 0 {
			bar = int(50 * c / peak)
		}
		fmt.Printf("%6.2f %8d %s\n", lo, c, strings.Repeat("#", bar))
	}
	for b := range hist {
		if hist[b] != want[b] {
			return fmt.Errorf("bin %d holds %d, the serial count is %d", b, hist[b], want[b])
		}
	}
	fmt.Printf("histogram of %d numbers identical to the serial count\n", n*size)
	return nil
}
