package npb

// SP: the scalar-pentadiagonal pseudo-application of NPB 3.4 (MPI
// version, SP/sp.f90, adi.f90, verify.f90 and the files named in the
// adi_*.go and sp_*.go files). It solves the same discretised
// Navier–Stokes problem as BT, but each factor of the approximate
// factorisation is diagonalised: every time step (adi) exchanges the
// faces and computes the right-hand side, moves it into the x
// characteristic variables (txinvr), solves three scalar pentadiagonal
// systems along every x line, moves to the y variables (ninvr), solves
// along y, moves to the z variables (pinvr), solves along z, returns to
// the conserved variables (tzetar) and adds the update.
//
// The decomposition, problem setup, right-hand side, face exchange and
// norms are BT's (adi_*.go); the pipelined line solves are in
// sp_solve.go, the changes of variables in sp_invr.go.

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "SP", Run: runSP, Procs: Square, ProcsRule: "a square number of processes", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

// spClassParams returns SP's parameters of class.
func spClassParams(class Class) (adiParams, bool) {
	switch class {
	case 'S':
		return adiParams{n: 12, niter: 100, dt: 0.015, ref: adiReference{
			xcr: [5]float64{2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02, 1.5840557224455615e-02, 3.4849040609362460e-02},
			xce: [5]float64{2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05, 1.5750704994480102e-05, 3.4177666183390531e-05},
		}}, true
	case 'W':
		return adiParams{n: 36, niter: 400, dt: 0.0015, ref: adiReference{
			xcr: [5]float64{0.1893253733584e-02, 0.1717075447775e-03, 0.2778153350936e-03, 0.2887475409984e-03, 0.3143611161242e-02},
			xce: [5]float64{0.7542088599534e-04, 0.6512852253086e-05, 0.1049092285688e-04, 0.1128838671535e-04, 0.1212845639773e-03},
		}}, true
	case 'A':
		return adiParams{n: 64, niter: 400, dt: 0.0015, ref: adiReference{
			xcr: [5]float64{2.4799822399300195, 1.1276337964368832, 1.5028977888770491, 1.4217816211695179, 2.1292113035138280},
			xce: [5]float64{1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05, 4.7671093939528255e-05, 1.3621613399213001e-04},
		}}, true
	case 'B':
		return adiParams{n: 102, niter: 400, dt: 0.001, ref: adiReference{
			xcr: [5]float64{0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02, 0.3864769009604e+02, 0.5643482272596e+02},
			xce: [5]float64{0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02, 0.1694479428231e-02, 0.1847456263981e-01},
		}}, true
	case 'C':
		return adiParams{n: 162, niter: 400, dt: 0.00067, ref: adiReference{
			xcr: [5]float64{0.5881691581829e+03, 0.2454417603569e+03, 0.3293829191851e+03, 0.3081924971891e+03, 0.4597223799176e+03},
			xce: [5]float64{0.2598120500183e+00, 0.2590888922315e-01, 0.5132886416320e-01, 0.4806073419454e-01, 0.5483377491301e+00},
		}}, true
	}
	return adiParams{}, false
}

// spOps is SP's operation count of a run (sp.f90); its steps declare it
// (adiOps, with SP's shares).
func spOps(p adiParams) float64 {
	n3 := float64(p.n) * float64(p.n) * float64(p.n)
	t := float64(p.n)
	return float64(p.niter) * (881.174*n3 - 4683.91*t*t + 11484.5*t - 19272.4)
}

// spGhost is the value of u's points outside the cells (SP's
// initialize.f90): density and energy 1, no momentum.
var spGhost = [5]float64{1, 0, 0, 0, 1}

// spState is one process's part of an SP run.
type spState struct {
	comm   *mpi.Comm
	g      *adiGrid
	k      *adiConsts
	faces  *adiFaces
	solver *spSolver
	// The changes of variables after each sweep (after the z sweep
	// with the update of u).
	after [3]func(c *adiCell)
	// txinvr is the change of variables before the x sweep, on a row.
	txinvr adiRowFunc
}

// spNewState sets up process me of np's part of a run over comm
// (which may be nil for a single process).
func spNewState(comm *mpi.Comm, np, me int, p adiParams) (*spState, error) {
	gp := [3]int{p.n, p.n, p.n}
	g, err := adiNewGrid(gp, np, me, true)
	if err != nil {
		return nil, err
	}
	k := adiNewConsts(gp, p.dt)
	s := &spState{comm: comm, g: g, k: k, faces: adiNewFaces(g), solver: spNewSolver(comm, g, k)}
	s.solver.pointOps = adiPointOps(spOps(p), p)
	ops := s.solver.pointOps
	s.after = [3]func(c *adiCell){
		func(c *adiCell) {
			spNinvr(c, k.bt)
			ops.declare(spShareNinvr, c.points())
		},
		func(c *adiCell) {
			spPinvr(c, k.bt)
			ops.declare(spSharePinvr, c.points())
		},
		func(c *adiCell) {
			// The cell's solution is complete: it updates u at once
			// (the update is declared after the sweep, where NPB's add
			// runs, so that virtual time does not move).
			spTzetarAdd(c, k)
			ops.declare(spShareTzetar, c.points())
		},
	}
	s.txinvr = spTxinvrThen(k)
	adiInitialize(g, k, spGhost)
	adiExactRHS(g, k)
	return s, nil
}

// rhs exchanges the faces and computes the right-hand side (copy_faces).
func (s *spState) rhs() error { return s.rhsThen(nil) }

// rhsThen is rhs, with then run on each row once its right-hand side is
// complete (adiRHS).
func (s *spState) rhsThen(then adiRowFunc) error {
	if err := s.faces.exchange(s.comm, s.g); err != nil {
		return fmt.Errorf("sp: %w", err)
	}
	adiRHS(s.g, s.k, then)
	s.solver.pointOps.declareCells(s.g, spShareRHS)
	return nil
}

// drain completes the sends that the steps leave in flight.
func (s *spState) drain() error { return adiDrain(s.faces, &s.solver.adiPipe) }

// step is one time step (adi): txinvr runs on each row of the right-hand
// side as it is completed, and the update of u (add) with tzetar on each
// cell once the z sweep has solved it.
func (s *spState) step() error {
	if err := s.rhsThen(s.txinvr); err != nil {
		return err
	}
	s.solver.pointOps.declareCells(s.g, spShareTxinvr)
	for d := range 3 {
		if err := s.solver.solve(d, s.after[d]); err != nil {
			return err
		}
	}
	s.solver.pointOps.declareCells(s.g, spShareAdd)
	return nil
}

// The shares of spOps's count of a step that its phases declare
// (mpi.Compute): the right-hand side, the change to the x variables, on
// each axis the forward elimination (with the filling of the
// pentadiagonal rows) and the back-substitution of every cell, the
// changes of variables after the x, y and z solves, and the update. They
// add up to 1 (three axes), so that at one process the steps declare
// spOps; the split is this program's estimate from the operations of
// the loops (sp.f90 counts the whole step only).
const (
	spShareRHS      = 0.40
	spShareTxinvr   = 0.04
	spShareForward  = 0.13
	spShareBackward = 0.03
	spShareNinvr    = 0.015
	spSharePinvr    = 0.015
	spShareTzetar   = 0.045
	spShareAdd      = 0.005
)

// runSP runs SP of class on the processes of c (sp.f90's main program).
func runSP(c *mpi.Comm, class Class, o Options) (*Result, error) {
	p, ok := spClassParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: sp: class %v: %w", class, ErrUnsupported)
	}
	if !Square(c.Size()) {
		return nil, fmt.Errorf("npb: sp: %d processes: %w (want a square number)", c.Size(), ErrUnsupported)
	}
	s, err := spNewState(c, c.Size(), c.Rank(), p)
	if err != nil {
		return nil, fmt.Errorf("npb: sp: %w", err)
	}
	secs, err := adiTimedSteps(c, p.niter, s.step, s.drain, func() { adiInitialize(s.g, s.k, spGhost) })
	if err != nil {
		return nil, fmt.Errorf("npb: %w", err)
	}
	return adiResult(c, "SP", class, p, secs, spOps(p), o, s.g, s.k, s.rhs, s.drain)
}
