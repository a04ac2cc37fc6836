package npb

import (
	"fmt"
	"math"

	"github.com/rhinet-go/martini/mpi"
)

// The results of LU: the RMS norms of the residual and of the error, and
// the surface integral (NPB3.4-MPI LU/l2norm.f90, error.f90, pintgr.f90).

// rmsNorms sums, for each component, the squares that sq gives at the
// updated points of every inner k-plane over all processes, and returns
// the root of their means over the global inner grid.
func (s *luSolver) rmsNorms(sq func(i, j, k, o int, sum *[5]float64)) ([5]float64, error) {
	g := &s.g
	var sum [5]float64
	for k := 2; k <= g.nz0-1; k++ {
		for j := g.jst; j <= g.jend; j++ {
			for i := g.ist; i <= g.iend; i++ {
				sq(i, j, k, s.at(i, j, k), &sum)
			}
		}
	}
	var out [5]float64
	if err := mpi.Allreduce(s.c, sum[:], out[:], mpi.Sum); err != nil {
		return out, fmt.Errorf("norm: %w", err)
	}
	n := float64(g.nx0-2) * float64(g.ny0-2) * float64(g.nz0-2)
	for m := range out {
		out[m] = math.Sqrt(out[m] / n)
	}
	return out, nil
}

// l2norm returns the RMS norms of the components of v (l2norm).
func (s *luSolver) l2norm(v []float64) ([5]float64, error) {
	return s.rmsNorms(func(_, _, _, o int, sum *[5]float64) {
		p := luPt(v, o)
		for m := range 5 {
			sum[m] += p[m] * p[m]
		}
	})
}

// errorNorm returns the RMS norms of u's error against the exact solution
// (error).
func (s *luSolver) errorNorm() ([5]float64, error) {
	g := &s.g
	var ue [5]float64
	return s.rmsNorms(func(i, j, k, o int, sum *[5]float64) {
		s.exact(g.ipt+i, g.jpt+j, k, ue[:])
		p := luPt(s.u, o)
		for m := range 5 {
			t := ue[m] - p[m]
			sum[m] += t * t
		}
	})
}

// luPressure is c2·(ρE − ½|ρv|²/ρ) at a point of state w.
func luPressure(w *[5]float64) float64 {
	return luC2 * (w[4] - 0.50*(w[1]*w[1]+w[2]*w[2]+w[3]*w[3])/w[0])
}

// luPhi is one of pintgr's work arrays, indexed (a, b) with a in
// 0..lda−1.
type luPhi struct {
	v   []float64
	lda int
}

func (p *luPhi) at(a, b int) *float64 { return &p.v[a+p.lda*b] }

// luPintgrRange is the part of pintgr's integration box this process
// holds, in local indices (ibeg..ifin in i, jbeg..jfin in j), and the last
// lower corners of its cells (ifin1, jfin1).
type luPintgrRange struct {
	ibeg, ifin, ifin1, jbeg, jfin, jfin1 int
}

func (s *luSolver) pintgrRange() luPintgrRange {
	g, c := &s.g, &s.co
	r := luPintgrRange{ibeg: g.nx + 1, ifin: 0, jbeg: g.ny + 1, jfin: 0}
	ig1, ig2 := g.ipt+1, g.ipt+g.nx
	if ig1 >= c.ii1 && ig2 < c.ii2+g.nx {
		r.ibeg = 1
	}
	if ig1 > c.ii1-g.nx && ig2 <= c.ii2 {
		r.ifin = g.nx
	}
	if c.ii1 >= ig1 && c.ii1 <= ig2 {
		r.ibeg = c.ii1 - g.ipt
	}
	if c.ii2 >= ig1 && c.ii2 <= ig2 {
		r.ifin = c.ii2 - g.ipt
	}
	jg1, jg2 := g.jpt+1, g.jpt+g.ny
	if jg1 >= c.ji1 && jg2 < c.ji2+g.ny {
		r.jbeg = 1
	}
	if jg1 > c.ji1-g.ny && jg2 <= c.ji2 {
		r.jfin = g.ny
	}
	if c.ji1 >= jg1 && c.ji1 <= jg2 {
		r.jbeg = c.ji1 - g.jpt
	}
	if c.ji2 >= jg1 && c.ji2 <= jg2 {
		r.jfin = c.ji2 - g.jpt
	}
	r.ifin1, r.jfin1 = r.ifin, r.jfin
	if g.ipt+r.ifin1 == c.ii2 {
		r.ifin1 = r.ifin - 1
	}
	if g.jpt+r.jfin1 == c.ji2 {
		r.jfin1 = r.jfin - 1
	}
	return r
}

// luPintgrWork are pintgr's range and its two work arrays (one per face
// of a pair).
type luPintgrWork struct {
	r          luPintgrRange
	phi1, phi2 luPhi
}

// pintgr returns the surface integral of the pressure over the faces of
// the box ii1..ii2 × ji1..ji2 × ki1..ki2 (pintgr): the trapezoidal rule on
// each pair of opposite faces, the cells along process borders completed
// with the neighbours' values.
func (s *luSolver) pintgr() (float64, error) {
	g, c := &s.g, &s.co
	lda := max(g.nx, g.ny) + 2
	ldb := max(g.ny, g.nz) + 2
	w := &luPintgrWork{r: s.pintgrRange(),
		phi1: luPhi{make([]float64, lda*ldb), lda}, phi2: luPhi{make([]float64, lda*ldb), lda}}
	frc1, err := s.pintgrK(w)
	if err != nil {
		return 0, err
	}
	frc2, err := s.pintgrJ(w)
	if err != nil {
		return 0, err
	}
	frc3, err := s.pintgrI(w)
	if err != nil {
		return 0, err
	}
	return 0.25 * (c.dxi*c.deta*frc1 + c.dxi*c.dzeta*frc2 + c.deta*c.dzeta*frc3), nil
}

// pressure is the pressure at point (i, j, k).
func (s *luSolver) pressure(i, j, k int) float64 { return luPressure(luPt(s.u, s.at(i, j, k))) }

// pintgrK sums the faces k = ki1 and k = ki2.
func (s *luSolver) pintgrK(w *luPintgrWork) (float64, error) {
	c, r := &s.co, &w.r
	for j := r.jbeg; j <= r.jfin; j++ {
		for i := r.ibeg; i <= r.ifin; i++ {
			*w.phi1.at(i, j) = s.pressure(i, j, c.ki1)
			*w.phi2.at(i, j) = s.pressure(i, j, c.ki2)
		}
	}
	if err := s.exchange4(w.phi1.v, w.phi2.v, w.phi1.lda, r.ibeg, r.ifin1, r.jbeg, r.jfin1); err != nil {
		return 0, err
	}
	return s.pintgrSum(&w.phi1, &w.phi2, r.ibeg, r.ifin1, r.jbeg, r.jfin1)
}

// pintgrJ sums the faces j = ji1 and j = ji2, held by the processes with
// those j.
func (s *luSolver) pintgrJ(w *luPintgrWork) (float64, error) {
	g, c, r := &s.g, &s.co, &w.r
	clear(w.phi1.v)
	clear(w.phi2.v)
	for _, f := range []struct {
		phi        *luPhi
		j, jglobal int // the local row and the face's global row
	}{{&w.phi1, r.jbeg, c.ji1}, {&w.phi2, r.jfin, c.ji2}} {
		if g.jpt+f.j != f.jglobal {
			continue
		}
		for k := c.ki1; k <= c.ki2; k++ {
			for i := r.ibeg; i <= r.ifin; i++ {
				*f.phi.at(i, k) = s.pressure(i, f.j, k)
			}
		}
		if err := s.exchangeEdge(f.phi.v, f.phi.lda, true, r.ibeg, r.ifin1); err != nil {
			return 0, err
		}
	}
	return s.pintgrSum(&w.phi1, &w.phi2, r.ibeg, r.ifin1, c.ki1, c.ki2-1)
}

// pintgrI sums the faces i = ii1 and i = ii2.
func (s *luSolver) pintgrI(w *luPintgrWork) (float64, error) {
	g, c, r := &s.g, &s.co, &w.r
	clear(w.phi1.v)
	clear(w.phi2.v)
	for _, f := range []struct {
		phi        *luPhi
		i, iglobal int
	}{{&w.phi1, r.ibeg, c.ii1}, {&w.phi2, r.ifin, c.ii2}} {
		if g.ipt+f.i != f.iglobal {
			continue
		}
		for k := c.ki1; k <= c.ki2; k++ {
			for j := r.jbeg; j <= r.jfin; j++ {
				*f.phi.at(j, k) = s.pressure(f.i, j, k)
			}
		}
		if err := s.exchangeEdge(f.phi.v, f.phi.lda, false, r.jbeg, r.jfin1); err != nil {
			return 0, err
		}
	}
	return s.pintgrSum(&w.phi1, &w.phi2, r.jbeg, r.jfin1, c.ki1, c.ki2-1)
}

// pintgrSum sums the corner values of the cells a0..a1 × b0..b1 of both
// faces over all processes.
func (s *luSolver) pintgrSum(p1, p2 *luPhi, a0, a1, b0, b1 int) (float64, error) {
	sum := 0.0
	for b := b0; b <= b1; b++ {
		for a := a0; a <= a1; a++ {
			sum = sum + (*p1.at(a, b) + *p1.at(a+1, b) + *p1.at(a, b+1) + *p1.at(a+1, b+1) +
				*p2.at(a, b) + *p2.at(a+1, b) + *p2.at(a, b+1) + *p2.at(a+1, b+1))
		}
	}
	in, out := []float64{sum}, []float64{0}
	if err := mpi.Allreduce(s.c, in, out, mpi.Sum); err != nil {
		return 0, fmt.Errorf("pintgr: %w", err)
	}
	return out[0], nil
}
