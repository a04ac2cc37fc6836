package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// Op is a reduction operation: one of the predefined ones or one made by
// NewOp.
type Op = collectives.Op

// The predefined reduction operations. Sum and Prod apply to every
// element type; Min and Max to integers and floats; LAnd, LOr, LXor (non-
// zero is true, results are 0 or 1), BAnd, BOr and BXor to integers.
// MinLoc and MaxLoc take pairs of elements (value, index), as MPI_2INT and
// MPI_2DOUBLE_PRECISION do: the buffer holds value0, index0, value1,
// index1, …, and the result is the extreme value with the smallest index
// holding it. Using an operation on a type it is not defined for is an
// error wrapping ErrOp.
var (
	Sum    = collectives.Sum
	Prod   = collectives.Prod
	Min    = collectives.Min
	Max    = collectives.Max
	LAnd   = collectives.LAnd
	LOr    = collectives.LOr
	LXor   = collectives.LXor
	BAnd   = collectives.BAnd
	BOr    = collectives.BOr
	BXor   = collectives.BXor
	MinLoc = collectives.MinLoc
	MaxLoc = collectives.MaxLoc
)

// NewOp makes a reduction operation on elements of type T from f, which
// must set inout[i] to in[i] ∘ inout[i]. The operation must be
// associative; if it is not commutative, the result is the combination in
// rank order, a0 ∘ a1 ∘ … ∘ an-1, in holding the lower ranks' operand.
func NewOp[T Type](name string, f func(in, inout []T), commutative bool) Op {
	return collectives.NewOp(name, f, commutative)
}

// NewItemOp makes a reduction operation on items of size bytes, for
// reductions of []byte buffers of whole items (records, structs, packed
// data of any length): f must combine every item of in with the same item
// of inout, at multiples of size. Collectives split buffers only between
// items. An operation that is not commutative combines in rank order, as
// NewOp's does.
func NewItemOp(name string, size int, f func(in, inout []byte), commutative bool) Op {
	return collectives.NewItemOp(name, size, f, commutative)
}

// collBody is the body of a collective operation, run with the Runner of
// the call: the blocking form and the nonblocking one (Ixxx) of an
// operation share it.
type collBody = func(u *collectives.Runner) error

// collective runs one blocking collective operation of c.
func (c *Comm) collective(op string, f collBody) error {
	if err := c.checkIntra(op); err != nil {
		return err
	}
	return c.runOn(&c.runner, op, f)
}

// enter begins a blocking collective of c on its runner, as collective
// does: it takes the collectives' lock and the call's tag, and reports
// true, where c is a usable intracommunicator; otherwise it takes nothing
// and reports false, and the caller goes through collective, which says
// what is wrong. With leave, it spares the calls that repeat most (the
// small ones) collective's closures.
func (c *Comm) enter() bool {
	if !c.usable() || c.inter != nil {
		return false
	}
	c.lockColl()
	c.net.tag = c.nextTag()
	return true
}

// leave ends a blocking collective that enter began, naming op in its
// error.
func (c *Comm) leave(op string, err error) error {
	c.collMu.Unlock()
	if err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nil
}

// reduce runs a blocking Allreduce (root < 0) or Reduce to root of c with
// r, begun by enter. It unlocks by a deferred call: r may be a user's
// operation, which may panic.
func (c *Comm) reduce(send, recv []byte, r *collectives.Reducer, root int) (err error) {
	defer c.collMu.Unlock()
	if root < 0 {
		err = c.runner.Allreduce(send, recv, *r)
	} else {
		err = c.runner.Reduce(send, recv, *r, root)
	}
	return err
}

// manage runs one collective of communicator management on c (f is given
// c's manager): Dup, Split, Create and Free work whatever algorithms the
// user forced.
func (c *Comm) manage(op string, f func(u *collectives.Runner) error) error {
	if err := c.checkIntra(op); err != nil {
		return err
	}
	return c.runOn(&c.manager, op, f)
}

// runOn runs one blocking collective of c, which check has accepted, with
// the runner u.
func (c *Comm) runOn(u *collectives.Runner, op string, f func(u *collectives.Runner) error) error {
	c.lockColl()
	defer c.collMu.Unlock()
	c.net.tag = c.nextTag()
	if err := f(u); err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nil
}

// inPlace converts a send buffer: nil stays nil, which the collectives
// read as "in place"; an empty one stays non-nil.
func inPlace[T Type](buf []T) []byte {
	if buf == nil {
		return nil
	}
	if b := asBytes(buf); b != nil {
		return b
	}
	return noBytes
}

// noBytes is an empty buffer that is not nil (not "in place").
var noBytes = make([]byte, 0)

// scaled converts counts or displacements in elements to bytes.
func scaled(v []int, elem int) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = x * elem
	}
	return out
}

// Barrier blocks until every process of c has called it (MPI_Barrier);
// every process of both groups of an intercommunicator.
func Barrier(c *Comm) error {
	if c.IsInter() {
		return c.interBarrier()
	}
	if c.enter() {
		return c.leave("Barrier", c.runner.Barrier())
	}
	return c.collective("Barrier", func(u *collectives.Runner) error { return u.Barrier() })
}

// Barrier is [Barrier](c).
//
// Deprecated: call the function [Barrier], the form every collective
// takes (the generic ones cannot be methods).
func (c *Comm) Barrier() error { return Barrier(c) }

// Bcast sends buf of rank root to the buf of every other process of c
// (MPI_Bcast). On an intercommunicator, the root passes Root, the other
// processes of its group ProcNull, and the processes of the other group,
// which receive buf, the root's rank in its group.
func Bcast[T Type](c *Comm, buf []T, root int) error {
	if c.IsInter() {
		_, err := interBcast(c, "Bcast", true, buf, root)
		return err
	}
	if c.enter() {
		return c.leave("Bcast", c.runner.Bcast(asBytes(buf), root, sizeOf[T]()))
	}
	return c.collective("Bcast", bcastBody(buf, root))
}

func bcastBody[T Type](buf []T, root int) collBody {
	return func(u *collectives.Runner) error { return u.Bcast(asBytes(buf), root, sizeOf[T]()) }
}

// reducer returns op's Reducer for T (shared: not to be modified),
// publishing the error to the other processes if there is none.
func reducer[T Type](u *collectives.Runner, coll collectives.Collective, op Op) (*collectives.Reducer, error) {
	r, err := collectives.ReducerRef[T](op)
	if err != nil {
		return nil, u.Fail(coll, err)
	}
	return r, nil
}

// reduction returns the body of a reducing collective: it finds op's
// Reducer for T and runs f with it.
func reduction[T Type](coll collectives.Collective, op Op, f func(u *collectives.Runner, r collectives.Reducer) error) collBody {
	return func(u *collectives.Runner) error {
		r, err := reducer[T](u, coll, op)
		if err != nil {
			return err
		}
		return f(u, *r)
	}
}

// Reduce combines the send buffers of all processes of c element-wise with
// op into recv at root (MPI_Reduce; recv matters at root only). A nil send
// at the root means in place: the root's operand is in recv. On an
// intercommunicator, the root passes Root and gets the combination of the
// other group's send buffers, in its rank order; the other processes of
// its group pass ProcNull, and those of the other group the root's rank
// in its group.
func Reduce[T Type](c *Comm, send, recv []T, op Op, root int) error {
	if c.IsInter() {
		_, err := interReduce(c, "Reduce", true, send, recv, op, root)
		return err
	}
	if r, err := collectives.ReducerRef[T](op); err == nil && root >= 0 && c.enter() {
		// (A negative root is an error, which Reduce's general way gives.)
		if err := c.reduce(inPlace(send), asBytes(recv), r, root); err != nil {
			return fmt.Errorf("mpi: Reduce: %w", err)
		}
		return nil
	}
	return c.collective("Reduce", reduceBody(send, recv, op, root))
}

func reduceBody[T Type](send, recv []T, op Op, root int) collBody {
	return reduction[T](collectives.CollReduce, op, func(u *collectives.Runner, r collectives.Reducer) error {
		return u.Reduce(inPlace(send), asBytes(recv), r, root)
	})
}

// Allreduce combines the send buffers of all processes of c element-wise
// with op into every process's recv (MPI_Allreduce). A nil send means in
// place: the operand is in recv. On an intercommunicator, each process
// gets the combination of the other group's send buffers, and in place is
// not allowed.
func Allreduce[T Type](c *Comm, send, recv []T, op Op) error {
	if c.IsInter() {
		return interAllreduce(c, send, recv, op)
	}
	if r, err := collectives.ReducerRef[T](op); err == nil && c.enter() {
		if err := c.reduce(inPlace(send), asBytes(recv), r, -1); err != nil {
			return fmt.Errorf("mpi: Allreduce: %w", err)
		}
		return nil
	}
	return c.collective("Allreduce", allreduceBody(send, recv, op))
}

func allreduceBody[T Type](send, recv []T, op Op) collBody {
	return reduction[T](collectives.CollAllreduce, op, func(u *collectives.Runner, r collectives.Reducer) error {
		return u.Allreduce(inPlace(send), asBytes(recv), r)
	})
}

// Gather collects the send buffers (of equal length) of all processes of c
// into recv at root, rank i's at recv[i*len(send):] (MPI_Gather). A nil
// send at the root means in place: its block is already in recv. On an
// intercommunicator, with Reduce's roots, the root's recv gets remote
// rank i's block at recv[i*len(recv)/RemoteSize:], and in place is not
// allowed.
func Gather[T Type](c *Comm, send, recv []T, root int) error {
	if c.IsInter() {
		_, err := interGatherv(c, "Gather", true, send, recv, nil, nil, root)
		return err
	}
	if c.enter() {
		return c.leave("Gather", c.runner.Gather(inPlace(send), asBytes(recv), root, sizeOf[T]()))
	}
	return c.collective("Gather", gatherBody(send, recv, root))
}

func gatherBody[T Type](send, recv []T, root int) collBody {
	return func(u *collectives.Runner) error {
		return u.Gather(inPlace(send), asBytes(recv), root, sizeOf[T]())
	}
}

// Gatherv collects the send buffers of all processes of c into recv at
// root, rank i's counts[i] elements at recv[displs[i]:] (MPI_Gatherv);
// recv, counts and displs matter at the root only. A nil send at the root
// means in place. On an intercommunicator, with Reduce's roots, counts
// and displs name the remote group's ranks, and in place is not allowed.
func Gatherv[T Type](c *Comm, send, recv []T, counts, displs []int, root int) error {
	if c.IsInter() {
		_, err := interGatherv(c, "Gatherv", true, send, recv, counts, displs, root)
		return err
	}
	return c.collective("Gatherv", gathervBody(send, recv, counts, displs, root))
}

func gathervBody[T Type](send, recv []T, counts, displs []int, root int) collBody {
	e := sizeOf[T]()
	counts, displs = scaled(counts, e), scaled(displs, e)
	return func(u *collectives.Runner) error {
		return u.Gatherv(inPlace(send), asBytes(recv), counts, displs, root, e)
	}
}

// Scatter sends block i of root's send (blocks of len(recv) elements) to
// the recv of rank i of c (MPI_Scatter). A nil recv at the root means in
// place: its block stays in send. On an intercommunicator, with Reduce's
// roots, the root's send holds a block for each remote rank
// (len(send)/RemoteSize elements), and in place is not allowed.
func Scatter[T Type](c *Comm, send, recv []T, root int) error {
	if c.IsInter() {
		_, err := interScatterv(c, "Scatter", true, send, nil, nil, recv, root)
		return err
	}
	if c.enter() {
		return c.leave("Scatter", c.runner.Scatter(asBytes(send), inPlace(recv), root, sizeOf[T]()))
	}
	return c.collective("Scatter", scatterBody(send, recv, root))
}

func scatterBody[T Type](send, recv []T, root int) collBody {
	return func(u *collectives.Runner) error {
		return u.Scatter(asBytes(send), inPlace(recv), root, sizeOf[T]())
	}
}

// Scatterv sends counts[i] elements of root's send at displs[i] to the
// recv of rank i of c (MPI_Scatterv); send, counts and displs matter at
// the root only. A nil recv at the root means in place. On an
// intercommunicator, with Reduce's roots, counts and displs name the
// remote group's ranks, and in place is not allowed.
func Scatterv[T Type](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	if c.IsInter() {
		_, err := interScatterv(c, "Scatterv", true, send, counts, displs, recv, root)
		return err
	}
	return c.collective("Scatterv", scattervBody(send, counts, displs, recv, root))
}

func scattervBody[T Type](send []T, counts, displs []int, recv []T, root int) collBody {
	e := sizeOf[T]()
	counts, displs = scaled(counts, e), scaled(displs, e)
	return func(u *collectives.Runner) error {
		return u.Scatterv(asBytes(send), counts, displs, inPlace(recv), root, e)
	}
}

// Allgather collects the send buffers (of equal length) of all processes
// of c into every process's recv, rank i's at recv[i*len(send):]
// (MPI_Allgather). A nil send means in place: each process's block is
// already in its recv. On an intercommunicator, each process gets the
// send buffers of the other group's processes, and in place is not
// allowed.
func Allgather[T Type](c *Comm, send, recv []T) error {
	if c.IsInter() {
		return interAllgather(c, send, recv)
	}
	if c.enter() {
		return c.leave("Allgather", c.runner.Allgather(inPlace(send), asBytes(recv), sizeOf[T]()))
	}
	return c.collective("Allgather", allgatherBody(send, recv))
}

func allgatherBody[T Type](send, recv []T) collBody {
	return func(u *collectives.Runner) error {
		return u.Allgather(inPlace(send), asBytes(recv), sizeOf[T]())
	}
}

// Allgatherv collects the send buffers of all processes of c into every
// process's recv, rank i's counts[i] elements at recv[displs[i]:]
// (MPI_Allgatherv). A nil send means in place. On an intercommunicator,
// each process gets the send buffers of the other group's processes,
// counts and displs naming its ranks, and in place is not allowed.
func Allgatherv[T Type](c *Comm, send, recv []T, counts, displs []int) error {
	if c.IsInter() {
		_, err := interAllgatherv(c, "Allgatherv", true, send, recv, counts, displs)
		return err
	}
	return c.collective("Allgatherv", allgathervBody(send, recv, counts, displs))
}

func allgathervBody[T Type](send, recv []T, counts, displs []int) collBody {
	e := sizeOf[T]()
	counts, displs = scaled(counts, e), scaled(displs, e)
	return func(u *collectives.Runner) error {
		return u.Allgatherv(inPlace(send), asBytes(recv), counts, displs, e)
	}
}

// Alltoall sends block j of every process's send (len(send)/size elements)
// to rank j of c, which receives rank i's block at recv[i*blk:]
// (MPI_Alltoall). A nil send means in place: the blocks are taken from
// recv. On an intercommunicator, send and recv hold a block for each
// process of the other group (RemoteSize equal blocks each), and in place
// is not allowed.
func Alltoall[T Type](c *Comm, send, recv []T) error {
	if c.IsInter() {
		_, err := interAlltoallv(c, "Alltoall", true, send, nil, nil, recv, nil, nil)
		return err
	}
	if c.enter() {
		return c.leave("Alltoall", c.runner.Alltoall(inPlace(send), asBytes(recv), sizeOf[T]()))
	}
	return c.collective("Alltoall", alltoallBody(send, recv))
}

func alltoallBody[T Type](send, recv []T) collBody {
	return func(u *collectives.Runner) error {
		return u.Alltoall(inPlace(send), asBytes(recv), sizeOf[T]())
	}
}

// Alltoallv sends scounts[j] elements of send at sdispls[j] to rank j of
// c, which receives them at recv[rdispls[i]:][:rcounts[i]] for sender i
// (MPI_Alltoallv). On an intercommunicator, the counts and displacements
// name the other group's ranks.
func Alltoallv[T Type](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	if c.IsInter() {
		_, err := interAlltoallv(c, "Alltoallv", true, send, scounts, sdispls, recv, rcounts, rdispls)
		return err
	}
	return c.collective("Alltoallv", alltoallvBody(send, scounts, sdispls, recv, rcounts, rdispls))
}

func alltoallvBody[T Type](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) collBody {
	e := sizeOf[T]()
	scounts, sdispls = scaled(scounts, e), scaled(sdispls, e)
	rcounts, rdispls = scaled(rcounts, e), scaled(rdispls, e)
	return func(u *collectives.Runner) error {
		return u.Alltoallv(asBytes(send), scounts, sdispls, asBytes(recv), rcounts, rdispls, e)
	}
}

// ReduceScatterBlock combines the send buffers (size blocks of len(recv)
// elements) of all processes of c with op and leaves block i of the result
// in rank i's recv (MPI_Reduce_scatter_block). A nil send means in place:
// recv holds the whole operand, and block i of the result goes to its
// beginning. On an intercommunicator, the combination of one group's
// send buffers (each len(recv)·Size elements, as many in both groups) is
// scattered over the other group, and in place is not allowed.
func ReduceScatterBlock[T Type](c *Comm, send, recv []T, op Op) error {
	if c.IsInter() {
		_, err := interReduceScatter(c, "ReduceScatterBlock", true, send, recv, blockCounts(c.Size(), len(recv)), op)
		return err
	}
	return c.collective("ReduceScatterBlock", reduceScatterBlockBody(send, recv, op))
}

func reduceScatterBlockBody[T Type](send, recv []T, op Op) collBody {
	return reduction[T](collectives.CollReduceScatterBlock, op, func(u *collectives.Runner, r collectives.Reducer) error {
		return u.ReduceScatterBlock(inPlace(send), asBytes(recv), r)
	})
}

// ReduceScatter combines the send buffers (sum(counts) elements) of all
// processes of c with op and leaves in rank i's recv the counts[i]
// elements of the result that follow those of ranks below i
// (MPI_Reduce_scatter). counts must be the same on every process. A nil
// send means in place. On an intercommunicator, the combination of the
// other group's send buffers is scattered over the caller's group by its
// counts (one per local rank, the same over the group, with the same sum
// in both groups), and in place is not allowed.
func ReduceScatter[T Type](c *Comm, send, recv []T, counts []int, op Op) error {
	if c.IsInter() {
		_, err := interReduceScatter(c, "ReduceScatter", true, send, recv, counts, op)
		return err
	}
	return c.collective("ReduceScatter", reduceScatterBody(send, recv, counts, op))
}

func reduceScatterBody[T Type](send, recv []T, counts []int, op Op) collBody {
	counts = scaled(counts, sizeOf[T]())
	return reduction[T](collectives.CollReduceScatter, op, func(u *collectives.Runner, r collectives.Reducer) error {
		return u.ReduceScatter(inPlace(send), asBytes(recv), counts, r)
	})
}

// Scan leaves in rank i's recv the combination with op of the send
// buffers of ranks 0 to i, in rank order (MPI_Scan). A nil send means in
// place.
func Scan[T Type](c *Comm, send, recv []T, op Op) error {
	return c.collective("Scan", scanBody(send, recv, op, false))
}

// Exscan leaves in rank i's recv the combination with op of the send
// buffers of ranks 0 to i-1 (MPI_Exscan); rank 0's recv is left unchanged.
// A nil send means in place.
func Exscan[T Type](c *Comm, send, recv []T, op Op) error {
	return c.collective("Exscan", scanBody(send, recv, op, true))
}

func scanBody[T Type](send, recv []T, op Op, exclusive bool) collBody {
	coll := collectives.CollScan
	if exclusive {
		coll = collectives.CollExscan
	}
	return reduction[T](coll, op, func(u *collectives.Runner, r collectives.Reducer) error {
		return u.Scan(inPlace(send), asBytes(recv), r, exclusive)
	})
}

// ReduceLocal combines in into inout element-wise with op, inout[i] =
// in[i] ∘ inout[i], in this process alone (MPI_Reduce_local). The slices
// must have the same length (a multiple of two for MinLoc and MaxLoc).
func ReduceLocal[T Type](in, inout []T, op Op) error {
	r, err := collectives.ReducerFor[T](op)
	if err != nil {
		return fmt.Errorf("mpi: ReduceLocal: %w", err)
	}
	if len(in) != len(inout) {
		return fmt.Errorf("mpi: ReduceLocal: %w: in has %d elements, inout %d", ErrCount, len(in), len(inout))
	}
	if len(in)*r.Elem%r.Unit != 0 {
		return fmt.Errorf("mpi: ReduceLocal: %w: %d elements are not whole (value, index) pairs for %s", ErrCount, len(in), r.Op)
	}
	if len(in) > 0 {
		r.Apply(asBytes(in), asBytes(inout))
	}
	return nil
}
