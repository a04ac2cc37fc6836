//go:build amd64 && !purego

package npb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// btLaneOf returns lane l of a lane block as a block.
func btLaneOf(x *btLaneBlock, l int) btBlock {
	var b btBlock
	for e := range 25 {
		b[e/5][e%5] = x[e][l]
	}
	return b
}

// btToLanes puts b into lane l of x.
func btToLanes(x *btLaneBlock, l int, b *btBlock) {
	for e := range 25 {
		x[e][l] = b[e/5][e%5]
	}
}

// btSameBits returns the index of the first value of got and want whose
// bits differ (the sign of a zero too), or −1.
func btSameBits(got, want []float64) int {
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	return -1
}

// btCheckLanes fails the test unless lane l of got holds want bit for bit.
func btCheckLanes(t *testing.T, what string, got *btLaneBlock, l int, want *btBlock) {
	t.Helper()
	g := btLaneOf(got, l)
	if i := btSameBits(btFlat(&g, &[5]float64{}), btFlat(want, &[5]float64{})); i >= 0 {
		t.Fatalf("%s, lane %d, entry %d: %v in the lanes, %v a line at a time", what, l, i, g[i/5][i%5], want[i/5][i%5])
	}
}

// TestBTLaneKernels checks each lane routine against the Go code it does
// in every lane, bit for bit: the Jacobians along each axis (with
// constants drawn at random, each unlike the others, and some momenta
// +0 and −0), the blocks, the product with a vector, the block product
// and the block solve.
func TestBTLaneKernels(t *testing.T) {
	withAVX2(t, &adiUseAVX2, true, func() {
		rng := rand.New(rand.NewPCG(3, 4))
		r := func() float64 { return 2*rng.Float64() - 1 }
		for n := range 300 {
			k, u, rq := btRandomJacobianInputs(rng, r)
			btCheckJacobianLanes(t, k, &u, &rq)
			ax, jac, m, b, v, x := btRandomBlockInputs(rng, r)
			btCheckBlocksLanes(t, ax, &jac)
			btCheckProductLanes(t, n, &m, &b, &v, &x)
			btCheckSolveLanes(t, n, &b, &m, &x)
		}
	})
}

// btRandomJacobianInputs draws the constants and the lanes of u and rq
// for one case of TestBTLaneKernels, some momenta +0 and −0.
func btRandomJacobianInputs(rng *rand.Rand, r func() float64) (*adiConsts, btLaneVec, [2][btGroupLines]float64) {
	k := &adiConsts{c1: 1 + r(), c2: r(), c3c4: r(), c1345: r(), con43: 1 + r()}
	var u btLaneVec
	var rq [2][btGroupLines]float64
	for l := range btGroupLines {
		for i := range 5 {
			u[i][l] = r()
			if rng.IntN(8) == 0 {
				u[i][l] = math.Copysign(0, r())
			}
		}
		rq[0][l], rq[1][l] = 1+r(), r()
	}
	return k, u, rq
}

// btCheckJacobianLanes checks the lane flux and viscous Jacobians along
// each axis against btJacobians a line at a time.
func btCheckJacobianLanes(t *testing.T, k *adiConsts, u *btLaneVec, rq *[2][btGroupLines]float64) {
	t.Helper()
	for d := range 3 {
		var f, nv btLaneBlock
		jc := btJacConstsFor(k, d+1)
		btJacLanes[d](&f, &nv, u, rq, &jc)
		for l := range btGroupLines {
			var wf, wn btBlock
			ul := [5]float64{u[0][l], u[1][l], u[2][l], u[3][l], u[4][l]}
			btJacobians(&wf, &wn, &ul, rq[0][l], rq[1][l], d+1, k)
			btCheckLanes(t, "flux Jacobian", &f, l, &wf)
			btCheckLanes(t, "viscous Jacobian", &nv, l, &wn)
		}
	}
}

// btRandomBlockInputs draws the axis constants, the five Jacobians, the
// blocks m and b and the vectors v and x for one case of
// TestBTLaneKernels.
func btRandomBlockInputs(rng *rand.Rand, r func() float64) (ax *adiDir, jac [5]btLaneBlock, m, b btLaneBlock, v, x btLaneVec) {
	ax = &adiDir{dtt1: r(), dtt2: r()}
	for i := range ax.d {
		ax.d[i] = r()
	}
	for l := range btGroupLines {
		for j := range jac {
			bl := btRandomBlock(rng, 0)
			btToLanes(&jac[j], l, &bl)
		}
		ml, bl := btRandomBlock(rng, 0), btRandomBlock(rng, 6)
		btToLanes(&m, l, &ml)
		btToLanes(&b, l, &bl)
		for i := range 5 {
			v[i][l], x[i][l] = r(), r()
		}
	}
	return ax, jac, m, b, v, x
}

// btCheckBlocksLanes checks the lane sub-diagonal, diagonal and
// super-diagonal blocks against btBlocksGo a line at a time.
func btCheckBlocksLanes(t *testing.T, ax *adiDir, jac *[5]btLaneBlock) {
	t.Helper()
	bc := btBlockConstsFor(ax)
	var la, lb, lc btLaneBlock
	btBlocksLanes(&la, &lb, &lc, &jac[0], &jac[1], &jac[2], &jac[3], &jac[4], &bc)
	for l := range btGroupLines {
		var j [5]btBlock
		for i := range j {
			j[i] = btLaneOf(&jac[i], l)
		}
		var wa, wb, wc btBlock
		btBlocksGo(&wa, &wb, &wc, &j[0], &j[1], &j[2], &j[3], &j[4], &ax.d, ax.dtt1, ax.dtt2)
		btCheckLanes(t, "sub-diagonal block", &la, l, &wa)
		btCheckLanes(t, "diagonal block", &lb, l, &wb)
		btCheckLanes(t, "super-diagonal block", &lc, l, &wc)
	}
}

// btCheckProductLanes checks the lane product of m with v (subtracted
// from x, which it leaves changed) and of m with b against the Go code a
// line at a time, in case n.
func btCheckProductLanes(t *testing.T, n int, m, b *btLaneBlock, v, x *btLaneVec) {
	t.Helper()
	a, c := *m, *b
	want := make([]btBlock, btGroupLines)
	wantV := make([][5]float64, btGroupLines)
	for l := range btGroupLines {
		ml, bl, cl := btLaneOf(m, l), btLaneOf(b, l), btLaneOf(&c, l)
		vl := [5]float64{v[0][l], v[1][l], v[2][l], v[3][l], v[4][l]}
		xl := [5]float64{x[0][l], x[1][l], x[2][l], x[3][l], x[4][l]}
		btMatVecSub(&ml, &vl, &xl)
		btMatMulSubGo(&ml, &bl, &cl)
		want[l], wantV[l] = cl, xl
	}
	btMatVecSubLanes(&a, v, x)
	btMatMulSubLanes(&a, b, &c)
	for l := range btGroupLines {
		btCheckLanes(t, "block product", &c, l, &want[l])
		got := [5]float64{x[0][l], x[1][l], x[2][l], x[3][l], x[4][l]}
		if i := btSameBits(got[:], wantV[l][:]); i >= 0 {
			t.Fatalf("case %d: product with a vector, lane %d, value %d: %v in the lanes, %v a line at a time", n, l, i, got[i], wantV[l][i])
		}
	}
}

// btCheckSolveLanes checks the lane block solve of b against m and x
// against btBinvCRHS a line at a time, in case n.
func btCheckSolveLanes(t *testing.T, n int, b, m *btLaneBlock, x *btLaneVec) {
	t.Helper()
	want := make([]btBlock, btGroupLines)
	wantV := make([][5]float64, btGroupLines)
	for l := range btGroupLines {
		bl, cl := btLaneOf(b, l), btLaneOf(m, l)
		xl := [5]float64{x[0][l], x[1][l], x[2][l], x[3][l], x[4][l]}
		btBinvCRHS(&bl, &cl, &xl)
		want[l], wantV[l] = cl, xl
	}
	btBinvCRHSLanes(b, m, x)
	for l := range btGroupLines {
		btCheckLanes(t, "block solve", m, l, &want[l])
		got := [5]float64{x[0][l], x[1][l], x[2][l], x[3][l], x[4][l]}
		if i := btSameBits(got[:], wantV[l][:]); i >= 0 {
			t.Fatalf("case %d: block solve's right-hand side, lane %d, value %d: %v in the lanes, %v a line at a time", n, l, i, got[i], wantV[l][i])
		}
	}
}

// TestBTSolveLanes checks that BT's line solves give the same values, bit
// for bit, with the lanes and a line at a time: on one process (the last
// cell on each axis, whose lines are eliminated and back-substituted at
// once), and in the three cells of one of nine processes (elimination
// with and without a predecessor's message, the message to the successor,
// the back substitution with the successor's solution). The cells' lines
// do not all come in whole groups of four, so both ways meet in each run.
func TestBTSolveLanes(t *testing.T) {
	var got [2][]float64
	for k, on := range []bool{true, false} {
		withAVX2(t, &adiUseAVX2, on, func() {
			got[k] = btLaneRun(t, [3]int{7, 8, 9}, 1)
			got[k] = append(got[k], btLaneRun(t, [3]int{13, 14, 15}, 9)...)
		})
	}
	if len(got[0]) == 0 || len(got[0]) != len(got[1]) {
		t.Fatalf("%d and %d values", len(got[0]), len(got[1]))
	}
	if i := btSameBits(got[0], got[1]); i >= 0 {
		t.Fatalf("value %d: %v with the lanes, %v a line at a time", i, got[0][i], got[1][i])
	}
}

// btLaneRun solves along each axis in every cell of process 0 of np, as
// the pipeline does (adiPipe.run) but with messages from the other
// processes drawn at random, and returns the forward messages and the
// right-hand sides.
func btLaneRun(t *testing.T, gp [3]int, np int) []float64 {
	g, k := adiTestGrid(t, gp, np, false, 0.01)
	s := btNewSolver(nil, g, k)
	if lanes := s.inLanes(make([]btLine, btGroupLines)); lanes != adiUseAVX2 {
		t.Fatalf("a whole group in the lanes: %v, with the assembly %v", lanes, adiUseAVX2)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	random := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.2 * (2*rng.Float64() - 1)
		}
		return v
	}
	var out []float64
	for d := range 3 {
		if np == 1 {
			if err := s.solve(d); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for stage, ci := range g.slice[d] {
			c := &g.cells[ci]
			lines := adiLines(c, d)
			var in []float64
			if stage > 0 {
				in = random(lines * btFwdWords)
			}
			if stage == g.ncells-1 {
				s.solveLast(ci, d, in)
				continue
			}
			s.forward(ci, d, in)
			send := make([]float64, lines*btFwdWords)
			s.packForward(c, ci, d, send)
			out = append(out, send...)
			s.backward(ci, d, random(lines*btBackWords))
		}
	}
	for ci := range g.cells {
		out = append(out, g.cells[ci].rhs...)
	}
	return out
}
