package npb

import (
	"math"
	"strings"
	"testing"
)

func TestSP(t *testing.T) {
	checkKernel(t, "SP", 'S', 1, 4)
}

// TestSPNine runs class S on 9 processes.
func TestSPNine(t *testing.T) {
	if testing.Short() {
		t.Skip("9 processes oversubscribed")
	}
	out, code := runKernel(t, "SP", 'S', 9, false)
	if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
		t.Errorf("SP class S np=9 did not verify (exit %d):\n%s", code, out)
	}
}

// spTestCell returns a one-process SP grid of gp points at its initial
// field, with the forcing and the derived fields computed.
func spTestCell(t *testing.T, gp [3]int) (*adiGrid, *adiConsts) {
	t.Helper()
	return adiTestGrid(t, gp, 1, true, 0.015)
}

// TestSPChangeOfVariables checks txinvr, ninvr, pinvr and tzetar against
// each other: they multiply by T_x⁻¹, (T_x⁻¹·T_y)⁻¹, (T_y⁻¹·T_z)⁻¹ and
// T_z, so that in a row they give back the right-hand side.
func TestSPChangeOfVariables(t *testing.T) {
	g, k := spTestCell(t, [3]int{6, 7, 8})
	c := &g.cells[0]
	want := append([]float64(nil), c.rhs...)
	spTxinvr(g, k)
	if d := adiMaxDiff(c.rhs, want); d < 1e-6 {
		t.Fatalf("txinvr left the right-hand side unchanged (max change %g)", d)
	}
	spNinvr(c, k.bt)
	spPinvr(c, k.bt)
	spTzetar(c, k)
	if d := adiMaxDiff(c.rhs, want); d > 1e-12*adiMaxAbs(want) {
		t.Errorf("tzetar·pinvr·ninvr·txinvr is off the identity by %g", d)
	}
}

func adiMaxDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestSPLineSolve checks the sweeps on one process against the
// pentadiagonal systems they solve: for each factor and each line, the
// rows the sweep fills, times the solution, give back the right-hand side.
func TestSPLineSolve(t *testing.T) {
	g, k := spTestCell(t, [3]int{7, 8, 9})
	c := &g.cells[0]
	s := spNewSolver(nil, g, k)
	for d := range 3 {
		r0 := append([]float64(nil), c.rhs...)
		if err := s.solve(d, func(*adiCell) {}); err != nil {
			t.Fatal(err)
		}
		rows := make([]float64, len(s.rows))
		worst := 0.0
		spPencils(c, d, func(p spPencil) {
			s.fill(c, d, &p, rows)
			y := newSPLaneLayout(&p)
			for l := range p.na {
				for m, f := range spFactorOf {
					for q := p.lo; q <= p.hi; q++ {
						r := p.pr + q*p.sr + l*p.srA
						row := y.at(q, l, 15) + 5*f*spLanes
						sum := 0.0
						for e := range 5 {
							if x := q - 2 + e; x >= 0 && x < p.n {
								sum += rows[row+e*spLanes] * c.rhs[r+(x-q)*p.sr+m]
							}
						}
						worst = max(worst, math.Abs(sum-r0[r+m])/(math.Abs(r0[r+m])+1e-3))
					}
				}
			}
		})
		if worst > 1e-10 {
			t.Errorf("axis %d: the solution misses the right-hand side by %g (relative)", d, worst)
		}
	}
}

// BenchmarkSPStep times one SP time step of class A on one process (no
// messages); the solution drifts from step to step, as in the benchmark.
func BenchmarkSPStep(b *testing.B) {
	p, _ := spClassParams('A')
	s, err := spNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if err := s.step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSPChangeOfVariables times SP's four changes of variables
// (txinvr, ninvr, pinvr, tzetar) on a class A grid on one process.
func BenchmarkSPChangeOfVariables(b *testing.B) {
	p, _ := spClassParams('A')
	s, err := spNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.rhs(); err != nil {
		b.Fatal(err)
	}
	c := &s.g.cells[0]
	for range b.N {
		spTxinvr(s.g, s.k)
		spNinvr(c, s.k.bt)
		spPinvr(c, s.k.bt)
		spTzetar(c, s.k)
	}
}

// BenchmarkSPRHS times SP's right-hand side (compute_rhs) of class A on
// one process.
func BenchmarkSPRHS(b *testing.B) {
	p, _ := spClassParams('A')
	s, err := spNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if err := s.rhs(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSPFusedPasses checks that the passes the time step fuses give the
// same values, bit for bit, as NPB's separate passes: txinvr on each row
// as adiRHS completes it against txinvr after the whole right-hand side,
// and tzetar with the update of u against tzetar and then add.
func TestSPFusedPasses(t *testing.T) {
	gp := [3]int{6, 7, 8}
	sep, k := spTestCell(t, gp)
	spTxinvr(sep, k)
	fused, _ := spTestCell(t, gp)
	adiRHS(fused, k, spTxinvrThen(k))
	if d := adiMaxDiff(fused.cells[0].rhs, sep.cells[0].rhs); d != 0 {
		t.Errorf("txinvr on each completed row differs from txinvr after the right-hand side by %g", d)
	}
	spTzetar(&sep.cells[0], k)
	adiAdd(sep)
	spTzetarAdd(&fused.cells[0], k)
	if d := adiMaxDiff(fused.cells[0].rhs, sep.cells[0].rhs); d != 0 {
		t.Errorf("tzetar with the update: the right-hand side differs from tzetar alone by %g", d)
	}
	if d := adiMaxDiff(fused.cells[0].u, sep.cells[0].u); d != 0 {
		t.Errorf("tzetar with the update: u differs from tzetar then add by %g", d)
	}
	if d := adiMaxDiff(fused.cells[0].u, mustCell(t, gp).u); d == 0 {
		t.Error("the update left u unchanged")
	}
}

func mustCell(t *testing.T, gp [3]int) *adiCell {
	g, _ := spTestCell(t, gp)
	return &g.cells[0]
}

// BenchmarkSPSolve times SP's line solves along each axis of class A on
// one process, from a fresh right-hand side each time (not timed).
func BenchmarkSPSolve(b *testing.B) {
	p, _ := spClassParams('A')
	s, err := spNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	for d, axis := range []string{"x", "y", "z"} {
		b.Run(axis, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				if err := s.rhs(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := s.solver.solve(d, func(*adiCell) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
