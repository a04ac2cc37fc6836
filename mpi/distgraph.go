package mpi

import (
	"fmt"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// distGraphTopo is a distributed graph as one process sees it: the
// processes whose messages it receives (sources) and those it sends to
// (dests), with the edges' weights if the graph is weighted.
type distGraphTopo struct {
	sources, sweights []int
	dests, dweights   []int
	weighted          bool
}

func (t *distGraphTopo) kind() Topology { return TopoDistGraph }

// neighbors: one tag serves every exchange. The k-th edge i→j in i's
// destinations is the k-th in j's sources (DistGraphCreateAdjacent checks
// it; DistGraphCreate orders both lists alike), and the messages between a
// pair are matched in order.
func (t *distGraphTopo) neighbors(int) (in, out []link, ntags int, err error) {
	in = make([]link, len(t.sources))
	for i, s := range t.sources {
		in[i] = link{s, 0}
	}
	out = make([]link, len(t.dests))
	for i, d := range t.dests {
		out[i] = link{d, 0}
	}
	return in, out, 1, nil
}

// DistGraphCreateAdjacent returns a communicator of c's processes with a
// distributed graph topology in which each process gives its own
// neighbours: the processes it receives from (sources) and sends to
// (destinations), in the order of the neighbourhood collectives' blocks
// (MPI_Dist_graph_create_adjacent). The weights are nil for an unweighted
// graph; in a weighted one, every process with edges gives them. The
// edges must agree: if rank i lists j k times as a destination, j lists i
// k times as a source; otherwise every process fails with ErrTopology.
// reorder allows the ranks to be renumbered; this implementation keeps
// c's order. Collective over c.
func (c *Comm) DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights []int, reorder bool) (*Comm, error) {
	const op = "DistGraphCreateAdjacent"
	if err := c.check(op); err != nil {
		return nil, err
	}
	bad := c.checkRanks(sources, "source")
	if bad == nil {
		bad = c.checkRanks(destinations, "destination")
	}
	if bad == nil {
		bad = checkWeights(sourceWeights, len(sources), "source")
	}
	if bad == nil {
		bad = checkWeights(destWeights, len(destinations), "destination")
	}
	given := sourceWeights != nil || destWeights != nil
	missing := (len(sources) > 0 && sourceWeights == nil) || (len(destinations) > 0 && destWeights == nil)
	counts, weighted, err := c.shareGraphShape(op, bad, len(destinations), given, missing)
	if err != nil {
		return nil, err
	}
	all, err := manageAllgathervInts(c, destinations, counts)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	if err := c.checkSources(op, sources, all, counts); err != nil {
		return nil, err
	}
	t := &distGraphTopo{sources: slices.Clone(sources), dests: slices.Clone(destinations), weighted: weighted}
	if weighted {
		t.sweights, t.dweights = weightsOrOnes(sourceWeights, len(sources)), weightsOrOnes(destWeights, len(destinations))
	}
	return c.withTopology(op, c.size, t)
}

// DistGraphCreate returns a communicator of c's processes with a
// distributed graph topology whose edges any process may give: for each
// i, edges from sources[i] to the next degrees[i] entries of destinations,
// with the weights of the same entries (MPI_Dist_graph_create). The graph
// is weighted if any process gives weights (non-nil), and then every
// process that gives edges gives their weights. Each process's neighbours
// are ordered by the rank that gave the edge, then by its place there.
// Invalid arguments on one process make every one fail. reorder allows the
// ranks to be renumbered; this implementation keeps c's order. Collective
// over c.
func (c *Comm) DistGraphCreate(sources, degrees, destinations, weights []int, reorder bool) (*Comm, error) {
	const op = "DistGraphCreate"
	if err := c.check(op); err != nil {
		return nil, err
	}
	edges, bad := c.edgeList(sources, degrees, destinations, weights)
	counts, weighted, err := c.shareGraphShape(op, bad, len(edges)/3, weights != nil, len(destinations) > 0 && weights == nil)
	if err != nil {
		return nil, err
	}
	for i := range counts {
		counts[i] *= 3
	}
	all, err := manageAllgathervInts(c, edges, counts)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	t := &distGraphTopo{weighted: weighted}
	for e := 0; e < len(all); e += 3 {
		src, dst, w := all[e], all[e+1], all[e+2]
		if dst == c.rank {
			t.sources = append(t.sources, src)
			t.sweights = append(t.sweights, w)
		}
		if src == c.rank {
			t.dests = append(t.dests, dst)
			t.dweights = append(t.dweights, w)
		}
	}
	if !weighted {
		t.sweights, t.dweights = nil, nil
	}
	return c.withTopology(op, c.size, t)
}

// edgeList returns the edges DistGraphCreate's arguments give, as triples
// source, destination, weight (1 if unweighted), or what is wrong with
// them.
func (c *Comm) edgeList(sources, degrees, destinations, weights []int) ([]int, error) {
	if len(degrees) != len(sources) {
		return nil, fmt.Errorf("%d degrees for %d sources: %w", len(degrees), len(sources), ErrCount)
	}
	if err := c.checkRanks(sources, "source"); err != nil {
		return nil, err
	}
	if err := c.checkRanks(destinations, "destination"); err != nil {
		return nil, err
	}
	if err := checkWeights(weights, len(destinations), "edge"); err != nil {
		return nil, err
	}
	edges := make([]int, 0, 3*len(destinations))
	next := 0
	for i, s := range sources {
		d := degrees[i]
		if d < 0 || next+d > len(destinations) {
			return nil, fmt.Errorf("degree %d of source %d: %w (%d destinations, %d used before)", d, i, ErrCount, len(destinations), next)
		}
		for _, dst := range destinations[next : next+d] {
			w := 1
			if weights != nil {
				w = weights[next]
			}
			edges = append(edges, s, dst, w)
			next++
		}
	}
	if next != len(destinations) {
		return nil, fmt.Errorf("the degrees add up to %d but there are %d destinations: %w", next, len(destinations), ErrCount)
	}
	return edges, nil
}

func (c *Comm) checkRanks(ranks []int, what string) error {
	for i, r := range ranks {
		if r < 0 || r >= c.size {
			return fmt.Errorf("%s %d is rank %d: %w (communicator size %d)", what, i, r, ErrRank, c.size)
		}
	}
	return nil
}

func checkWeights(weights []int, n int, what string) error {
	if weights == nil {
		return nil
	}
	if len(weights) != n {
		return fmt.Errorf("%d %s weights for %d %ss: %w", len(weights), what, n, what, ErrCount)
	}
	for i, w := range weights {
		if w < 0 {
			return fmt.Errorf("%s weight %d is %d: %w (weights must not be negative)", what, i, w, ErrTopology)
		}
	}
	return nil
}

// weightsOrOnes returns a copy of w, or n ones if w is nil (a process
// without edges in a weighted graph).
func weightsOrOnes(w []int, n int) []int {
	if w != nil {
		return slices.Clone(w)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// shareGraphShape tells every process of c whether the others' arguments
// are valid (bad is what is wrong with this one's), how many items each
// contributes (n here), and whether the graph is weighted: some process
// gave weights (given) and none left edges without (missing). Every
// process returns an error if any one's arguments are wrong.
func (c *Comm) shareGraphShape(op string, bad error, n int, given, missing bool) (counts []int, weighted bool, err error) {
	mine := []int64{1, int64(n), 0, 0}
	if bad != nil {
		mine[0] = 0
	}
	if given {
		mine[2] = 1
	}
	if missing {
		mine[3] = 1
	}
	all := make([]int64, 4*c.size)
	if err := manageAllgather(c, mine, all); err != nil {
		return nil, false, fmt.Errorf("mpi: %s: %w", op, err)
	}
	if bad != nil {
		return nil, false, fmt.Errorf("mpi: %s: %w", op, bad)
	}
	counts = make([]int, c.size)
	for r := range c.size {
		if all[4*r] == 0 {
			return nil, false, fmt.Errorf("mpi: %s: rank %d passed an invalid graph: %w", op, r, ErrTopology)
		}
		counts[r] = int(all[4*r+1])
		weighted = weighted || all[4*r+2] == 1
	}
	for r := range c.size {
		if weighted && all[4*r+3] == 1 {
			return nil, false, fmt.Errorf("mpi: %s: rank %d gave edges without weights in a weighted graph: %w", op, r, ErrMismatch)
		}
	}
	return counts, weighted, nil
}

// checkSources compares the sources this process gave with the
// destinations all the processes gave (all, counts[r] of rank r's): rank
// r must appear as often in one as this process in the other. Every
// process fails, naming the lowest rank whose lists disagree, if one
// does.
func (c *Comm) checkSources(op string, sources, all []int, counts []int) error {
	listed := make([]int, c.size) // times each rank lists this one
	at := 0
	for r, n := range counts {
		for _, d := range all[at : at+n] {
			if d == c.rank {
				listed[r]++
			}
		}
		at += n
	}
	for _, s := range sources {
		listed[s]--
	}
	wrong := -1
	for r, v := range listed {
		if v != 0 {
			wrong = r
			break
		}
	}
	first := []int64{int64(c.size)}
	if wrong >= 0 {
		first[0] = int64(c.rank)
	}
	if err := manageAllreduce(c, first, Min); err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	switch {
	case wrong >= 0:
		return fmt.Errorf("mpi: %s: rank %d lists this process %d times as a destination but is listed %d times as a source: %w",
			op, wrong, listed[wrong]+countOf(sources, wrong), countOf(sources, wrong), ErrTopology)
	case first[0] < int64(c.size):
		return fmt.Errorf("mpi: %s: the sources of rank %d disagree with the others' destinations: %w", op, first[0], ErrTopology)
	}
	return nil
}

func countOf(s []int, v int) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// manageAllgathervInts gathers every process's ints (counts[r] of rank r)
// into every process, in rank order, for communicator management.
func manageAllgathervInts(c *Comm, mine []int, counts []int) ([]int, error) {
	displs := make([]int, len(counts))
	total := 0
	for r, n := range counts {
		displs[r] = total
		total += n
	}
	send := make([]int64, len(mine))
	for i, v := range mine {
		send[i] = int64(v)
	}
	recv := make([]int64, total)
	err := c.manage("Allgatherv", func(u *collectives.Runner) error {
		return u.Allgatherv(inPlace(send), asBytes(recv), scaled(counts, 8), scaled(displs, 8), 8)
	})
	if err != nil {
		return nil, err
	}
	out := make([]int, total)
	for i, v := range recv {
		out[i] = int(v)
	}
	return out, nil
}

// distGraph returns c's distributed graph topology.
func (c *Comm) distGraph(op string) (*distGraphTopo, error) {
	t, err := c.topoOf(op, TopoDistGraph)
	if err != nil {
		return nil, err
	}
	return t.(*distGraphTopo), nil
}

// DistGraphNeighborsCount returns the numbers of the calling process's in-
// and out-neighbours in c's distributed graph, and whether the graph is
// weighted (MPI_Dist_graph_neighbors_count).
func (c *Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	t, err := c.distGraph("DistGraphNeighborsCount")
	if err != nil {
		return 0, 0, false, err
	}
	return len(t.sources), len(t.dests), t.weighted, nil
}

// DistGraphNeighbors returns the calling process's in-neighbours (sources)
// and out-neighbours (destinations) in c's distributed graph, in the order
// of the neighbourhood collectives' blocks, with their weights (nil if
// the graph is unweighted) (MPI_Dist_graph_neighbors).
func (c *Comm) DistGraphNeighbors() (sources, sourceWeights, destinations, destWeights []int, err error) {
	t, err := c.distGraph("DistGraphNeighbors")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return slices.Clone(t.sources), slices.Clone(t.sweights), slices.Clone(t.dests), slices.Clone(t.dweights), nil
}
