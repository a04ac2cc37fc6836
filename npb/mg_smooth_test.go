package npb

import (
	"fmt"
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

// TestMGSmooth checks the fused step (mgResidShell, the exchange of r's
// ghosts, mgResidPsinvSweep) bit for bit against resid, the exchange and
// psinv apart, with and without wrap, with v and r apart (the finest
// level) and the same (the coarser ones), on levels of one to eleven
// interior points an axis. r starts as values unlike any the step
// computes, so that an exchange that read a point the shell had not yet
// computed would show in psinv's u.
func TestMGSmooth(t *testing.T) {
	a, c := mgCoefficients('A')
	for _, h := range [][3]int{{1, 1, 1}, {1, 2, 3}, {2, 2, 2}, {3, 1, 4}, {3, 5, 5}, {4, 4, 4}, {5, 3, 7}, {8, 4, 2}, {2, 8, 11}, {9, 6, 5}, {11, 7, 6}} {
		n := [3]int{h[0] + 2, h[1] + 2, h[2] + 2}
		u0 := mgRandomField(n, 271828183)
		v := mgRandomField(n, 314159265)
		junk := mgRandomField(n, 161803399)
		for _, wrap := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("%v wrap=%v in-place=%v", h, wrap, inPlace)
				var us, rs [2][]float64
				for k := range 2 {
					us[k] = append([]float64(nil), u0...)
					rs[k] = append([]float64(nil), junk...)
					vk := v
					if inPlace {
						copy(rs[k], v)
						vk = rs[k]
					}
					if k == 0 {
						mgResid(us[k], vk, rs[k], n, &a, wrap)
						mgSelfExchange(rs[k], n, wrap)
						mgPsinv(rs[k], us[k], n, &c, wrap)
					} else {
						mgResidShell(us[k], vk, rs[k], n, &a, wrap)
						mgSelfExchange(rs[k], n, wrap)
						mgResidPsinvSweep(us[k], vk, rs[k], n, &a, &c, wrap, make([]float64, 3*n[0]*n[1]))
					}
					mgSelfExchange(us[k], n, wrap)
				}
				for _, i3 := range []int{0, 1, n[2] - 2, n[2] - 1} { // the shell's and the ghosts' planes
					s3 := n[0] * n[1]
					if i := firstBitDiff(rs[1][i3*s3:][:s3], rs[0][i3*s3:][:s3]); i >= 0 {
						t.Errorf("%s: r's plane %d at %d is %v, resid's %v", name, i3, i, rs[1][i3*s3+i], rs[0][i3*s3+i])
					}
				}
				if i := firstBitDiff(us[1], us[0]); i >= 0 {
					t.Errorf("%s: u at %d is %v, psinv's %v", name, i, us[1][i], us[0][i])
				}
			}
		}
	}
}

// BenchmarkMGSmooth times the step on the way up on class A's and B's
// finest level on one process (256³ points), resid and psinv apart and
// fused, with the ghosts' copies of a process that is its own neighbour.
func BenchmarkMGSmooth(b *testing.B) {
	n := [3]int{258, 258, 258}
	u := mgRandomField(n, 271828183)
	v := mgRandomField(n, 314159265)
	r := make([]float64, len(u))
	planes := make([]float64, 3*n[0]*n[1])
	a, c := mgCoefficients('A')
	b.Run("apart", func(b *testing.B) {
		for b.Loop() {
			mgResid(u, v, r, n, &a, true)
			mgSelfExchange(r, n, true)
			mgPsinv(r, u, n, &c, true)
			mgSelfExchange(u, n, true)
		}
	})
	b.Run("fused", func(b *testing.B) {
		for b.Loop() {
			mgResidShell(u, v, r, n, &a, true)
			mgSelfExchange(r, n, true)
			mgResidPsinvSweep(u, v, r, n, &a, &c, true, planes)
			mgSelfExchange(u, n, true)
		}
	})
}
