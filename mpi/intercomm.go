package mpi

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// ErrInter: a call that an intercommunicator does not support, or one
// that needs an intercommunicator made on an intracommunicator
// (MPI_ERR_COMM).
var ErrInter = errors.New("not supported on this kind of communicator (intra- or intercommunicator)")

// Root is the root argument of the process that is the root of a
// collective operation on an intercommunicator (MPI_ROOT); the other
// processes of its group pass ProcNull, and those of the other group the
// root's rank in the root's group.
const Root = -4

// interComm is what an intercommunicator has beyond its Comm, whose world,
// local and size describe the remote group (the group the ranks of
// point-to-point calls name) and whose rank is the caller's rank in the
// local group.
type interComm struct {
	// local is an intracommunicator of the local group, private to the
	// intercommunicator: its collectives run there.
	local *Comm
	// first: the local group comes first in IntercommMerge when both
	// groups pass the same high (the group of the lower World rank of the
	// two groups' rank 0).
	first bool
	// span is an intracommunicator of both groups on which the
	// collectives that move data run (interspan.go); nil until the first.
	span *Comm
}

// IsInter reports whether c is an intercommunicator (MPI_Comm_test_inter).
func (c *Comm) IsInter() bool { return c != nil && c.inter != nil }

// RemoteSize returns the number of processes in the remote group of the
// intercommunicator c (MPI_Comm_remote_size).
func (c *Comm) RemoteSize() (int, error) {
	if err := c.interOnly("RemoteSize"); err != nil {
		return 0, err
	}
	return c.size, nil
}

// RemoteGroup returns the remote group of the intercommunicator c, in
// rank order (MPI_Comm_remote_group).
func (c *Comm) RemoteGroup() (Group, error) {
	if err := c.interOnly("RemoteGroup"); err != nil {
		return Group{}, err
	}
	return Group{world: slices.Clone(c.world)}, nil
}

// intraOnly reports c being an intercommunicator, for op which needs an
// intracommunicator.
func (c *Comm) intraOnly(op string) error {
	if c == nil || c.inter == nil {
		return nil
	}
	return interError(op)
}

// checkIntra is check, then intraOnly: c is a usable intracommunicator
// for op, or the error says what it is not.
func (c *Comm) checkIntra(op string) error {
	if err := c.check(op); err != nil {
		return err
	}
	return c.intraOnly(op)
}

// interError is intraOnly's error.
func interError(op string) error {
	return fmt.Errorf("mpi: %s on an intercommunicator: %w", op, ErrInter)
}

// interOnly checks that c is a usable intercommunicator.
func (c *Comm) interOnly(op string) error {
	if err := c.check(op); err != nil {
		return err
	}
	if c.inter == nil {
		return fmt.Errorf("mpi: %s on an intracommunicator: %w", op, ErrInter)
	}
	return nil
}

// IntercommCreate returns an intercommunicator between c, the local
// group, and a remote group (MPI_Intercomm_create). Every process of c
// calls it with the same localLeader, a rank of c; the leader exchanges
// the groups with the remote group's leader, the process of rank
// remoteLeader in peer, through point-to-point messages of peer with tag,
// so that tag must not be used by other messages between the leaders
// meanwhile. peer and remoteLeader matter at the local leader only. The
// groups must be disjoint. Collective over c and the remote group.
func (c *Comm) IntercommCreate(localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommCreate"
	if err := c.checkIntra(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= c.size {
		return nil, fmt.Errorf("mpi: %s: local leader %d: %w (communicator size %d)", op, localLeader, ErrRank, c.size)
	}
	if tag < 0 || tag > TagUB {
		return nil, fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d)", op, tag, ErrTag, TagUB)
	}
	b := bridge{local: c, leader: localLeader}
	if c.rank == localLeader {
		b.swap = func(mine, theirs []uint64) error {
			if err := peer.checkDest(op, remoteLeader, tag); err != nil {
				return err
			}
			if remoteLeader == ProcNull {
				return fmt.Errorf("mpi: %s: the remote leader is ProcNull: %w", op, ErrRank)
			}
			return swapOn(peer, mine, remoteLeader, tag, theirs)
		}
	}
	remote, err := b.groups()
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return c.interBuild(op, b, remote)
}

// interBuild makes the intercommunicator between c and the processes
// remote (World ranks), agreeing on its context id over b.
func (c *Comm) interBuild(op string, b bridge, remote []int) (*Comm, error) {
	id, err := c.rt.agreeContext(op, b.allreduce)
	if err != nil {
		return nil, err
	}
	local, err := c.Dup()
	if err != nil {
		c.rt.releaseContext(id)
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	ic := newComm(c.rt, id, c.rank, remote)
	ic.inter = &interComm{local: local, first: local.toWorld(0) < remote[0]}
	if err := ic.openSpan(op); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return ic, nil
}

// bridge joins the processes of two groups for a collective call over
// both: the leader of each runs swap, which sends its words to the other
// leader and receives the other's.
type bridge struct {
	local  *Comm // the local group
	leader int   // the rank in local that runs swap
	swap   func(mine, theirs []uint64) error
}

// trade gives every process of the local group the other group's n words
// for its own leader's mine.
func (b bridge) trade(mine []uint64, n int) ([]uint64, error) {
	buf := make([]uint64, 1+n) // the class of the leader's error (0: none), then theirs
	var err error
	if b.local.rank == b.leader {
		if err = b.swap(mine, buf[1:]); err != nil {
			buf[0] = uint64(classIndex(err))
		}
	}
	if berr := manageBcastFrom(b.local, buf, b.leader); berr != nil {
		return nil, berr
	}
	if buf[0] != 0 {
		if err == nil {
			err = fmt.Errorf("the exchange of the group's leader (rank %d) with the other group's failed: %w", b.leader, classAt(int(buf[0])))
		}
		return nil, err
	}
	return buf[1:], nil
}

// classIndex returns 1 + the index of err's class in errorClasses, or 1 +
// their number for an error of no class.
func classIndex(err error) int {
	for i, c := range errorClasses {
		if errors.Is(err, c.err) {
			return 1 + i
		}
	}
	return 1 + len(errorClasses)
}

// classAt returns the class classIndex gave i; ErrComm for no class.
func classAt(i int) error {
	if i >= 1 && i <= len(errorClasses) {
		return errorClasses[i-1].err
	}
	return ErrComm
}

// allreduce combines words in place over both groups with op, which must
// be commutative, so that every process of both gets the same result.
func (b bridge) allreduce(words []uint64, op Op) error {
	if err := manageAllreduce(b.local, words, op); err != nil {
		return err
	}
	theirs, err := b.trade(words, len(words))
	if err != nil {
		return err
	}
	return ReduceLocal(theirs, words, op)
}

// groups exchanges the groups' World ranks, and returns the remote
// group's; the groups must be disjoint.
func (b bridge) groups() ([]int, error) {
	n, err := b.trade([]uint64{uint64(b.local.size)}, 1)
	if err != nil {
		return nil, err
	}
	mine := b.local.Group().world
	words := make([]uint64, len(mine))
	for i, w := range mine {
		words[i] = uint64(w)
	}
	theirs, err := b.trade(words, int(n[0]))
	if err != nil {
		return nil, err
	}
	remote := make([]int, len(theirs))
	for i, w := range theirs {
		remote[i] = int(w)
		if slices.Contains(mine, remote[i]) {
			return nil, fmt.Errorf("%w: the process of World rank %d is in both groups", ErrRank, w)
		}
	}
	if len(remote) == 0 {
		return nil, fmt.Errorf("%w: the remote group is empty", ErrRank)
	}
	return remote, nil
}

// swapOn sends mine to rank peer of c with tag and receives theirs from
// it, checking its length.
func swapOn(c *Comm, mine []uint64, peer, tag int, theirs []uint64) error {
	st, err := Sendrecv(c, mine, peer, tag, theirs, peer, tag)
	if err != nil {
		return err
	}
	if st.Count != len(theirs) || st.Bytes != 8*len(theirs) {
		return fmt.Errorf("%w: the other leader sent %d bytes where %d were expected", ErrMismatch, st.Bytes, 8*len(theirs))
	}
	return nil
}

// manageBcastFrom is Bcast from root for communicator management.
func manageBcastFrom[T Type](c *Comm, buf []T, root int) error {
	return c.manage("Bcast", func(u *collectives.Runner) error {
		return u.Bcast(asBytes(buf), root, sizeOf[T]())
	})
}

// bridge returns the bridge of the intercommunicator c: the local groups'
// ranks 0 exchange through c's collective context, with a tag taken now
// for the whole call by every process of both groups.
func (c *Comm) bridge() bridge {
	n := &commNet{c: c, tag: c.nextTag()}
	return bridge{local: c.inter.local, leader: 0, swap: func(mine, theirs []uint64) error {
		got, err := n.Sendrecv(0, asBytes(mine), 0, asBytes(theirs))
		if err == nil && got != 8*len(theirs) {
			err = fmt.Errorf("%w: the other group's leader sent %d bytes where %d were expected", ErrMismatch, got, 8*len(theirs))
		}
		return err
	}}
}

// IntercommMerge returns an intracommunicator of both groups of the
// intercommunicator c (MPI_Intercomm_merge): the group whose processes
// pass high false first, each group in its own rank order. When both
// groups pass the same high, the group of the process with the lower
// World rank among the two groups' ranks 0 comes first. The processes of
// a group must pass the same high, else every process fails with
// ErrMismatch. Collective over both groups.
func (c *Comm) IntercommMerge(high bool) (*Comm, error) {
	const op = "IntercommMerge"
	if err := c.interOnly(op); err != nil {
		return nil, err
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	b := c.bridge()
	h := uint64(0)
	if high {
		h = 1
	}
	mine := []uint64{h, 1 - h} // after Max: both 1 if the group disagrees
	if err := manageAllreduce(b.local, mine, Max); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	theirs, err := b.trade(mine, 2)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	if mine[0] == mine[1] || theirs[0] == theirs[1] {
		return nil, fmt.Errorf("mpi: %s: %w: the processes of a group passed different values of high", op, ErrMismatch)
	}
	first := c.inter.first
	if mine[0] != theirs[0] {
		first = mine[0] == 0
	}
	world := slices.Concat(c.inter.local.Group().world, c.world)
	if !first {
		world = slices.Concat(c.world, c.inter.local.Group().world)
	}
	id, err := c.rt.agreeContext(op, b.allreduce)
	if err != nil {
		return nil, err
	}
	return c.inter.local.build(op, id, world)
}

// interDup is Dup for the intercommunicator c.
func (c *Comm) interDup() (*Comm, error) {
	c.collMu.Lock()
	defer c.collMu.Unlock()
	return c.inter.local.interBuild("Dup", c.bridge(), slices.Clone(c.world))
}

// interFree is Free for the intercommunicator c: its local group and
// span are freed as Free frees them, waiting for no other process.
func (c *Comm) interFree() error {
	if !c.freed.CompareAndSwap(false, true) {
		return fmt.Errorf("mpi: Free: %w", ErrComm)
	}
	err := c.inter.local.Free()
	if s := c.inter.span; s != nil {
		err = errors.Join(err, s.Free())
	}
	c.releaseWhenIdle()
	return err
}

// interBarrier returns once every process of both groups of c has called
// it: an allreduce over the local group, an exchange between the leaders
// and a broadcast over the local group.
func (c *Comm) interBarrier() error {
	if err := c.check("Barrier"); err != nil {
		return err
	}
	c.collMu.Lock()
	defer c.collMu.Unlock()
	if err := c.bridge().allreduce([]uint64{0}, BOr); err != nil {
		return fmt.Errorf("mpi: Barrier: %w", err)
	}
	return nil
}
