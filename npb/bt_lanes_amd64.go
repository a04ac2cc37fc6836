//go:build amd64 && !purego

package npb

import "math"

// BT's line solves along four lines at once, a line in each lane of an
// AVX2 vector (bt_lanes_amd64.s). Along a line every point waits for
// the one before it, through a block solve (binvcrhs) whose divisions and
// updates form a chain; the processor overlaps little of one point with
// the next. Four lines of a cell are independent: in lanes, every
// operation of the line solve, from the Jacobians to the block solve,
// serves four points at the cost of one, each lane going through the Go
// code's operations in their order, so that the results are bit for bit
// those of a line at a time. The values go into the lanes and out by 4×4
// transposes, a group's lines at once; the C′ blocks stay in the lane
// layout between the forward and the backward sweep.

// btJacLaneConsts are the constants of btJacobians for one direction, in
// every lane (bt_lanes_amd64.s reads them by position): 1, c2, c2·2,
// 2 − c2, c1, −c2, c1345, −visc[m], visc[m] and visc[m] − c1345 for m = 1,
// 2, 3, −(visc[1] − c1345), and −0.
type btJacLaneConsts [18][btGroupLines]float64

// btBlockLaneConsts are the constants of btLower, btDiag and btUpper for
// one direction, in every lane: dt1·d[i] and (dt1·2)·d[i] for i = 0..4,
// then 1, −dt2, dt1, dt2 and dt1·2.
type btBlockLaneConsts [15][btGroupLines]float64

//go:noescape
func btJacXLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)

//go:noescape
func btJacYLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)

//go:noescape
func btJacZLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)

// btBlocksLanes is btBlocksGo in each lane.
//
//go:noescape
func btBlocksLanes(a, b, c, f0, n0, n1, f2, n2 *btLaneBlock, k *btBlockLaneConsts)

// btMatVecSubLanes is btMatVecSub in each lane.
//
//go:noescape
func btMatVecSubLanes(a *btLaneBlock, v, r *btLaneVec)

// btMatMulSubLanes is btMatMulSubGo in each lane.
//
//go:noescape
func btMatMulSubLanes(a, b, c *btLaneBlock)

// btBinvCRHSLanes is btBinvCRHS in each lane.
//
//go:noescape
func btBinvCRHSLanes(b, c *btLaneBlock, r *btLaneVec)

// btJacLanes are btJacobians in each lane along x, y and z: f and n get the
// Jacobians of the points whose u, 1/ρ and qs the lanes of u and rq hold.
var btJacLanes = [3]func(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts){btJacXLanes, btJacYLanes, btJacZLanes}

// btGatherLanes sets dst[q], q < n, to the five values at p_l + q·stride
// of each line l (strides in values).
//
//go:noescape
func btGatherLanes(dst *btLaneVec, p0, p1, p2, p3 *float64, stride, n int)

// btScatterLanes is btGatherLanes the other way: src[q] to the lines.
//
//go:noescape
func btScatterLanes(p0, p1, p2, p3 *float64, src *btLaneVec, stride, n int)

// btGatherPairLanes sets dst[q][0] and dst[q][1], q < n, to the values of
// a and b at o_l + q·stride of each line l.
//
//go:noescape
func btGatherPairLanes(dst *[2][btGroupLines]float64, a, b *float64, o0, o1, o2, o3, stride, n int)

// btLanes is the lane form of a solver's line solves (btLaneSolver), with
// its own work space.
type btLanes struct {
	jac [3]btJacLaneConsts
	blk [3]btBlockLaneConsts
	// fj[d] and nj[d] are the Jacobians along the current lines in
	// direction d, position q at index q+1 (zero where btJacLanes writes
	// nothing, as btJacobians wants).
	fj, nj [3][]btLaneBlock
	// u and rq hold u, 1/ρ and qs of the lines' points from position
	// lo−1 on; r the right-hand sides from lo on, and c the C′ blocks of
	// the last cell on an axis.
	u  []btLaneVec
	rq [][2][btGroupLines]float64
	r  []btLaneVec
	c  []btLaneBlock
	a  btLaneBlock
	b  btLaneBlock
	// cIn and rIn are the predecessor's C′ and r′ of the lines; rIn
	// also the successor's solution.
	cIn btLaneBlock
	rIn btLaneVec
}

// btNewLanes returns the lane form of the line solves for lines of up to
// n points with the constants k, or nil where the CPU lacks AVX2.
func btNewLanes(k *adiConsts, n int) btLaneSolver {
	if !adiUseAVX2 {
		return nil
	}
	w := &btLanes{u: make([]btLaneVec, n+2), rq: make([][2][btGroupLines]float64, n+2), r: make([]btLaneVec, n), c: make([]btLaneBlock, n)}
	for d := range 3 {
		w.fj[d] = make([]btLaneBlock, n+2)
		w.nj[d] = make([]btLaneBlock, n+2)
		w.jac[d] = btJacConstsFor(k, d+1)
		w.blk[d] = btBlockConstsFor(&k.dir[d])
	}
	return w
}

// btBlockConstsFor returns btBlockLaneConsts for the direction ax.
func btBlockConstsFor(ax *adiDir) btBlockLaneConsts {
	t := ax.dtt1 * 2
	var b [15]float64
	for i := range 5 {
		b[i], b[5+i] = ax.dtt1*ax.d[i], t*ax.d[i]
	}
	b[10], b[11], b[12], b[13], b[14] = 1, -ax.dtt2, ax.dtt1, ax.dtt2, t
	var c btBlockLaneConsts
	for i, v := range b {
		c[i] = lanes4(v)
	}
	return c
}

// btJacConstsFor returns btJacLaneConsts for the direction whose momentum
// component is un.
func btJacConstsFor(k *adiConsts, un int) btJacLaneConsts {
	var visc [4]float64
	for m := 1; m < 4; m++ {
		visc[m] = k.c3c4
		if m == un {
			visc[m] = k.con43 * k.c3c4
		}
	}
	v := [18]float64{1, k.c2, k.c2 * 2, 2 - k.c2, k.c1, -k.c2, k.c1345}
	for m := 1; m < 4; m++ {
		v[6+m], v[9+m], v[12+m] = -visc[m], visc[m], visc[m]-k.c1345
	}
	v[16], v[17] = -(visc[1] - k.c1345), math.Copysign(0, -1)
	var c btJacLaneConsts
	for i, x := range v {
		c[i] = lanes4(x)
	}
	return c
}

// on reports whether adiUseAVX2 is on.
func (w *btLanes) on() bool { return adiUseAVX2 }

// eliminate is btLaneSolver.eliminate.
func (w *btLanes) eliminate(c *adiCell, d int, g []btLine, cs []btBlock, in []float64) {
	lo, hi := c.interior(d)
	pr := w.forward(c, d, g, btLaneView(cs)[lo:][:hi-lo+1], in)
	_, _, sr := adiAxisStrides(c, d)
	btScatterLanes(pr[0], pr[1], pr[2], pr[3], &w.r[0], sr, hi-lo+1)
}

// substitute is btLaneSolver.substitute.
func (w *btLanes) substitute(c *adiCell, d int, g []btLine, cs []btBlock, next []float64) {
	g = g[:btGroupLines]
	lo, hi := c.interior(d)
	nq := hi - lo + 1
	_, _, sr := adiAxisStrides(c, d)
	var pr [btGroupLines]*float64
	for l, ln := range g {
		pr[l] = &c.rhs[ln.pr+lo*sr:][:(nq-1)*sr+5][0] // the assembly trusts the values to be there
		for i, v := range next[ln.line*btBackWords:][:5] {
			w.rIn[i][l] = v
		}
	}
	btGatherLanes(&w.r[0], pr[0], pr[1], pr[2], pr[3], sr, nq)
	w.backward(btLaneView(cs)[lo:][:nq], &w.rIn)
	btScatterLanes(pr[0], pr[1], pr[2], pr[3], &w.r[0], sr, nq)
}

// solve is btLaneSolver.solve.
func (w *btLanes) solve(c *adiCell, d int, g []btLine, in []float64) {
	lo, hi := c.interior(d)
	nq := hi - lo + 1
	pr := w.forward(c, d, g, w.c[:nq], in)
	w.backward(w.c[:nq], nil)
	_, _, sr := adiAxisStrides(c, d)
	btScatterLanes(pr[0], pr[1], pr[2], pr[3], &w.r[0], sr, nq)
}

// backward back-substitutes along the lines in w.r with their C′ blocks
// cs, both from position lo on; next is the solution at the point after
// the cell, or nil.
func (w *btLanes) backward(cs []btLaneBlock, next *btLaneVec) {
	n := len(cs)
	if next != nil {
		btMatVecSubLanes(&cs[n-1], next, &w.r[n-1])
	}
	for i := n - 2; i >= 0; i-- {
		btMatVecSubLanes(&cs[i], &w.r[i+1], &w.r[i])
	}
}

// forward eliminates along the lines of g, leaving their C′ blocks in cs
// and r′ in w.r, position lo at index 0, and returns the lines' rhs at
// position lo. A cell has at least 3 points along each axis
// (adiNewGrid), so every line has a point to update.
func (w *btLanes) forward(c *adiCell, d int, g []btLine, cs []btLaneBlock, in []float64) (pr [btGroupLines]*float64) {
	g = g[:btGroupLines]
	lo, hi := c.interior(d)
	su, sa, sr := adiAxisStrides(c, d)
	np := hi - lo + 3 // the points whose Jacobians the blocks take: lo−1..hi+1
	nq := hi - lo + 1
	// The assembly trusts these to lie in their slices: the slicing checks.
	var pu [btGroupLines]*float64
	var pa [btGroupLines]int
	for l, ln := range g {
		pu[l] = &c.u[ln.pu+(lo-1)*su:][:(np-1)*su+5][0]
		pa[l] = ln.pa + (lo-1)*sa
		_, _ = c.rhoI[pa[l]:][(np-1)*sa], c.qs[pa[l]:][(np-1)*sa]
		pr[l] = &c.rhs[ln.pr+lo*sr:][:(nq-1)*sr+5][0]
	}
	btGatherLanes(&w.u[0], pu[0], pu[1], pu[2], pu[3], su, np)
	btGatherPairLanes(&w.rq[0], &c.rhoI[0], &c.qs[0], pa[0], pa[1], pa[2], pa[3], sa, np)
	btGatherLanes(&w.r[0], pr[0], pr[1], pr[2], pr[3], sr, nq)
	fj, nj, jac := w.fj[d], w.nj[d], btJacLanes[d]
	for i := range np {
		jac(&fj[lo+i], &nj[lo+i], &w.u[i], &w.rq[i], &w.jac[d])
	}
	var cPrev *btLaneBlock
	var rPrev *btLaneVec
	if in != nil {
		for l, ln := range g {
			m := btLineIn(in, ln.line)
			for e := range 25 {
				w.cIn[e][l] = m[e]
			}
			for i := range 5 {
				w.rIn[i][l] = m[25+i]
			}
		}
		cPrev, rPrev = &w.cIn, &w.rIn
	}
	for i := range nq {
		q := lo + i
		r, cq := &w.r[i], &cs[i]
		btBlocksLanes(&w.a, &w.b, cq, &fj[q], &nj[q], &nj[q+1], &fj[q+2], &nj[q+2], &w.blk[d])
		if rPrev != nil {
			btMatVecSubLanes(&w.a, rPrev, r)
			btMatMulSubLanes(&w.a, cPrev, &w.b)
		}
		btBinvCRHSLanes(&w.b, cq, r)
		cPrev, rPrev = cq, r
	}
	return pr
}
