// Package mpi is the MPI programming interface of the runtime: processes
// started by mpirun (or alone, as a job of one) call Init, communicate
// through communicators, and call Finalize.
//
//	if err := mpi.Init(); err != nil { log.Fatal(err) }
//	defer mpi.Finalize()
//	world := mpi.World()
//	if world.Rank() == 0 {
//		err = mpi.Send(world, []float64{1, 2, 3}, 1, 7)
//	} else if world.Rank() == 1 {
//		buf := make([]float64, 3)
//		st, err := mpi.Recv(world, buf, 0, 7)
//	}
//
// Point-to-point calls are generic functions over slices of any Go numeric
// type (Send, Recv, Isend, Irecv, Sendrecv); Request, Waitall, Waitany,
// Testall and Testany complete nonblocking ones; Probe and Iprobe look at
// pending messages. MPI semantics hold: messages between a pair of
// processes with the same tag and communicator do not overtake each other;
// a receive buffer too small for its message is an error (ErrTruncate);
// invalid ranks and tags are errors, never hangs.
//
// Messages up to the eager limit (DefaultEagerLimit, or mpirun
// -eager-limit) are copied through per-sender rings in the shared segment;
// larger ones use rendezvous, the receiver reading the sender's buffer in a
// single copy (or, with mpirun -rndv push, the sender writing the
// receiver's). ReadStats exposes the per-protocol counters.
//
// All functions are safe for concurrent use by many goroutines.
package mpi
