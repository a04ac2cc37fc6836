package npb

// SP's line solves (NPB3.4-MPI SP/x_solve.f90, y_solve.f90, z_solve.f90,
// lhsx.f90, lhsy.f90, lhsz.f90): in the characteristic variables of a
// direction the implicit operator is three scalar pentadiagonal matrices,
// one shared by components 1–3 (the eigenvalue u) and one each for
// components 4 and 5 (u+c and u−c). Along every line the Thomas algorithm
// eliminates the two sub-diagonals (forward) and back-substitutes
// (backward), pipelined across the p cells of the line as in BT: a
// process receives the predecessor's last two eliminated rows of every
// line, and in the back substitution the successor's first two solution
// values.
//
// Unlike BT, the grid's boundary points take part as rows of the
// identity with a zero right-hand side, as in NPB (lhsinit): the
// pentadiagonal elimination needs two rows on each side.

import (
	"github.com/rhinet-go/martini/mpi"
)

// Values per line of SP's pipeline messages: forward, the last two rows
// (two coefficients and the right-hand sides) of the three factors; back,
// the first two solution values of the five components.
const (
	spFwdWords  = 2*(2+3) + 2*(2+1) + 2*(2+1)
	spBackWords = 2 * 5
)

// spFactor is one of the three pentadiagonal factors: the components of
// rhs it applies to are lo..hi−1.
type spFactor struct{ lo, hi int }

var spFactors = [3]spFactor{{0, 3}, {3, 4}, {4, 5}}

// spSolver is one process's part of SP's implicit step.
type spSolver struct {
	adiPipe
	g *adiGrid
	k *adiConsts
	// up[c] holds what the back substitution needs of cell c's
	// eliminated rows when it is not the last on the axis: 6 values per
	// point, the two super-diagonal coefficients of each of the three
	// factors, pencil after pencil (spPencils' order) in the lane layout.
	up [][]float64
	// rows are the pentadiagonal rows of the pencil being eliminated, 15
	// values per row (5 per factor, the coefficients of the points
	// q−2..q+2), x its right-hand sides and u the super-diagonals the
	// elimination produces, all in the lane layout (sp_lanes.go): the
	// rows that only the elimination needs stay in cache instead of going
	// to memory with the cell's.
	rows, x, u []float64
	// cv and rhon are the normal velocity and the viscous eigenvalue
	// bound on the current pencil, row q of line l at (q+1)·na + l.
	cv, rhon []float64
	// pointOps is spOps's operations of one step per grid point, which
	// the step's phases declare in shares.
	pointOps adiOps
}

func spNewSolver(comm *mpi.Comm, g *adiGrid, k *adiConsts) *spSolver {
	s := &spSolver{adiPipe: adiPipe{comm: comm}, g: g, k: k, up: make([][]float64, len(g.cells))}
	for ci := range g.cells {
		n := 0
		for d := range 3 {
			n = max(n, spLaneValues(&g.cells[ci], d, 6))
		}
		s.up[ci] = make([]float64, n)
	}
	n := g.maxSize()
	lanes := (n + spLanes - 1) / spLanes * spLanes
	s.rows = make([]float64, 15*n*lanes)
	s.x = make([]float64, 5*n*lanes)
	s.u = make([]float64, 6*n*lanes)
	s.cv = make([]float64, (n+2)*n)
	s.rhon = make([]float64, (n+2)*n)
	s.newBuffers(n * n * spFwdWords)
	return s
}

// spMessages are the pipeline's messages: per line the last two rows
// forward, the solution back.
var spMessages = adiMessages{name: "sp", fwdTag: 300, backTag: 310, fwdWords: spFwdWords, backWords: spBackWords}

// solve runs the line solves along axis d over all cells, each cell's
// right-hand side then moved to the next direction's variables by after
// (x_solve with ninvr, y_solve with pinvr, z_solve with tzetar).
func (s *spSolver) solve(d int, after func(c *adiCell)) error {
	return s.run(s.g, s, spMessages, d, after)
}

// forward fills the rows and eliminates along axis d in cell ci; in holds
// the predecessor's last two rows of each line unless the cell is first
// on the axis.
func (s *spSolver) forward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	up := s.up[ci]
	spPencils(c, d, func(p spPencil) {
		y := s.eliminatePencil(c, d, &p, in, up)
		spScatter(c.rhs, s.x, &p, y)
		up = up[y.size(6):] // the next pencil's
	})
	s.pointOps.declare(spShareForward, c.points())
}

// solveLast eliminates and back-substitutes along axis d in cell ci, the
// last on the axis, a pencil at a time in the lane layout: the pencil's
// values are still in cache for the back substitution, and its
// super-diagonals, which no message needs, never go to the cell's.
func (s *spSolver) solveLast(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	spPencils(c, d, func(p spPencil) {
		y := s.eliminatePencil(c, d, &p, in, s.u)
		spBackSubstituteLanes(s.x, s.u, y, nil, 0)
		spScatter(c.rhs, s.x, &p, y)
	})
	s.pointOps.declare(spShareForward+spShareBackward, c.points())
}

// eliminatePencil fills the rows of pencil p along axis d of cell c and
// eliminates them in the lane layout (sp_lanes.go), with the right-hand
// sides gathered into s.x and the super-diagonals left in u; in holds
// the predecessor's last two rows of each line, or is nil.
func (s *spSolver) eliminatePencil(c *adiCell, d int, p *spPencil, in, u []float64) spLaneLayout {
	y := newSPLaneLayout(p)
	s.fill(c, d, p, s.rows)
	spGather(s.x, c.rhs, p, y)
	if in != nil {
		for l := range p.na {
			m := in[(p.line0+l)*spFwdWords:][:spFwdWords]
			for f, fc := range spFactors {
				w := 2 * (2 + fc.hi - fc.lo)
				spTakeRows(s.rows, s.x, y, l, f, fc, m[:w])
				m = m[w:]
			}
		}
	}
	spEliminateLanes(s.rows, s.x, u, y)
	return y
}

// spTakeRows eliminates the first two rows of line l (in rows and x, in
// the lane layout y) against the predecessor's last two eliminated rows
// in m: for each, the two super-diagonal coefficients and the right-hand
// sides of factor f, fc.
func spTakeRows(rows, x []float64, y spLaneLayout, l, f int, fc spFactor, m []float64) {
	nm := fc.hi - fc.lo
	a, b := m[:2+nm], m[2+nm:]
	k0, k1 := y.at(0, l, 15)+5*f*spLanes, y.at(1, l, 15)+5*f*spLanes
	l0 := func(j int) *float64 { return &rows[k0+j*spLanes] }
	l1 := func(j int) *float64 { return &rows[k1+j*spLanes] }
	x0 := func(e int) *float64 { return &x[y.at(0, l, 5)+(fc.lo+e)*spLanes] }
	x1 := func(e int) *float64 { return &x[y.at(1, l, 5)+(fc.lo+e)*spLanes] }
	for e, v := range a[2:] {
		*x0(e) -= v * *l0(0)
	}
	*l0(1) -= a[0] * *l0(0)
	*l0(2) -= a[1] * *l0(0)
	d, e := b[0], b[1]
	r1 := *l0(1)
	*l0(2) -= d * r1
	*l0(3) -= e * r1
	r2 := *l1(0)
	*l1(1) -= d * r2
	*l1(2) -= e * r2
	for i, v := range b[2:] {
		*x0(i) -= v * r1
		*x1(i) -= v * r2
	}
}

// sendForward sends the last two eliminated rows of every line of cell ci to
// the successor on axis d.
func (s *spSolver) sendForward(c *adiCell, ci, d int) error {
	send, err := s.claim()
	if err != nil {
		return err
	}
	up := s.up[ci]
	spPencils(c, d, func(p spPencil) {
		y := newSPLaneLayout(&p)
		for l := range p.na {
			m := send[(p.line0+l)*spFwdWords:][:spFwdWords]
			k := 0
			for f, fc := range spFactors {
				for q := p.n - 2; q < p.n; q++ {
					o := y.at(q, l, 6) + 2*f*spLanes
					m[k], m[k+1] = up[o], up[o+spLanes]
					k += 2
					r := p.pr + q*p.sr + l*p.srA
					k += copy(m[k:], c.rhs[r+fc.lo:r+fc.hi])
				}
			}
		}
		up = up[y.size(6):] // the next pencil's
	})
	return s.post(adiLines(c, d)*spFwdWords, s.g.succ[d], spMessages.fwdTag+d)
}

// backward back-substitutes along axis d in cell ci; in holds the
// successor's first two solution values of each line.
func (s *spSolver) backward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	up := s.up[ci]
	spPencils(c, d, func(p spPencil) {
		y := newSPLaneLayout(&p)
		spGather(s.x, c.rhs, &p, y)
		spBackSubstituteLanes(s.x, up, y, in, p.line0)
		spScatter(c.rhs, s.x, &p, y)
		up = up[y.size(6):] // the next pencil's
	})
	s.pointOps.declare(spShareBackward, c.points())
}

// sendBackward sends the first two solution values of every line of cell
// c to the predecessor on axis d.
func (s *spSolver) sendBackward(c *adiCell, d int) error {
	send, err := s.claim()
	if err != nil {
		return err
	}
	_, _, sr := adiAxisStrides(c, d)
	adiLineIter(c, d, func(line, _, _, pr int) {
		m := send[line*spBackWords:][:spBackWords]
		for comp := range 5 {
			m[2*comp], m[2*comp+1] = c.rhs[pr+comp], c.rhs[pr+sr+comp]
		}
	})
	return s.post(adiLines(c, d)*spBackWords, s.g.pred[d], spMessages.backTag+d)
}
