package mpi

import (
	"fmt"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// Comparison is how two communicators or groups compare, as
// MPI_Comm_compare and MPI_Group_compare report it.
type Comparison int

// The results of a comparison.
const (
	// Ident: the same communicator, or groups with the same members in
	// the same order (MPI_IDENT).
	Ident Comparison = iota
	// Congruent: different communicators of the same processes in the same
	// order (MPI_CONGRUENT).
	Congruent
	// Similar: the same processes in a different order (MPI_SIMILAR).
	Similar
	// Unequal: different processes (MPI_UNEQUAL).
	Unequal
)

// String returns the MPI name of the result.
func (r Comparison) String() string {
	switch r {
	case Ident:
		return "MPI_IDENT"
	case Congruent:
		return "MPI_CONGRUENT"
	case Similar:
		return "MPI_SIMILAR"
	}
	return "MPI_UNEQUAL"
}

// Compare returns how g and h compare (MPI_Group_compare): Ident if they
// have the same members in the same order, Similar if in a different
// order, else Unequal.
func (g Group) Compare(h Group) Comparison {
	switch {
	case g.Equal(h):
		return Ident
	case len(g.world) == len(h.world) && len(g.Intersection(h).world) == len(g.world):
		return Similar
	}
	return Unequal
}

// Compare returns how c and d compare (MPI_Comm_compare): Ident if they
// are the same communicator, Congruent if they have the same processes in
// the same order, Similar if in a different order, else Unequal. It is a
// local operation.
func (c *Comm) Compare(d *Comm) (Comparison, error) {
	if err := c.check("Compare"); err != nil {
		return Unequal, err
	}
	if err := d.check("Compare"); err != nil {
		return Unequal, err
	}
	if c == d || c.id == d.id {
		return Ident, nil
	}
	if r := c.Group().Compare(d.Group()); r != Ident {
		return r, nil
	}
	return Congruent, nil
}

// SetName gives c a name, for the user's messages and tools
// (MPI_Comm_set_name). It is local to the calling process.
func (c *Comm) SetName(name string) error {
	if err := c.check("SetName"); err != nil {
		return err
	}
	c.name.Store(&name)
	return nil
}

// Name returns the name SetName gave c; by default "MPI_COMM_WORLD" for
// World and "" for the others (MPI_Comm_get_name).
func (c *Comm) Name() (string, error) {
	if err := c.check("Name"); err != nil {
		return "", err
	}
	if p := c.name.Load(); p != nil {
		return *p, nil
	}
	if c.id == worldID {
		return "MPI_COMM_WORLD", nil
	}
	return "", nil
}

// CommType is a kind of partition for SplitType (MPI_Comm_split_type's
// split_type).
type CommType int

// CommTypeShared partitions a communicator into the processes of each host,
// which can share memory (MPI_COMM_TYPE_SHARED).
const CommTypeShared CommType = 1

// SplitType partitions c by t: with CommTypeShared into the processes of
// each host (as mpirun -hosts places them; by the machine's host name when
// started otherwise), ordered by key, ties by rank in c
// (MPI_Comm_split_type). A process passing CommType(Undefined) gets nil;
// any other type makes every process fail with ErrMismatch. Collective
// over c.
func (c *Comm) SplitType(t CommType, key int) (*Comm, error) {
	const op = "SplitType"
	if err := c.check(op); err != nil {
		return nil, err
	}
	host, err := c.rt.job.HostName()
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	types, hosts, err := c.shareHosts(op, t, host)
	if err != nil {
		return nil, err
	}
	for r, rt := range types {
		if rt != CommTypeShared && rt != CommType(Undefined) {
			return nil, fmt.Errorf("mpi: %s: rank %d passed type %d: %w (CommTypeShared or Undefined)", op, r, rt, ErrMismatch)
		}
	}
	color := Undefined
	if t == CommTypeShared {
		color = slices.Index(hosts, host) // the lowest rank of the host
	}
	nc, err := c.Split(color, key)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nc, nil
}

// shareHosts gathers every process's split type and host name.
func (c *Comm) shareHosts(op string, t CommType, host string) ([]CommType, []string, error) {
	head := make([]int64, 2*c.size)
	if err := manageAllgather(c, []int64{int64(t), int64(len(host))}, head); err != nil {
		return nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	counts := make([]int, c.size)
	types := make([]CommType, c.size)
	for r := range c.size {
		types[r], counts[r] = CommType(head[2*r]), int(head[2*r+1])
	}
	mine := make([]int, len(host))
	for i := range len(host) {
		mine[i] = int(host[i])
	}
	all, err := manageAllgathervInts(c, mine, counts)
	if err != nil {
		return nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	hosts := make([]string, c.size)
	at := 0
	for r, n := range counts {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(all[at+i])
		}
		hosts[r], at = string(b), at+n
	}
	return types, hosts, nil
}

// Idup starts duplicating c as Dup does (MPI_Comm_idup) and returns the
// new communicator with the Request that completes it: the communicator,
// with c's processes and topology, must not be used before the Request
// completes, nor after it fails. The other collectives of c may be called
// meanwhile, in the same order on every process. Collective over c; on an
// intercommunicator, over both groups, and the new one is an
// intercommunicator between the same groups.
func (c *Comm) Idup() (*Comm, *Request, error) {
	nc := new(Comm)
	if c.IsInter() {
		r, err := c.interIdup(nc)
		if err != nil {
			return nil, nil, err
		}
		return nc, r, nil
	}
	r, err := c.start("Idup", func(u *collectives.Runner) error {
		u.Force = nil // communicator management runs the defaults
		id, err := c.rt.agreeContext("Idup", runnerAllreduce(u))
		if err != nil {
			return err
		}
		if err := c.buildAt(nc, "Idup", id, c.Group().world); err != nil {
			return err
		}
		nc.topo = c.topo
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nc, r, nil
}

// runnerAllreduce returns an in-place allreduce of words over u.
func runnerAllreduce(u *collectives.Runner) func(words []uint64, o Op) error {
	return func(words []uint64, o Op) error {
		r, err := reducer[uint64](u, collectives.CollAllreduce, o)
		if err != nil {
			return err
		}
		return u.Allreduce(nil, asBytes(words), *r)
	}
}
