package mpi

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// The neighbourhood collectives exchange blocks with a communicator's
// neighbours in its topology: on a Cartesian grid the two neighbours of
// each dimension, the one below first (ProcNull past the edge of a
// dimension that is not periodic: its block is neither sent nor
// received); on a graph the node's neighbours, which are both where it
// sends and where it receives from (so the graph must be symmetric, else
// every process fails with ErrTopology); on a distributed graph its sources
// (the receive blocks) and destinations (the send blocks). MPI_IN_PLACE is
// not allowed with them: a nil send buffer is an empty one.
//
// They run as point-to-point messages in the communicator's collective
// context, with tags of their own, without comparing the processes'
// arguments first: a process whose own arguments are wrong returns the
// error after exchanging empty blocks with its neighbours, which then fail
// with ErrMismatch where they expected data, instead of waiting for it.

// exchange is one neighbourhood collective in flight.
type exchange struct {
	c     *Comm
	op    string
	recvs []llc.RecvOp
	sends []llc.SendOp
	from  []int // rank of each receive's source in c
	to    []int // rank of each send's destination in c
}

// neighborhood returns c's neighbours for op and takes the tags of the
// exchange, in the order of c's collective calls.
func (c *Comm) neighborhood(op string) (in, out []link, tags []int32, err error) {
	if err := c.check(op); err != nil {
		return nil, nil, nil, err
	}
	if c.topo == nil {
		return nil, nil, nil, fmt.Errorf("mpi: %s: the communicator has no topology: %w", op, ErrTopology)
	}
	in, out, ntags, err := c.topo.neighbors(c.rank)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	tags = make([]int32, ntags)
	for i := range tags {
		tags[i] = c.nextTag()
	}
	return in, out, tags, nil
}

// startExchange posts the receive of block recv[i] from in-neighbour i and
// the send of block send[j] to out-neighbour j; ProcNull ones are skipped.
func (c *Comm) startExchange(op string, in, out []link, tags []int32, recv, send [][]byte) *exchange {
	x := &exchange{c: c, op: op}
	n := 0
	for _, l := range in {
		if l.rank != ProcNull {
			n++
		}
	}
	x.recvs, x.from = make([]llc.RecvOp, 0, n), make([]int, 0, n)
	for i, l := range in {
		if l.rank == ProcNull {
			continue
		}
		x.recvs = append(x.recvs, llc.RecvOp{Source: c.toWorld(l.rank), Tag: tags[l.tag], Ctx: c.ctx + 1, Buf: recv[i]})
		x.from = append(x.from, l.rank)
		c.rt.ep.Recv(&x.recvs[len(x.recvs)-1])
	}
	n = 0
	for _, l := range out {
		if l.rank != ProcNull {
			n++
		}
	}
	x.sends, x.to = make([]llc.SendOp, 0, n), make([]int, 0, n)
	for j, l := range out {
		if l.rank == ProcNull {
			continue
		}
		x.sends = append(x.sends, llc.SendOp{Peer: c.toWorld(l.rank), Tag: tags[l.tag], Ctx: c.ctx + 1, Data: send[j]})
		x.to = append(x.to, l.rank)
		c.rt.ep.Send(&x.sends[len(x.sends)-1])
	}
	return x
}

// done reports whether every message of x is through; the endpoint calls
// it with its lock held.
func (x *exchange) done() bool {
	for i := range x.recvs {
		if !x.recvs[i].Done() {
			return false
		}
	}
	for i := range x.sends {
		if !x.sends[i].Done() {
			return false
		}
	}
	return true
}

// wait drives progress until x is done and returns its errors, joined: a
// block received shorter or longer than expected is one.
func (x *exchange) wait() error {
	x.c.rt.ep.WaitFunc(x.done)
	var errs []error
	for i := range x.recvs {
		r := &x.recvs[i]
		if err := r.Err(); err != nil {
			errs = append(errs, wrap(x.op+" (receive)", x.from[i], err))
		} else if r.Status.Len != len(r.Buf) {
			errs = append(errs, fmt.Errorf("mpi: %s: a block of %d bytes from rank %d, where %d were expected: %w",
				x.op, r.Status.Len, x.from[i], len(r.Buf), ErrMismatch))
		}
	}
	for i := range x.sends {
		if err := x.sends[i].Err(); err != nil {
			errs = append(errs, wrap(x.op+" (send)", x.to[i], err))
		}
	}
	return errors.Join(errs...)
}

// failExchange exchanges empty blocks with the neighbours of a process
// whose arguments are wrong, so that they fail instead of waiting for its
// data; bad is returned. It runs in the background for a nonblocking
// call.
func (c *Comm) failExchange(op string, in, out []link, tags []int32, bad error, background bool) error {
	x := c.startExchange(op, in, out, tags, make([][]byte, len(in)), make([][]byte, len(out)))
	if !background {
		x.wait()
		return bad
	}
	c.requestStarted()
	go func() {
		x.wait()
		c.requestFinished()
	}()
	return bad
}

// neighborRun runs a neighbourhood collective whose blocks blocks makes
// from the neighbour counts: blocking, or started and returned as a
// Request if nonblocking.
func (c *Comm) neighborRun(op string, nonblocking bool, blocks func(indeg, outdeg int) (recv, send [][]byte, err error)) (*Request, error) {
	return c.neighborRunThen(op, nonblocking, blocks, nil)
}

// neighborRunThen is neighborRun that calls then, if not nil, once the
// exchange has succeeded: to unpack blocks received into scratch.
func (c *Comm) neighborRunThen(op string, nonblocking bool, blocks func(indeg, outdeg int) (recv, send [][]byte, err error), then func()) (*Request, error) {
	if nonblocking {
		return c.neighborStart(op, blocks, then)
	}
	in, out, tags, err := c.neighborhood(op)
	if err != nil {
		return nil, err
	}
	recv, send, err := blocks(len(in), len(out))
	if err != nil {
		return nil, c.failExchange(op, in, out, tags, fmt.Errorf("mpi: %s: %w", op, err), false)
	}
	return nil, exchangeFinish(c.startExchange(op, in, out, tags, recv, send), then)()
}

// neighborStart starts a nonblocking neighbourhood collective (see
// neighborRunThen), or records it while a persistent collective is made.
func (c *Comm) neighborStart(op string, blocks func(indeg, outdeg int) (recv, send [][]byte, err error), then func()) (*Request, error) {
	if cp := c.capturing.Load(); cp != nil {
		if _, _, _, err := c.neighborhood(op); err != nil {
			return nil, err
		}
		return cp.record(c, func(d *Comm) *collRequest {
			cr, err := d.neighborColl(op, blocks, then)
			if err != nil {
				return d.failedColl(err)
			}
			return cr
		}), nil
	}
	cr, err := c.neighborColl(op, blocks, then)
	if err != nil {
		return nil, err
	}
	return &Request{c: c, coll: cr}, nil
}

// neighborColl starts the exchange of a nonblocking neighbourhood
// collective and returns its collRequest.
func (c *Comm) neighborColl(op string, blocks func(indeg, outdeg int) (recv, send [][]byte, err error), then func()) (*collRequest, error) {
	in, out, tags, err := c.neighborhood(op)
	if err != nil {
		return nil, err
	}
	recv, send, err := blocks(len(in), len(out))
	if err != nil {
		return nil, c.failExchange(op, in, out, tags, fmt.Errorf("mpi: %s: %w", op, err), true)
	}
	finish := exchangeFinish(c.startExchange(op, in, out, tags, recv, send), then)
	cr := new(collRequest)
	c.requestStarted()
	go func() {
		cr.err = finish()
		cr.markDone(c)
	}()
	return cr, nil
}

// exchangeFinish returns what completes exchange x: it waits for it and
// then, if it succeeded, calls then (if not nil).
func exchangeFinish(x *exchange, then func()) func() error {
	return func() error {
		err := x.wait()
		if err == nil && then != nil {
			then()
		}
		return err
	}
}

// equalBlocks cuts n blocks of blk elements from the beginning of buf.
func equalBlocks[T Type](buf []T, n, blk int, what string) ([][]byte, error) {
	if len(buf) < n*blk {
		return nil, fmt.Errorf("%s holds %d elements, fewer than %d blocks of %d: %w", what, len(buf), n, blk, ErrBuffer)
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = asBytes(buf[i*blk : (i+1)*blk])
	}
	return out, nil
}

// varBlocks cuts block i of counts[i] elements at displs[i] from buf, for
// n neighbours.
func varBlocks[T Type](buf []T, counts, displs []int, n int, what string) ([][]byte, error) {
	if len(counts) != n || len(displs) != n {
		return nil, fmt.Errorf("%d counts and %d displacements of %s for %d neighbours: %w", len(counts), len(displs), what, n, ErrCount)
	}
	out := make([][]byte, n)
	for i := range out {
		lo, k := displs[i], counts[i]
		if k < 0 || lo < 0 || lo+k > len(buf) {
			return nil, fmt.Errorf("block %d of %s (%d elements at %d) is outside its %d elements: %w", i, what, k, lo, len(buf), ErrBuffer)
		}
		out[i] = asBytes(buf[lo : lo+k])
	}
	return out, nil
}

// repeat returns n references to b.
func repeat(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// NeighborAllgather sends send to every out-neighbour of the calling
// process in c's topology and receives the block of in-neighbour i at
// recv[i*len(send):] (MPI_Neighbor_allgather).
func NeighborAllgather[T Type](c *Comm, send, recv []T) error {
	_, err := c.neighborRun("NeighborAllgather", false, allgatherBlocks(send, recv))
	return err
}

// IneighborAllgather starts NeighborAllgather (MPI_Ineighbor_allgather);
// the buffers must not be touched until the Request completes.
func IneighborAllgather[T Type](c *Comm, send, recv []T) (*Request, error) {
	return c.neighborRun("IneighborAllgather", true, allgatherBlocks(send, recv))
}

func allgatherBlocks[T Type](send, recv []T) func(int, int) ([][]byte, [][]byte, error) {
	return func(indeg, outdeg int) ([][]byte, [][]byte, error) {
		r, err := equalBlocks(recv, indeg, len(send), "the receive buffer")
		return r, repeat(asBytes(send), outdeg), err
	}
}

// NeighborAllgatherv sends send to every out-neighbour of the calling
// process in c's topology and receives counts[i] elements from
// in-neighbour i at recv[displs[i]:] (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T Type](c *Comm, send, recv []T, counts, displs []int) error {
	_, err := c.neighborRun("NeighborAllgatherv", false, allgathervBlocks(send, recv, counts, displs))
	return err
}

// IneighborAllgatherv starts NeighborAllgatherv
// (MPI_Ineighbor_allgatherv); the buffers must not be touched until the
// Request completes.
func IneighborAllgatherv[T Type](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	return c.neighborRun("IneighborAllgatherv", true, allgathervBlocks(send, recv, counts, displs))
}

func allgathervBlocks[T Type](send, recv []T, counts, displs []int) func(int, int) ([][]byte, [][]byte, error) {
	return func(indeg, outdeg int) ([][]byte, [][]byte, error) {
		r, err := varBlocks(recv, counts, displs, indeg, "the receive buffer")
		return r, repeat(asBytes(send), outdeg), err
	}
}

// NeighborAlltoall sends block j of send to out-neighbour j of the calling
// process in c's topology and receives the block of in-neighbour i at
// recv[i*blk:], blocks being of blk = len(send)/outdegree elements
// (len(recv)/indegree without out-neighbours) (MPI_Neighbor_alltoall).
func NeighborAlltoall[T Type](c *Comm, send, recv []T) error {
	_, err := c.neighborRun("NeighborAlltoall", false, alltoallBlocks(send, recv))
	return err
}

// IneighborAlltoall starts NeighborAlltoall (MPI_Ineighbor_alltoall); the
// buffers must not be touched until the Request completes.
func IneighborAlltoall[T Type](c *Comm, send, recv []T) (*Request, error) {
	return c.neighborRun("IneighborAlltoall", true, alltoallBlocks(send, recv))
}

func alltoallBlocks[T Type](send, recv []T) func(int, int) ([][]byte, [][]byte, error) {
	return func(indeg, outdeg int) ([][]byte, [][]byte, error) {
		var blk int
		switch {
		case outdeg > 0:
			if len(send)%outdeg != 0 {
				return nil, nil, fmt.Errorf("%d send elements do not make %d equal blocks: %w", len(send), outdeg, ErrCount)
			}
			blk = len(send) / outdeg
		case indeg > 0:
			blk = len(recv) / indeg
		}
		s, err := equalBlocks(send, outdeg, blk, "the send buffer")
		if err != nil {
			return nil, nil, err
		}
		r, err := equalBlocks(recv, indeg, blk, "the receive buffer")
		return r, s, err
	}
}

// NeighborAlltoallv sends scounts[j] elements of send at sdispls[j] to
// out-neighbour j of the calling process in c's topology and receives
// rcounts[i] elements from in-neighbour i at recv[rdispls[i]:]
// (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T Type](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	_, err := c.neighborRun("NeighborAlltoallv", false, alltoallvBlocks(send, scounts, sdispls, recv, rcounts, rdispls))
	return err
}

// IneighborAlltoallv starts NeighborAlltoallv (MPI_Ineighbor_alltoallv);
// the buffers must not be touched until the Request completes.
func IneighborAlltoallv[T Type](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	return c.neighborRun("IneighborAlltoallv", true, alltoallvBlocks(send, scounts, sdispls, recv, rcounts, rdispls))
}

func alltoallvBlocks[T Type](send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) func(int, int) ([][]byte, [][]byte, error) {
	return func(indeg, outdeg int) ([][]byte, [][]byte, error) {
		s, err := varBlocks(send, scounts, sdispls, outdeg, "the send buffer")
		if err != nil {
			return nil, nil, err
		}
		r, err := varBlocks(recv, rcounts, rdispls, indeg, "the receive buffer")
		return r, s, err
	}
}
