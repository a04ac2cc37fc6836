package mpi_test

// Multi-process tests of the topologies, in the manner of MPICH's topo
// tests: Cartesian grids (coordinates, ranks, shifts, sub-grids), graphs
// and distributed graphs with their queries, and the error cases.

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["topo-cart"] = scenarioTopoCart
	scenarios["topo-graph"] = scenarioTopoGraph
	scenarios["topo-errors"] = scenarioTopoErrors
}

// topoSizes are the job sizes of the topology tests: 6 ranks on the
// 2-core machine are oversubscribed.
func topoSizes() []int {
	if raceEnabled {
		return []int{1, 2, 3, 4}
	}
	return []int{1, 2, 3, 4, 6}
}

func TestTopologies(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"topo-cart", "topo-graph", "topo-errors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAt(t, name, topoSizes())
		})
	}
}

// wantErr checks that err wraps class.
func wantErr(what string, err, class error) error {
	if !errors.Is(err, class) {
		return fmt.Errorf("%s: got error %v, want one wrapping %q", what, err, class)
	}
	return nil
}

// rowMajor returns the coordinates of rank in a grid of dims, the last
// dimension varying fastest.
func rowMajor(rank int, dims []int) []int {
	c := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		c[i] = rank % dims[i]
		rank /= dims[i]
	}
	return c
}

// gridRank is the inverse of rowMajor, or ProcNull outside a dimension
// that is not periodic.
func gridRank(coords, dims []int, periods []bool) int {
	r := 0
	for i, x := range coords {
		if periods[i] {
			x = ((x % dims[i]) + dims[i]) % dims[i]
		} else if x < 0 || x >= dims[i] {
			return mpi.ProcNull
		}
		r = r*dims[i] + x
	}
	return r
}

// shifted returns the rank of the process disp steps along dim from coords.
func shifted(coords, dims []int, periods []bool, dim, disp int) int {
	c := slices.Clone(coords)
	c[dim] += disp
	return gridRank(c, dims, periods)
}

// periodPatterns are the periodicities tried for nd dimensions: none,
// all, and every other one.
func periodPatterns(nd int) [][]bool {
	none, all, alt := make([]bool, nd), make([]bool, nd), make([]bool, nd)
	for i := range nd {
		all[i], alt[i] = true, i%2 == 0
	}
	return [][]bool{none, all, alt}
}

func scenarioTopoCart(w *mpi.Comm) error {
	if tp, err := w.TopoTest(); tp != mpi.TopoNone || err != nil {
		return fmt.Errorf("TopoTest of World: %v, %v", tp, err)
	}
	for nd := 1; nd <= 3; nd++ {
		dims, err := mpi.DimsCreate(w.Size(), make([]int, nd))
		if err != nil {
			return err
		}
		for _, periods := range periodPatterns(nd) {
			if err := checkCart(w, dims, periods); err != nil {
				return fmt.Errorf("grid %v periods %v: %w", dims, periods, err)
			}
		}
	}
	// A grid of 1 × size, periodic: the neighbours along dimension 0 are
	// the process itself.
	if err := checkCart(w, []int{1, w.Size()}, []bool{true, true}); err != nil {
		return fmt.Errorf("grid 1×%d: %w", w.Size(), err)
	}
	if err := checkPartialCart(w); err != nil {
		return err
	}
	return checkCartSub(w)
}

// checkCart makes a grid of all processes and checks its queries and
// shifts.
func checkCart(w *mpi.Comm, dims []int, periods []bool) error {
	cart, err := w.CartCreate(dims, periods, true)
	if err != nil {
		return err
	}
	if cart == nil || cart.Size() != w.Size() || cart.Rank() != w.Rank() {
		return fmt.Errorf("CartCreate gave %v, want a communicator of all in World's order", cart)
	}
	if err := checkCartQueries(cart, dims, periods); err != nil {
		return err
	}
	if err := checkShifts(cart, dims, periods); err != nil {
		return err
	}
	dup, err := cart.Dup()
	if err != nil {
		return err
	}
	if err := checkCartQueries(dup, dims, periods); err != nil {
		return fmt.Errorf("the Dup of the grid: %w", err)
	}
	return errors.Join(dup.Free(), cart.Free())
}

func checkCartQueries(cart *mpi.Comm, dims []int, periods []bool) error {
	if tp, err := cart.TopoTest(); tp != mpi.TopoCart || err != nil {
		return fmt.Errorf("TopoTest: %v, %v", tp, err)
	}
	if nd, err := cart.Cartdim(); nd != len(dims) || err != nil {
		return fmt.Errorf("Cartdim: %d, %v", nd, err)
	}
	gd, gp, gc, err := cart.CartGet()
	if err != nil || !slices.Equal(gd, dims) || !slices.Equal(gp, periods) || !slices.Equal(gc, rowMajor(cart.Rank(), dims)) {
		return fmt.Errorf("CartGet: %v %v %v, %v; want coordinates %v", gd, gp, gc, err, rowMajor(cart.Rank(), dims))
	}
	for r := range cart.Size() {
		c, err := cart.CartCoords(r)
		if err != nil || !slices.Equal(c, rowMajor(r, dims)) {
			return fmt.Errorf("CartCoords(%d) = %v, %v; want %v", r, c, err, rowMajor(r, dims))
		}
		if back, err := cart.CartRank(c); back != r || err != nil {
			return fmt.Errorf("CartRank(%v) = %d, %v; want %d", c, back, err, r)
		}
		for d := range dims {
			for _, off := range []int{-dims[d], dims[d], 3 * dims[d]} {
				o := slices.Clone(c)
				o[d] += off
				got, err := cart.CartRank(o)
				if periods[d] && (got != r || err != nil) {
					return fmt.Errorf("CartRank(%v) on a periodic dimension = %d, %v; want %d", o, got, err, r)
				}
				if !periods[d] {
					if err := wantErr(fmt.Sprintf("CartRank(%v)", o), err, mpi.ErrRank); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// checkShifts compares CartShift with the grid's arithmetic and moves
// each process's rank along every dimension with Sendrecv.
func checkShifts(cart *mpi.Comm, dims []int, periods []bool) error {
	me := rowMajor(cart.Rank(), dims)
	for d := range dims {
		for _, disp := range []int{1, -1, 2, 0} {
			src, dst, err := cart.CartShift(d, disp)
			wsrc, wdst := shifted(me, dims, periods, d, -disp), shifted(me, dims, periods, d, disp)
			if err != nil || src != wsrc || dst != wdst {
				return fmt.Errorf("CartShift(%d, %d) = %d, %d, %v; want %d, %d", d, disp, src, dst, err, wsrc, wdst)
			}
			got := []int{-1}
			st, err := mpi.Sendrecv(cart, []int{cart.Rank()}, dst, 3, got, src, 3)
			if err != nil {
				return fmt.Errorf("Sendrecv along dimension %d by %d: %w", d, disp, err)
			}
			want := src
			if src == mpi.ProcNull {
				want = -1
			}
			if got[0] != want || st.Source != src {
				return fmt.Errorf("shift along dimension %d by %d: got %d from %d, want %d from %d", d, disp, got[0], st.Source, want, src)
			}
		}
	}
	return nil
}

// checkPartialCart makes grids smaller than World: those left out get nil.
func checkPartialCart(w *mpi.Comm) error {
	n := max(w.Size()-1, 1)
	cart, err := w.CartCreate([]int{n}, []bool{false}, false)
	if err != nil {
		return err
	}
	if (cart == nil) != (w.Rank() >= n) {
		return fmt.Errorf("a grid of %d: rank %d got %v", n, w.Rank(), cart)
	}
	if cart != nil {
		if cart.Size() != n {
			return fmt.Errorf("a grid of %d has %d processes", n, cart.Size())
		}
		if err := cart.Free(); err != nil {
			return err
		}
	}
	// A grid of no dimensions has one process.
	zero, err := w.CartCreate(nil, nil, false)
	if err != nil {
		return err
	}
	if (zero == nil) != (w.Rank() > 0) {
		return fmt.Errorf("a grid of no dimensions: rank %d got %v", w.Rank(), zero)
	}
	if zero != nil {
		if nd, err := zero.Cartdim(); nd != 0 || err != nil || zero.Size() != 1 {
			return fmt.Errorf("a grid of no dimensions: Cartdim %d, %v, size %d", nd, err, zero.Size())
		}
		return zero.Free()
	}
	return nil
}

// checkCartSub cuts a 2-D grid into its rows and its columns, and into
// single processes.
func checkCartSub(w *mpi.Comm) error {
	dims, err := mpi.DimsCreate(w.Size(), []int{0, 0})
	if err != nil {
		return err
	}
	periods := []bool{true, false}
	cart, err := w.CartCreate(dims, periods, false)
	if err != nil {
		return err
	}
	me := rowMajor(cart.Rank(), dims)
	for d := range 2 {
		remain := []bool{d == 0, d == 1}
		sub, err := cart.CartSub(remain)
		if err != nil {
			return fmt.Errorf("CartSub(%v): %w", remain, err)
		}
		if sub.Size() != dims[d] || sub.Rank() != me[d] {
			return fmt.Errorf("CartSub(%v): rank %d of %d, want %d of %d", remain, sub.Rank(), sub.Size(), me[d], dims[d])
		}
		sd, sp, sc, err := sub.CartGet()
		if err != nil || !slices.Equal(sd, dims[d:d+1]) || !slices.Equal(sp, periods[d:d+1]) || !slices.Equal(sc, me[d:d+1]) {
			return fmt.Errorf("CartSub(%v): CartGet %v %v %v, %v", remain, sd, sp, sc, err)
		}
		// The members are the processes of the same line: the sum of
		// their World ranks tells.
		sum := make([]int, 1)
		if err := mpi.Allreduce(sub, []int{w.Rank()}, sum, mpi.Sum); err != nil {
			return err
		}
		want := 0
		for i := range dims[d] {
			c := slices.Clone(me)
			c[d] = i
			want += gridRank(c, dims, periods)
		}
		if sum[0] != want {
			return fmt.Errorf("CartSub(%v): the World ranks of the line add up to %d, want %d", remain, sum[0], want)
		}
		if err := sub.Free(); err != nil {
			return err
		}
	}
	none, err := cart.CartSub([]bool{false, false})
	if err != nil {
		return err
	}
	if nd, err := none.Cartdim(); none.Size() != 1 || nd != 0 || err != nil {
		return fmt.Errorf("CartSub keeping nothing: size %d, Cartdim %d, %v", none.Size(), nd, err)
	}
	return errors.Join(none.Free(), cart.Free())
}

// ringGraph returns the index and edges of a ring of n nodes, each
// linked to the one before and the one after (twice to the other node of
// a ring of 2, and to itself in a ring of 1).
func ringGraph(n int) (index, edges []int) {
	for i := range n {
		edges = append(edges, (i+n-1)%n, (i+1)%n)
		index = append(index, len(edges))
	}
	return index, edges
}

func scenarioTopoGraph(w *mpi.Comm) error {
	n := w.Size()
	index, edges := ringGraph(n)
	g, err := w.GraphCreate(index, edges, false)
	if err != nil {
		return err
	}
	if tp, err := g.TopoTest(); tp != mpi.TopoGraph || err != nil {
		return fmt.Errorf("TopoTest: %v, %v", tp, err)
	}
	if nn, ne, err := g.GraphdimsGet(); nn != n || ne != 2*n || err != nil {
		return fmt.Errorf("GraphdimsGet: %d, %d, %v", nn, ne, err)
	}
	if gi, ge, err := g.GraphGet(); !slices.Equal(gi, index) || !slices.Equal(ge, edges) || err != nil {
		return fmt.Errorf("GraphGet: %v, %v, %v", gi, ge, err)
	}
	for r := range n {
		nb, err := g.GraphNeighbors(r)
		if want := []int{(r + n - 1) % n, (r + 1) % n}; !slices.Equal(nb, want) || err != nil {
			return fmt.Errorf("GraphNeighbors(%d) = %v, %v; want %v", r, nb, err, want)
		}
		if k, err := g.GraphNeighborsCount(r); k != 2 || err != nil {
			return fmt.Errorf("GraphNeighborsCount(%d) = %d, %v", r, k, err)
		}
	}
	if err := g.Free(); err != nil {
		return err
	}
	// A graph of fewer nodes than processes: the others get nil.
	if n > 1 {
		index, edges := ringGraph(n - 1)
		g, err := w.GraphCreate(index, edges, false)
		if err != nil {
			return err
		}
		if (g == nil) != (w.Rank() == n-1) {
			return fmt.Errorf("a graph of %d nodes: rank %d got %v", n-1, w.Rank(), g)
		}
		if g != nil {
			if err := g.Free(); err != nil {
				return err
			}
		}
	}
	return checkDistGraphs(w)
}

// distRing returns the neighbours of rank r of n in the distributed
// graph of the tests: it sends to the next and the one after, and
// receives from the one before and the one before that, with weights 1
// and 2.
func distRing(r, n int) (sources, destinations []int) {
	return []int{(r + n - 1) % n, (r + 2*n - 2) % n}, []int{(r + 1) % n, (r + 2) % n}
}

func checkDistGraphs(w *mpi.Comm) error {
	n, r := w.Size(), w.Rank()
	src, dst := distRing(r, n)
	d, err := w.DistGraphCreateAdjacent(src, []int{1, 2}, dst, []int{1, 2}, false)
	if err != nil {
		return err
	}
	if tp, err := d.TopoTest(); tp != mpi.TopoDistGraph || err != nil {
		return fmt.Errorf("TopoTest: %v, %v", tp, err)
	}
	in, out, weighted, err := d.DistGraphNeighborsCount()
	if in != 2 || out != 2 || !weighted || err != nil {
		return fmt.Errorf("DistGraphNeighborsCount: %d, %d, %v, %v", in, out, weighted, err)
	}
	s, sw, ds, dw, err := d.DistGraphNeighbors()
	if !slices.Equal(s, src) || !slices.Equal(ds, dst) || !slices.Equal(sw, []int{1, 2}) || !slices.Equal(dw, []int{1, 2}) || err != nil {
		return fmt.Errorf("DistGraphNeighbors: %v %v %v %v, %v", s, sw, ds, dw, err)
	}
	if err := d.Free(); err != nil {
		return err
	}
	// The same edges given by other processes: rank r gives the edge
	// from r+1 to r, of weight r, and rank 0 also 0 → 0.
	sources, degrees, dests, weights := []int{(r + 1) % n}, []int{1}, []int{r}, []int{r}
	if r == 0 {
		sources, degrees, dests, weights = append(sources, 0), append(degrees, 1), append(dests, 0), append(weights, 100)
	}
	d, err = w.DistGraphCreate(sources, degrees, dests, weights, false)
	if err != nil {
		return err
	}
	s, sw, ds, dw, err = d.DistGraphNeighbors()
	wantS, wantSW, wantD, wantDW := []int{(r + 1) % n}, []int{r}, []int{(r + n - 1) % n}, []int{(r + n - 1) % n}
	if r == 0 {
		// Ordered by the rank that gave the edge: 0 → 0 by rank 0
		// first.
		wantS, wantSW, wantD, wantDW = append(wantS, 0), append(wantSW, 100), []int{0, n - 1}, []int{100, n - 1}
		if n == 1 {
			wantD, wantDW = []int{0, 0}, []int{0, 100}
		}
	}
	if !slices.Equal(s, wantS) || !slices.Equal(sw, wantSW) || !slices.Equal(ds, wantD) || !slices.Equal(dw, wantDW) || err != nil {
		return fmt.Errorf("DistGraphNeighbors after DistGraphCreate: %v %v %v %v, %v; want %v %v %v %v", s, sw, ds, dw, err, wantS, wantSW, wantD, wantDW)
	}
	if err := d.Free(); err != nil {
		return err
	}
	// Unweighted.
	d, err = w.DistGraphCreateAdjacent(src, nil, dst, nil, false)
	if err != nil {
		return err
	}
	if _, _, weighted, err := d.DistGraphNeighborsCount(); weighted || err != nil {
		return fmt.Errorf("an unweighted graph: weighted %v, %v", weighted, err)
	}
	return d.Free()
}

func scenarioTopoErrors(w *mpi.Comm) error {
	n, r := w.Size(), w.Rank()
	// Calls that need a topology the communicator has not.
	if _, err := w.CartCoords(0); wantErr("CartCoords on World", err, mpi.ErrTopology) != nil {
		return wantErr("CartCoords on World", err, mpi.ErrTopology)
	}
	if err := mpi.NeighborAllgather(w, []int{1}, make([]int, 2)); wantErr("NeighborAllgather on World", err, mpi.ErrTopology) != nil {
		return wantErr("NeighborAllgather on World", err, mpi.ErrTopology)
	}
	// Bad grids fail on every process.
	for _, c := range []struct {
		dims    []int
		periods []bool
	}{
		{[]int{n + 1}, nil},
		{[]int{0}, nil},
		{[]int{-1, 2}, nil},
		{[]int{n}, []bool{true, false}},
	} {
		if _, err := w.CartCreate(c.dims, c.periods, false); wantErr(fmt.Sprint("CartCreate ", c.dims, c.periods), err, mpi.ErrDims) != nil {
			return wantErr(fmt.Sprint("CartCreate ", c.dims, c.periods), err, mpi.ErrDims)
		}
	}
	if n > 1 {
		dims := []int{n}
		if r == 0 {
			dims = []int{1}
		}
		if _, err := w.CartCreate(dims, nil, false); wantErr("CartCreate with different dims", err, mpi.ErrMismatch) != nil {
			return wantErr("CartCreate with different dims", err, mpi.ErrMismatch)
		}
	}
	if err := cartErrors(w); err != nil {
		return err
	}
	if err := graphErrors(w); err != nil {
		return err
	}
	return mpi.Barrier(w)
}

// cartErrors checks the queries of a grid with bad arguments.
func cartErrors(w *mpi.Comm) error {
	n := w.Size()
	cart, err := w.CartCreate([]int{n}, []bool{false}, false)
	if err != nil {
		return err
	}
	checks := []error{}
	_, err = cart.CartCoords(n)
	checks = append(checks, wantErr("CartCoords(size)", err, mpi.ErrRank))
	_, err = cart.CartCoords(-1)
	checks = append(checks, wantErr("CartCoords(-1)", err, mpi.ErrRank))
	_, err = cart.CartRank([]int{n})
	checks = append(checks, wantErr("CartRank past the edge", err, mpi.ErrRank))
	_, err = cart.CartRank([]int{0, 0})
	checks = append(checks, wantErr("CartRank with 2 coordinates", err, mpi.ErrDims))
	_, _, err = cart.CartShift(1, 1)
	checks = append(checks, wantErr("CartShift along dimension 1 of 1", err, mpi.ErrDims))
	_, err = cart.CartSub([]bool{true, true})
	checks = append(checks, wantErr("CartSub with 2 flags", err, mpi.ErrDims))
	_, err = cart.GraphNeighbors(0)
	checks = append(checks, wantErr("GraphNeighbors on a grid", err, mpi.ErrTopology))
	_, _, _, _, err = cart.DistGraphNeighbors()
	checks = append(checks, wantErr("DistGraphNeighbors on a grid", err, mpi.ErrTopology))
	checks = append(checks, cart.Free())
	_, err = cart.Cartdim()
	checks = append(checks, wantErr("Cartdim after Free", err, mpi.ErrComm))
	return errors.Join(checks...)
}

// graphErrors checks bad graphs, which fail on every process.
func graphErrors(w *mpi.Comm) error {
	n, r := w.Size(), w.Rank()
	index, edges := ringGraph(n)
	bad := slices.Clone(edges)
	bad[0] = n
	_, err := w.GraphCreate(index, bad, false)
	checks := []error{wantErr("GraphCreate with an edge to node n", err, mpi.ErrRank)}
	down := slices.Clone(index)
	down[0] = 3 * n
	_, err = w.GraphCreate(down, edges, false)
	checks = append(checks, wantErr("GraphCreate with a decreasing index", err, mpi.ErrTopology))
	_, err = w.GraphCreate(append(slices.Clone(index), index[n-1]), edges, false)
	checks = append(checks, wantErr("GraphCreate of more nodes than processes", err, mpi.ErrTopology))
	// Rank 0 sends to rank n-1, which does not receive from it.
	var dst []int
	if r == 0 {
		dst = []int{n - 1}
	}
	_, err = w.DistGraphCreateAdjacent(nil, nil, dst, nil, false)
	checks = append(checks, wantErr("DistGraphCreateAdjacent with an edge only one end gives", err, mpi.ErrTopology))
	// A source out of range on rank 0: the others learn it.
	src, class := []int{}, error(mpi.ErrTopology)
	if r == 0 {
		src, class = []int{n}, mpi.ErrRank
	}
	_, err = w.DistGraphCreateAdjacent(src, nil, nil, nil, false)
	checks = append(checks, wantErr("DistGraphCreateAdjacent with a source out of range", err, class))
	// Weights from rank 0 only: a weighted graph with edges without.
	if n > 1 {
		s, d := distRing(r, n)
		var sw, dw []int
		if r == 0 {
			sw, dw = []int{1, 1}, []int{1, 1}
		}
		_, err = w.DistGraphCreateAdjacent(s, sw, d, dw, false)
		checks = append(checks, wantErr("DistGraphCreateAdjacent with weights from rank 0 only", err, mpi.ErrMismatch))
	}
	degrees, class := []int{1}, error(mpi.ErrTopology)
	if r == n-1 {
		degrees, class = []int{2}, mpi.ErrCount
	}
	_, err = w.DistGraphCreate([]int{r}, degrees, []int{r}, nil, false)
	checks = append(checks, wantErr("DistGraphCreate with a degree past the destinations", err, class))
	return errors.Join(checks...)
}
