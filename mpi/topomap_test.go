package mpi_test

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["topo-map"] = scenarioTopoMap
	scenarios["topo-neighbor-w"] = scenarioNeighborAlltoallw
}

// TestTopologyMapping checks CartMap and GraphMap against the ranks
// CartCreate and GraphCreate give, and their errors.
func TestTopologyMapping(t *testing.T) {
	t.Parallel()
	runAt(t, "topo-map", typedSizes())
}

// TestNeighborAlltoallw runs NeighborAlltoallw and IneighborAlltoallw on
// every topology of the neighbourhood tests.
func TestNeighborAlltoallw(t *testing.T) {
	t.Parallel()
	runAt(t, "topo-neighbor-w", typedSizes())
}

func scenarioTopoMap(w *mpi.Comm) error {
	n := w.Size()
	d2, err := mpi.DimsCreate(n, []int{0, 0})
	if err != nil {
		return err
	}
	for _, dims := range [][]int{{n}, d2, {1, max(1, n-1)}, {1}} {
		mapped, err := w.CartMap(dims, nil)
		if err != nil {
			return fmt.Errorf("CartMap(%v): %w", dims, err)
		}
		c, err := w.CartCreate(dims, nil, true)
		if err != nil {
			return err
		}
		if err := sameMapping(fmt.Sprintf("CartMap(%v)", dims), mapped, c); err != nil {
			return err
		}
	}
	index, edges := ringGraph(n)
	for _, k := range []int{n, (n + 1) / 2} { // the ring, and the first nodes of its index with their edges cut
		idx, eds := index[:k], edges[:index[k-1]]
		for i, e := range eds {
			eds[i] = e % k
		}
		mapped, err := w.GraphMap(idx, eds)
		if err != nil {
			return fmt.Errorf("GraphMap of %d nodes: %w", k, err)
		}
		g, err := w.GraphCreate(idx, eds, true)
		if err != nil {
			return err
		}
		if err := sameMapping(fmt.Sprintf("GraphMap of %d nodes", k), mapped, g); err != nil {
			return err
		}
	}
	return topoMapErrors(w)
}

// sameMapping checks the rank a mapping call returned against the
// communicator the matching create call returned (nil: Undefined).
func sameMapping(what string, mapped int, c *mpi.Comm) error {
	want := mpi.Undefined
	if c != nil {
		want = c.Rank()
		if err := c.Free(); err != nil {
			return err
		}
	}
	if mapped != want {
		return fmt.Errorf("%s returned rank %d, want %d", what, mapped, want)
	}
	return nil
}

func topoMapErrors(w *mpi.Comm) error {
	n := w.Size()
	_, err := w.CartMap([]int{n + 1}, nil)
	if err := wantErr("CartMap of more processes than the communicator's", err, mpi.ErrDims); err != nil {
		return err
	}
	_, err = w.CartMap([]int{1, 0}, nil)
	if err := wantErr("CartMap with a dimension of size 0", err, mpi.ErrDims); err != nil {
		return err
	}
	_, err = w.CartMap([]int{n}, []bool{true, false})
	if err := wantErr("CartMap with more periods than dimensions", err, mpi.ErrDims); err != nil {
		return err
	}
	_, err = w.GraphMap([]int{1}, []int{1})
	if err := wantErr("GraphMap with an edge to no node", err, mpi.ErrRank); err != nil {
		return err
	}
	_, err = w.GraphMap(make([]int, n+1), nil)
	return wantErr("GraphMap of more nodes than processes", err, mpi.ErrTopology)
}

func scenarioNeighborAlltoallw(w *mpi.Comm) error {
	hs, err := hoods(w)
	if err != nil {
		return err
	}
	for _, h := range hs {
		for _, nb := range []bool{false, true} {
			for _, k := range []int{1, 3, 5000} { // 5000 int64 are past the eager limit
				if err := checkAlltoallw(h, k, nb); err != nil {
					return fmt.Errorf("%s: blocks of %d, nonblocking %v: %w", h.name, k, nb, err)
				}
			}
		}
		if err := h.comm.Free(); err != nil {
			return err
		}
	}
	return nil
}

// checkAlltoallw sends out-block j as k elements strided by 2 (a vector
// type) and receives in-block i as k plain elements or one contiguous
// item, the slots in reverse order.
func checkAlltoallw(h nbhood, k int, nb bool) error {
	me := h.comm.Rank()
	outs, ins := h.out(me), h.in(me)
	vec := must(mpi.Vector(k, 1, 2))
	send := make([]int64, 2*k*len(outs))
	scounts, sdispls, stypes := make([]int, len(outs)), make([]int, len(outs)), make([]*mpi.Datatype, len(outs))
	for j := range outs {
		scounts[j], sdispls[j], stypes[j] = 1, 2*k*j, vec
		for e := range k {
			send[2*k*j+2*e] = value(me, j, e)
		}
	}
	recv := minusOnes[int64](k * len(ins))
	rcounts, rdispls, rtypes := make([]int, len(ins)), make([]int, len(ins)), make([]*mpi.Datatype, len(ins))
	for i := range ins {
		rcounts[i], rdispls[i], rtypes[i] = k, k*(len(ins)-1-i), mpi.Element
		if i%2 == 1 {
			rcounts[i], rtypes[i] = 1, must(mpi.Contiguous(k))
		}
	}
	if err := typedCall(nb, func() error {
		return mpi.NeighborAlltoallw(h.comm, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	}, func() (*mpi.Request, error) {
		return mpi.IneighborAlltoallw(h.comm, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	}); err != nil {
		return err
	}
	for i := range ins {
		if err := expectBlock(h, me, i, recv[rdispls[i]:rdispls[i]+k], value); err != nil {
			return err
		}
	}
	return nil
}
