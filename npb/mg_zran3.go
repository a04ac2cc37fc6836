package npb

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// mgCharges is the number of +1 and of −1 charges of the right-hand side
// (zran3's mm).
const mgCharges = 10

// mgFillRandom fills the interior of the finest level z (local extents n)
// with NPB's random numbers, as the first part of mg.f90's zran3: the
// global grid of nx×ny×nz points takes the generator's numbers in
// Fortran order (i1 fastest) from the seed 314159265, so that the process
// holding the global points is..ie starts a line with the number at
// offset (is1−2) + nx·((is2−2) + ny·(is3−2)) and jumps nx numbers per
// line and nx·ny per plane. The ghosts stay zero.
func mgFillRandom(z []float64, n [3]int, is, ie [3]int, nx, ny int) {
	clear(z)
	a1 := Pow46(A, int64(nx))
	a2 := Pow46(A, int64(nx)*int64(ny))
	ai := Pow46(A, int64(is[0]-2)+int64(nx)*(int64(is[1]-2)+int64(ny)*int64(is[2]-2)))
	d1 := ie[0] - is[0] + 1
	e2 := ie[1] - is[1] + 2 // last interior i2, NPB 1-based
	e3 := ie[2] - is[2] + 2
	x0 := float64(Seed)
	Randlc(&x0, ai)
	for i3 := 2; i3 <= e3; i3++ {
		x1 := x0
		for i2 := 2; i2 <= e2; i2++ {
			xx := x1
			o := 1 + n[0]*((i2-1)+n[1]*(i3-1))
			Vranlc(&xx, A, z[o:o+d1])
			Randlc(&x1, a1)
		}
		Randlc(&x0, a2)
	}
}

// mgTen is one process's candidates for the extreme values: val[0] is
// the least extreme of the ten kept, the list sorted by bubble as zran3
// does; pos are the local flat indices (−1: none yet).
type mgTen struct {
	val [mgCharges]float64
	pos [mgCharges]int
}

// mgCandidates finds the ten largest and the ten smallest values of the
// interior of z (zran3's local search with bubble, in NPB's scan order and
// with its strict comparisons, so that ties resolve as in NPB).
func mgCandidates(z []float64, n [3]int) (hi, lo mgTen) {
	for i := range mgCharges {
		hi.val[i], hi.pos[i] = 0, -1
		lo.val[i], lo.pos[i] = 1, -1
	}
	n1, n2, n3 := n[0], n[1], n[2]
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			for i1 := 1; i1 < n1-1; i1++ {
				o := i1 + n1*(i2+n2*i3)
				x := z[o]
				if x > hi.val[0] {
					hi.val[0], hi.pos[0] = x, o
					hi.bubble(func(a, b float64) bool { return a > b })
				}
				if x < lo.val[0] {
					lo.val[0], lo.pos[0] = x, o
					lo.bubble(func(a, b float64) bool { return a < b })
				}
			}
		}
	}
	return hi, lo
}

// bubble moves the new entry 0 up the list while out of order (zran3's
// bubble): after moves, out(val[i], val[i+1]) is false for all i.
func (t *mgTen) bubble(out func(a, b float64) bool) {
	for i := 0; i < mgCharges-1; i++ {
		if !out(t.val[i], t.val[i+1]) {
			return
		}
		t.val[i], t.val[i+1] = t.val[i+1], t.val[i]
		t.pos[i], t.pos[i+1] = t.pos[i+1], t.pos[i]
	}
}

// zran3 sets the right-hand side v of the finest level: +1 at the ten
// largest and −1 at the ten smallest of NPB's random numbers over the
// whole grid, zero elsewhere, then exchanges the ghosts (mg.f90's zran3).
// The global extremes are found as NPB does: ten rounds in which every
// process offers its best remaining candidate, an Allreduce Max (Min)
// picks the winner, and the processes holding the winning value take
// their candidate. (NPB also gathers the winners' global coordinates, jg,
// only for a debugging print; that reduction is left out.)
func (s *mgState) zran3() error {
	g := &s.g
	l := &g.lev[g.lt]
	z := s.v
	mgFillRandom(z, l.n, g.is, g.ie, l.ng[0], l.ng[1])
	hi, lo := mgCandidates(z, l.n)

	if err := mpi.Barrier(s.comm.c); err != nil {
		return fmt.Errorf("npb: mg: zran3: %w", err)
	}
	mine, best := make([]float64, 1), make([]float64, 1)
	// pick runs one round for list t, whose candidate k is offered, and
	// returns the next candidate to offer. k stays ≥ 0: each round takes
	// at most one candidate of a process. An unset candidate offers the
	// sentinel (0 for the largest, 1 for the smallest), which never wins
	// since the numbers lie in (0, 1).
	pick := func(t *mgTen, k int, op mpi.Op) (int, error) {
		mine[0] = t.val[k]
		if err := mpi.Allreduce(s.comm.c, mine, best, op); err != nil {
			return k, fmt.Errorf("npb: mg: zran3: %w", err)
		}
		if t.pos[k] >= 0 && best[0] == mine[0] {
			return k - 1, nil
		}
		return k, nil
	}
	k1, k0 := mgCharges-1, mgCharges-1
	for range mgCharges {
		var err error
		if k1, err = pick(&hi, k1, mpi.Max); err != nil {
			return err
		}
		if k0, err = pick(&lo, k0, mpi.Min); err != nil {
			return err
		}
	}

	if err := mpi.Barrier(s.comm.c); err != nil {
		return fmt.Errorf("npb: mg: zran3: %w", err)
	}
	clear(z)
	for i := mgCharges - 1; i > k0; i-- {
		z[lo.pos[i]] = -1
	}
	for i := mgCharges - 1; i > k1; i-- {
		z[hi.pos[i]] = +1
	}
	return s.comm.comm3(z, g.lt)
}
