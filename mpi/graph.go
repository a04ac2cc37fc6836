package mpi

import (
	"fmt"
	"slices"
)

// graphTopo is a graph given whole to every process, as MPI_Graph_create
// takes it: the neighbours of node i are edges[index[i-1]:index[i]]
// (index[-1] being 0).
type graphTopo struct {
	index, edges []int
	// symmetric: every edge i→j has its j→i, as many times, so that
	// the neighbourhood collectives can run.
	symmetric bool
}

func (t *graphTopo) kind() Topology { return TopoGraph }

// adjacent returns the neighbours of node i.
func (t *graphTopo) adjacent(i int) []int {
	lo := 0
	if i > 0 {
		lo = t.index[i-1]
	}
	return t.edges[lo:t.index[i]]
}

// neighbors: a graph's in- and out-neighbours are the same list, and one
// tag serves every exchange, the messages between a pair being matched in
// order.
func (t *graphTopo) neighbors(rank int) (in, out []link, ntags int, err error) {
	if !t.symmetric {
		return nil, nil, 0, fmt.Errorf("the graph is not symmetric (an edge i→j needs its j→i for a neighbourhood exchange): %w", ErrTopology)
	}
	for _, j := range t.adjacent(rank) {
		in = append(in, link{j, 0})
	}
	return in, in, 1, nil
}

// validate checks the graph for a communicator of size processes.
func (t *graphTopo) validate(size int) error {
	n := len(t.index)
	if n > size {
		return fmt.Errorf("a graph of %d nodes on a communicator of %d processes: %w", n, size, ErrTopology)
	}
	prev := 0
	for i, x := range t.index {
		if x < prev {
			return fmt.Errorf("index[%d] = %d is less than %d: %w (index must not decrease)", i, x, prev, ErrTopology)
		}
		prev = x
	}
	if prev != len(t.edges) {
		return fmt.Errorf("index ends at %d but there are %d edges: %w", prev, len(t.edges), ErrTopology)
	}
	for i, j := range t.edges {
		if j < 0 || j >= n {
			return fmt.Errorf("edge %d leads to node %d of %d: %w", i, j, n, ErrRank)
		}
	}
	return nil
}

// isSymmetric reports whether every edge has its reverse, as many times.
func (t *graphTopo) isSymmetric() bool {
	count := make(map[[2]int]int)
	for i := range t.index {
		for _, j := range t.adjacent(i) {
			count[[2]int{i, j}]++
			count[[2]int{j, i}]--
		}
	}
	for _, v := range count {
		if v != 0 {
			return false
		}
	}
	return true
}

// GraphCreate returns a communicator of the first len(index) processes of
// c with a graph topology: the neighbours of node i are
// edges[index[i-1]:index[i]], index[-1] being 0 (MPI_Graph_create). The
// other processes get nil. reorder allows the ranks to be renumbered; this
// implementation keeps c's order. Every process must pass the same
// arguments, else every one fails with ErrMismatch. The neighbourhood
// collectives need a symmetric graph (every edge i→j with its j→i).
// Collective over c.
func (c *Comm) GraphCreate(index, edges []int, reorder bool) (*Comm, error) {
	const op = "GraphCreate"
	if err := c.check(op); err != nil {
		return nil, err
	}
	if err := c.agree(op, index, edges); err != nil {
		return nil, err
	}
	t := &graphTopo{index: slices.Clone(index), edges: slices.Clone(edges)}
	if err := t.validate(c.size); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	t.symmetric = t.isSymmetric()
	return c.withTopology(op, len(index), t)
}

// graph returns c's graph topology.
func (c *Comm) graph(op string) (*graphTopo, error) {
	t, err := c.topoOf(op, TopoGraph)
	if err != nil {
		return nil, err
	}
	return t.(*graphTopo), nil
}

// GraphdimsGet returns the number of nodes and edges of c's graph
// (MPI_Graphdims_get).
func (c *Comm) GraphdimsGet() (nnodes, nedges int, err error) {
	t, err := c.graph("GraphdimsGet")
	if err != nil {
		return 0, 0, err
	}
	return len(t.index), len(t.edges), nil
}

// GraphGet returns the index and edges c's graph was made of
// (MPI_Graph_get).
func (c *Comm) GraphGet() (index, edges []int, err error) {
	t, err := c.graph("GraphGet")
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(t.index), slices.Clone(t.edges), nil
}

// GraphNeighborsCount returns the number of neighbours of rank in c's
// graph (MPI_Graph_neighbors_count).
func (c *Comm) GraphNeighborsCount(rank int) (int, error) {
	n, err := c.graphNeighbors("GraphNeighborsCount", rank)
	return len(n), err
}

// GraphNeighbors returns the neighbours of rank in c's graph, in the order
// of its edges (MPI_Graph_neighbors).
func (c *Comm) GraphNeighbors(rank int) ([]int, error) {
	n, err := c.graphNeighbors("GraphNeighbors", rank)
	return slices.Clone(n), err
}

func (c *Comm) graphNeighbors(op string, rank int) ([]int, error) {
	t, err := c.graph(op)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= c.size {
		return nil, fmt.Errorf("mpi: %s of rank %d: %w (communicator size %d)", op, rank, ErrRank, c.size)
	}
	return t.adjacent(rank), nil
}
