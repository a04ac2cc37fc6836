package npb

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// The SSOR iteration of LU (NPB3.4-MPI LU/ssor.f90 with blts.f90,
// buts.f90 and exchange_1.f90).
//
// blts and buts run along one line of i at a time after jacld or jacu
// has formed the line's blocks; here the blocks of four points of a line
// are formed at once (lu_lanes.go) and used before the next four's (the
// k-neighbour's contribution, which NPB adds to the whole line first, does
// not depend on the other points of the line, so the order of every
// operation on a value is NPB's).

// ssorStats is what ssor reports.
type ssorStats struct {
	seconds   float64    // the slowest process's time of the steps
	rsdnm     [5]float64 // the RMS norms of the last residual
	converged int        // the step at which the norms fell below tolrsd, or 0
}

// ssor runs niter SSOR steps from the current u, timed from a barrier.
func (s *luSolver) ssor(niter int) (ssorStats, error) {
	var st ssorStats
	tmp := 1.0 / (s.p.omega * (2.0 - s.p.omega))
	if err := s.rhs(); err != nil {
		return st, err
	}
	var err error
	if st.rsdnm, err = s.l2norm(s.rsd); err != nil {
		return st, err
	}
	if err := mpi.Barrier(s.c); err != nil {
		return st, fmt.Errorf("barrier: %w", err)
	}
	start := mpi.Wtime()
	for istep := 1; istep <= niter; istep++ {
		s.scaleInterior(s.rsd, s.p.dt)
		if err := s.sweeps(); err != nil {
			return st, err
		}
		s.addInterior(s.u, s.rsd, tmp)
		s.declare(luShareUpdate, s.g.nz-2)
		last := istep%s.p.itmax == 0 // NPB's inorm is itmax
		if last {
			if _, err := s.l2norm(s.rsd); err != nil { // the correction's norm, as NPB
				return st, err
			}
		}
		if err := s.rhs(); err != nil {
			return st, err
		}
		if last || istep == s.p.itmax {
			if st.rsdnm, err = s.l2norm(s.rsd); err != nil {
				return st, err
			}
		}
		if s.converged(st.rsdnm) {
			st.converged = istep
			break
		}
	}
	t := []float64{mpi.Wtime() - start}
	tmax := []float64{0}
	if err := mpi.Allreduce(s.c, t, tmax, mpi.Max); err != nil {
		return st, fmt.Errorf("time: %w", err)
	}
	st.seconds = tmax[0]
	return st, nil
}

// sweeps solves the lower and then the upper triangular system for the
// correction in rsd, plane by plane as a wavefront: each plane waits for
// the border lines of the processes before it and passes its own on.
func (s *luSolver) sweeps() error {
	g := &s.g
	for k := 2; k <= g.nz-1; k++ {
		if err := s.recvLines(k, false); err != nil {
			return err
		}
		s.lowerPlane(k)
		s.declare(luShareSweep, 1)
		if err := s.sendLines(k, false); err != nil {
			return err
		}
	}
	for k := g.nz - 1; k >= 2; k-- {
		if err := s.recvLines(k, true); err != nil {
			return err
		}
		s.upperPlane(k)
		s.declare(luShareSweep, 1)
		if err := s.sendLines(k, true); err != nil {
			return err
		}
	}
	return nil
}

// converged reports whether every norm is below NPB's tolerance.
func (s *luSolver) converged(nm [5]float64) bool {
	for _, v := range nm {
		if !(v < s.p.tolrsd) {
			return false
		}
	}
	return true
}

// scaleInterior multiplies the updated points of w by f.
func (s *luSolver) scaleInterior(w []float64, f float64) {
	g := &s.g
	for k := 2; k <= g.nz-1; k++ {
		for j := g.jst; j <= g.jend; j++ {
			lo, hi := s.at(g.ist, j, k), s.at(g.iend, j, k)+5
			for x, v := range w[lo:hi] {
				w[lo+x] = f * v
			}
		}
	}
}

// addInterior adds f·d to w at the updated points.
func (s *luSolver) addInterior(w, d []float64, f float64) {
	g := &s.g
	for k := 2; k <= g.nz-1; k++ {
		for j := g.jst; j <= g.jend; j++ {
			lo, hi := s.at(g.ist, j, k), s.at(g.iend, j, k)+5
			wl, dl := w[lo:hi], d[lo:hi]
			for x, v := range dl {
				wl[x] = wl[x] + f*v
			}
		}
	}
}

// lowerPlane solves plane k of the lower triangular system in place in
// rsd (jacld and blts for every line of the plane): the neighbours below
// in i and j are solved already, in this plane or, for the ghosts, by the
// north and west neighbours.
func (s *luSolver) lowerPlane(k int) {
	g := &s.g
	bl := &s.lanes
	rsd, sj, sk := s.rsd, s.sj, s.sk
	omega := s.jac.omega
	bl.setConstant(&s.jac, 0)
	for j := g.jst; j <= g.jend; j++ {
		hi := s.at(g.iend, j, k)
		for o := s.at(g.ist, j, k); o <= hi; o += 20 {
			n := min(4, (hi-o)/5+1)
			s.blocks(o, n, 0)
			for p := range n {
				x := o + 5*p
				v := luPt(rsd, x)
				luLowerProducts(v, luPt(rsd, x-sk), luPt(rsd, x-sj), luPt(rsd, x-5), &bl.n[2][p], &bl.n[1][p], &bl.n[0][p], omega)
				luSolveDiag(&bl.d[p], v)
			}
		}
	}
}

// upperPlane solves plane k of the upper triangular system in place in
// rsd (jacu and buts), from the last point of the plane back to the first.
func (s *luSolver) upperPlane(k int) {
	g := &s.g
	bl := &s.lanes
	rsd, sj, sk := s.rsd, s.sj, s.sk
	omega := s.jac.omega
	bl.setConstant(&s.jac, 1)
	for j := g.jend; j >= g.jst; j-- {
		lo := s.at(g.ist, j, k)
		for o := s.at(g.iend, j, k); o >= lo; o -= 20 {
			n := min(4, (o-lo)/5+1)
			first := o - 5*(n-1)
			s.blocks(first, n, 1)
			for p := n - 1; p >= 0; p-- {
				x := first + 5*p
				var tv [5]float64
				luUpperProducts(&tv, luPt(rsd, x+sk), luPt(rsd, x+sj), luPt(rsd, x+5), &bl.n[0][p], &bl.n[1][p], &bl.n[2][p], omega)
				luSolveDiag(&bl.d[p], &tv)
				v := luPt(rsd, x)
				for m := range 5 {
					v[m] = v[m] - tv[m]
				}
			}
		}
	}
}

// blocks forms into s.lanes the blocks of the n points (at most 4) of a
// line from offset o on, point p's at [p]: each point's diagonal block
// and the neighbour blocks of its neighbours below it (sweep 0) or above
// it (sweep 1), all four points at once when n is 4.
func (s *luSolver) blocks(o, n, sweep int) {
	kc, bl, u, rinv := &s.jac, &s.lanes, s.u, s.rinv
	cv := kc.cvLower
	if sweep == 1 {
		cv = kc.cvUpper
	}
	step := [3]int{5, s.sj, s.sk}
	if sweep == 0 {
		step = [3]int{-5, -s.sj, -s.sk}
	}
	if n == 4 {
		luJacD4(&bl.d, u[o:], rinv[o/5:], kc, &s.laneTabs.d)
		for axis, st := range step {
			b := o + st
			luJacN4(axis, &bl.n[axis], u[b:], rinv[b/5:], cv[axis], kc, &s.laneTabs.n[sweep][axis])
		}
		return
	}
	for p := range n {
		x := o + 5*p
		luJacD(&bl.d[p], luPt(u, x), rinv[x/5], kc)
		luJacX(&bl.n[0][p], luPt(u, x+step[0]), rinv[(x+step[0])/5], cv[0], kc)
		luJacY(&bl.n[1][p], luPt(u, x+step[1]), rinv[(x+step[1])/5], cv[1], kc)
		luJacZ(&bl.n[2][p], luPt(u, x+step[2]), rinv[(x+step[2])/5], cv[2], kc)
	}
}

// The products of the neighbour blocks with the neighbours' corrections
// in blts and buts, written out without the blocks' zero entries (whose
// products NPB adds as exact zeros): the k-neighbour's product first, then
// the j- and i-neighbours' interleaved column by column, as NPB sums them.

// luLowerProducts subtracts ω times the products of the blocks below
// (a, b, c: the neighbours' in z, y and x) with the corrections below from
// v (blts).
func luLowerProducts(v, vk, vj, vi *[5]float64, a, b, c *[25]float64, omega float64) {
	v[0] = v[0] - omega*(a[0]*vk[0]+a[3]*vk[3])
	v[1] = v[1] - omega*(a[5]*vk[0]+a[6]*vk[1]+a[8]*vk[3])
	v[2] = v[2] - omega*(a[10]*vk[0]+a[12]*vk[2]+a[13]*vk[3])
	v[3] = v[3] - omega*(a[15]*vk[0]+a[16]*vk[1]+a[17]*vk[2]+a[18]*vk[3]+a[19]*vk[4])
	v[4] = v[4] - omega*(a[20]*vk[0]+a[21]*vk[1]+a[22]*vk[2]+a[23]*vk[3]+a[24]*vk[4])
	v[0] = v[0] - omega*(b[0]*vj[0]+c[0]*vi[0]+c[1]*vi[1]+b[2]*vj[2])
	v[1] = v[1] - omega*(b[5]*vj[0]+c[5]*vi[0]+b[6]*vj[1]+c[6]*vi[1]+b[7]*vj[2]+c[7]*vi[2]+c[8]*vi[3]+c[9]*vi[4])
	v[2] = v[2] - omega*(b[10]*vj[0]+c[10]*vi[0]+b[11]*vj[1]+c[11]*vi[1]+b[12]*vj[2]+c[12]*vi[2]+b[13]*vj[3]+b[14]*vj[4])
	v[3] = v[3] - omega*(b[15]*vj[0]+c[15]*vi[0]+c[16]*vi[1]+b[17]*vj[2]+b[18]*vj[3]+c[18]*vi[3])
	v[4] = v[4] - omega*(b[20]*vj[0]+c[20]*vi[0]+b[21]*vj[1]+c[21]*vi[1]+b[22]*vj[2]+
		c[22]*vi[2]+b[23]*vj[3]+c[23]*vi[3]+b[24]*vj[4]+c[24]*vi[4])
}

// luUpperProducts sets tv to ω times the products of the blocks above
// (a, b, c: the neighbours' in x, y and z) with the corrections above
// (buts).
func luUpperProducts(tv, vk, vj, vi *[5]float64, a, b, c *[25]float64, omega float64) {
	tv[0] = omega * (c[0]*vk[0] + c[3]*vk[3])
	tv[1] = omega * (c[5]*vk[0] + c[6]*vk[1] + c[8]*vk[3])
	tv[2] = omega * (c[10]*vk[0] + c[12]*vk[2] + c[13]*vk[3])
	tv[3] = omega * (c[15]*vk[0] + c[16]*vk[1] + c[17]*vk[2] + c[18]*vk[3] + c[19]*vk[4])
	tv[4] = omega * (c[20]*vk[0] + c[21]*vk[1] + c[22]*vk[2] + c[23]*vk[3] + c[24]*vk[4])
	tv[0] = tv[0] + omega*(b[0]*vj[0]+a[0]*vi[0]+a[1]*vi[1]+b[2]*vj[2])
	tv[1] = tv[1] + omega*(b[5]*vj[0]+a[5]*vi[0]+b[6]*vj[1]+a[6]*vi[1]+b[7]*vj[2]+a[7]*vi[2]+a[8]*vi[3]+a[9]*vi[4])
	tv[2] = tv[2] + omega*(b[10]*vj[0]+a[10]*vi[0]+b[11]*vj[1]+a[11]*vi[1]+b[12]*vj[2]+a[12]*vi[2]+b[13]*vj[3]+b[14]*vj[4])
	tv[3] = tv[3] + omega*(b[15]*vj[0]+a[15]*vi[0]+a[16]*vi[1]+b[17]*vj[2]+b[18]*vj[3]+a[18]*vi[3])
	tv[4] = tv[4] + omega*(b[20]*vj[0]+a[20]*vi[0]+b[21]*vj[1]+a[21]*vi[1]+b[22]*vj[2]+
		a[22]*vi[2]+b[23]*vj[3]+a[23]*vi[3]+b[24]*vj[4]+a[24]*vi[4])
}
