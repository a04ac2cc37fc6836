package npb

// The declared computing of BT and SP (mpi.Compute): bt.f90 and sp.f90
// count the operations of a whole time step only, so each benchmark
// splits its count per step and grid point into shares for the phases of
// a step (the right-hand side, the line solves of every cell, the
// changes of variables, the update), which add up to 1; each phase
// declares its share for the points of the cells it works on, so that at
// one process the steps declare the benchmark's count.

import "github.com/rhinet-go/martini/mpi"

// adiOps is a benchmark's operations of one time step per grid point.
type adiOps float64

// adiPointOps returns the operations per step and grid point of a run of
// ops operations with parameters p.
func adiPointOps(ops float64, p adiParams) adiOps {
	n := float64(p.n)
	return adiOps(ops / float64(p.niter) / (n * n * n))
}

// declare declares share of a step's operations per point for pts points
// (mpi.Compute).
func (o adiOps) declare(share float64, pts int) { mpi.Compute(share * float64(o) * float64(pts)) }

// declareCells declares share of a step's operations per point for the
// points of all of g's cells.
func (o adiOps) declareCells(g *adiGrid, share float64) {
	pts := 0
	for i := range g.cells {
		pts += g.cells[i].points()
	}
	o.declare(share, pts)
}
