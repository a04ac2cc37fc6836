package npb

// What BT and SP share around the time steps: a class's parameters, the
// timed loop and the verification of the result (NPB3.4-MPI BT/bt.f90's
// main program after the setup, BT/verify.f90 and print_results; SP's
// are the same).

import (
	"fmt"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

// adiParams are a class's parameters (setparams' write_bt_info or
// write_sp_info) and its reference norms (verify.f90).
type adiParams struct {
	n     int // grid points per axis
	niter int
	dt    float64
	ref   adiReference
}

// adiDrain completes the sends that a benchmark's steps leave in flight:
// the face exchange's and the line solves'.
func adiDrain(f *adiFaces, p *adiPipe) error {
	if err := f.drain(); err != nil {
		return err
	}
	return p.drain()
}

// adiTimedSteps runs one untimed step, reinitialises, and times niter
// steps and the completion of the sends they leave in flight (drain); it
// returns the largest time over the processes (on rank 0).
func adiTimedSteps(c *mpi.Comm, niter int, step, drain func() error, reinit func()) (float64, error) {
	if err := step(); err != nil {
		return 0, err
	}
	if err := drain(); err != nil {
		return 0, err
	}
	reinit()
	if err := mpi.Barrier(c); err != nil {
		return 0, err
	}
	start := mpi.Wtime() // NPB times with MPI_Wtime: virtual time under -clock virtual
	for range niter {
		if err := step(); err != nil {
			return 0, err
		}
	}
	if err := drain(); err != nil {
		return 0, err
	}
	t := []float64{mpi.Wtime() - start}
	tmax := []float64{0}
	if err := mpi.Reduce(c, t, tmax, mpi.Max, 0); err != nil {
		return 0, err
	}
	return tmax[0], nil
}

// adiResult computes the norms of the final state, with the right-hand
// side recomputed by rhs (its sends then completed by drain), verifies them and returns the result (verify
// and print_results).
func adiResult(c *mpi.Comm, name string, class Class, p adiParams, secs, ops float64, o Options, g *adiGrid, k *adiConsts, rhs, drain func() error) (*Result, error) {
	lower := strings.ToLower(name)
	xce, err := adiErrorNorm(c, g, k)
	if err != nil {
		return nil, fmt.Errorf("npb: %s: %w", lower, err)
	}
	if err := rhs(); err != nil {
		return nil, fmt.Errorf("npb: %s: %w", lower, err)
	}
	if err := drain(); err != nil {
		return nil, fmt.Errorf("npb: %s: %w", lower, err)
	}
	xcr, err := adiRHSNorm(c, g)
	if err != nil {
		return nil, fmt.Errorf("npb: %s: %w", lower, err)
	}
	for m := range xcr {
		xcr[m] /= p.dt
	}
	res := &Result{
		Kernel:     name,
		Class:      class,
		Size:       fmt.Sprintf("%dx%dx%d", p.n, p.n, p.n),
		Iterations: p.niter,
		NP:         c.Size(),
		Seconds:    secs,
		Mops:       Mops(ops, secs),
		Operation:  "floating point",
	}
	if c.Rank() != 0 {
		return res, nil
	}
	if o.Corrupt {
		xcr[0] *= 1 + 1e-6
	}
	var b strings.Builder
	res.Verified = adiVerify(&b, class, xcr, xce, p.ref)
	res.Detail = b.String()
	return res, nil
}
