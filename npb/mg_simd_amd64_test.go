//go:build amd64 && !purego

package npb

import (
	"math/rand/v2"
	"testing"
)

// TestMGLinesAVX2 checks the line kernels against NPB's loops with the
// assembly forced on and off.
func TestMGLinesAVX2(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		t.Run(name, func(t *testing.T) { withAVX2(t, &mgUseAVX2, on, func() { mgCheckLines(t) }) })
	}
}

// TestMGRprj3LinesAVX2 checks the restriction's line kernel against
// NPB's loop with the assembly forced on and off.
func TestMGRprj3LinesAVX2(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		t.Run(name, func(t *testing.T) { withAVX2(t, &mgUseAVX2, on, func() { mgCheckRprj3Lines(t) }) })
	}
}

// TestMGLinesAVX2Field checks that mgResid and mgPsinv on a whole level
// give the same bits with the assembly on and off.
func TestMGLinesAVX2Field(t *testing.T) {
	a, c := mgCoefficients('A')
	for _, h := range [][3]int{{1, 2, 3}, {7, 5, 3}, {16, 8, 4}, {33, 6, 5}} {
		n := [3]int{h[0] + 2, h[1] + 2, h[2] + 2}
		u := mgFullField(n, 1)
		v := mgFullField(n, 2)
		var res, smo [2][]float64
		for k, on := range []bool{true, false} {
			withAVX2(t, &mgUseAVX2, on, func() {
				res[k] = make([]float64, len(v))
				mgResid(u, v, res[k], n, &a, true)
				smo[k] = append([]float64(nil), u...)
				mgPsinv(v, smo[k], n, &c, true)
			})
		}
		if i := firstBitDiff(res[0], res[1]); i >= 0 {
			t.Errorf("%v: resid at %d: %v with AVX2, %v without", h, i, res[0][i], res[1][i])
		}
		if i := firstBitDiff(smo[0], smo[1]); i >= 0 {
			t.Errorf("%v: psinv at %d: %v with AVX2, %v without", h, i, smo[0][i], smo[1][i])
		}
	}
}

// benchMGLine times f on L1-resident lines of class A's finest level
// (130 points) with the assembly on and off.
func benchMGLine(b *testing.B, f func(l *mgTestLines)) {
	l := newMGTestLines(rand.New(rand.NewPCG(1, 2)), 130)
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		b.Run(name, func(b *testing.B) {
			withAVX2(b, &mgUseAVX2, on, func() {
				for b.Loop() {
					f(l)
				}
			})
		})
	}
}

// BenchmarkResidLine times resid's line kernel.
func BenchmarkResidLine(b *testing.B) {
	a, _ := mgCoefficients('A')
	benchMGLine(b, func(l *mgTestLines) { l.resid(&a) })
}

// BenchmarkPsinvLine times psinv's line kernel.
func BenchmarkPsinvLine(b *testing.B) {
	_, c := mgCoefficients('A')
	benchMGLine(b, func(l *mgTestLines) { l.psinv(&c) })
}
