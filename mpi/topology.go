package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
)

// Topology is the kind of virtual topology a communicator carries, as
// MPI_Topo_test reports it.
type Topology int

// The kinds of topology.
const (
	// TopoNone: no topology (MPI_UNDEFINED).
	TopoNone Topology = iota
	// TopoCart: a Cartesian grid made by CartCreate or CartSub (MPI_CART).
	TopoCart
	// TopoGraph: a graph made by GraphCreate (MPI_GRAPH).
	TopoGraph
	// TopoDistGraph: a distributed graph made by DistGraphCreate or
	// DistGraphCreateAdjacent (MPI_DIST_GRAPH).
	TopoDistGraph
)

// String returns the MPI name of the kind.
func (t Topology) String() string {
	switch t {
	case TopoCart:
		return "MPI_CART"
	case TopoGraph:
		return "MPI_GRAPH"
	case TopoDistGraph:
		return "MPI_DIST_GRAPH"
	}
	return "MPI_UNDEFINED"
}

var (
	// ErrTopology: a communicator without the topology a call needs (a
	// Cartesian query on a graph, a neighbourhood collective on a
	// communicator without neighbours), or a graph that is not
	// consistent between its processes (MPI_ERR_TOPOLOGY).
	ErrTopology = errors.New("invalid topology")
	// ErrDims: invalid dimensions or coordinates of a Cartesian topology
	// (MPI_ERR_DIMS).
	ErrDims = errors.New("invalid dimensions")
)

// topology is the virtual topology of a communicator. It is immutable:
// Dup shares it.
type topology interface {
	kind() Topology
	// neighbors returns the in- and out-neighbours of rank, in the order
	// of MPI's neighbourhood collectives, and how many tags an exchange
	// takes; ProcNull neighbours exchange nothing.
	neighbors(rank int) (in, out []link, ntags int, err error)
}

// link is one neighbour of an exchange: its rank, and the index of the tag
// of the messages to or from it among the exchange's tags.
type link struct{ rank, tag int }

// TopoTest returns the kind of c's topology (MPI_Topo_test); TopoNone for
// a communicator without one.
func (c *Comm) TopoTest() (Topology, error) {
	if err := c.check("TopoTest"); err != nil {
		return TopoNone, err
	}
	if c.topo == nil {
		return TopoNone, nil
	}
	return c.topo.kind(), nil
}

// topoOf returns c's topology if it is of kind want.
func (c *Comm) topoOf(op string, want Topology) (topology, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	got := TopoNone
	if c.topo != nil {
		got = c.topo.kind()
	}
	if got != want {
		return nil, fmt.Errorf("mpi: %s: the communicator's topology is %v, not %v: %w", op, got, want, ErrTopology)
	}
	return c.topo, nil
}

// agree checks that every process of c passed the same arguments, given as
// lists of integers: if they differ, every process fails with ErrMismatch.
// Collective over c.
func (c *Comm) agree(op string, args ...[]int) error {
	h := fnv.New64a()
	var w [8]byte
	for _, a := range args {
		binary.LittleEndian.PutUint64(w[:], uint64(len(a)))
		h.Write(w[:])
		for _, v := range a {
			binary.LittleEndian.PutUint64(w[:], uint64(v))
			h.Write(w[:])
		}
	}
	sum := int64(h.Sum64() >> 2) // non-negative, so that -sum does not overflow
	both := []int64{sum, -sum}
	if err := manageAllreduce(c, both, Max); err != nil {
		return fmt.Errorf("mpi: %s: comparing the arguments: %w", op, err)
	}
	if both[0] != -both[1] {
		return fmt.Errorf("mpi: %s: %w: the processes passed different arguments", op, ErrMismatch)
	}
	return nil
}

// withTopology returns a communicator of the first n processes of c, in
// c's order (reordering is allowed by MPI but not done), carrying t; the
// others get nil. Collective over c.
func (c *Comm) withTopology(op string, n int, t topology) (*Comm, error) {
	color := 0
	if c.rank >= n {
		color = Undefined
	}
	nc, err := c.Split(color, c.rank)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	if nc != nil {
		nc.topo = t
	}
	return nc, nil
}

// boolInts converts flags to 0 and 1, for agree.
func boolInts(b []bool) []int {
	out := make([]int, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}
