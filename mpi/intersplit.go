package mpi

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// The constructors of intercommunicators from intercommunicators
// (MPI-3.1 §6.4.2): Split, Create and Idup. Split and Create exchange
// every process's choice over the span (interspan.go), so that a bad
// argument anywhere fails every process of both groups.

// splitChoice is one process's part in an intercommunicator Split.
type splitChoice struct {
	bad   error  // the process's own arguments are invalid
	color int    // Undefined: no new communicator
	key   int    // the order in the new local group
	group uint64 // what must be the same over the local group (Create's group)
}

// interSplit makes the intercommunicators of c's processes by color:
// the processes of a group that pass the same color form the new local
// group, ordered by key (ties by rank), and those of the other group
// that pass it the new remote group. A process whose color is Undefined,
// or is passed by no process of the other group, gets nil.
func (c *Comm) interSplit(op string, ch splitChoice) (*Comm, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	s, err := c.span(op)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	remote, err := c.shareChoices(op, s, ch)
	if err != nil {
		return nil, err
	}
	local, err := c.inter.local.Split(ch.color, ch.key)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	id, err := c.rt.agreeContext(op, func(words []uint64, o Op) error { return manageAllreduce(s, words, o) })
	if err != nil {
		return nil, err
	}
	if local == nil || len(remote) == 0 {
		c.rt.releaseContext(id)
		if local != nil {
			return nil, local.Free()
		}
		return nil, nil
	}
	nc := newComm(c.rt, id, local.rank, remote)
	nc.inter = &interComm{local: local, first: local.toWorld(0) < remote[0]}
	if err := nc.openSpan(op); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nc, nil
}

// shareChoices gathers every process's choice over the span s, checks
// them all alike on every process, and returns the World ranks of the
// remote processes of the caller's color, in their new order.
func (c *Comm) shareChoices(op string, s *Comm, ch splitChoice) ([]int, error) {
	mine := []int64{0, int64(ch.color), int64(ch.key), int64(ch.group)}
	if ch.bad != nil {
		mine[0] = int64(classIndex(ch.bad))
	}
	all := make([]int64, 4*s.size)
	if err := manageAllgather(s, mine, all); err != nil {
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	if ch.bad != nil {
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, ch.bad)
	}
	m := c.spanOf()
	type member struct{ key, rank, world int }
	var remote []member
	for r := range s.size {
		rec := all[4*r : 4*r+4]
		lead := m.local0 // the rank 0 of r's group
		if m.isRemote(r) {
			lead = m.remote0
		}
		switch {
		case rec[0] != 0:
			return nil, fmt.Errorf("mpi: %s on an intercommunicator: another process's arguments are invalid: %w", op, classAt(int(rec[0])))
		case rec[1] < 0 && rec[1] != Undefined:
			return nil, fmt.Errorf("mpi: %s on an intercommunicator: a process passed color %d: %w (must be non-negative or Undefined)", op, rec[1], ErrColor)
		case rec[3] != all[4*lead+3]:
			return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w: the processes of a group passed different groups", op, ErrMismatch)
		case m.isRemote(r) && int(rec[1]) == ch.color && ch.color != Undefined:
			remote = append(remote, member{int(rec[2]), r - m.remote0, s.toWorld(r)})
		}
	}
	slices.SortStableFunc(remote, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank))
	})
	world := make([]int, len(remote))
	for i, p := range remote {
		world[i] = p.world
	}
	return world, nil
}

// groupHash is a digest of g's members in order, for checking that the
// processes of a group passed the same group; 1 + the digest, so that no
// group hashes to 0.
func groupHash(g Group) uint64 {
	h := fnv.New64a()
	for _, w := range g.world {
		fmt.Fprintf(h, "%d,", w)
	}
	return h.Sum64() | 1
}

// interCreate is Create for the intercommunicator c: g is a group of c's
// local group, the same at every process of it; the processes of g get
// an intercommunicator with the processes of the group the other group
// passed, and the others nil (all do if either group is empty).
func (c *Comm) interCreate(g Group) (*Comm, error) {
	ch := splitChoice{color: Undefined, group: groupHash(g)}
	if r := g.rankOf(c.inter.local.toWorld(c.rank)); r != Undefined {
		ch.color, ch.key = 0, r
	}
	for _, w := range g.world {
		if !c.inter.local.hasWorld(w) {
			ch.bad = fmt.Errorf("%w: World rank %d of the group is not in the local group", ErrRank, w)
		}
	}
	return c.interSplit("Create", ch)
}

// interIdup is Idup for the intercommunicator c: the new local group's
// context is agreed over the local group and the intercommunicator's
// over the span, both in the Request's goroutine, which fills in nc.
func (c *Comm) interIdup(nc *Comm) (*Request, error) {
	const op = "Idup"
	world := slices.Clone(c.world)
	localWorld := c.inter.local.Group().world
	first, rank := c.inter.first, c.rank
	return c.interRun(op, false, func(lu, su *collectives.Runner) error {
		lu.Force, su.Force = nil, nil // communicator management runs the defaults
		lid, err := c.rt.agreeContext(op, runnerAllreduce(lu))
		if err != nil {
			return err
		}
		id, err := c.rt.agreeContext(op, runnerAllreduce(su))
		if err != nil {
			c.rt.releaseContext(lid)
			return err
		}
		initComm(nc, c.rt, id, rank, world)
		nc.inter = &interComm{local: newComm(c.rt, lid, rank, localWorld), first: first}
		return nc.openSpan(op)
	})
}
