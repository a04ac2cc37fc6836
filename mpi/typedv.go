package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// The v-collectives with derived datatypes: the vector side of a call
// (the root's in Gatherv and Scatterv, the receive side of Allgatherv,
// both sides of Alltoallv) is counts[i] items of one datatype starting at
// item displs[i] of the buffer, i.e. at element displs[i]·Extent(), as
// MPI counts displacements in extents of the datatype. The blocks travel
// as one run of elements, packed and unpacked around the data movement
// unless the datatype is contiguous.

// vSide returns the vector side of n blocks: counts[i] items of dt at
// item displs[i] of buf; what names it.
func vSide[T Type](buf []T, counts, displs []int, dt *Datatype, n int, what string) (wSide[T], error) {
	d, types, err := perPeer(counts, displs, dt, what)
	if err != nil {
		return wSide[T]{}, err
	}
	return newWSide(buf, counts, d, types, n, what)
}

// elemsOf returns the number of elements of block i of w.
func elemsOf[T Type](w wSide[T], i int) int { return w.blocks[i].elems() }

// GathervType collects scount items of stype from the send of every
// process of c into recv at root, rank i's as rcounts[i] items of rtype
// starting at item rdispls[i] (MPI_Gatherv with derived datatypes);
// recv, rcounts, rdispls and rtype matter at the root only. A nil send at
// the root means in place: its block is already in recv.
func GathervType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype, root int) error {
	return c.collective("GathervType", gathervTypeBody(items[T]{send, scount, stype}, send == nil, recv, rcounts, rdispls, rtype, root))
}

// IgathervType starts GathervType (MPI_Igatherv with derived datatypes).
func IgathervType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype, root int) (*Request, error) {
	return c.start("IgathervType", gathervTypeBody(items[T]{send, scount, stype}, send == nil, recv, rcounts, rdispls, rtype, root))
}

func gathervTypeBody[T Type](s items[T], inPlace bool, recv []T, rcounts, rdispls []int, rtype *Datatype, root int) collBody {
	return func(u *collectives.Runner) error {
		n, atRoot := u.Net.Size(), u.Net.Rank() == root
		var r wSide[T]
		var errs []error
		if !inPlace || !atRoot {
			errs = append(errs, s.check("send buffer"))
		}
		if atRoot {
			var err error
			r, err = vSide(recv, rcounts, rdispls, rtype, n, "receive")
			errs = append(errs, err)
			if err == nil && !inPlace {
				errs = append(errs, signature(s.elems(), elemsOf(r, root)))
			}
		}
		if err := validate(u, collectives.CollGatherv, errs...); err != nil {
			return err
		}
		var send []byte
		if !inPlace || !atRoot {
			send = sendBytes(s.load())
		}
		if !atRoot {
			return u.Gatherv(send, nil, nil, nil, root, sizeOf[T]())
		}
		direct := r.direct()
		run, counts, displs := r.layout(direct, inPlace) // in place, the root's block is packed among the others
		if err := u.Gatherv(send, asBytes(run), counts, displs, root, sizeOf[T]()); err != nil {
			return err
		}
		if !direct {
			r.unpack(run)
		}
		return nil
	}
}

// ScattervType sends scounts[i] items of stype starting at item
// sdispls[i] of root's send to rank i of c, which receives them as
// rcount items of rtype in recv (MPI_Scatterv with derived
// datatypes); send, scounts, sdispls and stype matter at the root only. A
// nil recv at the root means in place: its block stays in send.
func ScattervType[T Type](c *Comm, send []T, scounts, sdispls []int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) error {
	return c.collective("ScattervType", scattervTypeBody(send, scounts, sdispls, stype, items[T]{recv, rcount, rtype}, recv == nil, root))
}

// IscattervType starts ScattervType (MPI_Iscatterv with derived
// datatypes).
func IscattervType[T Type](c *Comm, send []T, scounts, sdispls []int, stype *Datatype, recv []T, rcount int, rtype *Datatype, root int) (*Request, error) {
	return c.start("IscattervType", scattervTypeBody(send, scounts, sdispls, stype, items[T]{recv, rcount, rtype}, recv == nil, root))
}

func scattervTypeBody[T Type](send []T, scounts, sdispls []int, stype *Datatype, r items[T], inPlace bool, root int) collBody {
	return func(u *collectives.Runner) error {
		n, atRoot := u.Net.Size(), u.Net.Rank() == root
		var s wSide[T]
		var errs []error
		if atRoot {
			var err error
			s, err = vSide(send, scounts, sdispls, stype, n, "send")
			errs = append(errs, err)
			if err == nil && !inPlace {
				errs = append(errs, signature(elemsOf(s, root), r.elems()))
			}
		}
		if !inPlace || !atRoot {
			errs = append(errs, r.check("receive buffer"))
		}
		if err := validate(u, collectives.CollScatterv, errs...); err != nil {
			return err
		}
		var run []T
		var recv []byte
		if !inPlace || !atRoot {
			run = r.space()
			recv = sendBytes(run)
		}
		var sbuf []byte
		var counts, displs []int
		if atRoot {
			all, c, d := s.layout(s.direct(), true)
			sbuf, counts, displs = sendBytes(all), c, d
		}
		if err := u.Scatterv(sbuf, counts, displs, recv, root, sizeOf[T]()); err != nil {
			return err
		}
		if run != nil {
			r.store(run)
		}
		return nil
	}
}

// AllgathervType collects scount items of stype from the send of every
// process of c into every process's recv, rank i's as rcounts[i] items
// of rtype starting at item rdispls[i] (MPI_Allgatherv with derived
// datatypes). A nil send means in place: each process's block is already
// in its recv.
func AllgathervType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype) error {
	return c.collective("AllgathervType", allgathervTypeBody(items[T]{send, scount, stype}, send == nil, recv, rcounts, rdispls, rtype))
}

// IallgathervType starts AllgathervType (MPI_Iallgatherv with derived
// datatypes).
func IallgathervType[T Type](c *Comm, send []T, scount int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype) (*Request, error) {
	return c.start("IallgathervType", allgathervTypeBody(items[T]{send, scount, stype}, send == nil, recv, rcounts, rdispls, rtype))
}

func allgathervTypeBody[T Type](s items[T], inPlace bool, recv []T, rcounts, rdispls []int, rtype *Datatype) collBody {
	return func(u *collectives.Runner) error {
		n, rank := u.Net.Size(), u.Net.Rank()
		r, err := vSide(recv, rcounts, rdispls, rtype, n, "receive")
		errs := []error{err}
		if err == nil && !inPlace {
			errs = append(errs, s.check("send buffer"), signature(s.elems(), elemsOf(r, rank)))
		}
		if err := validate(u, collectives.CollAllgatherv, errs...); err != nil {
			return err
		}
		var send []byte
		if !inPlace {
			send = sendBytes(s.load())
		}
		direct := r.direct()
		run, counts, displs := r.layout(direct, inPlace)
		if err := u.Allgatherv(send, sendBytes(run), counts, displs, sizeOf[T]()); err != nil {
			return err
		}
		if !direct {
			r.unpack(run)
		}
		return nil
	}
}

// AlltoallvType sends scounts[j] items of stype starting at item
// sdispls[j] of every process's send to rank j of c, which receives rank
// i's as rcounts[i] items of rtype starting at item rdispls[i] of recv
// (MPI_Alltoallv with derived datatypes): Alltoallw with the same
// datatype for every peer and displacements in items. A nil send means
// in place: the blocks are taken from recv.
func AlltoallvType[T Type](c *Comm, send []T, scounts, sdispls []int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype) error {
	return c.collective("AlltoallvType", alltoallvTypeBody(send, scounts, sdispls, stype, recv, rcounts, rdispls, rtype))
}

// IalltoallvType starts AlltoallvType (MPI_Ialltoallv with derived
// datatypes).
func IalltoallvType[T Type](c *Comm, send []T, scounts, sdispls []int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype) (*Request, error) {
	return c.start("IalltoallvType", alltoallvTypeBody(send, scounts, sdispls, stype, recv, rcounts, rdispls, rtype))
}

func alltoallvTypeBody[T Type](send []T, scounts, sdispls []int, stype *Datatype, recv []T, rcounts, rdispls []int, rtype *Datatype) collBody {
	return func(u *collectives.Runner) error {
		if send == nil {
			stype, scounts, sdispls = rtype, rcounts, rdispls
		}
		sd, st, serr := perPeer(scounts, sdispls, stype, "send")
		rd, rt, rerr := perPeer(rcounts, rdispls, rtype, "receive")
		if err := validate(u, collectives.CollAlltoallv, serr, rerr); err != nil {
			return err
		}
		if send == nil {
			scounts, sd, st = nil, nil, nil
		}
		return alltoallwBody(send, scounts, sd, st, recv, rcounts, rd, rt)(u)
	}
}

// perPeer returns Alltoallw's displacements (in elements) and datatypes
// for the blocks of counts items of dt at item displs.
func perPeer(counts, displs []int, dt *Datatype, what string) ([]int, []*Datatype, error) {
	if dt == nil {
		return nil, nil, fmt.Errorf("the %s datatype: %w: nil", what, ErrDatatype)
	}
	types := make([]*Datatype, len(counts))
	for i := range types {
		types[i] = dt
	}
	d := make([]int, len(displs))
	for i, x := range displs {
		var ok bool
		if d[i], ok = mulInt(x, dt.extent); !ok {
			return nil, nil, fmt.Errorf("the %s block %d: %w: its displacement, item %d of extent %d, overflows an int", what, i, ErrBuffer, x, dt.extent)
		}
	}
	return d, types, nil
}
