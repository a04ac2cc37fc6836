package npb

import (
	"fmt"
	"testing"
)

// TestMGDeclaredPoints: the points MG's operators declare are the points
// their loops write, on every level of every process of grids split over
// 1 to 64 processes (coarse levels with dead processes and fine levels
// with a single interior point on some axis included): each operator
// runs on zeroed output from inputs of ones, and the count of values it
// made non-zero must be the count it declares.
func TestMGDeclaredPoints(t *testing.T) {
	const lt = 3
	a, c := mgCoefficients('S')
	for np := 1; np <= 64; np *= 2 {
		for me := range np {
			g, err := mgSetup(np, me, lt)
			if err != nil {
				t.Fatalf("np=%d me=%d: %v", np, me, err)
			}
			for k := 1; k <= lt; k++ {
				l := &g.lev[k]
				where := fmt.Sprintf("np=%d me=%d level %d extents %v", np, me, k, l.n)
				ones, out := mgFilled(l, 1), mgFilled(l, 0)
				mgResid(mgFilled(l, 0), ones, out, l.n, &a, false)
				mgCheckWritten(t, where+": resid", out, l.interior())
				clear(out)
				mgPsinv(ones, out, l.n, &c, false)
				mgCheckWritten(t, where+": psinv", out, l.interior())
				if k == 1 {
					continue
				}
				j := &g.lev[k-1]
				coarse := mgFilled(j, 0)
				mgRprj3(ones, l.n, coarse, j.n)
				mgCheckWritten(t, where+": rprj3", coarse, j.interior())
				clear(out)
				mgInterp(mgFilled(j, 1), j.n, out, l.n, make([]float64, 3*j.n[0]))
				mgCheckWritten(t, where+": interp", out, mgInterpPoints(j, l))
			}
		}
	}
}

// mgFilled returns an array of level l, ghosts included, filled with x.
func mgFilled(l *mgLevel, x float64) []float64 {
	u := make([]float64, l.size())
	for i := range u {
		u[i] = x
	}
	return u
}

// mgCheckWritten fails the test unless want values of u are non-zero.
func mgCheckWritten(t *testing.T, what string, u []float64, want int) {
	t.Helper()
	got := 0
	for _, x := range u {
		if x != 0 {
			got++
		}
	}
	if got != want {
		t.Errorf("%s: %d points written, %d declared", what, got, want)
	}
}
