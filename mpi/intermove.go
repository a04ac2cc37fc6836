package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// The collectives of an intercommunicator that only move data, as plans
// over its span (interspan.go). Counts and displacements name ranks of
// the remote group; in place (a nil buffer) is not allowed.

// inPlaceErr is the error of a nil buffer where in place is not allowed.
func inPlaceErr(what string) error {
	return fmt.Errorf("%w: in place (a nil %s buffer) is not allowed", ErrBuffer, what)
}

// vectorErr checks the counts and displacements of n blocks in a buffer
// of size elements.
func vectorErr(what string, counts, displs []int, size, n int) error {
	if len(counts) != n || len(displs) != n {
		return fmt.Errorf("%w: %d %s counts and %d displacements for a remote group of %d", ErrCount, len(counts), what, len(displs), n)
	}
	for i, k := range counts {
		if k < 0 || displs[i] < 0 || displs[i]+k > size {
			return fmt.Errorf("%w: %s block %d of %d elements at %d does not fit the buffer of %d", ErrBuffer, what, i, k, displs[i], size)
		}
	}
	return nil
}

// evenBlocks returns the counts and displacements of n blocks of
// len(buf)/n elements, for the collectives whose blocks are equal.
func evenBlocks[T Type](what string, buf []T, n int) (counts, displs []int, err error) {
	if len(buf)%n != 0 {
		return nil, nil, fmt.Errorf("%w: the %s buffer of %d elements does not split into %d equal blocks", ErrBuffer, what, len(buf), n)
	}
	counts, displs = make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = len(buf)/n, i*len(buf)/n
	}
	return counts, displs, nil
}

// vectorPlan is a plan that sends or receives counts[i] elements of e
// bytes at displs[i] for remote rank i.
type vectorPlan struct {
	interPlan
	sdispls, rdispls []int
}

func newVectorPlan(m spanMap) vectorPlan {
	return vectorPlan{interPlan: interPlan{sendTo: m.perRank(), recvFrom: m.perRank()}, sdispls: m.perRank(), rdispls: m.perRank()}
}

// sends sets the blocks sent to the remote ranks.
func (p *vectorPlan) sends(m spanMap, counts, displs []int, e int) {
	for i, k := range counts {
		p.sendTo[m.remote(i)], p.sdispls[m.remote(i)] = k*e, displs[i]*e
	}
}

// recvs sets the blocks received from the remote ranks.
func (p *vectorPlan) recvs(m spanMap, counts, displs []int, e int) {
	for i, k := range counts {
		p.recvFrom[m.remote(i)], p.rdispls[m.remote(i)] = k*e, displs[i]*e
	}
}

// run agrees on the plan and moves the data.
func (p vectorPlan) run(c *Comm, op string, block bool, send, recv []byte) (*Request, error) {
	return c.interRun(op, block, func(_, su *collectives.Runner) error {
		if err := agree(su, p.interPlan); err != nil {
			return err
		}
		return spanMove(su, send, p.sendTo, p.sdispls, recv, p.recvFrom, p.rdispls)
	})
}

// interGatherv is Gatherv (Gather when counts is nil: len(recv)/RemoteSize
// elements from each) on the intercommunicator c.
func interGatherv[T Type](c *Comm, op string, block bool, send, recv []T, counts, displs []int, root int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := newVectorPlan(m)
	named, err := interRoot(root, c.size)
	switch {
	case err != nil:
		p.bad = err
	case named && send == nil:
		p.bad = inPlaceErr("send")
	case named:
		p.sendTo[m.remote(root)] = len(send) * e
	case root == Root && counts == nil:
		if counts, displs, err = evenBlocks("receive", recv, c.size); err != nil {
			p.bad = err
			break
		}
		p.recvs(m, counts, displs, e)
	case root == Root:
		if p.bad = vectorErr("receive", counts, displs, len(recv), c.size); p.bad == nil {
			p.recvs(m, counts, displs, e)
		}
	}
	return p.run(c, op, block, asBytes(send), asBytes(recv))
}

// interScatterv is Scatterv (Scatter when counts is nil: len(send)/
// RemoteSize elements to each) on the intercommunicator c.
func interScatterv[T Type](c *Comm, op string, block bool, send []T, counts, displs []int, recv []T, root int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := newVectorPlan(m)
	named, err := interRoot(root, c.size)
	switch {
	case err != nil:
		p.bad = err
	case named && recv == nil:
		p.bad = inPlaceErr("receive")
	case named:
		p.recvFrom[m.remote(root)] = len(recv) * e
	case root == Root && counts == nil:
		if counts, displs, err = evenBlocks("send", send, c.size); err != nil {
			p.bad = err
			break
		}
		p.sends(m, counts, displs, e)
	case root == Root:
		if p.bad = vectorErr("send", counts, displs, len(send), c.size); p.bad == nil {
			p.sends(m, counts, displs, e)
		}
	}
	return p.run(c, op, block, asBytes(send), asBytes(recv))
}

// interAllgatherv is Allgatherv on the intercommunicator c: send goes to
// every process of the other group, and remote rank i's block lands at
// recv[displs[i]:][:counts[i]].
func interAllgatherv[T Type](c *Comm, op string, block bool, send, recv []T, counts, displs []int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := newVectorPlan(m)
	if send == nil {
		p.bad = inPlaceErr("send")
	} else if p.bad = vectorErr("receive", counts, displs, len(recv), c.size); p.bad == nil {
		for i := range c.size {
			p.sendTo[m.remote(i)] = len(send) * e
		}
		p.recvs(m, counts, displs, e)
	}
	return p.run(c, op, block, asBytes(send), asBytes(recv))
}

// interAlltoallv is Alltoallv on the intercommunicator c (Alltoall when
// the counts are nil: send and recv split into RemoteSize equal blocks).
func interAlltoallv[T Type](c *Comm, op string, block bool, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := newVectorPlan(m)
	var err error
	if send == nil {
		p.bad = inPlaceErr("send")
	} else if scounts == nil {
		if scounts, sdispls, err = evenBlocks("send", send, c.size); err == nil {
			rcounts, rdispls, err = evenBlocks("receive", recv, c.size)
		}
		p.bad = err
	} else if p.bad = vectorErr("send", scounts, sdispls, len(send), c.size); p.bad == nil {
		p.bad = vectorErr("receive", rcounts, rdispls, len(recv), c.size)
	}
	if p.bad == nil {
		p.sends(m, scounts, sdispls, e)
		p.recvs(m, rcounts, rdispls, e)
	}
	return p.run(c, op, block, asBytes(send), asBytes(recv))
}

// interAlltoallw is Alltoallw on the intercommunicator c: the counts,
// displacements and datatypes name the remote ranks, and the call runs
// as the span's Alltoallw with nothing for the local group's ranks.
func interAlltoallw[T Type](c *Comm, op string, block bool, send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	m := c.spanOf()
	var bad error
	if send == nil {
		bad = inPlaceErr("send")
	}
	widen := func(counts, displs []int, types []*Datatype) ([]int, []int, []*Datatype) {
		if len(counts) != c.size || len(displs) != c.size || len(types) != c.size {
			if bad == nil {
				bad = fmt.Errorf("%w: %d counts, %d displacements and %d datatypes for a remote group of %d", ErrCount, len(counts), len(displs), len(types), c.size)
			}
			return nil, nil, nil
		}
		wc, wd, wt := m.perRank(), m.perRank(), make([]*Datatype, m.size())
		for s := range wt {
			wt[s] = Element
		}
		for i := range c.size {
			wc[m.remote(i)], wd[m.remote(i)], wt[m.remote(i)] = counts[i], displs[i], types[i]
		}
		return wc, wd, wt
	}
	scounts, sdispls, stypes = widen(scounts, sdispls, stypes)
	rcounts, rdispls, rtypes = widen(rcounts, rdispls, rtypes)
	return c.interRun(op, block, func(_, su *collectives.Runner) error {
		if bad != nil {
			return su.Fail(collectives.CollAlltoallv, bad)
		}
		return alltoallwBody(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)(su)
	})
}

// interBcast is Bcast on the intercommunicator c: root is Root at the
// root, ProcNull at the other processes of its group, and the root's
// rank in its group at the processes of the other group, which receive
// the root's buf.
func interBcast[T Type](c *Comm, op string, block bool, buf []T, root int) (*Request, error) {
	m, e := c.spanOf(), sizeOf[T]()
	p := newVectorPlan(m)
	named, err := interRoot(root, c.size)
	switch {
	case err != nil:
		p.bad = err
	case named:
		p.recvFrom[m.remote(root)] = len(buf) * e
	case root == Root:
		for j := range c.size {
			p.sendTo[m.remote(j)] = len(buf) * e
		}
	}
	return p.run(c, op, block, asBytes(buf), asBytes(buf))
}

// interIallgather is Iallgather on the intercommunicator c, with
// Allgather's blocks: remote rank i's at recv[i*len(send):].
func interIallgather[T Type](c *Comm, send, recv []T) (*Request, error) {
	counts, displs := make([]int, c.size), make([]int, c.size)
	for i := range counts {
		counts[i], displs[i] = len(send), i*len(send)
	}
	return interAllgatherv(c, "Iallgather", false, send, recv, counts, displs)
}

// interIbarrier is Ibarrier on the intercommunicator c: a barrier of
// the span.
func (c *Comm) interIbarrier() (*Request, error) {
	return c.interRun("Ibarrier", false, func(_, su *collectives.Runner) error { return su.Barrier() })
}
