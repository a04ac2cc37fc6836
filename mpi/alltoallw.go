package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

// wSide is one side of an Alltoallw: a block of items per peer, each at
// its displacement in the same buffer.
type wSide[T Type] struct {
	buf    []T
	blocks []items[T] // block j: counts[j] items of types[j] at buf[displs[j]:]
	displs []int
}

// newWSide checks and returns the side of n blocks in buf; what names
// it.
func newWSide[T Type](buf []T, counts, displs []int, types []*Datatype, n int, what string) (wSide[T], error) {
	if len(counts) != n || len(displs) != n || len(types) != n {
		return wSide[T]{}, fmt.Errorf("%w: %d %s counts, %d displacements and %d datatypes for %d peers",
			ErrCount, len(counts), what, len(displs), len(types), n)
	}
	w := wSide[T]{buf: buf, blocks: make([]items[T], n), displs: displs}
	for j := range n {
		d := displs[j]
		if d < 0 || d > len(buf) {
			return wSide[T]{}, fmt.Errorf("%w: %s block %d is at displacement %d, outside the buffer of %d elements", ErrBuffer, what, j, d, len(buf))
		}
		w.blocks[j] = items[T]{buf[d:], counts[j], types[j]}
		if err := w.blocks[j].check(fmt.Sprintf("%s block %d", what, j)); err != nil {
			return wSide[T]{}, err
		}
	}
	return w, nil
}

// direct reports whether every block is contiguous, so that the data
// moves from or to the buffer itself.
func (w wSide[T]) direct() bool {
	for _, b := range w.blocks {
		if !b.dt.contiguous() {
			return false
		}
	}
	return true
}

// layout returns the run of elements the blocks move through and each
// block's count and displacement in it, in bytes: the buffer itself when
// direct, else scratch with the blocks one after another, packed into it
// if pack is set.
func (w wSide[T]) layout(direct, pack bool) (run []T, counts, displs []int) {
	e := sizeOf[T]()
	counts, displs = make([]int, len(w.blocks)), make([]int, len(w.blocks))
	total := 0
	for j, b := range w.blocks {
		counts[j] = b.elems() * e
		if direct {
			displs[j] = w.displs[j] * e
		} else {
			displs[j] = total * e
		}
		total += b.elems()
	}
	if direct {
		return w.buf, counts, displs
	}
	run = make([]T, total)
	if pack {
		at := 0
		for _, b := range w.blocks {
			at += gather(b.buf, b.count, b.dt, run[at:])
		}
	}
	return run, counts, displs
}

// unpack copies the blocks out of run, which layout returned without
// direct.
func (w wSide[T]) unpack(run []T) {
	at := 0
	for _, b := range w.blocks {
		scatter(run[at:at+b.elems()], b.buf, b.count, b.dt)
		at += b.elems()
	}
}

// Alltoallw sends scounts[j] items of stypes[j] at send[sdispls[j]:] to
// rank j of c, which receives them as rcounts[i] items of rtypes[i] at
// recv[rdispls[i]:] for sender i (MPI_Alltoallw). A Go slice has one
// element type, so the per-peer datatypes are derived datatypes over T
// (Element for plain elements), and the displacements count elements of
// T where MPI's count bytes. The elements a process sends to a peer must
// be as many as the peer receives from it (MPI's type signatures), else
// the peer fails with ErrMismatch (the others may not know). Where every
// datatype of a side is contiguous, the data moves from or to the buffer
// without a copy. A nil send means in place: the blocks are taken from
// recv, with the receive counts, displacements and datatypes. On an
// intercommunicator, the counts, displacements and datatypes name the
// other group's ranks, and in place is not allowed.
func Alltoallw[T Type](c *Comm, send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) error {
	if c.IsInter() {
		_, err := interAlltoallw(c, "Alltoallw", true, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
		return err
	}
	return c.collective("Alltoallw", alltoallwBody(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes))
}

// Ialltoallw starts Alltoallw (MPI_Ialltoallw).
func Ialltoallw[T Type](c *Comm, send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	if c.IsInter() {
		return interAlltoallw(c, "Ialltoallw", false, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	}
	return c.start("Ialltoallw", alltoallwBody(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes))
}

func alltoallwBody[T Type](send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) collBody {
	return func(u *collectives.Runner) error {
		n := u.Net.Size()
		inPlace := send == nil
		if inPlace {
			send, scounts, sdispls, stypes = recv, rcounts, rdispls, rtypes
		}
		s, serr := newWSide(send, scounts, sdispls, stypes, n, "send")
		r, rerr := newWSide(recv, rcounts, rdispls, rtypes, n, "receive")
		if err := validate(u, collectives.CollAlltoallv, serr, rerr); err != nil {
			return err
		}
		// In place, the blocks are packed out of recv before it is written.
		sbuf, sc, sd := s.layout(s.direct() && !inPlace, true)
		rdirect := r.direct()
		rbuf, rc, rd := r.layout(rdirect, false)
		if err := u.Alltoallv(asBytes(sbuf), sc, sd, asBytes(rbuf), rc, rd, sizeOf[T]()); err != nil {
			return err
		}
		if !rdirect {
			r.unpack(rbuf)
		}
		return nil
	}
}

// NeighborAlltoallw sends scounts[j] items of stypes[j] at
// send[sdispls[j]:] to out-neighbour j of the calling process in c's
// topology and receives rcounts[i] items of rtypes[i] at
// recv[rdispls[i]:] from in-neighbour i (MPI_Neighbor_alltoallw). As in
// Alltoallw, the datatypes are derived datatypes over T and the
// displacements count elements of T, not bytes.
func NeighborAlltoallw[T Type](c *Comm, send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) error {
	blocks, then := alltoallwBlocks(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	_, err := c.neighborRunThen("NeighborAlltoallw", false, blocks, then)
	return err
}

// IneighborAlltoallw starts NeighborAlltoallw (MPI_Ineighbor_alltoallw);
// the buffers must not be touched until the Request completes.
func IneighborAlltoallw[T Type](c *Comm, send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) (*Request, error) {
	blocks, then := alltoallwBlocks(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.neighborRunThen("IneighborAlltoallw", true, blocks, then)
}

// alltoallwBlocks returns the blocks of a neighbourhood Alltoallw and
// what unpacks the received ones once the exchange is through.
func alltoallwBlocks[T Type](send []T, scounts, sdispls []int, stypes []*Datatype, recv []T, rcounts, rdispls []int, rtypes []*Datatype) (func(int, int) ([][]byte, [][]byte, error), func()) {
	var r wSide[T]
	var runs [][]T
	blocks := func(indeg, outdeg int) ([][]byte, [][]byte, error) {
		s, err := newWSide(send, scounts, sdispls, stypes, outdeg, "send")
		if err != nil {
			return nil, nil, err
		}
		if r, err = newWSide(recv, rcounts, rdispls, rtypes, indeg, "receive"); err != nil {
			return nil, nil, err
		}
		sb := make([][]byte, outdeg)
		for j, b := range s.blocks {
			sb[j] = asBytes(b.load())
		}
		rb := make([][]byte, indeg)
		runs = make([][]T, indeg)
		for i, b := range r.blocks {
			runs[i] = b.space()
			rb[i] = asBytes(runs[i])
		}
		return rb, sb, nil
	}
	then := func() {
		for i, b := range r.blocks {
			b.store(runs[i])
		}
	}
	return blocks, then
}
