//go:build amd64 && !purego

package npb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// adiSameValues returns the first index where a and b differ, or −1: the
// same bits, or zeros of either sign.
func adiSameValues(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(a[i] == 0 && b[i] == 0) {
			return i
		}
	}
	return -1
}

// TestADIRHSAVX2 checks that BT's and SP's right-hand sides, and the
// derived fields they are formed from, come out the same with the
// assembly on and off, after a few time steps of each benchmark at
// classes S and W.
func TestADIRHSAVX2(t *testing.T) {
	type bench struct {
		name   string
		params func(Class) (adiParams, bool)
		state  func(p adiParams) (step, rhs func() error, g *adiGrid, err error)
	}
	benches := []bench{
		{"bt", btClassParams, func(p adiParams) (func() error, func() error, *adiGrid, error) {
			s, err := btNewState(nil, 1, 0, p)
			if err != nil {
				return nil, nil, nil, err
			}
			return s.step, s.rhs, s.g, nil
		}},
		{"sp", spClassParams, func(p adiParams) (func() error, func() error, *adiGrid, error) {
			s, err := spNewState(nil, 1, 0, p)
			if err != nil {
				return nil, nil, nil, err
			}
			return s.step, s.rhs, s.g, nil
		}},
	}
	for _, b := range benches {
		for _, class := range []Class{'S', 'W'} {
			p, _ := b.params(class)
			step, rhs, g, err := b.state(p)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if err := step(); err != nil {
					t.Fatal(err)
				}
			}
			var got [2][]float64
			for k, on := range []bool{true, false} {
				withAVX2(t, &adiUseAVX2, on, func() {
					if err := rhs(); err != nil {
						t.Fatal(err)
					}
					c := &g.cells[0]
					got[k] = append([]float64(nil), c.rhs...)
					for _, f := range [][]float64{c.rhoI, c.us, c.vs, c.ws, c.qs, c.rhsFields, c.speed, c.ainv} {
						got[k] = append(got[k], f...)
					}
				})
			}
			if i := adiSameValues(got[0], got[1]); i >= 0 {
				t.Errorf("%s class %c: rhs or derived field at %d: %v with AVX2, %v without", b.name, class, i, got[0][i], got[1][i])
			}
		}
	}
}

// BenchmarkADIRHSAVX2 times SP's right-hand side of class A on one
// process with the assembly on and off.
func BenchmarkADIRHSAVX2(b *testing.B) {
	p, _ := spClassParams('A')
	s, err := spNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		b.Run(name, func(b *testing.B) {
			withAVX2(b, &adiUseAVX2, on, func() {
				for b.Loop() {
					if err := s.rhs(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// TestSPEliminateAVX2 checks that SP's line solves give the same values,
// bit for bit, with their assembly (the rows' filling, the elimination
// and the back substitution) on and off, along every axis of a cell whose
// pencils end in partial blocks of lanes (the solutions in rhs; a single
// cell keeps no super-diagonals in up).
func TestSPEliminateAVX2(t *testing.T) {
	var got [2][]float64
	for k, on := range []bool{true, false} {
		withAVX2(t, &adiUseAVX2, on, func() {
			g, kc := spTestCell(t, [3]int{7, 8, 9})
			c := &g.cells[0]
			s := spNewSolver(nil, g, kc)
			for d := range 3 {
				if err := s.solve(d, func(*adiCell) {}); err != nil {
					t.Fatal(err)
				}
			}
			got[k] = append([]float64(nil), c.rhs...)
		})
	}
	if i := adiSameValues(got[0], got[1]); i >= 0 {
		t.Errorf("after the solves, value %d: %v with AVX2, %v without", i, got[0][i], got[1][i])
	}
}

// TestSPInvrAVX2 checks txinvr and tzetar (with and without the update of
// u) on a row of 11 random points, bit for bit with and without their
// assembly (four points at a time, then three in Go).
func TestSPInvrAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 11
	vals := func(m int, lo float64) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = lo + rng.Float64()
		}
		return v
	}
	base := spRow{rhs: vals(5*n, -0.5), u: vals(5*n, 1), rhoI: vals(n, 0.5), us: vals(n, -0.5), vs: vals(n, -0.5),
		ws: vals(n, -0.5), qs: vals(n, 0), speed: vals(n, 1), ainv: vals(n, 0.5)}
	k := &adiConsts{c2: 0.4, bt: math.Sqrt(0.5), c2iv: 2.5}
	for _, op := range []string{"txinvr", "tzetar", "tzetar+add"} {
		var got [2][]float64
		for i, on := range []bool{true, false} {
			withAVX2(t, &adiUseAVX2, on, func() {
				row := base
				row.rhs, row.u = append([]float64(nil), base.rhs...), append([]float64(nil), base.u...)
				switch op {
				case "txinvr":
					spTxinvrRow(row, k.c2, k.bt, newSPInvrConst(k.c2, k.bt))
				default:
					spTzetarRow(row, k.bt, k.c2iv, newSPInvrConst(k.bt, k.c2iv), op == "tzetar+add")
				}
				got[i] = append(row.rhs, row.u...)
			})
		}
		for x := range got[0] {
			if math.Float64bits(got[0][x]) != math.Float64bits(got[1][x]) {
				t.Fatalf("%s: value %d is %v with AVX2, %v without", op, x, got[0][x], got[1][x])
			}
		}
	}
}
