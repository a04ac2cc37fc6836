package npb

// MG: the multigrid kernel of NPB 3.4 (MG/mg.f90). A V-cycle multigrid
// solves the discrete Poisson problem ∇²u = v on a periodic nx×ny×nz grid
// whose right-hand side v is zero except for ten +1 and ten −1 charges
// at the positions of the largest and smallest of NPB's random numbers
// (zran3). Each iteration is one V-cycle (mg3P: restrict the residual
// down to a 2×2×2 grid with rprj3, smooth there with psinv, then back up
// with interp, resid and psinv on each level) followed by the residual
// r = v − A·u on the finest grid; the result is the L2 norm of r after nit
// iterations (norm2u3). The grid is split into boxes over a 3-D process
// grid, with halo exchange after every operator (comm3).
//
// Files: mg.go (parameters, driver, verification), mg_grid.go
// (decomposition and halo exchange), mg_kernels.go (the operators),
// mg_zran3.go (the right-hand side), mg_declare.go (the operations the
// operators declare under declared computing).

import (
	"fmt"
	"math"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "MG", Run: runMG, Procs: PowerOfTwo, ProcsRule: "a power of two", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

// mgEpsilon is mg.f90's verification tolerance on the relative error of
// the L2 norm.
const mgEpsilon = 1e-8

// mgParams are a class's parameters (npbparams.h as setparams writes it
// for MG) and its reference L2 norm (mg.f90's verify_value).
type mgParams struct {
	lt     int // log2 of the grid's edge: nx = ny = nz = 2^lt
	nit    int // iterations
	verify float64
}

func mgClassParams(class Class) (mgParams, bool) {
	switch class {
	case 'S':
		return mgParams{lt: 5, nit: 4, verify: 0.5307707005734e-04}, true
	case 'W':
		return mgParams{lt: 7, nit: 4, verify: 0.6467329375339e-05}, true
	case 'A':
		return mgParams{lt: 8, nit: 4, verify: 0.2433365309069e-05}, true
	case 'B':
		return mgParams{lt: 8, nit: 20, verify: 0.1800564401355e-05}, true
	case 'C':
		return mgParams{lt: 9, nit: 20, verify: 0.5706732285740e-06}, true
	}
	return mgParams{}, false
}

// mgCoefficients returns the operator A's coefficients a and the
// smoother's c (mg.f90: S(a) for classes S, W, A; S(b) otherwise).
func mgCoefficients(class Class) (a, c [4]float64) {
	a = [4]float64{-8.0 / 3.0, 0, 1.0 / 6.0, 1.0 / 12.0}
	if class == 'S' || class == 'W' || class == 'A' {
		c = [4]float64{-3.0 / 8.0, +1.0 / 32.0, -1.0 / 64.0, 0}
	} else {
		c = [4]float64{-3.0 / 17.0, +1.0 / 33.0, -1.0 / 61.0, 0}
	}
	return a, c
}

// mgState is one process's part of a run: its grids on every level
// (index 1..lt; NPB keeps them in one array at offsets ir(k)), the
// right-hand side on the finest level, and the halo exchange with its
// preallocated buffers.
type mgState struct {
	g    mgGrid
	comm *mgComm
	u, r [][]float64
	v    []float64
	a, c [4]float64
	// zline is interp's scratch: three coarse lines.
	zline []float64
	// rplanes is the scratch of the passes that pair resid with psinv or
	// rprj3 (mgResidPass): three planes of the finest level.
	rplanes []float64
	// opScale scales the operators' per-point estimates to mg.f90's
	// operation count (mgOpScale), for their declarations.
	opScale float64
}

func newMGState(c *mpi.Comm, class Class, p mgParams) (*mgState, error) {
	g, err := mgSetup(c.Size(), c.Rank(), p.lt)
	if err != nil {
		return nil, err
	}
	scale, err := mgOpScale(p)
	if err != nil {
		return nil, err
	}
	s := &mgState{g: g, opScale: scale}
	s.comm = newMGComm(c, &s.g)
	s.a, s.c = mgCoefficients(class)
	s.u = make([][]float64, p.lt+1)
	s.r = make([][]float64, p.lt+1)
	for k := 1; k <= p.lt; k++ {
		n := s.g.lev[k].size()
		s.u[k] = hugeSlice[float64](n)
		s.r[k] = hugeSlice[float64](n)
	}
	s.v = hugeSlice[float64](s.g.lev[p.lt].size())
	s.zline = make([]float64, 3*s.g.lev[p.lt].n[0])
	s.rplanes = make([]float64, 3*s.g.lev[p.lt].n[0]*s.g.lev[p.lt].n[1])
	return s, nil
}

// resid computes r = v − A·u on level k and exchanges r's ghosts. Where
// the process is its own neighbour on axes 0 and 1, the operator fills
// those ghosts itself (see mgWrapPlane) and comm3 does axis 2 only.
func (s *mgState) resid(k int, u, v, r []float64) error {
	wrap := s.comm.wraps(k)
	mgResid(u, v, r, s.g.lev[k].n, &s.a, wrap)
	s.declare(mgResidOps, s.g.lev[k].interior())
	return s.comm.comm3From(r, k, wrap)
}

// psinv smooths u with r on level k and exchanges u's ghosts, as resid
// does r's.
func (s *mgState) psinv(k int) error {
	wrap := s.comm.wraps(k)
	mgPsinv(s.r[k], s.u[k], s.g.lev[k].n, &s.c, wrap)
	s.declare(mgPsinvOps, s.g.lev[k].interior())
	return s.comm.comm3From(s.u[k], k, wrap)
}

// smooth is resid(k, s.u[k], v, s.r[k]) then psinv(k), the V-cycle's
// step on the way up, in one pass over the level (mg_fused.go); the
// exchanges of r's and u's ghosts are resid's and psinv's.
func (s *mgState) smooth(k int, v []float64) error {
	l := &s.g.lev[k]
	if l.dead || l.n[0] < 3 || l.n[1] < 3 || l.n[2] < 3 {
		if err := s.resid(k, s.u[k], v, s.r[k]); err != nil {
			return err
		}
		return s.psinv(k)
	}
	p, err := s.residShell(k, v)
	if err != nil {
		return err
	}
	mgResidPsinvSweep(&p, &s.c)
	s.declare(mgPsinvOps, l.interior())
	return s.comm.comm3From(s.u[k], k, p.wrap)
}

// residRestrict is the finest level's resid, r = v − A·u, then the next
// V-cycle's first restriction, rprj3(lt), in one pass over the level
// (mg_fused.go); mg3P(true) then starts at the coarser level. r's inner
// planes are not stored (mgResidPass), so no norm may follow.
func (s *mgState) residRestrict() error {
	lt := s.g.lt
	l, lc := &s.g.lev[lt], &s.g.lev[lt-1]
	regular := !l.dead && !lc.dead
	for ax := range 3 {
		regular = regular && l.n[ax] >= 4 && l.n[ax] == 2*lc.n[ax]-2
	}
	if !regular {
		if err := s.resid(lt, s.u[lt], s.v, s.r[lt]); err != nil {
			return err
		}
		return s.rprj3(lt)
	}
	p, err := s.residShell(lt, s.v)
	if err != nil {
		return err
	}
	mgResidRprj3Sweep(&p, s.r[lt-1], lc.n)
	s.declare(mgRprj3Ops, lc.interior())
	return s.comm.comm3(s.r[lt-1], lt-1)
}

// residShell computes resid's r on level k where the exchange reads it
// (mgResidShell), exchanges r's ghosts, and returns the pass that
// completes r for the operator that follows.
func (s *mgState) residShell(k int, v []float64) (mgResidPass, error) {
	l := &s.g.lev[k]
	p := mgResidPass{u: s.u[k], v: v, r: s.r[k], n: l.n, a: &s.a, wrap: s.comm.wraps(k), planes: s.rplanes}
	mgResidShell(p.u, v, p.r, l.n, p.a, p.wrap)
	s.declare(mgResidOps, l.interior())
	return p, s.comm.comm3From(p.r, k, p.wrap)
}

// rprj3 restricts the residual of level k onto level k−1.
func (s *mgState) rprj3(k int) error {
	j := k - 1
	mgRprj3(s.r[k], s.g.lev[k].n, s.r[j], s.g.lev[j].n)
	s.declare(mgRprj3Ops, s.g.lev[j].interior())
	return s.comm.comm3(s.r[j], j)
}

// interp adds the interpolated correction of level k−1 to u on level k.
func (s *mgState) interp(k int) error {
	j := k - 1
	mgInterp(s.u[j], s.g.lev[j].n, s.u[k], s.g.lev[k].n, s.zline)
	s.declare(mgInterpOps, mgInterpPoints(&s.g.lev[j], &s.g.lev[k]))
	return s.comm.comm3ex(s.u[k], k)
}

// mg3P is one V-cycle (mg.f90's mg3P): restriction of the residual down
// to level 1, an approximate solve there, and prolongation, residual and
// smoothing on the way back up to the finest level. With restricted set
// the finest level's restriction is done (residRestrict).
func (s *mgState) mg3P(restricted bool) error {
	lt := s.g.lt
	top := lt
	if restricted {
		top = lt - 1
	}
	for k := top; k >= 2; k-- {
		if err := s.rprj3(k); err != nil {
			return err
		}
	}
	clear(s.u[1])
	if err := s.psinv(1); err != nil {
		return err
	}
	for k := 2; k <= lt-1; k++ {
		clear(s.u[k])
		if err := s.interp(k); err != nil {
			return err
		}
		if err := s.smooth(k, s.r[k]); err != nil {
			return err
		}
	}
	if err := s.interp(lt); err != nil {
		return err
	}
	return s.smooth(lt, s.v)
}

// norm2u3 returns the L2 norm and the largest magnitude of r on the
// finest level over all processes (mg.f90's norm2u3).
func (s *mgState) norm2u3(r []float64) (rnm2, rnmu float64, err error) {
	l := &s.g.lev[s.g.lt]
	sum, mx := mgNorm2(r, l.n)
	s.declare(mgNormOps, l.interior())
	in, out := []float64{mx}, []float64{0}
	if err := mpi.Allreduce(s.comm.c, in, out, mpi.Max); err != nil {
		return 0, 0, fmt.Errorf("npb: mg: norm2u3: %w", err)
	}
	rnmu = out[0]
	in[0] = sum
	if err := mpi.Allreduce(s.comm.c, in, out, mpi.Sum); err != nil {
		return 0, 0, fmt.Errorf("npb: mg: norm2u3: %w", err)
	}
	dn := float64(l.ng[0]) * float64(l.ng[1]) * float64(l.ng[2])
	return math.Sqrt(out[0] / dn), rnmu, nil
}

// runMG runs MG of class on the processes of c.
func runMG(c *mpi.Comm, class Class, o Options) (*Result, error) {
	p, ok := mgClassParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: mg: class %v: %w", class, ErrUnsupported)
	}
	s, err := newMGState(c, class, p)
	if err != nil {
		return nil, err
	}
	if err := s.warmUp(); err != nil {
		return nil, err
	}
	rnm2, secs, err := s.timedIterations(c, p.nit)
	if err != nil {
		return nil, err
	}
	if o.Corrupt {
		rnm2 *= 1 + 1e-6
	}
	nx := 1 << p.lt
	r := &Result{
		Kernel:     "MG",
		Class:      class,
		Size:       fmt.Sprintf("%dx%dx%d", nx, nx, nx),
		Iterations: p.nit,
		NP:         c.Size(),
		Seconds:    secs,
		Mops:       Mops(mgOps(p), secs),
		Operation:  "floating point",
	}
	if c.Rank() != 0 {
		return r, nil
	}
	var b strings.Builder
	r.Verified = mgVerify(&b, rnm2, p.verify)
	r.Detail = b.String()
	return r, nil
}

// warmUp is the untimed initialisation: the right-hand side, then one
// V-cycle for startup (touching every array), then the right-hand side
// again with u = 0, as mg.f90 does.
func (s *mgState) warmUp() error {
	lt := s.g.lt
	if err := s.zran3(); err != nil {
		return err
	}
	if err := s.resid(lt, s.u[lt], s.v, s.r[lt]); err != nil {
		return err
	}
	if err := s.mg3P(false); err != nil {
		return err
	}
	if err := s.resid(lt, s.u[lt], s.v, s.r[lt]); err != nil {
		return err
	}
	clear(s.u[lt])
	return s.zran3()
}

// timedIterations is the timed part: the residual, nit V-cycles each
// followed by the residual, and the final norm. It returns the L2 norm
// of the final residual and the largest time over the processes (on
// rank 0).
func (s *mgState) timedIterations(c *mpi.Comm, nit int) (rnm2, secs float64, err error) {
	lt := s.g.lt
	if err := mpi.Barrier(c); err != nil {
		return 0, 0, fmt.Errorf("npb: mg: %w", err)
	}
	start := mpi.Wtime() // NPB times with MPI_Wtime: virtual time under -clock virtual
	if err := s.resid(lt, s.u[lt], s.v, s.r[lt]); err != nil {
		return 0, 0, err
	}
	if _, _, err := s.norm2u3(s.r[lt]); err != nil {
		return 0, 0, err
	}
	// Between two V-cycles the residual and the next restriction go
	// together (residRestrict); the last residual is the norm's.
	for it := range nit {
		if err := s.mg3P(it > 0); err != nil {
			return 0, 0, err
		}
		if it < nit-1 {
			err = s.residRestrict()
		} else {
			err = s.resid(lt, s.u[lt], s.v, s.r[lt])
		}
		if err != nil {
			return 0, 0, err
		}
	}
	rnm2, _, err = s.norm2u3(s.r[lt])
	if err != nil {
		return 0, 0, err
	}
	elapsed := []float64{mpi.Wtime() - start}
	tmax := []float64{0}
	if err := mpi.Reduce(c, elapsed, tmax, mpi.Max, 0); err != nil {
		return 0, 0, fmt.Errorf("npb: mg: %w", err)
	}
	return rnm2, tmax[0], nil
}

// mgVerify verifies as mg.f90 does, by the relative error of rnm2, the L2
// norm of the final residual, against the class's reference want (NaN
// fails), and writes NPB's verification lines to b.
func mgVerify(b *strings.Builder, rnm2, want float64) bool {
	e := RelErr(rnm2, want)
	ok := !math.IsNaN(e) && e <= mgEpsilon
	fmt.Fprintf(b, " Benchmark completed\n")
	if ok {
		fmt.Fprintf(b, " VERIFICATION SUCCESSFUL\n")
		fmt.Fprintf(b, " L2 Norm is %s\n", fortranE(rnm2, 13, 20))
		fmt.Fprintf(b, " Error is   %s\n", fortranE(e, 13, 20))
		fmt.Fprintf(b, " Reference  %s\n", fortranE(want, 13, 20))
	} else {
		fmt.Fprintf(b, " VERIFICATION FAILED\n")
		fmt.Fprintf(b, " L2 Norm is             %s\n", fortranE(rnm2, 13, 20))
		fmt.Fprintf(b, " The correct L2 Norm is %s\n", fortranE(want, 13, 20))
		fmt.Fprintf(b, " Error is               %s (epsilon %.1E)\n", fortranE(e, 13, 20), mgEpsilon)
	}
	return ok
}
