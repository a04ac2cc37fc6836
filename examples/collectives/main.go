// Command collectives shows MPI collective operations and communicators:
// a broadcast, a reduction, a split into row communicators and a
// nonblocking allreduce.
//
//	go run ./cmd/mpirun -np 4 ./examples/collectives
package main

import (
	"fmt"
	"log"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

// run shows each collective in turn on the world communicator and on a
// communicator of rows, and prints what they computed.
func run() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	w := mpi.World()
	rank, size := w.Rank(), w.Size()

	sum, err := weightedSum(w, rank)
	if err != nil {
		return err
	}
	loc, err := maxLoc(w, rank, size)
	if err != nil {
		return err
	}

	// Split into rows of two and sum within each row.
	row, err := w.Split(rank/2, rank)
	if err != nil {
		return err
	}
	defer row.Free()
	rowSum := []int{0}
	if err := mpi.Allreduce(row, []int{rank}, rowSum, mpi.Sum); err != nil {
		return err
	}

	product, err := overlappedProduct(w, rank)
	if err != nil {
		return err
	}

	gathered := make([]int, size)
	if err := mpi.Gather(w, []int{rank * rank}, gathered, 0); err != nil {
		return err
	}
	if rank == 0 {
		fmt.Printf("sum %.1f, max %.0f at rank %.0f, product %d, squares %v\n", sum, loc[0], loc[1], product, gathered)
	}
	fmt.Printf("rank %d: row %d of %d, row sum %d\n", rank, row.Rank(), row.Size(), rowSum[0])
	return nil
}

// weightedSum shows a broadcast and an allreduce: rank 0 broadcasts a
// parameter, and every rank contributes rank*param to the sum that all
// get.
func weightedSum(w *mpi.Comm, rank int) (float64, error) {
	param := []float64{0}
	if rank == 0 {
		param[0] = 2.5
	}
	if err := mpi.Bcast(w, param, 0); err != nil {
		return 0, err
	}
	sum := []float64{0}
	if err := mpi.Allreduce(w, []float64{float64(rank) * param[0]}, sum, mpi.Sum); err != nil {
		return 0, err
	}
	return sum[0], nil
}

// maxLoc shows where the maximum is: MaxLoc works on (value, index)
// pairs, and every rank gets the largest value and the rank holding it.
func maxLoc(w *mpi.Comm, rank, size int) ([]float64, error) {
	val := []float64{float64((rank * 7) % size), float64(rank)}
	loc := make([]float64, 2)
	if err := mpi.Allreduce(w, val, loc, mpi.MaxLoc); err != nil {
		return nil, err
	}
	return loc, nil
}

// overlappedProduct shows a nonblocking allreduce overlapping some local
// work: the product of every rank's rank+1.
func overlappedProduct(w *mpi.Comm, rank int) (int64, error) {
	in, out := []int64{int64(rank + 1)}, []int64{0}
	req, err := mpi.Iallreduce(w, in, out, mpi.Prod)
	if err != nil {
		return 0, err
	}
	local := 0
	for i := range 1000 {
		local += i
	}
	if _, err := req.Wait(); err != nil {
		return 0, err
	}
	return out[0], nil
}
