package mpi

// Compute declares ops operations of computing that the calling process
// has just done (or is about to do), for a job whose virtual time counts
// declared computing (mpirun -clock virtual -compute declared -op-rate R):
// the process's virtual clock, and so Wtime, advances by ops at R
// operations per microsecond, as SMPI's smpi_execute_flops. In any other
// job, and before Init or after Finalize, it costs nothing and changes
// nothing; under -compute declared the process's CPU time counts nothing,
// so a program that declares no computing computes in no time.
func Compute(ops float64) {
	s := current.Load()
	if s == nil {
		return
	}
	if c, ok := s.ep.Clock().(declaringClock); ok {
		c.Compute(ops)
	}
}

// declaringClock is a virtual clock that counts declared computing
// (nicemu.Clock).
type declaringClock interface{ Compute(ops float64) }
