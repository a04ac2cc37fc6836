package main

import (
	"fmt"
	"math"

	"github.com/rhinet-go/martini/mpi"
)

// check gathers the solution on rank 0, which computes the same iteration
// serially and compares: the solution must be identical, point for point
// (the same expressions on the same values), and the residual equal up to
// the rounding of its sum, which the processes add up in another order.
func (b *block) check(residual float64, iters int, dims []int) error {
	all, err := b.gather()
	if err != nil || b.grid.Rank() != 0 {
		return err
	}
	serial, serialResidual := solveSerial(b.n, iters)
	for i := range b.n {
		for j := range b.n {
			if got, want := all[i*b.n+j], serial[(i+1)*(b.n+2)+j+1]; got != want {
				return fmt.Errorf("point (%d, %d) is %v, the serial computation's %v", i, j, got, want)
			}
		}
	}
	if d := math.Abs(residual - serialResidual); d > 1e-12*math.Max(serialResidual, 1e-300) {
		return fmt.Errorf("residual %.15e, the serial computation's %.15e", residual, serialResidual)
	}
	fmt.Printf("jacobi2d: %d×%d points on a %d×%d process grid, %d iterations: residual %.6e (serial %.6e), solution identical to the serial one\n",
		b.n, b.n, dims[0], dims[1], iters, residual, serialResidual)
	return nil
}

// gather returns the whole interior at rank 0, row-major, and nil
// elsewhere.
func (b *block) gather() ([]float64, error) {
	mine := make([]float64, 0, b.nr*b.nc)
	for i := 1; i <= b.nr; i++ {
		mine = append(mine, b.row(i)...)
	}
	var counts, displs []int
	var recv []float64
	if b.grid.Rank() == 0 {
		counts, displs = make([]int, b.grid.Size()), make([]int, b.grid.Size())
		for r := range counts {
			_, nr, _, nc, err := b.blockOf(r)
			if err != nil {
				return nil, err
			}
			counts[r] = nr * nc
			if r > 0 {
				displs[r] = displs[r-1] + counts[r-1]
			}
		}
		recv = make([]float64, b.n*b.n)
	}
	if err := mpi.Gatherv(b.grid, mine, recv, counts, displs, 0); err != nil {
		return nil, err
	}
	if recv == nil {
		return nil, nil
	}
	all := make([]float64, b.n*b.n)
	for r := range counts {
		r0, nr, c0, nc, _ := b.blockOf(r)
		for i := range nr {
			copy(all[(r0+i)*b.n+c0:][:nc], recv[displs[r]+i*nc:][:nc])
		}
	}
	return all, nil
}

// blockOf returns the rows and columns of rank r's block.
func (b *block) blockOf(r int) (r0, nr, c0, nc int, err error) {
	dims, _, _, err := b.grid.CartGet()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	coords, err := b.grid.CartCoords(r)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	r0, nr = share(b.n, dims[0], coords[0])
	c0, nc = share(b.n, dims[1], coords[1])
	return r0, nr, c0, nc, nil
}

// solveSerial runs the iteration on the whole square in one process and
// returns the grid, boundary included, and the last residual.
func solveSerial(n, iters int) ([]float64, float64) {
	w := n + 2
	u, next := make([]float64, w*w), make([]float64, w*w)
	for j := range w {
		u[j], next[j] = 1, 1
	}
	var residual float64
	for range iters {
		var sum float64
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				v := stencil(u[(i-1)*w+j], u[(i+1)*w+j], u[i*w+j-1], u[i*w+j+1])
				d := v - u[i*w+j]
				sum += d * d
				next[i*w+j] = v
			}
		}
		u, next = next, u
		residual = math.Sqrt(sum)
	}
	return u, residual
}
