package nicemu

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Declared computing.
//
// By default (ComputeCPU) a virtual clock counts a process's computing as
// the CPU time of its thread between its calls into the communication
// layer, times the host speed. That measure moves with the machine: each
// interval after a wait starts with caches and TLB that other processes'
// working sets have evicted (more so with more processes per core and
// under load), and every reading of the thread's CPU time is a system
// call. Under ComputeDeclared, as SMPI's smpi_execute_flops, the thread's
// CPU time counts nothing; the program declares its computing instead, as
// a number of operations (Clock.Compute, mpi.Compute), which the clock
// charges at the job's operation rate (the modelled host's operations per
// microsecond, JobConfig.OpRate). The virtual times then depend on the
// program's declarations and the model only: no load or number of
// processes per core moves them.

// Computing modes of a job in virtual time (mpirun -compute).
const (
	// ComputeCPU counts the bound thread's CPU time times the host speed
	// (the default).
	ComputeCPU = "cpu"
	// ComputeDeclared counts only the operations the program declares
	// (Clock.Compute) at the job's operation rate.
	ComputeDeclared = "declared"
)

// Computes lists the computing modes.
func Computes() []string { return []string{ComputeCPU, ComputeDeclared} }

func computeCode(name string) (uint64, error) {
	switch name {
	case "", ComputeCPU:
		return 0, nil
	case ComputeDeclared:
		return 1, nil
	}
	return 0, fmt.Errorf("nicemu: unknown computing mode %q (want %s)", name, strings.Join(Computes(), " or "))
}

// ParseOpRate reads an operation rate for declared computing: a positive
// number of operations per microsecond (Mop/s).
func ParseOpRate(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !validOpRate(f) {
		return 0, fmt.Errorf("nicemu: operation rate %q: want a number of Mop/s above 0", s)
	}
	return f, nil
}

// validOpRate reports whether f is an operation rate: finite and above 0.
func validOpRate(f float64) bool { return f > 0 && !math.IsInf(f, 0) }

// checkCompute checks a job's computing mode and operation rate against
// its clock mode.
func checkCompute(cfg JobConfig, clock uint64) (uint64, error) {
	code, err := computeCode(cfg.Compute)
	if err != nil {
		return 0, err
	}
	switch {
	case code != 0 && clock == 0:
		return 0, fmt.Errorf("nicemu: computing %s needs virtual time (%s)", cfg.Compute, ClockVirtual)
	case code != 0 && !validOpRate(cfg.OpRate):
		return 0, fmt.Errorf("nicemu: computing %s: operation rate %v Mop/s, want above 0", cfg.Compute, cfg.OpRate)
	case code == 0 && cfg.OpRate != 0:
		return 0, fmt.Errorf("nicemu: operation rate %v Mop/s: only with computing %s", cfg.OpRate, ComputeDeclared)
	}
	return code, nil
}

// Compute returns the job's computing mode, ComputeCPU or ComputeDeclared.
func (s *Segment) Compute() string {
	if s.hdr.compute == 1 {
		return ComputeDeclared
	}
	return ComputeCPU
}

// OpRate returns the job's operation rate under ComputeDeclared, in
// operations per microsecond (0 under ComputeCPU).
func (s *Segment) OpRate() float64 { return math.Float64frombits(s.hdr.opRate) }

// declared is a clock's declared computing.
type declared struct {
	on   bool    // the job's computing is declared
	opNs float64 // ns per operation
	// total is the virtual time declared so far, ns (float64 bits), of
	// which the clock has been advanced by the whole nanoseconds.
	total atomic.Uint64
	ops   atomic.Uint64 // operations declared so far (float64 bits)
}

func newDeclared(seg *Segment) declared {
	if seg.Compute() != ComputeDeclared {
		return declared{}
	}
	return declared{on: true, opNs: 1e3 / seg.OpRate()}
}

// Declared reports whether the clock counts declared computing
// (ComputeDeclared) rather than CPU time.
func (c *Clock) Declared() bool { return c.decl.on }

// Compute declares ops operations of computing: under ComputeDeclared it
// advances the clock by ops at the job's operation rate (whole
// nanoseconds, the fractions carried over to the next call, so that many
// small declarations lose no time); under ComputeCPU it does nothing. Any goroutine may call it.
func (c *Clock) Compute(ops float64) {
	if !c.decl.on || !(ops > 0) || math.IsInf(ops, 0) {
		return
	}
	addFloat(&c.decl.ops, ops)
	old, now := addFloat(&c.decl.total, ops*c.decl.opNs)
	if d := math.Floor(now) - math.Floor(old); d > 0 {
		atomic.AddUint64(&c.w.now, uint64(d))
	}
}

// DeclaredOps returns the operations declared so far (Compute).
func (c *Clock) DeclaredOps() float64 { return math.Float64frombits(c.decl.ops.Load()) }

// addFloat adds d to the float64 in u and returns its old and new values.
func addFloat(u *atomic.Uint64, d float64) (old, now float64) {
	for {
		o := u.Load()
		old = math.Float64frombits(o)
		now = old + d
		if u.CompareAndSwap(o, math.Float64bits(now)) {
			return old, now
		}
	}
}
