// Command jacobi2d solves Laplace's equation on a square by Jacobi
// iteration, the grid divided into blocks over a 2-D Cartesian process
// grid (DimsCreate, CartCreate), each process exchanging the halo of its
// block with its four neighbours (CartShift and Sendrecv; ProcNull at the
// edges of the square, where the boundary values stay). A column of the
// halo is a vector datatype (Vector): strided in the block, sent and
// received with SendType and IrecvType without a copy loop here.
//
// At the end it prints the residual (the 2-norm of the last update) and
// checks it and the whole solution, gathered on rank 0, against the same
// iteration computed serially there; a difference is an error (exit 1).
//
//	go run ./cmd/mpirun -np 4 ./examples/jacobi2d
//	go run ./cmd/mpirun -np 6 ./examples/jacobi2d -n 120 -iters 500
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	n := flag.Int("n", 64, "interior points along each side of the square")
	iters := flag.Int("iters", 200, "Jacobi iterations")
	flag.Parse()
	if *n < 1 || *iters < 1 {
		fmt.Fprintln(os.Stderr, "jacobi2d: -n and -iters must be positive")
		os.Exit(2)
	}
	if err := run(*n, *iters); err != nil {
		log.Fatal("jacobi2d: ", err)
	}
}

func run(n, iters int) (err error) {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, mpi.Finalize()) }()
	w := mpi.World()
	dims, err := mpi.DimsCreate(w.Size(), []int{0, 0})
	if err != nil {
		return err
	}
	if dims[0] > n || dims[1] > n {
		return fmt.Errorf("a %d×%d process grid is too large for a side of %d points", dims[0], dims[1], n)
	}
	grid, err := w.CartCreate(dims, []bool{false, false}, true)
	if err != nil {
		return err
	}
	defer grid.Free()
	b, err := newBlock(grid, n)
	if err != nil {
		return err
	}
	var residual float64
	for range iters {
		if err := b.exchangeHalo(); err != nil {
			return err
		}
		local := b.sweep()
		sum := []float64{0}
		if err := mpi.Allreduce(grid, []float64{local}, sum, mpi.Sum); err != nil {
			return err
		}
		residual = math.Sqrt(sum[0])
	}
	return b.check(residual, iters, dims)
}

// block is one process's part of the square: rows r0..r0+nr-1 and columns
// c0..c0+nc-1 of the interior, stored with a halo of one point on each
// side, row-major in (nr+2)×(nc+2) values.
type block struct {
	grid           *mpi.Comm
	n              int // interior points along a side of the square
	r0, c0, nr, nc int
	u, next        []float64
	up, down       int           // neighbours along dimension 0 (rows)
	left, right    int           // neighbours along dimension 1 (columns)
	col            *mpi.Datatype // a column of the interior rows: nr values, a row apart
}

// share returns the first index and the count of part i of n points cut
// into p parts.
func share(n, p, i int) (first, count int) {
	return i * n / p, (i+1)*n/p - i*n/p
}

func newBlock(grid *mpi.Comm, n int) (*block, error) {
	dims, _, coords, err := grid.CartGet()
	if err != nil {
		return nil, err
	}
	b := &block{grid: grid, n: n}
	b.r0, b.nr = share(n, dims[0], coords[0])
	b.c0, b.nc = share(n, dims[1], coords[1])
	if b.up, b.down, err = grid.CartShift(0, 1); err != nil {
		return nil, err
	}
	if b.left, b.right, err = grid.CartShift(1, 1); err != nil {
		return nil, err
	}
	b.u = make([]float64, (b.nr+2)*(b.nc+2))
	b.next = make([]float64, len(b.u))
	if b.col, err = mpi.Vector(b.nr, 1, b.nc+2); err != nil {
		return nil, err
	}
	if b.r0 == 0 { // the top edge of the square is held at 1
		for j := range b.nc + 2 {
			b.u[j], b.next[j] = 1, 1
		}
	}
	return b, nil
}

func (b *block) at(i, j int) int { return i*(b.nc+2) + j }

// row returns row i of the block, halo columns excluded.
func (b *block) row(i int) []float64 { return b.u[b.at(i, 1):b.at(i, b.nc+1)] }

// exchangeHalo sends the block's edge rows and columns to its neighbours
// and receives theirs into its halo. At the edges of the square the
// neighbour is ProcNull: nothing moves and the boundary values stay.
func (b *block) exchangeHalo() error {
	g := b.grid
	// Rows are contiguous: the last row goes down while the top halo
	// comes from above, then the other way.
	if _, err := mpi.Sendrecv(g, b.row(b.nr), b.down, 0, b.row(0), b.up, 0); err != nil {
		return err
	}
	if _, err := mpi.Sendrecv(g, b.row(1), b.up, 1, b.row(b.nr+1), b.down, 1); err != nil {
		return err
	}
	// Columns are strided: a vector datatype each way.
	if err := b.exchangeColumn(b.nc, b.right, 0, b.left, 2); err != nil {
		return err
	}
	return b.exchangeColumn(1, b.left, b.nc+1, b.right, 3)
}

// exchangeColumn sends column from to dest and receives column into from
// source, each the interior rows' values in that column.
func (b *block) exchangeColumn(from, dest, into, source, tag int) error {
	req, err := mpi.IrecvType(b.grid, b.u[b.at(1, into):], 1, b.col, source, tag)
	if err != nil {
		return err
	}
	if err := mpi.SendType(b.grid, b.u[b.at(1, from):], 1, b.col, dest, tag); err != nil {
		return err
	}
	_, err = req.Wait()
	return err
}

// sweep makes one Jacobi update of the interior and returns the sum of the
// squares of the changes.
func (b *block) sweep() float64 {
	var sum float64
	for i := 1; i <= b.nr; i++ {
		for j := 1; j <= b.nc; j++ {
			v := stencil(b.u[b.at(i-1, j)], b.u[b.at(i+1, j)], b.u[b.at(i, j-1)], b.u[b.at(i, j+1)])
			d := v - b.u[b.at(i, j)]
			sum += d * d
			b.next[b.at(i, j)] = v
		}
	}
	b.u, b.next = b.next, b.u
	return sum
}

// stencil is the Jacobi update of a point from its four neighbours: the
// same expression in the parallel and the serial computation, so that
// both give the same bits.
func stencil(up, down, left, right float64) float64 { return 0.25 * (up + down + left + right) }
