package npb

// BT: the block-tridiagonal pseudo-application of NPB 3.4 (MPI version,
// BT/bt.f90, adi.f90, verify.f90 and the files named in the adi_*.go and
// bt_*.go files). It integrates the three-dimensional compressible
// Navier–Stokes equations, with a forcing term that makes a known smooth
// function their steady state, by an implicit approximate factorisation:
// every time step (adi) exchanges the cells' faces, computes the
// right-hand side, solves block-tridiagonal systems of 5×5 blocks along
// every line in x, then y, then z, and adds the update to the solution.
// After niter steps the RMS norms of the residual and of the error against
// the exact solution are compared with NPB's reference values.
//
// The grid is split by the multi-partition scheme of adi_cells.go (np a
// square); the line solves are pipelined across cells (bt_solve.go), with
// the 5×5 block algebra in bt_block.go. The problem setup, right-hand
// side, face exchange and norms, shared with SP, are in the adi_*.go
// files.

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "BT", Run: runBT, Procs: Square, ProcsRule: "a square number of processes", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

// btClassParams returns BT's parameters of class.
func btClassParams(class Class) (adiParams, bool) {
	switch class {
	case 'S':
		return adiParams{n: 12, niter: 60, dt: 0.010, ref: adiReference{
			xcr: [5]float64{1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02, 2.6436421275166801e-02, 1.9211784131744430e-01},
			xce: [5]float64{4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05, 7.3821238632439731e-05, 8.9269630987491446e-04},
		}}, true
	case 'W':
		return adiParams{n: 24, niter: 200, dt: 0.0008, ref: adiReference{
			xcr: [5]float64{0.1125590409344e+03, 0.1180007595731e+02, 0.2710329767846e+02, 0.2469174937669e+02, 0.2638427874317e+03},
			xce: [5]float64{0.4419655736008e+01, 0.4638531260002e+00, 0.1011551749967e+01, 0.9235878729944e+00, 0.1018045837718e+02},
		}}, true
	case 'A':
		return adiParams{n: 64, niter: 200, dt: 0.0008, ref: adiReference{
			xcr: [5]float64{1.0806346714637264e+02, 1.1319730901220813e+01, 2.5974354511582465e+01, 2.3665622544678910e+01, 2.5278963211748344e+02},
			xce: [5]float64{4.2348416040525025e+00, 4.4390282496995698e-01, 9.6692480136345650e-01, 8.8302063039765474e-01, 9.7379901770829278e+00},
		}}, true
	case 'B':
		return adiParams{n: 102, niter: 200, dt: 0.0003, ref: adiReference{
			xcr: [5]float64{1.4233597229287254e+03, 9.9330522590150238e+01, 3.5646025644535285e+02, 3.2485447959084092e+02, 3.2707541254659363e+03},
			xce: [5]float64{5.2969847140936856e+01, 4.4632896115670668e+00, 1.3122573342210174e+01, 1.2006925323559144e+01, 1.2459576151035986e+02},
		}}, true
	case 'C':
		return adiParams{n: 162, niter: 200, dt: 0.0001, ref: adiReference{
			xcr: [5]float64{0.62398116551764615e+04, 0.50793239190423964e+03, 0.15423530093013596e+04, 0.13302387929291190e+04, 0.11604087428436455e+05},
			xce: [5]float64{0.16462008369091265e+03, 0.11497107903824313e+02, 0.41207446207461508e+02, 0.37087651059694167e+02, 0.36211053051841265e+03},
		}}, true
	}
	return adiParams{}, false
}

// btOps is BT's operation count of a run (bt.f90); its steps declare it
// (adiOps, with BT's shares).
func btOps(p adiParams) float64 {
	n3 := float64(p.n) * float64(p.n) * float64(p.n)
	navg := float64(p.n)
	return float64(p.niter) * (3478.8*n3 - 17655.7*navg*navg + 28023.7*navg)
}

// btState is one process's part of a BT run.
type btState struct {
	comm   *mpi.Comm
	g      *adiGrid
	k      *adiConsts
	faces  *adiFaces
	solver *btSolver
}

// btGhost is the value of u's points outside the cells (initialize.f90).
var btGhost = [5]float64{1, 1, 1, 1, 1}

// btNewState sets up process me of np's part of a run over comm
// (which may be nil for a single process).
func btNewState(comm *mpi.Comm, np, me int, p adiParams) (*btState, error) {
	gp := [3]int{p.n, p.n, p.n}
	g, err := adiNewGrid(gp, np, me, false)
	if err != nil {
		return nil, err
	}
	k := adiNewConsts(gp, p.dt)
	s := &btState{comm: comm, g: g, k: k, faces: adiNewFaces(g), solver: btNewSolver(comm, g, k)}
	s.solver.pointOps = adiPointOps(btOps(p), p)
	adiInitialize(g, k, btGhost)
	adiExactRHS(g, k)
	return s, nil
}

// rhs exchanges the faces and computes the right-hand side (copy_faces).
func (s *btState) rhs() error {
	if err := s.faces.exchange(s.comm, s.g); err != nil {
		return fmt.Errorf("bt: %w", err)
	}
	adiRHS(s.g, s.k, nil)
	s.solver.pointOps.declareCells(s.g, btShareRHS)
	return nil
}

// drain completes the sends that the steps leave in flight.
func (s *btState) drain() error { return adiDrain(s.faces, &s.solver.adiPipe) }

// step is one time step (adi).
func (s *btState) step() error {
	if err := s.rhs(); err != nil {
		return err
	}
	for d := range 3 {
		if err := s.solver.solve(d); err != nil {
			return err
		}
	}
	adiAdd(s.g)
	s.solver.pointOps.declareCells(s.g, btShareAdd)
	return nil
}

// The shares of btOps's count of a step that its phases declare
// (mpi.Compute): the right-hand side, on each axis the forward
// elimination and the back-substitution of every cell, and the update.
// They add up to 1 (three axes), so that at one process the steps declare
// btOps; the split is this program's estimate (bt.f90 counts the whole
// step only).
const (
	btShareRHS      = 0.25
	btShareForward  = 0.18
	btShareBackward = 0.06
	btShareAdd      = 0.03
)

// runBT runs BT of class on the processes of c (bt.f90's main program):
// one untimed step to touch all code and data, the reinitialisation, the
// timed niter steps, and the verification.
func runBT(c *mpi.Comm, class Class, o Options) (*Result, error) {
	p, ok := btClassParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: bt: class %v: %w", class, ErrUnsupported)
	}
	if !Square(c.Size()) {
		return nil, fmt.Errorf("npb: bt: %d processes: %w (want a square number)", c.Size(), ErrUnsupported)
	}
	s, err := btNewState(c, c.Size(), c.Rank(), p)
	if err != nil {
		return nil, fmt.Errorf("npb: bt: %w", err)
	}
	secs, err := adiTimedSteps(c, p.niter, s.step, s.drain, func() { adiInitialize(s.g, s.k, btGhost) })
	if err != nil {
		return nil, fmt.Errorf("npb: %w", err)
	}
	return adiResult(c, "BT", class, p, secs, btOps(p), o, s.g, s.k, s.rhs, s.drain)
}
