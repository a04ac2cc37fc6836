package mpi

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// createGroupCtx is the context of the messages CreateGroup exchanges
// between the members of a group of the communicator of context id id:
// apart from the communicator's point-to-point and collective contexts
// (2id and 2id+1), so that they mix with neither, and told apart from
// other CreateGroup calls by their tag.
func createGroupCtx(id int) uint32 { return 1<<31 | uint32(id) }

// CreateGroup returns a communicator of the processes of g, a group of
// c's processes (MPI_Comm_create_group). Unlike Create, only the members
// of g call it, with the same g (else every member fails with
// ErrMismatch) and tag; calls on c whose groups overlap must have
// different tags or be made one after the other.
func (c *Comm) CreateGroup(g Group, tag int) (*Comm, error) {
	const op = "CreateGroup"
	if err := c.checkIntra(op); err != nil {
		return nil, err
	}
	if tag < 0 || tag > TagUB {
		return nil, fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d)", op, tag, ErrTag, TagUB)
	}
	me := g.rankOf(c.toWorld(c.rank))
	if me == Undefined {
		return nil, fmt.Errorf("mpi: %s: the calling process (rank %d) is not a member of the group: %w", op, c.rank, ErrRank)
	}
	members := make([]int, len(g.world))
	for i, w := range g.world {
		if !c.hasWorld(w) {
			return nil, fmt.Errorf("mpi: %s: member %d of the group (World rank %d) is not in the communicator: %w", op, i, w, ErrRank)
		}
		members[i] = c.fromWorld(w)
	}
	u := &collectives.Runner{Net: &groupNet{c: c, members: members, rank: me, tag: int32(tag)},
		Check: c.rt.collCheck, Stats: &c.rt.collStats}
	if err := sameGroup(u, g); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	id, err := c.rt.agreeContext(op, runnerAllreduce(u))
	if err != nil {
		return nil, err
	}
	return c.build(op, id, slices.Clone(g.world))
}

// sameGroup checks that every member passed the same group: the members
// compare a broadcast of the first one's.
func sameGroup(u *collectives.Runner, g Group) error {
	first := make([]int64, len(g.world))
	for i, w := range g.world {
		first[i] = int64(w)
	}
	mine := slices.Clone(first)
	if err := u.Bcast(asBytes(first), 0, 8); err != nil {
		return err
	}
	same := []uint64{1}
	if !slices.Equal(first, mine) {
		same[0] = 0
	}
	if err := runnerAllreduce(u)(same, Min); err != nil {
		return err
	}
	if same[0] == 0 {
		return fmt.Errorf("%w: the members passed different groups", ErrMismatch)
	}
	return nil
}

// groupNet carries the collectives of CreateGroup among the members of a
// group of c (members[i] is the rank in c of the group's rank i), in
// createGroupCtx with the call's tag. It implements collectives.Net.
type groupNet struct {
	c       *Comm
	members []int
	rank    int
	tag     int32
}

func (n *groupNet) Rank() int { return n.rank }
func (n *groupNet) Size() int { return len(n.members) }

func (n *groupNet) sendOp(to int, data []byte) *llc.SendOp {
	c := n.c
	return &llc.SendOp{Peer: c.toWorld(n.members[to]), Tag: n.tag, Ctx: createGroupCtx(c.id), Data: data}
}

func (n *groupNet) recvOp(from int, buf []byte) *llc.RecvOp {
	c := n.c
	return &llc.RecvOp{Source: c.toWorld(n.members[from]), Tag: n.tag, Ctx: createGroupCtx(c.id), Buf: buf}
}

func (n *groupNet) Send(to int, data []byte) error {
	_, err := n.Sendrecv(to, data, -1, nil)
	return err
}

func (n *groupNet) Recv(from int, buf []byte) (int, error) {
	return n.Sendrecv(-1, nil, from, buf)
}

// Sendrecv sends to to and receives from from; either is skipped if
// negative.
func (n *groupNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	ep := n.c.rt.ep
	var rop *llc.RecvOp
	var sop *llc.SendOp
	if from >= 0 {
		rop = n.recvOp(from, buf)
		ep.Recv(rop)
	}
	if to >= 0 {
		sop = n.sendOp(to, data)
		ep.Send(sop)
	}
	ep.WaitFunc(func() bool { return (rop == nil || rop.Done()) && (sop == nil || sop.Done()) })
	var errs []error
	length := 0
	if sop != nil {
		errs = append(errs, wrap("CreateGroup send", n.members[to], sop.Err()))
	}
	if rop != nil {
		length = rop.Status.Len
		if err := rop.Err(); !errors.Is(err, llc.ErrTruncated) {
			errs = append(errs, wrap("CreateGroup receive", n.members[from], err))
		}
	}
	return length, errors.Join(errs...)
}
