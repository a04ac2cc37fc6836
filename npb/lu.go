package npb

// LU: the lower-upper Gauss-Seidel pseudo-application of NPB 3.4 (MPI
// version, LU/lu.f90, ssor.f90, setcoeff.f90, read_input.f90 and
// verify.f90). It solves the steady-state compressible Navier-Stokes
// equations (five coupled equations, with fourth-difference artificial
// dissipation) on an n³ grid by symmetric successive over-relaxation:
// each of itmax pseudo-time steps scales the residual by dt, sweeps it
// through the block lower triangular system (jacld, blts) and then the
// block upper triangular one (jacu, buts), adds the correction to u and
// recomputes the residual (rhs). The forcing term makes a known polynomial
// the exact solution; the results are the RMS norms of the residual and of
// the error against it, and a surface integral of the pressure (pintgr).
//
// The grid is split in i and j over a 2-D process grid (lu_grid.go). The
// triangular sweeps are a wavefront: a process solves its part of one
// k-plane once its north and west neighbours have sent their last line of
// it, then passes its own last lines on (exchange_1, lu_ssor.go); rhs
// exchanges two ghost layers with each neighbour (exchange_3,
// lu_comm.go). Files: lu.go (parameters, driver, verification),
// lu_grid.go (decomposition and layout), lu_init.go (exact solution,
// boundary and initial values, forcing), lu_rhs.go (the residual),
// lu_jac.go (the 5×5 blocks and their solve), lu_ssor.go (the sweeps),
// lu_comm.go (the halo exchanges), lu_norm.go (norms, error and surface
// integral).

import (
	"fmt"
	"math"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "LU", Run: runLU, Procs: luProcs,
		ProcsRule: "xdim·ydim processes with ydim ≤ xdim ≤ 2·ydim (1, 2, 4, 6, 8, 9, 12, 16, ...)",
		Classes:   []Class{'S', 'W', 'A', 'B', 'C'}})
}

// luEpsilon is verify.f90's tolerance on every relative error.
const luEpsilon = 1e-8

// The constants of the flux Jacobians (lu_data.f90's c1..c5), variables so
// that products of them are rounded as NPB rounds them, not folded exactly.
var luC1, luC2, luC3, luC4, luC5 = 1.40, 0.40, 1.00e-01, 1.00, 1.40

// luParams are a class's parameters (setparams's write_lu_info, the
// defaults of read_input.f90) and its reference values (verify.f90).
type luParams struct {
	n      int // nx0 = ny0 = nz0
	itmax  int
	dt     float64
	xcr    [5]float64 // RMS norms of the residual
	xce    [5]float64 // RMS norms of the error
	xci    float64    // surface integral
	omega  float64
	tolrsd float64
}

func luClassParams(class Class) (luParams, bool) {
	p := luParams{omega: 1.2, tolrsd: 1e-8}
	switch class {
	case 'S':
		p.n, p.itmax, p.dt = 12, 50, 0.5
		p.xcr = [5]float64{1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03, 1.5029584435994323e-03, 3.4264073155896461e-02}
		p.xce = [5]float64{6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05, 5.8474222595157350e-05, 1.3103347914111294e-03}
		p.xci = 7.8418928865937083e+00
	case 'W':
		p.n, p.itmax, p.dt = 33, 300, 1.5e-3
		p.xcr = [5]float64{0.1236511638192e+02, 0.1317228477799e+01, 0.2550120713095e+01, 0.2326187750252e+01, 0.2826799444189e+02}
		p.xce = [5]float64{0.4867877144216e+00, 0.5064652880982e-01, 0.9281818101960e-01, 0.8570126542733e-01, 0.1084277417792e+01}
		p.xci = 0.1161399311023e+02
	case 'A':
		p.n, p.itmax, p.dt = 64, 250, 2.0
		p.xcr = [5]float64{7.7902107606689367e+02, 6.3402765259692870e+01, 1.9499249727292479e+02, 1.7845301160418537e+02, 1.8384760349464247e+03}
		p.xce = [5]float64{2.9964085685471943e+01, 2.8194576365003349e+00, 7.3473412698774742e+00, 6.7139225687777051e+00, 7.0715315688392578e+01}
		p.xci = 2.6030925604886277e+01
	case 'B':
		p.n, p.itmax, p.dt = 102, 250, 2.0
		p.xcr = [5]float64{3.5532672969982736e+03, 2.6214750795310692e+02, 8.8333721850952190e+02, 7.7812774739425265e+02, 7.3087969592545314e+03}
		p.xce = [5]float64{1.1401176380212709e+02, 8.1098963655421574e+00, 2.8480597317698308e+01, 2.5905394567832939e+01, 2.6054907504857413e+02}
		p.xci = 4.7887162703308227e+01
	case 'C':
		p.n, p.itmax, p.dt = 162, 250, 2.0
		p.xcr = [5]float64{1.03766980323537846e+04, 8.92212458801008552e+02, 2.56238814582660871e+03, 2.19194343857831427e+03, 1.78078057261061185e+04}
		p.xce = [5]float64{2.15986399716949279e+02, 1.55789559239863600e+01, 5.41318863077207766e+01, 4.82262643154045421e+01, 4.55902910043250358e+02}
		p.xci = 6.66404553572181300e+01
	default:
		return p, false
	}
	return p, true
}

// luOps is lu.f90's operation count of a run, with its single-precision
// coefficients as Fortran's default-real literals round them.
func luOps(p luParams) float64 {
	n := float64(p.n)
	f := func(x float32) float64 { return float64(x) }
	mean := 3 * n / 3 // (nx0+ny0+nz0)/3
	return float64(p.itmax) * (f(1984.77)*n*n*n - f(10923.3)*(mean*mean) + f(27770.9)*(3*n)/3 - f(144010.))
}

// luCoef are setcoeff.f90's mesh and dissipation coefficients and the
// exact solution's polynomial coefficients.
type luCoef struct {
	dxi, deta, dzeta float64
	tx1, tx2, tx3    float64
	ty1, ty2, ty3    float64
	tz1, tz2, tz3    float64
	dx, dy, dz       [5]float64
	dssp             float64
	ce               [5][13]float64
	// The range of pintgr's integration (global indices).
	ii1, ii2, ji1, ji2, ki1, ki2 int
}

func newLUCoef(nx0, ny0, nz0 int) luCoef {
	var c luCoef
	c.dxi = 1.0 / float64(nx0-1)
	c.deta = 1.0 / float64(ny0-1)
	c.dzeta = 1.0 / float64(nz0-1)
	c.tx1, c.tx2, c.tx3 = 1.0/(c.dxi*c.dxi), 1.0/(2.0*c.dxi), 1.0/c.dxi
	c.ty1, c.ty2, c.ty3 = 1.0/(c.deta*c.deta), 1.0/(2.0*c.deta), 1.0/c.deta
	c.tz1, c.tz2, c.tz3 = 1.0/(c.dzeta*c.dzeta), 1.0/(2.0*c.dzeta), 1.0/c.dzeta
	c.ii1, c.ii2 = 2, nx0-1
	c.ji1, c.ji2 = 2, ny0-2
	c.ki1, c.ki2 = 3, nz0-1
	c.dx = [5]float64{0.75, 0.75, 0.75, 0.75, 0.75}
	c.dy = [5]float64{0.75, 0.75, 0.75, 0.75, 0.75}
	c.dz = [5]float64{1, 1, 1, 1, 1}
	c.dssp = max(c.dx[0], c.dy[0], c.dz[0]) / 4.0
	c.ce = [5][13]float64{
		{2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 5.0e-01, 2.0e-02, 1.0e-02, 3.0e-02, 5.0e-01, 4.0e-01, 3.0e-01},
		{1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0e-02, 3.0e-02, 2.0e-02, 4.0e-01, 3.0e-01, 5.0e-01},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0e-02, 3.0e-02, 5.0e-02, 3.0e-01, 5.0e-01, 4.0e-01},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 3.0e-02, 5.0e-02, 4.0e-02, 2.0e-01, 1.0e-01, 3.0e-01},
		{5.0, 4.0, 3.0, 2.0, 1.0e-01, 4.0e-01, 3.0e-01, 5.0e-02, 4.0e-02, 3.0e-02, 1.0e-01, 3.0e-01, 2.0e-01},
	}
	return c
}

// luSolver is one process's part of LU: its subdomain, the fields, the
// coefficients and the work buffers, all allocated before the time steps.
type luSolver struct {
	c *mpi.Comm
	g luGrid
	luLayout
	p  luParams
	co luCoef
	// u is the solution, rsd the residual (and the correction during the
	// sweeps), frct the forcing term.
	u, rsd, frct []float64
	// rinv is 1/ρ at every point of the state the residual was last
	// formed from (reciprocals): u's during the sweeps.
	rinv     []float64
	rhsWork  luRhsWork
	comm     luCommBufs
	jac      luJacConst
	laneTabs *luLaneTables // jac's constants for the blocks' assembly
	lanes    luLanes       // the sweeps' blocks, four points at a time
	// pointOps is luOps's operations of one SSOR step per inner grid
	// point, which the step's phases declare (luSolver.declare).
	pointOps float64
}

// newLUArrays returns a solver of grid g and parameters p with its
// arrays and constants, but without its communicator.
func newLUArrays(g luGrid, p luParams) *luSolver {
	s := &luSolver{g: g, p: p}
	s.luLayout = newLULayout(&s.g)
	s.co = newLUCoef(g.nx0, g.ny0, g.nz0)
	s.u = hugeSlice[float64](s.size)
	s.rsd = hugeSlice[float64](s.size)
	s.frct = hugeSlice[float64](s.size)
	s.rinv = make([]float64, s.size/5)
	s.rhsWork = newLURhsWork(s)
	s.jac = newLUJacConst(&s.co, p.dt, p.omega)
	s.laneTabs = newLULaneTables(&s.jac)
	return s
}

func newLUSolver(c *mpi.Comm, p luParams) (*luSolver, error) {
	g, err := luNewGrid(c.Size(), c.Rank(), p.n)
	if err != nil {
		return nil, err
	}
	s := newLUArrays(g, p)
	s.c = c
	s.comm = newLUCommBufs(&s.g)
	inner := float64(g.nx0-2) * float64(g.ny0-2) * float64(g.nz0-2)
	s.pointOps = luOps(p) / float64(p.itmax) / inner
	return s, nil
}

// The shares of luOps's count of a step that its phases declare: the
// lower and upper sweeps a plane at a time, the right-hand side, and the
// scaling and update of the correction together. They add up to 1, so
// that at one process the steps declare luOps; the split is this
// program's estimate (lu.f90 counts the whole step only).
const (
	luShareSweep  = 0.35 // each of the two sweeps
	luShareRHS    = 0.25
	luShareUpdate = 0.05
)

// declare declares share of a step's operations per inner point for
// planes k-planes of this process's inner points (mpi.Compute).
func (s *luSolver) declare(share float64, planes int) {
	g := &s.g
	pts := float64(g.iend-g.ist+1) * float64(g.jend-g.jst+1) * float64(planes)
	mpi.Compute(share * s.pointOps * pts)
}

// runLU runs LU of class on the processes of c (lu.f90's main program).
func runLU(c *mpi.Comm, class Class, o Options) (*Result, error) {
	p, ok := luClassParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: lu: class %v: %w", class, ErrUnsupported)
	}
	s, err := newLUSolver(c, p)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Result, error) { return nil, fmt.Errorf("npb: lu: %w", err) }
	st, err := s.timedSSOR(p.itmax)
	if err != nil {
		return fail(err)
	}
	errnm, err := s.errorNorm()
	if err != nil {
		return fail(err)
	}
	frc, err := s.pintgr()
	if err != nil {
		return fail(err)
	}

	res := &Result{
		Kernel:     "LU",
		Class:      class,
		Size:       fmt.Sprintf("%dx%dx%d", p.n, p.n, p.n),
		Iterations: p.itmax,
		NP:         c.Size(),
		Seconds:    st.seconds,
		Mops:       Mops(luOps(p), st.seconds),
		Operation:  "floating point",
	}
	if c.Rank() != 0 {
		return res, nil
	}
	rsdnm := st.rsdnm
	if o.Corrupt {
		rsdnm[0] *= 1 + 1e-6
	}
	var b strings.Builder
	if st.converged > 0 {
		fmt.Fprintf(&b, " convergence was achieved after %4d pseudo-time steps\n", st.converged)
	}
	res.Verified = luVerify(&b, p, rsdnm, errnm, frc)
	res.Detail = b.String()
	return res, nil
}

// timedSSOR sets up the problem, runs one untimed SSOR step to touch
// everything, sets up again and runs the itmax timed steps (lu.f90's main
// program); it returns the timed steps' norms, convergence and time.
func (s *luSolver) timedSSOR(itmax int) (ssorStats, error) {
	s.setbv()
	s.setiv()
	if err := s.erhs(); err != nil {
		return ssorStats{}, err
	}
	if _, err := s.ssor(1); err != nil {
		return ssorStats{}, err
	}
	s.setbv()
	s.setiv()
	return s.ssor(itmax)
}

// luVerify compares the norms and the surface integral with the class's
// reference values as verify.f90 does, writing its lines to b.
func luVerify(b *strings.Builder, p luParams, xcr, xce [5]float64, xci float64) bool {
	fmt.Fprintf(b, " Verification being performed for class %s\n", luClassOf(p))
	fmt.Fprintf(b, " Accuracy setting for epsilon = %s\n", fortranE(luEpsilon, 13, 20))
	ok := true
	line := func(m int, got, want float64) {
		e := math.Abs((got - want) / want)
		prefix := "         "
		if !(e <= luEpsilon) { // NaN fails
			ok = false
			prefix = " FAILURE:"
		}
		fmt.Fprintf(b, "%s %2d  %s%s%s\n", prefix, m+1, fortranE(got, 13, 20), fortranE(want, 13, 20), fortranE(e, 13, 20))
	}
	b.WriteString(" Comparison of RMS-norms of residual\n")
	for m := range 5 {
		line(m, xcr[m], p.xcr[m])
	}
	b.WriteString(" Comparison of RMS-norms of solution error\n")
	for m := range 5 {
		line(m, xce[m], p.xce[m])
	}
	b.WriteString(" Comparison of surface integral\n")
	e := math.Abs((xci - p.xci) / p.xci)
	prefix := "         "
	if !(e <= luEpsilon) {
		ok = false
		prefix = " FAILURE:"
	}
	fmt.Fprintf(b, "%s     %s%s%s\n", prefix, fortranE(xci, 13, 20), fortranE(p.xci, 13, 20), fortranE(e, 13, 20))
	if ok {
		b.WriteString(" Verification Successful\n")
	} else {
		b.WriteString(" Verification failed\n")
	}
	return ok
}

// luClassOf names the class of p's grid (set_class).
func luClassOf(p luParams) string {
	for _, c := range []Class{'S', 'W', 'A', 'B', 'C'} {
		if q, _ := luClassParams(c); q.n == p.n && q.itmax == p.itmax {
			return c.String()
		}
	}
	return "U"
}
