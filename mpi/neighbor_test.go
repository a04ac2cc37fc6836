package mpi_test

// Multi-process tests of the neighbourhood collectives on Cartesian grids
// (periodic or not, with processes that are their own neighbours),
// graphs and distributed graphs (with repeated edges), blocking and
// nonblocking, small and past the eager limit, and their error cases.

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["topo-neighbor"] = scenarioNeighbor
	scenarios["topo-neighbor-errors"] = scenarioNeighborErrors
}

func TestNeighborCollectives(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"topo-neighbor", "topo-neighbor-errors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAt(t, name, topoSizes())
		})
	}
}

// nbhood is a communicator with a topology and what the test expects of
// it: every rank's in- and out-neighbours, and which of its out-blocks a
// sender sends to slot i of rank me.
type nbhood struct {
	name    string
	comm    *mpi.Comm
	in, out func(r int) []int
	block   func(me, i int) int
}

// cartHood returns the grid of dims over w with its expectations: the
// neighbours below and above along each dimension, block 2d+1 of the one
// below (sent up) landing in slot 2d.
func cartHood(w *mpi.Comm, dims []int, periods []bool) (nbhood, error) {
	c, err := w.CartCreate(dims, periods, false)
	if err != nil {
		return nbhood{}, err
	}
	both := func(r int) []int {
		me := rowMajor(r, dims)
		var out []int
		for d := range dims {
			out = append(out, shifted(me, dims, periods, d, -1), shifted(me, dims, periods, d, 1))
		}
		return out
	}
	return nbhood{name: fmt.Sprintf("grid %v periods %v", dims, periods), comm: c, in: both, out: both,
		block: func(_, i int) int { return i ^ 1 }}, nil
}

// graphHood completes a graph's expectations: the k-th time a sender
// appears among me's in-neighbours, its block is the one of the k-th time
// me appears among its out-neighbours.
func graphHood(name string, c *mpi.Comm, in, out func(r int) []int) nbhood {
	block := func(me, i int) int {
		s := in(me)[i]
		k := countIn(in(me)[:i], s)
		for j, d := range out(s) {
			if d == me {
				if k == 0 {
					return j
				}
				k--
			}
		}
		return -1
	}
	return nbhood{name: name, comm: c, in: in, out: out, block: block}
}

func countIn(s []int, v int) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// hoods makes the topologies the neighbourhood collectives are tested on.
func hoods(w *mpi.Comm) ([]nbhood, error) {
	n := w.Size()
	var hs []nbhood
	d2, _ := mpi.DimsCreate(n, []int{0, 0})
	d3, _ := mpi.DimsCreate(n, []int{0, 0, 0})
	for _, g := range []struct {
		dims    []int
		periods []bool
	}{
		{[]int{n}, []bool{true}},
		{[]int{n}, []bool{false}},
		{d2, []bool{true, false}},
		{[]int{1, n}, []bool{true, true}}, // its own neighbour along dimension 0
		{d3, []bool{false, true, false}},
	} {
		h, err := cartHood(w, g.dims, g.periods)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	index, edges := ringGraph(n)
	g, err := w.GraphCreate(index, edges, false)
	if err != nil {
		return nil, err
	}
	ring := func(r int) []int { return edges[2*r : 2*r+2] }
	hs = append(hs, graphHood("ring graph", g, ring, ring))
	src, dst := distRing(w.Rank(), n)
	d, err := w.DistGraphCreateAdjacent(src, nil, dst, nil, false)
	if err != nil {
		return nil, err
	}
	hs = append(hs, graphHood("distributed ring", d,
		func(r int) []int { s, _ := distRing(r, n); return s },
		func(r int) []int { _, t := distRing(r, n); return t }))
	// Every rank gives its own edges to 2r+1 and to itself: the
	// in-neighbours are ordered by the rank that gave the edge.
	outs := func(r int) []int { return []int{(2*r + 1) % n, r} }
	ins := func(r int) []int {
		var in []int
		for s := range n {
			for _, t := range outs(s) {
				if t == r {
					in = append(in, s)
				}
			}
		}
		return in
	}
	e, err := w.DistGraphCreate([]int{w.Rank()}, []int{2}, outs(w.Rank()), nil, false)
	if err != nil {
		return nil, err
	}
	return append(hs, graphHood("distributed graph 2r+1", e, ins, outs)), nil
}

// value is element e of out-block j of rank s.
func value(s, j, e int) int64 { return int64(s*100000 + j*1000 + e) }

func scenarioNeighbor(w *mpi.Comm) error {
	hs, err := hoods(w)
	if err != nil {
		return err
	}
	for _, h := range hs {
		for _, check := range []func(nbhood) error{checkAllgather, checkAllgatherv, checkAlltoallv, checkNonblocking} {
			if err := check(h); err != nil {
				return fmt.Errorf("%s: %w", h.name, err)
			}
		}
		for _, blk := range []int{0, 1, 3, 5000} { // 5000 float64 are past the eager limit
			if err := checkAlltoall(h, blk); err != nil {
				return fmt.Errorf("%s: blocks of %d: %w", h.name, blk, err)
			}
		}
		if err := h.comm.Free(); err != nil {
			return err
		}
	}
	return nil
}

// expectBlock compares slot i of rank me's receive buffer with what its
// in-neighbour sends; a ProcNull neighbour's slot keeps -1.
func expectBlock[T int32 | int64 | float64](h nbhood, me, i int, got []T, from func(s, j, e int) int64) error {
	s := h.in(me)[i]
	for e, v := range got {
		want := int64(-1)
		if s != mpi.ProcNull {
			want = from(s, h.block(me, i), e)
		}
		if int64(v) != want {
			return fmt.Errorf("slot %d (from rank %d), element %d: got %v, want %d", i, s, e, v, want)
		}
	}
	return nil
}

func minusOnes[T mpi.Type](n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(0) - 1
	}
	return s
}

func checkAllgather(h nbhood) error {
	me := h.comm.Rank()
	send := []int64{value(me, 0, 0), value(me, 0, 1)}
	in := h.in(me)
	recv := minusOnes[int64](2 * len(in))
	if err := mpi.NeighborAllgather(h.comm, send, recv); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, recv[2*i:2*i+2], func(s, _, e int) int64 { return value(s, 0, e) }); err != nil {
			return fmt.Errorf("NeighborAllgather: %w", err)
		}
	}
	return nil
}

func checkAlltoall(h nbhood, blk int) error {
	me := h.comm.Rank()
	out, in := h.out(me), h.in(me)
	send := make([]float64, blk*len(out))
	for j := range out {
		for e := range blk {
			send[j*blk+e] = float64(value(me, j, e))
		}
	}
	recv := minusOnes[float64](blk * len(in))
	if err := mpi.NeighborAlltoall(h.comm, send, recv); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, recv[i*blk:(i+1)*blk], value); err != nil {
			return fmt.Errorf("NeighborAlltoall: %w", err)
		}
	}
	return nil
}

// sendLen is the length of rank s's block j in the v tests.
func sendLen(s, j int) int { return 1 + (s+j)%3 }

// gapped returns displacements for counts with a gap of one element
// after each block, and the length they need.
func gapped(counts []int) (displs []int, n int) {
	displs = make([]int, len(counts))
	for i, c := range counts {
		displs[i] = n
		n += c + 1
	}
	return displs, n
}

func checkAllgatherv(h nbhood) error {
	me := h.comm.Rank()
	send := make([]int32, sendLen(me, 0))
	for e := range send {
		send[e] = int32(value(me, 0, e))
	}
	in := h.in(me)
	counts := make([]int, len(in))
	for i, s := range in {
		counts[i] = 2
		if s != mpi.ProcNull {
			counts[i] = sendLen(s, 0)
		}
	}
	displs, total := gapped(counts)
	recv := minusOnes[int32](total)
	if err := mpi.NeighborAllgatherv(h.comm, send, recv, counts, displs); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, recv[displs[i]:][:counts[i]], func(s, _, e int) int64 { return value(s, 0, e) }); err != nil {
			return fmt.Errorf("NeighborAllgatherv: %w", err)
		}
		if g := recv[displs[i]+counts[i]]; g != -1 {
			return fmt.Errorf("NeighborAllgatherv wrote %d in the gap after slot %d", g, i)
		}
	}
	return nil
}

func checkAlltoallv(h nbhood) error {
	me := h.comm.Rank()
	out, in := h.out(me), h.in(me)
	scounts := make([]int, len(out))
	for j := range out {
		scounts[j] = sendLen(me, j)
	}
	sdispls, stotal := gapped(scounts)
	send := make([]int64, stotal)
	for j := range out {
		for e := range scounts[j] {
			send[sdispls[j]+e] = value(me, j, e)
		}
	}
	rcounts := make([]int, len(in))
	for i, s := range in {
		rcounts[i] = 1
		if s != mpi.ProcNull {
			rcounts[i] = sendLen(s, h.block(me, i))
		}
	}
	rdispls, rtotal := gapped(rcounts)
	recv := minusOnes[int64](rtotal)
	if err := mpi.NeighborAlltoallv(h.comm, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, recv[rdispls[i]:][:rcounts[i]], value); err != nil {
			return fmt.Errorf("NeighborAlltoallv: %w", err)
		}
		if g := recv[rdispls[i]+rcounts[i]]; g != -1 {
			return fmt.Errorf("NeighborAlltoallv wrote %d in the gap after slot %d", g, i)
		}
	}
	return nil
}

// checkNonblocking starts an alltoall and an allgather, with a blocking
// allgather on the same communicator in between, and completes them.
func checkNonblocking(h nbhood) error {
	if err := checkNonblockingFixed(h); err != nil {
		return err
	}
	return checkNonblockingVector(h)
}

// checkNonblockingFixed starts IneighborAlltoall, runs a blocking
// allgather, starts IneighborAllgather, completes both and checks them.
func checkNonblockingFixed(h nbhood) error {
	me := h.comm.Rank()
	out, in := h.out(me), h.in(me)
	send := make([]int64, len(out))
	for j := range out {
		send[j] = value(me, j, 0)
	}
	a2a, gath := minusOnes[int64](len(in)), minusOnes[int64](len(in))
	r1, err := mpi.IneighborAlltoall(h.comm, send, a2a)
	if err != nil {
		return err
	}
	if err := checkAllgather(h); err != nil {
		return fmt.Errorf("between two nonblocking ones: %w", err)
	}
	r2, err := mpi.IneighborAllgather(h.comm, []int64{value(me, 0, 0)}, gath)
	if err != nil {
		return err
	}
	if _, err := mpi.Waitall([]*mpi.Request{r2, r1}); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, a2a[i:i+1], value); err != nil {
			return fmt.Errorf("IneighborAlltoall: %w", err)
		}
		if err := expectBlock(h, me, i, gath[i:i+1], func(s, _, e int) int64 { return value(s, 0, e) }); err != nil {
			return fmt.Errorf("IneighborAllgather: %w", err)
		}
	}
	return nil
}

// checkNonblockingVector starts IneighborAllgatherv and
// IneighborAlltoallv with gaps between the blocks, completes both and
// checks them.
func checkNonblockingVector(h nbhood) error {
	me := h.comm.Rank()
	out, in := h.out(me), h.in(me)
	var vr *mpi.Request
	var err error
	counts := make([]int, len(in))
	for i := range counts {
		counts[i] = 1
	}
	displs, total := gapped(counts)
	recv := minusOnes[int64](total)
	if vr, err = mpi.IneighborAllgatherv(h.comm, []int64{value(me, 0, 0)}, recv, counts, displs); err != nil {
		return err
	}
	ones := make([]int, len(out))
	for j := range ones {
		ones[j] = 1
	}
	sd, _ := gapped(ones)
	sendv := make([]int64, 2*len(out))
	for j := range out {
		sendv[sd[j]] = value(me, j, 0)
	}
	recv2 := minusOnes[int64](total)
	wr, err := mpi.IneighborAlltoallv(h.comm, sendv, ones, sd, recv2, counts, displs)
	if err != nil {
		return err
	}
	if _, err := mpi.Waitall([]*mpi.Request{vr, wr}); err != nil {
		return err
	}
	for i := range in {
		if err := expectBlock(h, me, i, recv[displs[i]:displs[i]+1], func(s, _, e int) int64 { return value(s, 0, e) }); err != nil {
			return fmt.Errorf("IneighborAllgatherv: %w", err)
		}
		if err := expectBlock(h, me, i, recv2[displs[i]:displs[i]+1], value); err != nil {
			return fmt.Errorf("IneighborAlltoallv: %w", err)
		}
	}
	return nil
}

// A process with wrong arguments fails alone with its error; its
// neighbours fail with ErrMismatch instead of waiting, and the
// communicator works afterwards.
func scenarioNeighborErrors(w *mpi.Comm) error {
	n, me := w.Size(), w.Rank()
	h, err := cartHood(w, []int{n}, []bool{true})
	if err != nil {
		return err
	}
	// The class each rank expects when rank 0's arguments are wrong.
	expect := func(own error) error {
		switch {
		case me == 0:
			return own
		case slices.Contains(h.in(me), 0):
			return mpi.ErrMismatch
		}
		return nil
	}
	check := func(what string, err, class error) error {
		if class == nil {
			if err != nil {
				return fmt.Errorf("%s: %w (rank 0 is not a neighbour)", what, err)
			}
			return nil
		}
		return wantErr(what, err, class)
	}
	recv := make([]int, 2)
	if me == 0 {
		recv = recv[:1]
	}
	err = mpi.NeighborAllgather(h.comm, []int{me}, recv)
	errs := []error{check("NeighborAllgather with a short receive buffer on rank 0", err, expect(mpi.ErrBuffer))}
	send := make([]int, 4)
	if me == 0 {
		send = send[:3]
	}
	err = mpi.NeighborAlltoall(h.comm, send, make([]int, 4))
	errs = append(errs, check("NeighborAlltoall with 3 elements for 2 blocks on rank 0", err, expect(mpi.ErrCount)))
	counts := []int{1, 1}
	if me == 0 {
		counts = []int{1}
	}
	r, err := mpi.IneighborAllgatherv(h.comm, []int{me}, make([]int, 2), counts, []int{0, 1})
	if err == nil {
		_, err = r.Wait()
	}
	errs = append(errs, check("IneighborAllgatherv with 1 count for 2 neighbours on rank 0", err, expect(mpi.ErrCount)))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := checkAllgather(h); err != nil {
		return fmt.Errorf("after the errors: %w", err)
	}
	if err := h.comm.Free(); err != nil {
		return err
	}
	return asymmetricGraph(w)
}

// asymmetricGraph checks that a neighbourhood collective on a graph whose
// edges have no reverse fails on every process.
func asymmetricGraph(w *mpi.Comm) error {
	n := w.Size()
	if n == 1 {
		return nil
	}
	index := make([]int, n) // node 0 → 1 only
	for i := range index {
		index[i] = 1
	}
	g, err := w.GraphCreate(index, []int{1}, false)
	if err != nil {
		return err
	}
	err = mpi.NeighborAllgather(g, []int{1}, make([]int, 1))
	if err := wantErr("NeighborAllgather on an asymmetric graph", err, mpi.ErrTopology); err != nil {
		return err
	}
	return g.Free()
}
