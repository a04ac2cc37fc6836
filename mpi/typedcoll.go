package mpi

import (
	"fmt"
	"math"

	"github.com/rhinet-go/martini/collectives"
)

// Collectives with derived datatypes (MPI's collectives called with a
// datatype other than the buffer's element): each side of a call is count
// items of a Datatype in a buffer of elements of T. The items are packed
// into one run of elements before the data moves and unpacked after it,
// with no copy where the datatype is contiguous. What moves is compared in
// elements, as MPI compares type signatures: a block's count times its
// datatype's Size must equal the count times Size of the side that
// receives it, else the call fails with an error wrapping ErrMismatch on
// every process (on those that receive the wrong size only with mpirun
// -no-coll-check). A side that does not fit its buffer is an error
// wrapping ErrBuffer or ErrDatatype, on every process as well.

// items is count items of dt in buf: one side of a collective with a
// derived datatype.
type items[T Type] struct {
	buf   []T
	count int
	dt    *Datatype
}

// check reports items that do not fit their buffer; what names the side.
func (it items[T]) check(what string) error {
	if err := it.dt.fits(it.count, len(it.buf)); err != nil {
		return fmt.Errorf("the %s: %w", what, err)
	}
	return nil
}

// elems returns the number of elements the items hold.
func (it items[T]) elems() int { return it.count * it.dt.size }

// load returns the items as one run of elements: the buffer itself where
// the datatype is contiguous, else a packed copy.
func (it items[T]) load() []T {
	if it.dt.contiguous() {
		return it.buf[:it.elems()]
	}
	out := make([]T, it.elems())
	gather(it.buf, it.count, it.dt, out)
	return out
}

// space returns where to receive the items as one run of elements: the
// buffer itself where the datatype is contiguous, else scratch for store.
func (it items[T]) space() []T {
	if it.dt.contiguous() {
		return it.buf[:it.elems()]
	}
	return make([]T, it.elems())
}

// store unpacks run, which space or load returned, into the items.
func (it items[T]) store(run []T) {
	if !it.dt.contiguous() {
		scatter(run, it.buf, it.count, it.dt)
	}
}

// times returns n·count items of the same datatype in the same buffer:
// the side of a root or of a receive that holds a block per process.
// Where n·count overflows, the count is math.MaxInt, so that check finds
// the items past the buffer.
func (it items[T]) times(n int) items[T] {
	c, ok := mulInt(n, it.count)
	if !ok {
		c = math.MaxInt
	}
	return items[T]{it.buf, c, it.dt}
}

// sendBytes views a run of elements to send as bytes, never nil (nil
// means in place to the collectives).
func sendBytes[T Type](run []T) []byte {
	if b := asBytes(run); b != nil {
		return b
	}
	return noBytes
}

// signature reports a process's send and receive blocks of different
// sizes, where it sends to itself.
func signature(send, recv int) error {
	if send == recv {
		return nil
	}
	return fmt.Errorf("%w: the send block holds %d elements and a receive block %d (the type signatures differ)", ErrMismatch, send, recv)
}

// validate returns the first of errs that is not nil, published with
// u.Fail so that every process of the collective fails with it.
func validate(u *collectives.Runner, coll collectives.Collective, errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return u.Fail(coll, err)
		}
	}
	return nil
}

// BcastType broadcasts count items of dt in buf from rank root to the
// buf of every other process of c (MPI_Bcast with a derived datatype).
// Each process may pass its own count and datatype: count·dt.Size() must
// be the same everywhere.
func BcastType[T Type](c *Comm, buf []T, count int, dt *Datatype, root int) error {
	return c.collective("BcastType", bcastTypeBody(items[T]{buf, count, dt}, root))
}

// IbcastType starts BcastType (MPI_Ibcast with a derived datatype).
func IbcastType[T Type](c *Comm, buf []T, count int, dt *Datatype, root int) (*Request, error) {
	return c.startTyped("IbcastType", argsBcast, bcastTypeBody(items[T]{buf, count, dt}, root))
}

func bcastTypeBody[T Type](it items[T], root int) collBody {
	return func(u *collectives.Runner) error {
		if err := validate(u, collectives.CollBcast, it.check("buffer")); err != nil {
			return err
		}
		var run []T
		if u.Net.Rank() == root {
			run = it.load()
		} else {
			run = it.space()
		}
		if err := u.Bcast(asBytes(run), root, sizeOf[T]()); err != nil {
			return err
		}
		if u.Net.Rank() != root {
			it.store(run)
		}
		return nil
	}
}

// GatherType collects scount items of stype from the send of every
// process of c into recv at root, rank i's as rcount items of rtype
// starting at item i·rcount, i.e. at recv[i·rcount·rtype.Extent():]
// (MPI_Gather with derived datatypes); recv, rcount and rtype matter at
// the root only. A column type resized to an extent of one element
// gathers the processes' columns side by side. A nil send at the root
// means in place: its block is already in recv.
func GatherType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) error {
	return c.collective("GatherType", gatherTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}, root))
}

// IgatherType starts GatherType (MPI_Igather with derived datatypes).
func IgatherType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) (*Request, error) {
	return c.startTyped("IgatherType", argsGather, gatherTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}, root))
}

func gatherTypeBody[T Type](s items[T], inPlace bool, r items[T], root int) collBody {
	return func(u *collectives.Runner) error {
		atRoot := u.Net.Rank() == root
		all := r.times(u.Net.Size())
		var errs []error
		if !inPlace || !atRoot {
			errs = append(errs, s.check("send buffer"))
		}
		if atRoot {
			errs = append(errs, all.check("receive buffer"))
			if !inPlace {
				errs = append(errs, signature(s.elems(), r.elems()))
			}
		}
		if err := validate(u, collectives.CollGather, errs...); err != nil {
			return err
		}
		var send []byte
		if !inPlace || !atRoot {
			send = sendBytes(s.load())
		}
		var run []T
		switch {
		case atRoot && inPlace:
			run = all.load() // the root's own block among the others
		case atRoot:
			run = all.space()
		}
		if err := u.Gather(send, asBytes(run), root, sizeOf[T]()); err != nil {
			return err
		}
		if atRoot {
			all.store(run)
		}
		return nil
	}
}

// ScatterType sends block i of root's send, scount items of stype
// starting at item i·scount, to rank i of c, which receives it as rcount
// items of rtype in recv (MPI_Scatter with derived datatypes); send,
// scount and stype matter at the root only. A Subarray type resized to
// the extent of one block row scatters the blocks of a 2-D matrix. A nil
// recv at the root means in place: its block stays in send.
func ScatterType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) error {
	return c.collective("ScatterType", scatterTypeBody(items[T]{send, scount, stype}, items[T]{recv, rcount, rtype}, recv == nil, root))
}

// IscatterType starts ScatterType (MPI_Iscatter with derived datatypes).
func IscatterType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) (*Request, error) {
	return c.startTyped("IscatterType", argsScatter, scatterTypeBody(items[T]{send, scount, stype}, items[T]{recv, rcount, rtype}, recv == nil, root))
}

func scatterTypeBody[T Type](s, r items[T], inPlace bool, root int) collBody {
	return func(u *collectives.Runner) error {
		atRoot := u.Net.Rank() == root
		all := s.times(u.Net.Size())
		var errs []error
		if atRoot {
			errs = append(errs, all.check("send buffer"))
			if !inPlace {
				errs = append(errs, signature(s.elems(), r.elems()))
			}
		}
		if !inPlace || !atRoot {
			errs = append(errs, r.check("receive buffer"))
		}
		if err := validate(u, collectives.CollScatter, errs...); err != nil {
			return err
		}
		var send []byte
		if atRoot {
			send = sendBytes(all.load())
		}
		var run []T
		var recv []byte
		if !inPlace || !atRoot {
			run = r.space()
			recv = sendBytes(run)
		}
		if err := u.Scatter(send, recv, root, sizeOf[T]()); err != nil {
			return err
		}
		if run != nil {
			r.store(run)
		}
		return nil
	}
}

// AllgatherType collects scount items of stype from the send of every
// process of c into every process's recv, rank i's as rcount items of
// rtype starting at item i·rcount (MPI_Allgather with derived
// datatypes). A nil send means in place: each process's block is already
// in its recv.
func AllgatherType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype) error {
	return c.collective("AllgatherType", allgatherTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}))
}

// IallgatherType starts AllgatherType (MPI_Iallgather with derived
// datatypes).
func IallgatherType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype) (*Request, error) {
	return c.startTyped("IallgatherType", argsAllgather, allgatherTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}))
}

func allgatherTypeBody[T Type](s items[T], inPlace bool, r items[T]) collBody {
	return func(u *collectives.Runner) error {
		all := r.times(u.Net.Size())
		errs := []error{all.check("receive buffer")}
		if !inPlace {
			errs = append(errs, s.check("send buffer"), signature(s.elems(), r.elems()))
		}
		if err := validate(u, collectives.CollAllgather, errs...); err != nil {
			return err
		}
		var send []byte
		var run []T
		if inPlace {
			run = all.load()
		} else {
			send, run = sendBytes(s.load()), all.space()
		}
		if err := u.Allgather(send, sendBytes(run), sizeOf[T]()); err != nil {
			return err
		}
		all.store(run)
		return nil
	}
}

// AlltoallType sends block j of every process's send, scount items of
// stype starting at item j·scount, to rank j of c, which receives rank
// i's block as rcount items of rtype starting at item i·rcount of recv
// (MPI_Alltoall with derived datatypes). A nil send means in place: the
// blocks are taken from recv.
func AlltoallType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype) error {
	return c.collective("AlltoallType", alltoallTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}))
}

// IalltoallType starts AlltoallType (MPI_Ialltoall with derived
// datatypes).
func IalltoallType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcount int, rtype *Datatype) (*Request, error) {
	return c.startTyped("IalltoallType", argsAlltoall, alltoallTypeBody(items[T]{send, scount, stype}, send == nil, items[T]{recv, rcount, rtype}))
}

func alltoallTypeBody[T Type](s items[T], inPlace bool, r items[T]) collBody {
	return func(u *collectives.Runner) error {
		n := u.Net.Size()
		sall, rall := s.times(n), r.times(n)
		errs := []error{rall.check("receive buffer")}
		if !inPlace {
			errs = append(errs, sall.check("send buffer"), signature(s.elems(), r.elems()))
		}
		if err := validate(u, collectives.CollAlltoall, errs...); err != nil {
			return err
		}
		var send []byte
		var run []T
		if inPlace {
			run = rall.load()
		} else {
			send, run = sendBytes(sall.load()), rall.space()
		}
		if err := u.Alltoall(send, sendBytes(run), sizeOf[T]()); err != nil {
			return err
		}
		rall.store(run)
		return nil
	}
}
