// Package mpi is the MPI programming interface of the runtime: processes
// started by mpirun (or alone, as a job of one) call [Init], communicate
// through communicators ([World] and those made from it), and call
// [Finalize]. Package mpi imports no network: a program registers the
// networks it runs over with a blank import, as database/sql drivers are
// (package llc/network), usually of them all, and Init fails, naming that
// import, when it finds none:
//
//	import (
//		"github.com/rhinet-go/martini/mpi"
//		_ "github.com/rhinet-go/martini/networks"
//	)
//
// The package's examples are whole programs, each run by go test as a job
// of 2 to 4 processes. Every MPI call is a function or a method named
// after it: MPI_Allreduce is [Allreduce], MPI_Comm_split is [Comm.Split].
//
// # The calls by group
//
// go doc files the functions that return a type under that type; this
// list names them all.
//
//   - Environment: [Init], [InitThread], [QueryThread], [Initialized],
//     [Finalize], [Finalized], [World], [Comm.Abort], [GetProcessorName],
//     [GetVersion], [ErrorClass], [ErrorString], [Wtime], [Wtick],
//     [ReadStats], [Compute].
//   - Point-to-point, blocking: [Send], [Ssend], [Rsend], [Bsend] (with
//     [BufferAttach] and [BufferDetach]), [Recv], [Sendrecv],
//     [SendrecvReplace], [Comm.Probe], [Comm.Mprobe], [Mrecv],
//     [GetCount], [GetElements].
//   - Point-to-point, nonblocking: [Isend], [Issend], [Irsend], [Ibsend],
//     [Irecv], [Isendrecv], [IsendrecvReplace], [Comm.Iprobe],
//     [Comm.Improbe], [Imrecv]; persistent:
//     [SendInit], [SsendInit], [RsendInit], [BsendInit], [RecvInit],
//     [Request.Start], [Startall].
//   - Completion: [Request.Wait], [Request.Test], [Waitall],
//     [WaitallInto], [Waitany], [Waitsome], [Testall], [Testany],
//     [Testsome], [Request.Cancel], [Request.Free]; [Request.Release]
//     gives a completed request back for reuse; [GeneralizedRequest]
//     completes when the program says.
//   - Collectives: [Barrier], [Bcast], [Reduce], [Allreduce], [Gather],
//     [Gatherv], [Scatter], [Scatterv], [Allgather], [Allgatherv],
//     [Alltoall], [Alltoallv], [Alltoallw], [ReduceScatter],
//     [ReduceScatterBlock], [Scan], [Exscan], [ReduceLocal], [NewOp],
//     [NewItemOp].
//   - Nonblocking collectives: [Ibarrier], [Ibcast], [Ireduce],
//     [Iallreduce], [Igather], [Igatherv], [Iscatter], [Iscatterv],
//     [Iallgather], [Iallgatherv], [Ialltoall], [Ialltoallv],
//     [Ialltoallw], [IreduceScatter], [IreduceScatterBlock], [Iscan],
//     [Iexscan]; persistent (MPI-4.0's MPI_Bcast_init ...):
//     [PersistentCollective].
//   - Derived datatypes: [Contiguous], [Vector], [Indexed],
//     [IndexedBlock], [Struct], [Subarray], [Darray], [Datatype.Resized], [Pack],
//     [Unpack], [PackSize], [StructBytes], [SendType], [RecvType],
//     [IsendType], [IrecvType]; collectives with a datatype a side:
//     [BcastType], [GatherType], [GathervType], [ScatterType],
//     [ScattervType], [AllgatherType], [AllgathervType], [AlltoallType],
//     [AlltoallvType] and their I-forms [IbcastType], [IgatherType],
//     [IgathervType], [IscatterType], [IscattervType],
//     [IallgatherType], [IallgathervType], [IalltoallType],
//     [IalltoallvType].
//   - Communicators and groups: [Comm.Dup], [Comm.Idup], [Comm.Split],
//     [Comm.SplitType], [Comm.Create], [Comm.CreateGroup], [Comm.Free],
//     [Comm.Compare], [Comm.Group], [Group] operations,
//     [Comm.IntercommCreate], [Comm.IntercommMerge].
//   - Topologies: [DimsCreate], [Comm.CartCreate], [Comm.CartShift],
//     [Comm.CartCoords], [Comm.CartRank], [Comm.CartSub],
//     [Comm.GraphCreate], [Comm.DistGraphCreate],
//     [Comm.DistGraphCreateAdjacent], [Comm.TopoTest]; neighbourhood
//     collectives: [NeighborAllgather], [NeighborAllgatherv],
//     [NeighborAlltoall], [NeighborAlltoallv], [NeighborAlltoallw],
//     [IneighborAllgather], [IneighborAllgatherv], [IneighborAlltoall],
//     [IneighborAlltoallv], [IneighborAlltoallw].
//   - One-sided: [WinCreate], [WinAllocate], [WinAllocateShared],
//     [SharedQuery], [WinCreateDynamic] with [Attach], [Detach] and
//     [Address], [Put], [Get], [Accumulate], [GetAccumulate],
//     [FetchAndOp], [CompareAndSwap], [Rput], [Rget], [Raccumulate],
//     [RgetAccumulate]; synchronisation: [Win.Fence], [Win.Lock],
//     [Win.LockAll], [Win.Flush], [Win.Post], [Win.Start],
//     [Win.Complete], [Win.Wait].
//
// # Point-to-point
//
// Point-to-point calls are generic functions over slices of any Go numeric
// type. Request, Waitall, Waitany, Waitsome and their Test forms complete
// nonblocking ones; Request.Cancel cancels one that has not matched (a
// receive) or left (a send), and Request.Free lets one complete
// unobserved. Persistent requests are started again and again. Probe and
// Iprobe look at pending messages; Mprobe and Improbe take one out of the
// matching, for Mrecv or Imrecv to receive. MPI semantics hold: messages
// between a pair of processes with the same tag and communicator do not
// overtake each other; a receive buffer too small for its message is an
// error ([ErrTruncate]); invalid ranks and tags are errors, never hangs.
//
// Messages up to the eager limit (package tuning's, from the network's
// facts and the host's class: 64 KiB on martini, 32 KiB under its timing
// profile; or mpirun -eager-limit) are copied through per-sender rings in
// the shared segment; larger ones use rendezvous: by default both
// processes copy half (split), or the receiver reads the sender's buffer
// in a single copy (mpirun -rndv pull), or the sender writes the
// receiver's (-rndv push). ReadStats exposes the per-protocol counters
// and the network's own.
//
// # Derived datatypes
//
// A [Datatype] describes strided or scattered elements of a buffer, in
// elements of the buffer's own type; StructBytes lets slices of structs of
// numeric fields travel as bytes. Alltoallw and NeighborAlltoallw take a
// datatype per peer.
//
// # Collectives
//
// Collective operations are functions of the communicator, generic over
// the element type as point-to-point is; Barrier and Ibarrier are
// functions too, so that every collective reads the same (the methods
// Comm.Barrier and Comm.Ibarrier are deprecated aliases). The predefined
// operations are [Sum], [Prod], [Min], [Max], the logical and bitwise
// ones, and [MinLoc] and [MaxLoc] on value/index pairs; NewOp makes
// others. A nil send buffer means MPI_IN_PLACE. Each collective has a
// nonblocking form, which runs on the goroutine of a Wait that comes for
// it, or progresses on a worker goroutine while the caller computes (from
// its start, or, for the commonest ones on a communicator with the NIC's
// barrier and a core for each process, which run as the blocking calls
// do and in call order, from a Test or some 50 µs on), and completes
// through the same Request as point-to-point.
//
// Before moving data, the processes of a collective compare their
// arguments (mpirun -no-coll-check turns this off): counts, roots,
// operations or collectives that differ make every process return an
// error wrapping [ErrMismatch] instead of hanging. The algorithm is chosen
// by message and communicator size (package collectives; mpirun -coll
// forces one). Barriers, small reductions and broadcasts use the emulated
// NIC's synchronisation network (a barrier controller carrying a small
// payload from every process) and its multicast, unless mpirun
// -no-offload; ReadStats shows which algorithms ran.
//
// # Communicators
//
// Dup, Idup, Split, SplitType (by host), Create and CreateGroup (from a
// [Group]) make new communicators, each with a context of its own, so
// that their traffic never mixes with another's; Free releases them;
// Compare, SetName and Name describe them. IntercommCreate joins two
// disjoint groups in an intercommunicator (IsInter, RemoteSize,
// RemoteGroup), whose point-to-point ranks name the remote group and
// whose collectives move data between the groups (the rooted ones with
// [Root] and [ProcNull] in the root's group; Scan, Exscan and the typed
// collectives return [ErrInter] on it); Dup, Idup, Split and Create make
// intercommunicators of it, and IntercommMerge an intracommunicator.
//
// Virtual topologies: CartCreate (with DimsCreate) gives a communicator a
// Cartesian grid, which CartCoords, CartRank, CartShift, CartSub, CartGet
// and Cartdim query (CartMap and GraphMap tell the rank a process would
// get); GraphCreate a graph, DistGraphCreate and DistGraphCreateAdjacent
// a distributed graph; TopoTest tells which. The neighbourhood
// collectives exchange blocks with the neighbours of any of them.
//
// # Concurrency
//
// InitThread and QueryThread report [ThreadMultiple]: all functions are
// safe for concurrent use by many goroutines, except that, as in MPI, the
// collectives of one communicator must be called in the same order by all
// its processes and not concurrently within one.
//
// # Memory and the garbage collector
//
// Every nonblocking call allocates its Request. So that such calls start
// collections rarely, Init raises the collector's heap goal by 32 MiB (a
// block that is never written, which costs no memory), and has the
// kernel map up to as much of the heap's free pages, which the Requests
// of the first collection cycle take instead of faulting pages in one by
// one on the message path: a process's resident memory starts about 32
// MiB higher. The mapping takes at most 1/64 of the host's memory among
// the host's processes, and none where they outnumber its CPUs. A
// program that sets GOGC or GOMEMLIMIT tunes the collector itself and
// gets neither. [Request.Release] gives a completed Request back for
// reuse.
package mpi
