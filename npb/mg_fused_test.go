package npb

import (
	"fmt"
	"math"
	"testing"
)

// mgSelfExchange fills the ghosts of x as comm3 does for a process that
// is its own neighbour on every axis; with wrapped set, on axis 2 only
// (the operators filled axes 0 and 1).
func mgSelfExchange(x []float64, n [3]int, wrapped bool) {
	l := &mgLevel{n: n}
	first := 0
	if wrapped {
		first = 2
	}
	for ax := first; ax < 3; ax++ {
		nn := n[ax]
		mgCopyBox(x, &l.n, mgFace(l, ax, nn-2, nn-1, false), mgFace(l, ax, 0, 1, false))
		mgCopyBox(x, &l.n, mgFace(l, ax, 1, 2, false), mgFace(l, ax, nn-1, nn, false))
	}
}

// mgShellDiff reports the first index where got and want differ bit for
// bit among the points of r that the fused passes store: the shell
// (mgResidShell) and the ghosts, that is the first two and the last two
// planes, and unless wrap is set the first two and the last two lines
// and points of every line of the others; or −1.
func mgShellDiff(got, want []float64, n [3]int, wrap bool) int {
	outer := func(i, m int) bool { return i < 2 || i >= m-2 }
	for i3 := range n[2] {
		for i2 := range n[1] {
			for i1 := range n[0] {
				stored := outer(i3, n[2]) || !wrap && (outer(i2, n[1]) || outer(i1, n[0]))
				o := i1 + n[0]*(i2+n[1]*i3)
				if stored && math.Float64bits(got[o]) != math.Float64bits(want[o]) {
					return o
				}
			}
		}
	}
	return -1
}

// mgFusedCases runs f on levels of the interior extents shapes, with and
// without wrap, with resid's v and r apart (the finest level) and the same
// (the coarser ones): for each way of computing (k = 0 apart, 1 fused), r
// starts as values unlike any the step computes and v is the same for
// both, a copy of it in r where in place.
func mgFusedCases(shapes [][3]int, f func(name string, n [3]int, wrap bool, r, v [2][]float64)) {
	for _, h := range shapes {
		n := [3]int{h[0] + 2, h[1] + 2, h[2] + 2}
		for _, wrap := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				var r, v [2][]float64
				for k := range 2 {
					r[k], v[k] = mgFullField(n, 3), mgFullField(n, 2)
					if inPlace {
						copy(r[k], v[k])
						v[k] = r[k]
					}
				}
				f(fmt.Sprintf("%v wrap=%v in-place=%v", h, wrap, inPlace), n, wrap, r, v)
			}
		}
	}
}

// TestMGResidPsinv checks the fused step (mgResidShell, the exchange of r's
// ghosts, mgResidPsinvSweep) bit for bit against resid, the exchange and
// psinv apart, with and without wrap, with v and r apart (the finest
// level) and the same (the coarser ones), on levels of one to eleven
// interior points an axis. r starts as values unlike any the step
// computes, so that an exchange that read a point the shell had not yet
// computed would show in psinv's u.
func TestMGResidPsinv(t *testing.T) {
	a, c := mgCoefficients('A')
	shapes := [][3]int{{1, 1, 1}, {1, 2, 3}, {2, 2, 2}, {3, 1, 4}, {3, 5, 5}, {4, 4, 4}, {5, 3, 7}, {8, 4, 2}, {2, 8, 11}, {9, 6, 5}, {11, 7, 6}, {4, 30, 30}}
	mgFusedCases(shapes, func(name string, n [3]int, wrap bool, r [2][]float64, v [2][]float64) {
		var u [2][]float64
		for k := range 2 {
			u[k] = mgFullField(n, 1)
			if k == 0 {
				mgResid(u[k], v[k], r[k], n, &a, wrap)
				mgSelfExchange(r[k], n, wrap)
				mgPsinv(r[k], u[k], n, &c, wrap)
			} else {
				mgResidShell(u[k], v[k], r[k], n, &a, wrap)
				mgSelfExchange(r[k], n, wrap)
				p := mgResidPass{u: u[k], v: v[k], r: r[k], n: n, a: &a, wrap: wrap, planes: make([]float64, 3*n[0]*n[1])}
				mgResidPsinvSweep(&p, &c)
			}
			mgSelfExchange(u[k], n, wrap)
		}
		if i := mgShellDiff(r[1], r[0], n, wrap); i >= 0 {
			t.Errorf("%s: r at %d is %v, resid's %v", name, i, r[1][i], r[0][i])
		}
		if i := firstBitDiff(u[1], u[0]); i >= 0 {
			t.Errorf("%s: u at %d is %v, psinv's %v", name, i, u[1][i], u[0][i])
		}
	})
}

// mgHugeField is mgRandomField in memory advised to huge pages, as MG's
// levels are (hugeSlice).
func mgHugeField(n [3]int, seed float64) []float64 {
	z := hugeSlice[float64](n[0] * n[1] * n[2])
	copy(z, mgRandomField(n, seed))
	return z
}

// mgFusedBenchLevels are the finest level of class B as one process holds
// it (256³ points, the process its own neighbour on axes 0 and 1: wrap
// set), as one of four does (256×128×128, its neighbours elsewhere on
// axes 1 and 2, so that the exchange fills axes 0 and 1 too) and as one
// of sixteen (128×128×64).
var mgFusedBenchLevels = []struct {
	name string
	n    [3]int
	wrap bool
}{{"np1", [3]int{258, 258, 258}, true}, {"np4", [3]int{258, 130, 130}, false}, {"np16", [3]int{130, 130, 66}, false}}

// BenchmarkMGResidPsinv times the step on the way up on the levels of
// mgFusedBenchLevels, resid and psinv apart and fused, with the ghosts'
// copies of a process that is its own neighbour.
func BenchmarkMGResidPsinv(b *testing.B) {
	a, c := mgCoefficients('A')
	for _, lv := range mgFusedBenchLevels {
		n, wrap := lv.n, lv.wrap
		u := mgHugeField(n, 271828183)
		v := mgHugeField(n, 314159265)
		r := hugeSlice[float64](len(u))
		planes := make([]float64, 3*n[0]*n[1])
		b.Run(lv.name+"/apart", func(b *testing.B) {
			for b.Loop() {
				mgResid(u, v, r, n, &a, wrap)
				mgSelfExchange(r, n, wrap)
				mgPsinv(r, u, n, &c, wrap)
				mgSelfExchange(u, n, wrap)
			}
		})
		b.Run(lv.name+"/fused", func(b *testing.B) {
			for b.Loop() {
				mgResidShell(u, v, r, n, &a, wrap)
				mgSelfExchange(r, n, wrap)
				p := mgResidPass{u: u, v: v, r: r, n: n, a: &a, wrap: wrap, planes: planes}
				mgResidPsinvSweep(&p, &c)
				mgSelfExchange(u, n, wrap)
			}
		})
	}
}

// TestMGResidRprj3 checks resid then rprj3 fused (mgResidShell, the
// exchange of r's ghosts, mgResidRprj3Sweep) bit for bit against resid,
// the exchange and rprj3 apart, as TestMGResidPsinv does, on levels of
// two to twelve interior points an axis and their coarse levels.
func TestMGResidRprj3(t *testing.T) {
	a, _ := mgCoefficients('A')
	shapes := [][3]int{{2, 2, 2}, {2, 4, 6}, {4, 4, 4}, {6, 2, 8}, {8, 4, 2}, {10, 6, 12}, {4, 30, 30}}
	mgFusedCases(shapes, func(name string, n [3]int, wrap bool, r [2][]float64, v [2][]float64) {
		nj := [3]int{n[0]/2 + 1, n[1]/2 + 1, n[2]/2 + 1}
		u := mgFullField(n, 1)
		var s [2][]float64
		for k := range 2 {
			s[k] = mgFullField(nj, 4)
			if k == 0 {
				mgResid(u, v[k], r[k], n, &a, wrap)
				mgSelfExchange(r[k], n, wrap)
				mgRprj3(r[k], n, s[k], nj)
			} else {
				mgResidShell(u, v[k], r[k], n, &a, wrap)
				mgSelfExchange(r[k], n, wrap)
				p := mgResidPass{u: u, v: v[k], r: r[k], n: n, a: &a, wrap: wrap, planes: make([]float64, 3*n[0]*n[1])}
				mgResidRprj3Sweep(&p, s[k], nj)
			}
		}
		if i := firstBitDiff(s[1], s[0]); i >= 0 {
			t.Errorf("%s: s at %d is %v, rprj3's %v", name, i, s[1][i], s[0][i])
		}
		if i := mgShellDiff(r[1], r[0], n, wrap); i >= 0 {
			t.Errorf("%s: r at %d is %v, resid's %v", name, i, r[1][i], r[0][i])
		}
	})
}

// BenchmarkMGResidRprj3 times the finest level's residual and the
// restriction that follows, apart and fused, on the levels of
// mgFusedBenchLevels.
func BenchmarkMGResidRprj3(b *testing.B) {
	a, _ := mgCoefficients('A')
	for _, lv := range mgFusedBenchLevels {
		n, wrap := lv.n, lv.wrap
		nj := [3]int{n[0]/2 + 1, n[1]/2 + 1, n[2]/2 + 1}
		u := mgHugeField(n, 271828183)
		v := mgHugeField(n, 314159265)
		r := hugeSlice[float64](len(u))
		s := hugeSlice[float64](nj[0] * nj[1] * nj[2])
		planes := make([]float64, 3*n[0]*n[1])
		b.Run(lv.name+"/apart", func(b *testing.B) {
			for b.Loop() {
				mgResid(u, v, r, n, &a, wrap)
				mgSelfExchange(r, n, wrap)
				mgRprj3(r, n, s, nj)
			}
		})
		b.Run(lv.name+"/fused", func(b *testing.B) {
			for b.Loop() {
				mgResidShell(u, v, r, n, &a, wrap)
				mgSelfExchange(r, n, wrap)
				p := mgResidPass{u: u, v: v, r: r, n: n, a: &a, wrap: wrap, planes: planes}
				mgResidRprj3Sweep(&p, s, nj)
			}
		})
	}
}
