package mpi

import (
	"fmt"
	"slices"
)

// CartMap returns the rank the calling process would have in c if c were
// given a Cartesian topology of the sizes dims, periodic where periods
// says so (nil: none), or Undefined if it would not be part of the grid
// (MPI_Cart_map). Like CartCreate, this implementation does not reorder:
// the first n processes of c, n the product of dims, keep their ranks. It
// is a local call.
func (c *Comm) CartMap(dims []int, periods []bool) (int, error) {
	const op = "CartMap"
	if err := c.check(op); err != nil {
		return Undefined, err
	}
	if periods == nil {
		periods = make([]bool, len(dims))
	}
	t := &cartTopo{dims: slices.Clone(dims), periods: slices.Clone(periods)}
	if err := t.validate(c.size); err != nil {
		return Undefined, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return mappedRank(c.rank, t.size()), nil
}

// GraphMap returns the rank the calling process would have in c if c were
// given the graph topology of index and edges, as GraphCreate takes them,
// or Undefined if it would not be one of the graph's nodes
// (MPI_Graph_map). Like GraphCreate, this implementation does not
// reorder: the first len(index) processes of c keep their ranks. It is a
// local call.
func (c *Comm) GraphMap(index, edges []int) (int, error) {
	const op = "GraphMap"
	if err := c.check(op); err != nil {
		return Undefined, err
	}
	t := &graphTopo{index: index, edges: edges}
	if err := t.validate(c.size); err != nil {
		return Undefined, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return mappedRank(c.rank, len(index)), nil
}

// mappedRank is the rank of rank in a topology of its communicator's
// first n processes, or Undefined.
func mappedRank(rank, n int) int {
	if rank < n {
		return rank
	}
	return Undefined
}
