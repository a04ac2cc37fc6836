package npb

// MG's declared computing (mpi.Compute). mg.f90 counts 58 operations per
// finest-grid point and iteration for the whole timed part; it does not
// split them between the operators. Each operator call here declares its
// estimate per point it updates on this process (the constants below,
// counted from mg_kernels.go's loops), times one factor per class
// (mgState.opScale) chosen so that at one process the timed part declares
// exactly mg.f90's count. At more processes each rank declares the points
// its own loops cover: on coarse levels where a process holds no point it
// declares nothing, and interp's count includes the ghosts it writes.

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// The estimated floating-point operations per point of each operator.
const (
	// resid, per interior point: the edge and corner sums of u (6) and
	// r = v − a0·u − a2·(…) − a3·(…) (9).
	mgResidOps = 15
	// psinv, per interior point: the edge and corner sums of r (6) and
	// u += c0·r + c1·(…) + c2·(…) (10).
	mgPsinvOps = 16
	// rprj3, per coarse interior point: four sums of four fine points
	// (12) and their weighted combination (12).
	mgRprj3Ops = 24
	// interp, per fine point written (ghosts included): a coarse point's
	// three line sums (4) and its eight fine points (20), an eighth each.
	mgInterpOps = 3
	// norm2u3, per interior point: the square and the sum.
	mgNormOps = 2
)

// mgOps is MG's operation count of a run (mg.f90: 58 per finest-grid
// point and iteration), the one its Mop/s are computed from.
func mgOps(p mgParams) float64 {
	nn := float64(int(1) << (3 * p.lt))
	return 58 * float64(p.nit) * nn
}

// interior returns the number of interior points of the level held here
// (zero where the process holds none on some axis).
func (l *mgLevel) interior() int {
	pts := 1
	for _, n := range l.n {
		pts *= max(n-2, 0)
	}
	return pts
}

// mgInterpPoints returns the number of points of fine level f that interp
// writes from coarse level c (mgInterp's loops): on each axis 2·(mm−1)
// for a coarse extent mm, one fewer where the fine level has a single
// interior point (NPB's d = 2).
func mgInterpPoints(c, f *mgLevel) int {
	pts := 1
	for ax := range 3 {
		d := 1
		if f.n[ax] == 3 {
			d = 2
		}
		pts *= 2*c.n[ax] - 1 - d
	}
	return pts
}

// mgTimedEstimate returns the operations that the constants above add up
// to over the timed part of a run on one process: the residual and its
// norm, nit V-cycles each followed by the residual, and the final norm.
func mgTimedEstimate(p mgParams) (float64, error) {
	g, err := mgSetup(1, 0, p.lt)
	if err != nil {
		return 0, err
	}
	lev := func(k int) float64 { return float64(g.lev[k].interior()) }
	lt := p.lt
	cycle := mgPsinvOps * lev(1) // the smoothing on the coarsest level
	for k := 2; k <= lt; k++ {
		cycle += mgRprj3Ops*lev(k-1) +
			mgInterpOps*float64(mgInterpPoints(&g.lev[k-1], &g.lev[k])) +
			(mgResidOps+mgPsinvOps)*lev(k)
	}
	fine := lev(lt)
	return mgResidOps*fine + 2*mgNormOps*fine + float64(p.nit)*(cycle+mgResidOps*fine), nil
}

// mgOpScale returns the factor of the per-point estimates that makes the
// timed part at one process declare mgOps.
func mgOpScale(p mgParams) (float64, error) {
	est, err := mgTimedEstimate(p)
	if err != nil {
		return 0, fmt.Errorf("npb: mg: operation count: %w", err)
	}
	return mgOps(p) / est, nil
}

// declare declares perPoint estimated operations for pts points
// (mpi.Compute), scaled to mg.f90's count.
func (s *mgState) declare(perPoint float64, pts int) {
	mpi.Compute(s.opScale * perPoint * float64(pts))
}
