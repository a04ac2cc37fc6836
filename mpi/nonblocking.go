package mpi

import (
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/collectives"
)

// collRequest is the state of a nonblocking collective operation. It runs
// in a goroutine of its own, which drives the endpoint while it waits, so
// the operation progresses while the caller computes.
type collRequest struct {
	done     atomic.Bool
	finished chan struct{} // closed when done
	err      error         // valid once done
}

// start starts the collective f of c in a goroutine and returns its
// Request. The operation's messages get their tag now, in the caller's
// order of collective calls, which every process shares. Nonblocking
// collectives use software algorithms only: the NIC's barrier network
// serves one operation of a communicator at a time, and the blocking ones
// use it.
func (c *Comm) start(op string, f func(u *collectives.Runner) error) (*Request, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	u := &collectives.Runner{Net: &commNet{c: c, tag: c.nextTag()}, Check: c.runner.Check,
		Force: c.rt.softForce, Stats: c.runner.Stats}
	cr := &collRequest{finished: make(chan struct{})}
	c.requestStarted()
	go func() {
		if err := f(u); err != nil {
			cr.err = fmt.Errorf("mpi: %s: %w", op, err)
		}
		cr.done.Store(true)
		close(cr.finished)
		c.rt.net.Wake() // for a Waitany asleep on the doorbell
	}()
	return &Request{c: c, coll: cr}, nil
}

// Ibarrier starts a barrier of c: its Request completes once every process
// of c has called Ibarrier.
func (c *Comm) Ibarrier() (*Request, error) {
	return c.start("Ibarrier", func(u *collectives.Runner) error { return u.Barrier() })
}

// Ibcast starts broadcasting buf of rank root to every process of c. buf
// must not be touched until the Request completes.
func Ibcast[T Type](c *Comm, buf []T, root int) (*Request, error) {
	return c.start("Ibcast", func(u *collectives.Runner) error {
		return u.Bcast(asBytes(buf), root, sizeOf[T]())
	})
}

// Iallreduce starts combining the send buffers of c's processes with op
// into every process's recv (send nil: in place). The buffers must not be
// touched until the Request completes.
func Iallreduce[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.start("Iallreduce", func(u *collectives.Runner) error {
		r, err := reducer[T](u, collectives.CollAllreduce, op)
		if err != nil {
			return err
		}
		return u.Allreduce(inPlace(send), asBytes(recv), r)
	})
}

// Ireduce starts combining the send buffers of c's processes with op into
// recv at root (send nil at the root: in place).
func Ireduce[T Type](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.start("Ireduce", func(u *collectives.Runner) error {
		r, err := reducer[T](u, collectives.CollReduce, op)
		if err != nil {
			return err
		}
		return u.Reduce(inPlace(send), asBytes(recv), r, root)
	})
}

// Iallgather starts collecting the send buffers of c's processes into
// every process's recv (send nil: in place).
func Iallgather[T Type](c *Comm, send, recv []T) (*Request, error) {
	return c.start("Iallgather", func(u *collectives.Runner) error {
		return u.Allgather(inPlace(send), asBytes(recv), sizeOf[T]())
	})
}

// Ialltoall starts the exchange of Alltoall (send nil: in place).
func Ialltoall[T Type](c *Comm, send, recv []T) (*Request, error) {
	return c.start("Ialltoall", func(u *collectives.Runner) error {
		return u.Alltoall(inPlace(send), asBytes(recv), sizeOf[T]())
	})
}
