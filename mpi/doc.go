// Package mpi is the MPI programming interface of the runtime: processes
// started by mpirun (or alone, as a job of one) call Init, communicate
// through communicators, and call Finalize. Package mpi imports no
// network: a program registers the networks it runs over with a blank
// import, as database/sql drivers are (package llc/network), usually of
// them all, and Init fails, naming that import, when it finds none:
//
//	import (
//		"github.com/rhinet-go/martini/mpi"
//		_ "github.com/rhinet-go/martini/networks"
//	)
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
// type (Send, Recv, Isend, Irecv, Sendrecv, SendrecvReplace); the send
// modes Ssend, Rsend and Bsend (with BufferAttach and BufferDetach) have
// I-forms too. Request, Waitall, Waitany, Waitsome and their Test forms
// complete nonblocking ones; Request.Cancel cancels one that has not
// matched (a receive) or left (a send), and Request.Free lets one complete
// unobserved. SendInit, SsendInit, RsendInit, BsendInit and RecvInit make
// persistent requests, which Start and Startall start again and again.
// Probe and Iprobe look at pending messages; Mprobe and Improbe take one
// out of the matching, for Mrecv or Imrecv to receive. MPI semantics hold:
// messages between a pair of processes with the same tag and communicator
// do not overtake each other; a receive buffer too small for its message is
// an error (ErrTruncate); invalid ranks and tags are errors, never hangs.
//
// Messages up to the eager limit (package tuning's, from the network's
// facts and the host's class: 64 KiB on martini, 32 KiB under its timing
// profile; or mpirun -eager-limit) are
// copied through per-sender rings in the shared segment; larger ones use
// rendezvous: by default both processes copy half (split), or the receiver
// reads the sender's buffer in a single copy (mpirun -rndv pull), or the
// sender writes the receiver's (-rndv push). ReadStats exposes the
// per-protocol counters and the network's own.
//
// Derived datatypes (Datatype: Contiguous, Vector, Indexed, IndexedBlock,
// Subarray, Darray, Resized) describe strided or scattered elements of a buffer;
// SendType, RecvType, IsendType and IrecvType send and receive them, Pack
// and Unpack copy them, and StructBytes lets slices of structs of numeric
// fields travel as bytes. Dup, TrueLowerBound and TrueExtent describe
// them further. BcastType, GatherType, ScatterType, AllgatherType and
// AlltoallType (and their I-forms) are the collectives with a derived
// datatype on each side; Alltoallw and NeighborAlltoallw take a datatype
// per peer.
//
// Collective operations are generic functions too: Bcast, Reduce,
// Allreduce, Gather(v), Scatter(v), Allgather(v), Alltoall(v),
// ReduceScatter(Block), Scan, Exscan and Comm.Barrier, with the
// predefined operations (Sum, Prod, Min, Max, the logical and bitwise
// ones, MinLoc and MaxLoc on value/index pairs) or one made by NewOp. A
// nil send buffer means MPI_IN_PLACE; ReduceLocal applies an operation in
// one process. Each of them has a nonblocking form (Ibarrier, Ibcast,
// Ireduce, Iallreduce, Igather(v), Iscatter(v), Iallgather(v),
// Ialltoall(v), IreduceScatter(Block), Iscan, Iexscan), which progresses
// in a goroutine of its own and completes through the same Request as
// point-to-point.
//
//	sum := make([]float64, 1)
//	err := mpi.Allreduce(world, []float64{x}, sum, mpi.Sum)
//
// Before moving data, the processes of a collective compare their
// arguments (mpirun -no-coll-check turns this off): counts, roots,
// operations or collectives that differ make every process return an
// error wrapping ErrMismatch instead of hanging. The algorithm is chosen
// by message and communicator size (package collectives; mpirun -coll
// forces one). Barriers, small reductions and broadcasts use the emulated
// NIC's synchronisation network (a barrier controller carrying a small
// payload from every process) and its multicast, unless mpirun
// -no-offload; ReadStats shows which algorithms ran.
//
// Communicators: Dup, Idup, Split, SplitType (by host) and Create and
// CreateGroup (from a Group) make new ones, each with a context of its
// own, so that their traffic never mixes with another's; Free releases
// them; Compare, SetName and Name describe them. IntercommCreate joins two
// disjoint groups in an intercommunicator (IsInter, RemoteSize,
// RemoteGroup), whose point-to-point ranks name the remote group and
// whose collectives move data between the groups (the rooted ones with
// Root and ProcNull in the root's group; Scan, Exscan and the typed
// collectives return ErrInter on it); Dup, Idup, Split and Create make
// intercommunicators of it, and IntercommMerge an intracommunicator.
//
// Virtual topologies: CartCreate (with DimsCreate) gives a communicator a
// Cartesian grid, which CartCoords, CartRank, CartShift, CartSub, CartGet
// and Cartdim query (CartMap and GraphMap tell the rank a process would
// get); GraphCreate a graph, DistGraphCreate and
// DistGraphCreateAdjacent a distributed graph; TopoTest tells which. The
// neighbourhood collectives (NeighborAllgather(v), NeighborAlltoall(v,w)
// and their nonblocking forms) exchange blocks with the neighbours of
// any of them.
//
// The environment: InitThread and QueryThread report ThreadMultiple,
// GetProcessorName the host, GetVersion the MPI version followed (3.1),
// and ErrorClass and ErrorString the MPI error class of an error.
//
// All functions are safe for concurrent use by many goroutines, except
// that, as in MPI, the collectives of one communicator must be called in
// the same order by all its processes and not concurrently within one.
package mpi
