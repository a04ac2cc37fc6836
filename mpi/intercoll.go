package mpi

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// The collectives of an intercommunicator move data between its two
// groups: each runs as a collective of the local group and an exchange
// between the groups' ranks 0. A local rank 0 whose exchange fails (the
// other group's block of another size, say) returns the error after
// broadcasting what it has, so that its group is not left waiting; the
// others of its group may then return without error.

// interBcast is Bcast on the intercommunicator c: root is Root at the
// root, ProcNull at the other processes of its group, and the root's
// rank in its group at the processes of the other group, which receive
// the root's buf.
func interBcast[T Type](c *Comm, buf []T, root int) error {
	const op = "Bcast"
	if err := c.check(op); err != nil {
		return err
	}
	if root != Root && root != ProcNull && (root < 0 || root >= c.size) {
		return fmt.Errorf("mpi: %s on an intercommunicator: root %d: %w (Root, ProcNull or a rank of the remote group of %d)", op, root, ErrRoot, c.size)
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	n := &commNet{c: c, tag: c.nextTag()}
	switch root {
	case ProcNull:
		return nil
	case Root:
		if err := n.Send(0, asBytes(buf)); err != nil {
			return fmt.Errorf("mpi: %s: %w", op, err)
		}
		return nil
	}
	var err error
	if c.rank == 0 {
		got, rerr := n.Recv(root, asBytes(buf))
		err = errors.Join(rerr, lengthErr(got, len(asBytes(buf))))
	}
	return interFinish(op, err, Bcast(c.inter.local, buf, 0))
}

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
func interInputs[T Type](c *Comm, op string, send, recv []T, need int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if send == nil {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w: in place (a nil send buffer) is not allowed", op, ErrBuffer)
	}
	if len(recv) < need {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w: the receive buffer holds %d elements, not %d", op, ErrBuffer, len(recv), need)
	}
	return nil
}

// interAllreduce is Allreduce on the intercommunicator c: each process's
// recv gets the combination of the other group's send buffers.
func interAllreduce[T Type](c *Comm, send, recv []T, op Op) error {
	const name = "Allreduce"
	if err := interInputs(c, name, send, recv, len(send)); err != nil {
		return err
	}
	if _, err := collectives.ReducerFor[T](op); err != nil {
		return fmt.Errorf("mpi: %s on an intercommunicator: %w", name, err)
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	n := &commNet{c: c, tag: c.nextTag()}
	var part []T
	if c.rank == 0 {
		part = make([]T, len(send))
	}
	err := Reduce(c.inter.local, send, part, op, 0)
	out := recv[:len(send)]
	if c.rank == 0 {
		got, xerr := n.Sendrecv(0, asBytes(part), 0, asBytes(out))
		err = errors.Join(err, xerr, lengthErr(got, len(asBytes(out))))
	}
	return interFinish(name, err, Bcast(c.inter.local, out, 0))
}

// interAllgather is Allgather on the intercommunicator c: each process's
// recv gets the send buffers of the other group's processes, rank i's at
// recv[i*len(send):].
func interAllgather[T Type](c *Comm, send, recv []T) error {
	const name = "Allgather"
	if err := interInputs(c, name, send, recv, c.size*len(send)); err != nil {
		return err
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	n := &commNet{c: c, tag: c.nextTag()}
	var all []T
	if c.rank == 0 {
		all = make([]T, c.inter.local.size*len(send))
	}
	err := Gather(c.inter.local, send, all, 0)
	out := recv[:c.size*len(send)]
	if c.rank == 0 {
		got, xerr := n.Sendrecv(0, asBytes(all), 0, asBytes(out))
		err = errors.Join(err, xerr, lengthErr(got, len(asBytes(out))))
	}
	return interFinish(name, err, Bcast(c.inter.local, out, 0))
}
