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
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// btSolver is one process's part of BT's implicit step.
type btSolver struct {
	adiPipe
	g *adiGrid
	k *adiConsts
	// lhsc[c] holds cell c's eliminated super-diagonal blocks C′ between
	// the forward and the backward sweep, line after line: along axis d,
	// point q of line l at l·size[d] + q, so that both sweeps walk it
	// forward or backward through memory; a group of lines that the
	// lanes solve along holds them as btLaneView reads them instead.
	lhsc [][]btBlock
	// lineC holds the C′ blocks of a line of the last cell on an axis,
	// which is back-substituted as soon as it is eliminated.
	lineC []btBlock
	// lanes solves along btGroupLines lines at once, or is nil; group
	// holds the lines of eachGroup.
	lanes btLaneSolver
	group [btGroupLines]btLine
	// pointOps is btOps's operations of one step per grid point, which
	// the step's phases declare in shares.
	pointOps adiOps
	// fj[d] and nj[d] are the Jacobians along the current line in
	// direction d, position q at index q+1 (btJacobians writes only the
	// entries that can be non-zero in direction d).
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
	s.lineC = make([]btBlock, n)
	s.lanes = btNewLanes(k, n)
	for d := range 3 {
		s.fj[d] = make([]btBlock, n+2)
		s.nj[d] = make([]btBlock, n+2)
	}
	s.newBuffers(n * n * btFwdWords)
	return s
}

// btMessages are the pipeline's messages: per line 30 values (C′ and r′)
// forward, 5 (the solution) backward.
var btMessages = adiMessages{name: "bt", fwdTag: 200, backTag: 210, fwdWords: btFwdWords, backWords: btBackWords}

// solve runs the line solves along axis d over all cells (x_solve,
// y_solve or z_solve).
func (s *btSolver) solve(d int) error { return s.run(s.g, s, btMessages, d, nil) }

// groupBlocks returns the C′ blocks of the lines of g along axis d in
// cell ci, one line after the other: with the lanes, one btLaneBlock a
// position instead (btLaneView).
func (s *btSolver) groupBlocks(ci, d int, g []btLine) []btBlock {
	n := s.g.cells[ci].size[d]
	return s.lhsc[ci][g[0].line*n:][:len(g)*n]
}

// inLanes reports whether the lines of g are solved in the lanes.
func (s *btSolver) inLanes(g []btLine) bool {
	return len(g) == btGroupLines && s.lanes != nil && s.lanes.on()
}

// forward eliminates along axis d in cell ci (x_solve_cell); in holds the
// predecessor's C′ and r′ of each line unless the cell is first on the
// axis.
func (s *btSolver) forward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	s.eachGroupBlocks(ci, d, func(g []btLine, cs []btBlock) {
		s.lanes.eliminate(c, d, g, cs, in)
	}, func(l btLine, cs []btBlock) {
		s.eliminate(c, d, l.pu, l.pa, l.pr, cs, btLineIn(in, l.line))
	})
	s.pointOps.declare(btShareForward, c.points())
}

// eachGroupBlocks calls lanes with each group of lines along axis d in
// cell ci that the lanes solve along, and line with each line of the
// other groups, each with its C′ blocks (groupBlocks; a line's own).
func (s *btSolver) eachGroupBlocks(ci, d int, lanes func(g []btLine, cs []btBlock), line func(l btLine, cs []btBlock)) {
	c := &s.g.cells[ci]
	n := c.size[d]
	s.eachGroup(c, d, func(g []btLine) {
		cs := s.groupBlocks(ci, d, g)
		if s.inLanes(g) {
			lanes(g, cs)
			return
		}
		for i, l := range g {
			line(l, cs[i*n:][:n])
		}
	})
}

// solveLast eliminates and back-substitutes along axis d in cell ci, the
// last on the axis, a group of lines at a time.
func (s *btSolver) solveLast(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	cs := s.lineC[:c.size[d]]
	s.eachGroup(c, d, func(g []btLine) {
		if s.inLanes(g) {
			s.lanes.solve(c, d, g, in)
			return
		}
		for _, l := range g {
			s.eliminate(c, d, l.pu, l.pa, l.pr, cs, btLineIn(in, l.line))
			btSubstitute(c, d, l.pr, cs, nil)
		}
	})
	s.pointOps.declare(btShareForward+btShareBackward, c.points())
}

// btGroupLines is the number of lines that btLaneSolver solves along at
// once.
const btGroupLines = 4

// btLaneBlock holds entry 5·row + column of the blocks of btGroupLines
// lines at one position, lane l the block of line l.
type btLaneBlock [25][btGroupLines]float64

// btLaneVec holds value i of btGroupLines vectors.
type btLaneVec [5][btGroupLines]float64

// btLaneView returns the C′ blocks of a group of lines that btLaneSolver
// eliminated, cs as groupBlocks returns it, a btLaneBlock a position.
func btLaneView(cs []btBlock) []btLaneBlock {
	return unsafe.Slice((*btLaneBlock)(unsafe.Pointer(&cs[0])), len(cs)/btGroupLines)
}

// btLine is a line of a cell: its number in adiLineIter's order and its
// point 0 in u, the derived fields and rhs.
type btLine struct{ line, pu, pa, pr int }

// btLaneSolver solves along btGroupLines lines of a cell at once
// (bt_lanes_amd64.go), as btSolver does along each.
type btLaneSolver interface {
	// on reports whether the lanes are in use (not where the tests have
	// turned the assembly off).
	on() bool
	// eliminate is btSolver.eliminate along the lines of g, leaving
	// their C′ blocks in cs (groupBlocks) as btLaneView reads them.
	eliminate(c *adiCell, d int, g []btLine, cs []btBlock, in []float64)
	// substitute is btSubstitute along the lines of g, whose C′ blocks
	// eliminate left in cs; next holds the solution at the point after
	// the cell of each line of the cell.
	substitute(c *adiCell, d int, g []btLine, cs []btBlock, next []float64)
	// solve is eliminate and substitute along the lines of g, in the
	// last cell on axis d, keeping no C′ blocks.
	solve(c *adiCell, d int, g []btLine, in []float64)
}

// eachGroup calls f with the lines along axis d of cell c in the order
// of adiLineIter, btGroupLines at a time; the last group may be shorter.
// g lies in s.group, which f must not keep.
func (s *btSolver) eachGroup(c *adiCell, d int, f func(g []btLine)) {
	g := &s.group
	n := 0
	adiLineIter(c, d, func(line, pu, pa, pr int) {
		g[n] = btLine{line, pu, pa, pr}
		if n++; n == len(g) {
			f(g[:])
			n = 0
		}
	})
	if n > 0 {
		f(g[:n])
	}
}

// btLineIn returns line's part of the forward message in, or nil.
func btLineIn(in []float64, line int) []float64 {
	if in == nil {
		return nil
	}
	return in[line*btFwdWords:][:btFwdWords]
}

// eliminate runs the block elimination along the line of axis d whose
// point 0 is at pu, pa and pr in u, the derived fields and rhs, leaving
// C′ of position q in cs[q] and r′ in rhs; in holds the predecessor's C′
// and r′ of the line, or is nil.
func (s *btSolver) eliminate(c *adiCell, d, pu, pa, pr int, cs []btBlock, in []float64) {
	ax := &s.k.dir[d]
	lo, hi := c.interior(d)
	su, sa, sr := adiAxisStrides(c, d)
	fj, nj := s.fj[d], s.nj[d]
	for q := lo - 1; q <= hi+1; q++ {
		u := (*[5]float64)(c.u[pu+q*su:])
		btJacobians(&fj[q+1], &nj[q+1], u, c.rhoI[pa+q*sa], c.qs[pa+q*sa], d+1, s.k)
	}
	var a, b, cIn btBlock
	var cPrev *btBlock
	var rPrev *[5]float64
	if in != nil {
		for r := range 5 {
			copy(cIn[r][:], in[5*r:5*r+5])
		}
		cPrev, rPrev = &cIn, (*[5]float64)(in[25:])
	}
	for q := lo; q <= hi; q++ {
		r := (*[5]float64)(c.rhs[pr+q*sr:])
		cq := &cs[q]
		btBlocks(&a, &b, cq, &fj[q], &nj[q], &nj[q+1], &fj[q+2], &nj[q+2], &ax.d, ax.dtt1, ax.dtt2)
		if rPrev != nil {
			btMatVecSub(&a, rPrev, r)
			btMatMulSub(&a, cPrev, &b)
		}
		btBinvCRHS(&b, cq, r)
		rPrev, cPrev = r, cq
	}
}

// sendForward sends the C′ and r′ of the last point of every line of cell
// ci to the successor on axis d.
func (s *btSolver) sendForward(c *adiCell, ci, d int) error {
	send, err := s.claim()
	if err != nil {
		return err
	}
	s.packForward(c, ci, d, send)
	return s.post(adiLines(c, d)*btFwdWords, s.g.succ[d], btMessages.fwdTag+d)
}

// packForward puts the C′ and r′ of the last point of every line of cell
// ci along axis d into send, btFwdWords values a line.
func (s *btSolver) packForward(c *adiCell, ci, d int, send []float64) {
	_, _, sr := adiAxisStrides(c, d)
	q := c.size[d] - 1
	line := func(l btLine) []float64 {
		m := send[l.line*btFwdWords:][:btFwdWords]
		copy(m[25:30], c.rhs[l.pr+q*sr:][:5])
		return m
	}
	s.eachGroupBlocks(ci, d, func(g []btLine, cs []btBlock) {
		blk := &btLaneView(cs)[q]
		for i, l := range g {
			m := line(l)
			for e := range 25 {
				m[e] = blk[e][i]
			}
		}
	}, func(l btLine, cs []btBlock) {
		m := line(l)
		for r := range 5 {
			copy(m[5*r:5*r+5], cs[q][r][:])
		}
	})
}

// backward back-substitutes along axis d in cell ci (x_backsubstitute);
// in holds the successor's solution at its first point of each line.
func (s *btSolver) backward(ci, d int, in []float64) {
	c := &s.g.cells[ci]
	s.eachGroupBlocks(ci, d, func(g []btLine, cs []btBlock) {
		s.lanes.substitute(c, d, g, cs, in)
	}, func(l btLine, cs []btBlock) {
		btSubstitute(c, d, l.pr, cs, (*[5]float64)(in[l.line*btBackWords:]))
	})
	s.pointOps.declare(btShareBackward, c.points())
}

// btSubstitute back-substitutes along the line of axis d whose point 0
// is at pr in rhs, with its C′ blocks cs; next is the solution at the
// point after the cell on the line, or nil if there is none.
func btSubstitute(c *adiCell, d, pr int, cs []btBlock, next *[5]float64) {
	lo, hi := c.interior(d)
	_, _, sr := adiAxisStrides(c, d)
	if next != nil {
		btMatVecSub(&cs[hi], next, (*[5]float64)(c.rhs[pr+hi*sr:]))
	}
	for q := hi - 1; q >= lo; q-- {
		btMatVecSub(&cs[q], (*[5]float64)(c.rhs[pr+(q+1)*sr:]), (*[5]float64)(c.rhs[pr+q*sr:]))
	}
}

// sendBackward sends the solution at the first point of every line of
// cell c to the predecessor on axis d.
func (s *btSolver) sendBackward(c *adiCell, d int) error {
	send, err := s.claim()
	if err != nil {
		return err
	}
	adiLineIter(c, d, func(line, _, _, pr int) {
		copy(send[line*btBackWords:][:btBackWords], c.rhs[pr:pr+5])
	})
	return s.post(adiLines(c, d)*btBackWords, s.g.pred[d], btMessages.backTag+d)
}
