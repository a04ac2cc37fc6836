package npb

// The exact solution, the boundary and initial values and the forcing term
// of LU (NPB3.4-MPI LU/exact.f90, setbv.f90, setiv.f90 and erhs.f90).

// exact writes the exact solution at global point (i, j, k) into out: a
// polynomial of degree four in each coordinate, with coefficients ce.
func (s *luSolver) exact(i, j, k int, out []float64) {
	xi := float64(i-1) / float64(s.g.nx0-1)
	eta := float64(j-1) / float64(s.g.ny0-1)
	zeta := float64(k-1) / float64(s.g.nz-1)
	out = out[:5]
	for m := range out {
		c := &s.co.ce[m]
		out[m] = c[0] + c[1]*xi + c[2]*eta + c[3]*zeta +
			c[4]*xi*xi + c[5]*eta*eta + c[6]*zeta*zeta +
			c[7]*xi*xi*xi + c[8]*eta*eta*eta + c[9]*zeta*zeta*zeta +
			c[10]*xi*xi*xi*xi + c[11]*eta*eta*eta*eta + c[12]*zeta*zeta*zeta*zeta
	}
}

// point returns the five components of point (i, j, k) of w.
func (s *luSolver) point(w []float64, i, j, k int) []float64 {
	o := s.at(i, j, k)
	return w[o : o+5]
}

// setbv sets u on the faces of the global grid that this process holds to
// the exact solution (setbv).
func (s *luSolver) setbv() {
	g := &s.g
	for j := 1; j <= g.ny; j++ {
		for i := 1; i <= g.nx; i++ {
			s.exact(g.ipt+i, g.jpt+j, 1, s.point(s.u, i, j, 1))
			s.exact(g.ipt+i, g.jpt+j, g.nz, s.point(s.u, i, j, g.nz))
		}
	}
	if g.west == -1 {
		for k := 1; k <= g.nz; k++ {
			for i := 1; i <= g.nx; i++ {
				s.exact(g.ipt+i, 1, k, s.point(s.u, i, 1, k))
			}
		}
	}
	if g.east == -1 {
		for k := 1; k <= g.nz; k++ {
			for i := 1; i <= g.nx; i++ {
				s.exact(g.ipt+i, g.ny0, k, s.point(s.u, i, g.ny, k))
			}
		}
	}
	if g.north == -1 {
		for k := 1; k <= g.nz; k++ {
			for j := 1; j <= g.ny; j++ {
				s.exact(1, g.jpt+j, k, s.point(s.u, 1, j, k))
			}
		}
	}
	if g.south == -1 {
		for k := 1; k <= g.nz; k++ {
			for j := 1; j <= g.ny; j++ {
				s.exact(g.nx0, g.jpt+j, k, s.point(s.u, g.nx, j, k))
			}
		}
	}
}

// setiv sets u inside the global grid to the transfinite interpolation of
// the exact solution on the faces (setiv).
func (s *luSolver) setiv() {
	g := &s.g
	var ue [6][5]float64 // on the faces i=1, i=nx0, j=1, j=ny0, k=1, k=nz
	for k := 2; k <= g.nz-1; k++ {
		zeta := float64(k-1) / float64(g.nz-1)
		for j := 1; j <= g.ny; j++ {
			jg := g.jpt + j
			if jg == 1 || jg == g.ny0 {
				continue
			}
			eta := float64(jg-1) / float64(g.ny0-1)
			for i := 1; i <= g.nx; i++ {
				ig := g.ipt + i
				if ig == 1 || ig == g.nx0 {
					continue
				}
				xi := float64(ig-1) / float64(g.nx0-1)
				s.exact(1, jg, k, ue[0][:])
				s.exact(g.nx0, jg, k, ue[1][:])
				s.exact(ig, 1, k, ue[2][:])
				s.exact(ig, g.ny0, k, ue[3][:])
				s.exact(ig, jg, 1, ue[4][:])
				s.exact(ig, jg, g.nz, ue[5][:])
				v := s.point(s.u, i, j, k)
				for m := range 5 {
					pxi := (1.0-xi)*ue[0][m] + xi*ue[1][m]
					peta := (1.0-eta)*ue[2][m] + eta*ue[3][m]
					pzeta := (1.0-zeta)*ue[4][m] + zeta*ue[5][m]
					v[m] = pxi + peta + pzeta - pxi*peta - peta*pzeta - pzeta*pxi + pxi*peta*pzeta
				}
			}
		}
	}
}

// erhs computes the forcing term frct: the residual operator of rhs
// applied to the exact solution, with the opposite sign (erhs). The exact
// solution is built in rsd, which rhs later overwrites.
func (s *luSolver) erhs() error {
	g := &s.g
	for k := 1; k <= g.nz; k++ {
		for j := 1; j <= g.ny; j++ {
			for i := 1; i <= g.nx; i++ {
				s.exact(g.ipt+i, g.jpt+j, k, s.point(s.rsd, i, j, k))
			}
		}
	}
	clear(s.frct)
	if err := s.exchange3(s.rsd); err != nil {
		return err
	}
	s.fluxDivergence(s.rsd, s.frct, true)
	return nil
}
