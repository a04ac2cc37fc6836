package npb

// BT's line solves (NPB3.4-MPI BT/x_solve.f90, y_solve.f90, z_solve.f90):
// along every grid line in one direction, the block-tridiagonal system is
// factored by block Gaussian elimination (forward) and solved by back
// substitution (backward). A line crosses the p cells of its row, held by
// p different processes, so the sweep is pipelined across cells: in stage
// s every process eliminates in its cell at position s on the axis, all
// of the cell's lines at once, after receiving from the predecessor the
// last eliminated C′ block and right-hand side of each line, and sends its
// own to the successor. The back substitution runs through the stages in
// reverse, passing the first solution value of each line back.
//
// The grid's boundary points are not updated: their rows of the system
// are the identity with a zero right-hand side, so the elimination here
// leaves them out, starting after the first boundary point and stopping
// before the last one. NPB's x_solve carries them along as identity blocks
// with zero off-diagonal neighbours, which changes no value.

import (
	"github.com/rhinet-go/martini/mpi"
)

// btSolver is one process's part of BT's implicit step.
type btSolver struct {
	adiPipe
	g *adiGrid
	k *adiConsts
	// lhsc[c] holds cell c's eliminated super-diagonal blocks C′, one per
	// point (indexed as the points of rhs), between the forward and the
	// backward sweep.
	lhsc [][]btBlock
	// fj[d] and nj[d] are the Jacobians along the current line in
	// direction d, position q at index q+1.
	fj, nj [3][]btBlock
}

// btFwdWords and btBackWords are the values per line of the forward and
// backward messages.
const (
	btFwdWords  = 30
	btBackWords = 5
)

func btNewSolver(comm *mpi.Comm, g *adiGrid, k *adiConsts) *btSolver {
	s := &btSolver{adiPipe: adiPipe{comm: comm}, g: g, k: k, lhsc: make([][]btBlock, len(g.cells))}
	for ci := range g.cells {
		s.lhsc[ci] = make([]btBlock, g.cells[ci].points())
	}
	n := g.maxSize()
	for d := range 3 {
		s.fj[d] = make([]btBlock, n+2)
		s.nj[d] = make([]btBlock, n+2)
	}
	s.send = make([]float64, n*n*btFwdWords)
	s.recv = make([]float64, n*n*btFwdWords)
	return s
}

// btMessages are the pipeline's messages: per line 30 values (C′ and r′)
// forward, 5 (the solution) backward.
var btMessages = adiMessages{name: "bt", fwdTag: 200, backTag: 210, fwdWords: btFwdWords, backWords: btBackWords}

// solve runs the line solves along axis d over all cells (x_solve,
// y_solve or z_solve).
func (s *btSolver) solve(d int) error { return s.run(s.g, s, btMessages, d, nil) }

// forward eliminates along axis d in cell ci (x_solve_cell); in holds the
// predecessor's C′ and r′ of each line unless the cell is first on the
// axis.
func (s *btSolver) forward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	lhsc := s.lhsc[ci]
	ax := &s.k.dir[d]
	lo, hi := c.interior(d)
	su, sa, sr := adiAxisStrides(c, d)
	fj, nj := s.fj[d], s.nj[d]
	adiLineIter(c, d, func(line, pu, pa, pr int) {
		for q := lo - 1; q <= hi+1; q++ {
			u := (*[5]float64)(c.u[pu+q*su:])
			btJacobians(&fj[q+1], &nj[q+1], u, c.rhoI[pa+q*sa], c.qs[pa+q*sa], d+1, s.k)
		}
		var a, b, cIn btBlock
		var cPrev *btBlock
		var rPrev *[5]float64
		if in != nil {
			m := in[line*btFwdWords:][:btFwdWords]
			for r := range 5 {
				copy(cIn[r][:], m[5*r:5*r+5])
			}
			cPrev, rPrev = &cIn, (*[5]float64)(m[25:])
		}
		for q := lo; q <= hi; q++ {
			r := (*[5]float64)(c.rhs[pr+q*sr:])
			cq := &lhsc[(pr+q*sr)/5]
			btLower(&a, &fj[q], &nj[q], ax.dtt1, ax.dtt2, &ax.d)
			btDiag(&b, &nj[q+1], ax.dtt1, &ax.d)
			btUpper(cq, &fj[q+2], &nj[q+2], ax.dtt1, ax.dtt2, &ax.d)
			if q > lo {
				rPrev = (*[5]float64)(c.rhs[pr+(q-1)*sr:])
				cPrev = &lhsc[(pr+(q-1)*sr)/5]
			}
			if rPrev != nil {
				btMatVecSub(&a, rPrev, r)
				btMatMulSub(&a, cPrev, &b)
			}
			btBinvCRHS(&b, cq, r)
		}
	})
}

// sendForward sends the C′ and r′ of the last point of every line of cell
// ci to the successor on axis d.
func (s *btSolver) sendForward(c *adiCell, ci, d int) error {
	_, _, sr := adiAxisStrides(c, d)
	q := c.size[d] - 1
	lhsc := s.lhsc[ci]
	adiLineIter(c, d, func(line, _, _, pr int) {
		m := s.send[line*btFwdWords:][:btFwdWords]
		blk := &lhsc[(pr+q*sr)/5]
		for r := range 5 {
			copy(m[5*r:5*r+5], blk[r][:])
		}
		copy(m[25:30], c.rhs[pr+q*sr:][:5])
	})
	return s.post(adiLines(c, d)*btFwdWords, s.g.succ[d], btMessages.fwdTag+d)
}

// backward back-substitutes along axis d in cell ci (x_backsubstitute);
// in holds the successor's solution at its first point of each line
// unless the cell is last on the axis.
func (s *btSolver) backward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	lhsc := s.lhsc[ci]
	lo, hi := c.interior(d)
	_, _, sr := adiAxisStrides(c, d)
	adiLineIter(c, d, func(line, _, _, pr int) {
		if in != nil {
			r := (*[5]float64)(c.rhs[pr+hi*sr:])
			btMatVecSub(&lhsc[(pr+hi*sr)/5], (*[5]float64)(in[line*btBackWords:]), r)
		}
		for q := hi - 1; q >= lo; q-- {
			r := (*[5]float64)(c.rhs[pr+q*sr:])
			btMatVecSub(&lhsc[(pr+q*sr)/5], (*[5]float64)(c.rhs[pr+(q+1)*sr:]), r)
		}
	})
}

// sendBackward sends the solution at the first point of every line of
// cell c to the predecessor on axis d.
func (s *btSolver) sendBackward(c *adiCell, d int) error {
	adiLineIter(c, d, func(line, _, _, pr int) {
		copy(s.send[line*btBackWords:][:btBackWords], c.rhs[pr:pr+5])
	})
	return s.post(adiLines(c, d)*btBackWords, s.g.pred[d], btMessages.backTag+d)
}
