package mpi

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// The blocking Allreduce and Allgather of an intercommunicator (the
// other collectives run over its span: interspan.go) each run as a
// collective of the local group and an exchange between the groups'
// ranks 0, without the span. A failure anywhere reaches every process
// of both groups, and none is left waiting: a process whose own arguments
// are wrong still takes part in its group's collectives, failing them
// (collectives.Runner.Fail) with a scratch buffer; a local rank 0 whose
// group failed sends the other group's rank 0 a block one byte too long,
// which fails its exchange; and a local rank 0 whose exchange failed fails
// its group's broadcast instead of broadcasting.

// lengthErr reports a block of got bytes where want were expected.
func lengthErr(got, want int) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%w: the other group sent %d bytes where %d were expected", ErrMismatch, got, want)
}

// interFinish returns the error of an intercommunicator collective: the
// exchange's, else the local broadcast's.
func interFinish(op string, exchange, bcast error) error {
	if err := errors.Join(exchange, bcast); err != nil {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	return nil
}

// interInputs checks the arguments of an intercommunicator collective
// that every process of both groups checks alike.
func interInputs[T Type](op string, send, recv []T, need int) error {
	if send == nil {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w: in place (a nil send buffer) is not allowed", op, ErrBuffer)
	}
	if len(recv) < need {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w: the receive buffer holds %d elements, not %d", op, ErrBuffer, len(recv), need)
	}
	return nil
}

// interOut is where the other group's data lands: recv, or scratch
// memory of need elements when the process's arguments are bad.
func interOut[T Type](recv []T, need int, bad error) []T {
	if bad != nil {
		return make([]T, need)
	}
	return recv[:need]
}

// failLocal fails the local group's collective coll, op by name, with
// err, as the processes of the group whose arguments are good run it.
func (c *Comm) failLocal(op string, coll collectives.Collective, err error) error {
	return c.inter.local.collective(op, func(u *collectives.Runner) error { return u.Fail(coll, err) })
}

// interExchange is local rank 0's exchange of the groups' blocks: it sends
// block, or, when its group failed (local), a block one byte too long that
// fails the other's exchange, and receives the other group's into out.
func interExchange(n *commNet, block, out []byte, local error) error {
	if local != nil {
		block = make([]byte, len(block)+1)
	}
	got, err := n.Sendrecv(0, block, 0, out)
	return errors.Join(local, err, lengthErr(got, len(out)))
}

// interDeliver ends an intercommunicator collective: local rank 0
// broadcasts out to its group, or, when anything failed (err), fails the
// broadcast so that every process of the group fails with it.
func interDeliver[T Type](c *Comm, op string, out []T, err error) error {
	if c.rank == 0 && err != nil {
		return interFinish(op, err, c.failLocal("Bcast", collectives.CollBcast, err))
	}
	return interFinish(op, err, Bcast(c.inter.local, out, 0))
}

// interAllreduce is Allreduce on the intercommunicator c: each process's
// recv gets the combination of the other group's send buffers.
func interAllreduce[T Type](c *Comm, send, recv []T, op Op) error {
	const name = "Allreduce"
	if err := c.check(name); err != nil {
		return err
	}
	bad := interInputs(name, send, recv, len(send))
	if _, err := collectives.ReducerFor[T](op); err != nil && bad == nil {
		bad = fmt.Errorf("mpi: %s on an intercommunicator: %w", name, err)
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	n := &commNet{c: c, tag: c.nextTag()}
	var part []T
	if c.rank == 0 {
		part = make([]T, len(send))
	}
	var err error
	if bad != nil {
		err = errors.Join(bad, c.failLocal("Reduce", collectives.CollReduce, bad))
	} else {
		err = Reduce(c.inter.local, send, part, op, 0)
	}
	out := interOut(recv, len(send), bad)
	if c.rank == 0 {
		err = interExchange(n, asBytes(part), asBytes(out), err)
	}
	return interDeliver(c, name, out, err)
}

// interAllgather is Allgather on the intercommunicator c: each process's
// recv gets the send buffers of the other group's processes, rank i's at
// recv[i*len(send):].
func interAllgather[T Type](c *Comm, send, recv []T) error {
	const name = "Allgather"
	if err := c.check(name); err != nil {
		return err
	}
	bad := interInputs(name, send, recv, c.size*len(send))
	c.collMu.Lock()
	defer c.collMu.Unlock()
	n := &commNet{c: c, tag: c.nextTag()}
	var all []T
	if c.rank == 0 {
		all = make([]T, c.inter.local.size*len(send))
	}
	var err error
	if bad != nil {
		err = errors.Join(bad, c.failLocal("Gather", collectives.CollGather, bad))
	} else {
		err = Gather(c.inter.local, send, all, 0)
	}
	out := interOut(recv, c.size*len(send), bad)
	if c.rank == 0 {
		err = interExchange(n, asBytes(all), asBytes(out), err)
	}
	return interDeliver(c, name, out, err)
}
