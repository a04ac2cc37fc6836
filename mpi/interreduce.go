package mpi

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// The reducing collectives of an intercommunicator: a group's operands
// are combined by the group's Reduce to its rank 0, in rank order, and
// the result crosses to the other group over the span (interspan.go).

// groupReduce combines send over the local group into the result that
// local rank 0 returns (nil elsewhere). When it fails, it fails the span's
// next step (an Alltoallv) too, so that the other group fails with it.
func groupReduce[T Type](c *Comm, lu, su *collectives.Runner, send []T, r collectives.Reducer) ([]T, error) {
	var part []T
	if c.rank == 0 {
		part = make([]T, len(send))
	}
	if err := lu.Reduce(inPlace(send), asBytes(part), r, 0); err != nil {
		return nil, errors.Join(err, su.Fail(collectives.CollAlltoallv, err))
	}
	return part, nil
}

// interReduce is Reduce on the intercommunicator c: the root (root Root)
// gets in recv the combination of the send buffers of the other group's
// processes, which pass the root's rank; the other processes of the
// root's group pass ProcNull.
func interReduce[T Type](c *Comm, name string, block bool, send, recv []T, op Op, root int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := interPlan{sendTo: m.perRank(), recvFrom: m.perRank()}
	r, rerr := collectives.ReducerFor[T](op)
	named, err := interRoot(root, c.size)
	switch {
	case err != nil:
		p.bad = err
	case root == ProcNull:
	case rerr != nil:
		p.bad = rerr
	case named && send == nil:
		p.bad = inPlaceErr("send")
	case named:
		p.sendTo[m.remote(root)] = len(send) * e
	default: // Root
		for i := range c.size {
			p.recvFrom[m.remote(i)] = len(recv) * e
		}
	}
	return c.interRun(name, block, func(lu, su *collectives.Runner) error {
		if err := agree(su, p); err != nil {
			return err
		}
		sendTo, recvFrom := m.perRank(), m.perRank()
		var part []T
		switch {
		case named:
			var err error
			if part, err = groupReduce(c, lu, su, send, r); err != nil {
				return err
			}
			if c.rank == 0 {
				sendTo[m.remote(root)] = len(part) * e
			}
		case root == Root:
			recvFrom[m.remote(0)] = len(recv) * e
		}
		return spanMove(su, asBytes(part), sendTo, nil, asBytes(recv), recvFrom, nil)
	})
}

// interReduceScatter is ReduceScatter on the intercommunicator c: the
// combination of one group's send buffers is scattered over the other
// group, counts[i] elements to its rank i, where counts, the same on every
// process of a group, is that group's; both groups' send buffers hold
// the sum of their counts, and the sums must be equal.
func interReduceScatter[T Type](c *Comm, name string, block bool, send, recv []T, counts []int, op Op) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := interPlan{sendTo: m.perRank(), recvFrom: m.perRank()}
	r, rerr := collectives.ReducerFor[T](op)
	displs := make([]int, len(counts))
	p.bad = rerr
	if p.bad == nil {
		p.bad = scatterCounts(send, recv, counts, displs, c.rank, c.inter.local.size)
	}
	for i := range c.size {
		p.sendTo[m.remote(i)], p.recvFrom[m.remote(i)] = len(send)*e, len(send)*e
	}
	return c.interRun(name, block, func(lu, su *collectives.Runner) error {
		if err := agree(su, p); err != nil {
			return err
		}
		part, err := groupReduce(c, lu, su, send, r)
		if err != nil {
			return err
		}
		sendTo, recvFrom := m.perRank(), m.perRank()
		var theirs []T
		if c.rank == 0 {
			theirs = make([]T, len(send))
			sendTo[m.remote(0)], recvFrom[m.remote(0)] = len(send)*e, len(send)*e
		}
		if err := spanMove(su, asBytes(part), sendTo, nil, asBytes(theirs), recvFrom, nil); err != nil {
			return err
		}
		return lu.Scatterv(asBytes(theirs), scaled(counts, e), scaled(displs, e), inPlace(recv[:counts[c.rank]]), 0, e)
	})
}

// scatterCounts checks the arguments of an intercommunicator
// ReduceScatter, and sets displs to where each block of the result
// begins.
func scatterCounts[T Type](send, recv []T, counts, displs []int, rank, n int) error {
	if send == nil {
		return inPlaceErr("send")
	}
	if len(counts) != n {
		return fmt.Errorf("%w: %d counts for a local group of %d", ErrCount, len(counts), n)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return fmt.Errorf("%w: count %d is %d", ErrCount, i, k)
		}
		displs[i], total = total, total+k
	}
	if total != len(send) {
		return fmt.Errorf("%w: the send buffer holds %d elements, not the sum of the counts, %d", ErrBuffer, len(send), total)
	}
	if len(recv) < counts[rank] {
		return fmt.Errorf("%w: the receive buffer holds %d elements, not %d", ErrBuffer, len(recv), counts[rank])
	}
	return nil
}

// blockCounts returns the counts of ReduceScatterBlock on a group of n
// processes whose receive buffers hold blk elements.
func blockCounts(n, blk int) []int {
	counts := make([]int, n)
	for i := range counts {
		counts[i] = blk
	}
	return counts
}

// interIallreduce is Iallreduce on the intercommunicator c: each group's
// combination, made at its rank 0, crosses to the other group's rank 0,
// which broadcasts it over its group.
func interIallreduce[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	const name = "Iallreduce"
	m, e := c.spanOf(), sizeOf[T]()
	p := interPlan{sendTo: m.perRank(), recvFrom: m.perRank()}
	r, err := collectives.ReducerFor[T](op)
	switch {
	case err != nil:
		p.bad = err
	case send == nil:
		p.bad = inPlaceErr("send")
	case len(recv) < len(send):
		p.bad = fmt.Errorf("%w: the receive buffer holds %d elements, not %d", ErrBuffer, len(recv), len(send))
	}
	for i := range c.size {
		p.sendTo[m.remote(i)], p.recvFrom[m.remote(i)] = len(send)*e, len(send)*e
	}
	return c.interRun(name, false, func(lu, su *collectives.Runner) error {
		if err := agree(su, p); err != nil {
			return err
		}
		part, err := groupReduce(c, lu, su, send, r)
		if err != nil {
			return err
		}
		sendTo, recvFrom := m.perRank(), m.perRank()
		if c.rank == 0 {
			sendTo[m.remote(0)], recvFrom[m.remote(0)] = len(send)*e, len(send)*e
		}
		out := recv[:len(send)]
		if err := spanMove(su, asBytes(part), sendTo, nil, asBytes(out), recvFrom, nil); err != nil {
			return err
		}
		return lu.Bcast(asBytes(out), 0, e)
	})
}
