//go:build amd64 && !purego

package npb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// luLaneValues are all the values of l.
func luLaneValues(l *luLanes) []float64 {
	var out []float64
	for p := range l.d {
		d := &l.d[p]
		out = append(out, d.d11, d.d21, d.d22, d.d31, d.d33, d.d41, d.d44, d.d51, d.d52, d.d53, d.d54, d.d55, d.r11)
	}
	for axis := range l.n {
		for p := range l.n[axis] {
			out = append(out, l.n[axis][p][:]...)
		}
	}
	return out
}

// TestLUJacobiansAVX2 checks that the blocks of four points come out the
// same, bit for bit (the sign of a zero too), with the assembly on and
// off, for both sweeps and all three axes; some states have momentum
// components of +0 and −0.
func TestLUJacobiansAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 300 {
		// NPB's coefficients, with each dissipation coefficient drawn, so
		// that a constant read in another's place shows.
		co := newLUCoef(64, 64, 64)
		for m := range 5 {
			co.dx[m], co.dy[m], co.dz[m] = rng.Float64(), rng.Float64(), rng.Float64()
		}
		k := newLUJacConst(&co, 0.5+rng.Float64(), 1.2)
		tab := newLULaneTables(&k)
		u := make([]float64, 20)
		r := make([]float64, 4)
		for p := range 4 {
			w := u[5*p : 5*p+5]
			w[0], w[4] = 1+rng.Float64(), 2+rng.Float64()
			for m := 1; m < 4; m++ {
				switch rng.IntN(8) {
				case 0:
					w[m] = 0
				case 1:
					w[m] = math.Copysign(0, -1)
				default:
					w[m] = rng.Float64() - 0.5
				}
			}
			r[p] = 1.0 / w[0]
		}
		for sweep := range 2 {
			cv := [2][3]float64{k.cvLower, k.cvUpper}[sweep]
			var got [2][]float64
			for i, on := range []bool{true, false} {
				withAVX2(t, &luUseAVX2, on, func() {
					var l luLanes
					l.setConstant(&k, sweep)
					luJacD4(&l.d, u, r, &k, &tab.d)
					for axis := range 3 {
						luJacN4(axis, &l.n[axis], u, r, cv[axis], &k, &tab.n[sweep][axis])
					}
					got[i] = luLaneValues(&l)
				})
			}
			for i := range got[0] {
				if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
					t.Fatalf("case %d, sweep %d: value %d is %v with AVX2, %v without", n, sweep, i, got[0][i], got[1][i])
				}
			}
		}
	}
}

// TestLUStepAVX2 checks that three SSOR steps of class S on one process
// (both sweeps and the residual, whose lines the assembly takes four
// values or four points at a time) leave u and rsd the same, bit for bit,
// with the assembly on and off. Each component has a dissipation
// coefficient of its own (NPB's are alike), so that one read in
// another's place shows.
func TestLUStepAVX2(t *testing.T) {
	var u, rsd [2][]float64
	for i, on := range []bool{true, false} {
		withAVX2(t, &luUseAVX2, on, func() {
			s := luOffline(t, 'S')
			for m := range 5 {
				s.co.dx[m], s.co.dy[m], s.co.dz[m] = 0.75+0.01*float64(m), 0.75-0.01*float64(m), 1+0.02*float64(m)
			}
			s.rhsWork = newLURhsWork(s)
			s.jac = newLUJacConst(&s.co, s.p.dt, s.p.omega)
			s.laneTabs = newLULaneTables(&s.jac)
			for range 3 {
				s.offlineStep()
			}
			u[i], rsd[i] = s.u, s.rsd
		})
	}
	for name, v := range map[string][2][]float64{"u": u, "rsd": rsd} {
		for x := range v[0] {
			if math.Float64bits(v[0][x]) != math.Float64bits(v[1][x]) {
				t.Fatalf("%s[%d] is %v with AVX2, %v without", name, x, v[0][x], v[1][x])
			}
		}
	}
}
