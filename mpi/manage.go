package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// numContextIDs is how many communicators a process can be part of at a
// time (World included).
const numContextIDs = 4096

// ErrNoContext: every context id is in use (too many communicators not
// freed).
var ErrNoContext = errors.New("no free context id (too many communicators)")

// ErrColor: an invalid color passed to Split.
var ErrColor = errors.New("invalid color")

func (s *runtimeState) initContexts() {
	for i := range s.ctxFree {
		s.ctxFree[i] = ^uint64(0)
	}
	s.ctxFree[0] &^= 1 << worldID
}

// claimContext marks context id as used if it is free.
func (s *runtimeState) claimContext(id int) bool {
	s.ctxMu.Lock()
	defer s.ctxMu.Unlock()
	w, b := id/64, uint(id%64)
	if s.ctxFree[w]&(1<<b) == 0 {
		return false
	}
	s.ctxFree[w] &^= 1 << b
	return true
}

func (s *runtimeState) releaseContext(id int) {
	s.ctxMu.Lock()
	s.ctxFree[id/64] |= 1 << uint(id%64)
	s.ctxMu.Unlock()
}

// releaseIdle gives back the context ids of the communicators freed
// while busy (Comm.releaseWhenIdle) that are idle now.
func (s *runtimeState) releaseIdle() {
	s.ctxMu.Lock()
	busy := s.freedBusy
	s.freedBusy = nil
	s.ctxMu.Unlock()
	var still []*Comm
	for _, c := range busy {
		if c.idle() {
			c.releaseContext()
		} else {
			still = append(still, c)
		}
	}
	if len(still) > 0 {
		s.ctxMu.Lock()
		s.freedBusy = append(s.freedBusy, still...)
		s.ctxMu.Unlock()
	}
}

// allocContext agrees with the other processes of c on a context id free
// in all of them and claims it.
func (c *Comm) allocContext(op string) (int, error) {
	return c.rt.agreeContext(op, func(words []uint64, o Op) error { return manageAllreduce(c, words, o) })
}

// agreeContext agrees on a context id free in every process that runs it
// with the same allreduce, and claims it: the free sets are intersected,
// every process claims the same common id, and if one could not (another
// goroutine took it meanwhile) all release it and retry. The first round
// takes the lowest common id. Agreements run at once (nonblocking
// duplications of overlapping communicators, say) may keep taking the
// same id in some processes each and fail in turn, so a retry takes a
// common id at an offset the processes draw at random and agree on (the
// largest of their draws): two agreements soon take different ones.
func (s *runtimeState) agreeContext(op string, allreduce func(words []uint64, o Op) error) (int, error) {
	for round := 0; ; round++ {
		s.releaseIdle()
		s.ctxMu.Lock()
		free := s.ctxFree
		s.ctxMu.Unlock()
		if err := allreduce(free[:], BAnd); err != nil {
			return 0, fmt.Errorf("mpi: %s: choosing a context id: %w", op, err)
		}
		skip := []uint64{0}
		if round > 0 {
			skip[0] = uint64(rand.IntN(64))
			if err := allreduce(skip, Max); err != nil {
				return 0, fmt.Errorf("mpi: %s: choosing a context id: %w", op, err)
			}
		}
		id, ok, err := s.claimAgreed(op, commonID(free[:], int(skip[0])), allreduce)
		if err != nil || ok {
			return id, err
		}
	}
}

// commonID returns the id of the skip-th set bit of free, counted from the
// lowest, or the lowest if there are fewer; -1 if none is set.
func commonID(free []uint64, skip int) int {
	first := -1
	for w, v := range free {
		for ; v != 0; v &= v - 1 {
			id := 64*w + bits.TrailingZeros64(v)
			if first < 0 {
				first = id
			}
			if skip == 0 {
				return id
			}
			skip--
		}
	}
	return first
}

// claimAgreed claims id, an id free in every process, and agrees with the
// others on whether all could: ok false (and nothing claimed) means the
// round must be run again.
func (s *runtimeState) claimAgreed(op string, id int, allreduce func(words []uint64, o Op) error) (int, bool, error) {
	if id < 0 {
		return 0, false, fmt.Errorf("mpi: %s: %w", op, ErrNoContext)
	}
	all := []uint64{0}
	claimed := s.claimContext(id)
	if claimed {
		all[0] = 1
	}
	if err := allreduce(all, Min); err != nil {
		return 0, false, fmt.Errorf("mpi: %s: claiming context id %d: %w", op, id, err)
	}
	if all[0] == 1 {
		return id, true, nil
	}
	if claimed {
		s.releaseContext(id)
	}
	return 0, false, nil
}

// build makes the communicator of context id over the processes world (in
// their new rank order), of which the caller is one, and gives it a
// barrier controller of the networks' synchronisation network (Offload)
// if one is free (its rank 0 claims it and broadcasts the choice).
func (c *Comm) build(op string, id int, world []int) (*Comm, error) {
	nc := new(Comm)
	if err := c.buildAt(nc, op, id, world); err != nil {
		return nil, err
	}
	return nc, nil
}

// buildAt is build writing the new communicator to nc.
func (c *Comm) buildAt(nc *Comm, op string, id int, world []int) error {
	rank := slices.Index(world, c.toWorld(c.rank))
	initComm(nc, c.rt, id, rank, world)
	if len(world) == c.rt.world.size && isIdentity(world) {
		nc.world, nc.local = nil, nil
	}
	hw := []int64{-1}
	if rank == 0 && nc.size > 1 && !c.rt.noOffload && c.rt.offload != nil {
		if got, err := c.rt.offload.AllocBarrier(); err == nil {
			hw[0] = int64(got)
		}
	}
	if err := manageBcast(nc, hw); err != nil {
		c.rt.releaseContext(id)
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	nc.setOffload(int(hw[0]))
	return nil
}

// hasWorld reports whether the process of World rank w is in c.
func (c *Comm) hasWorld(w int) bool {
	if c.world == nil {
		return w >= 0 && w < c.size
	}
	_, ok := c.local[w]
	return ok
}

func isIdentity(world []int) bool {
	for i, w := range world {
		if i != w {
			return false
		}
	}
	return true
}

// Group returns the group of c's processes, in rank order; the local group
// for an intercommunicator (MPI_Comm_group).
func (c *Comm) Group() Group {
	if c.inter != nil {
		return c.inter.local.Group()
	}
	if c.world == nil {
		g := Group{world: make([]int, c.size)}
		for i := range g.world {
			g.world[i] = i
		}
		return g
	}
	return Group{world: slices.Clone(c.world)}
}

// Dup returns a new communicator with the same processes and topology as
// c, whose traffic does not mix with c's (MPI_Comm_dup); an
// intercommunicator between the same groups for an intercommunicator.
// Collective over c (both groups of an intercommunicator).
func (c *Comm) Dup() (*Comm, error) {
	if err := c.check("Dup"); err != nil {
		return nil, err
	}
	if c.inter != nil {
		return c.interDup()
	}
	id, err := c.allocContext("Dup")
	if err != nil {
		return nil, err
	}
	nc, err := c.build("Dup", id, c.Group().world)
	if err != nil {
		return nil, err
	}
	nc.topo = c.topo // a topology is immutable: the copy shares it
	return nc, nil
}

// Split partitions c: the processes that pass the same color form a new
// communicator, ordered by key (ties by rank in c). A process that passes
// Undefined as color gets nil. Collective over c. On an intercommunicator
// (both groups call it), the processes of each group that pass the same
// color form the local group of a new intercommunicator, whose remote
// group is the processes of the other group that pass that color; a
// process whose color no process of the other group passes gets nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if c.IsInter() {
		return c.interSplit("Split", splitChoice{color: color, key: key})
	}
	if err := c.check("Split"); err != nil {
		return nil, err
	}
	all := make([]int64, 3*c.size)
	if err := manageAllgather(c, []int64{int64(color), int64(key), int64(c.toWorld(c.rank))}, all); err != nil {
		return nil, fmt.Errorf("mpi: Split: %w", err)
	}
	// Every process checks every color, so that all fail alike.
	for r := range c.size {
		if col := int(all[3*r]); col < 0 && col != Undefined {
			return nil, fmt.Errorf("mpi: Split: rank %d passed color %d: %w (must be non-negative or Undefined)", r, col, ErrColor)
		}
	}
	id, err := c.allocContext("Split")
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		c.rt.releaseContext(id)
		return nil, nil
	}
	type member struct{ key, rank, world int }
	var ms []member
	for r := range c.size {
		if int(all[3*r]) == color {
			ms = append(ms, member{int(all[3*r+1]), r, int(all[3*r+2])})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		if a.key != b.key {
			return a.key - b.key
		}
		return a.rank - b.rank
	})
	world := make([]int, len(ms))
	for i, m := range ms {
		world[i] = m.world
	}
	return c.build("Split", id, world)
}

// Create returns a communicator of the processes of g, which must be a
// subset of c's: every process of c calls it, the members of g all with
// g, so that processes may pass different, disjoint groups and each gets
// the communicator of its own (MPI-2.2); a process not in the group it
// passed (the empty one, say) gets nil. Collective over c. On an
// intercommunicator (both groups call it),
// g is a subset of the local group, the same over that group, and the
// processes of g get an intercommunicator with those of the group the
// other group passed; the others get nil, and all do if either group
// passed an empty group.
func (c *Comm) Create(g Group) (*Comm, error) {
	if c.IsInter() {
		return c.interCreate(g)
	}
	if err := c.check("Create"); err != nil {
		return nil, err
	}
	if err := c.sameGroups(g); err != nil {
		return nil, err
	}
	id, err := c.allocContext("Create")
	if err != nil {
		return nil, err
	}
	if g.rankOf(c.toWorld(c.rank)) == Undefined {
		c.rt.releaseContext(id)
		return nil, nil
	}
	return c.build("Create", id, slices.Clone(g.world))
}

// sameGroups checks the groups that the processes of c passed to Create:
// each a subset of c, and every member of a process's group passed the
// same group. So the groups of the processes that belong to one are
// disjoint (MPI-2.2: a process passes the group it belongs to, and gets
// that communicator); every process learns whether all of them hold.
func (c *Comm) sameGroups(g Group) error {
	h := fnv.New64a()
	ok := true
	var b [8]byte
	for _, w := range g.world {
		binary.LittleEndian.PutUint64(b[:], uint64(w))
		h.Write(b[:])
		ok = ok && c.hasWorld(w)
	}
	digests := make([]uint64, c.size+1)               // each process's digest, then whether all is well
	digests[c.rank], digests[c.size] = h.Sum64()|1, 0 // never 0: a slot no process filled
	if !ok {
		digests[c.size] = 1
	}
	if err := manageAllreduce(c, digests, BOr); err != nil {
		return fmt.Errorf("mpi: Create: %w", err)
	}
	for _, w := range g.world {
		if ok && digests[c.fromWorld(w)] != digests[c.rank] {
			digests[c.size] = 1 // a member passed another group
		}
	}
	bad := []uint8{uint8(digests[c.size])}
	if err := manageAllreduce(c, bad, Max); err != nil {
		return fmt.Errorf("mpi: Create: %w", err)
	}
	if bad[0] != 0 {
		return fmt.Errorf("mpi: Create: %w: a group is not a subset of the communicator, or its members passed different groups", ErrMismatch)
	}
	return nil
}

// Free frees c (MPI_Comm_free, collective over c): starting operations
// on c afterwards is an error wrapping ErrComm, but requests started
// before complete normally (Wait, Test and the others). Free does not
// wait for the other processes, which may free c later and in another
// order of their communicators, as MPI allows (a process may wait for
// the others elsewhere in between); c's context id goes back once its
// requests have finished, and its barrier controller, if it has one, once
// every process has freed it (release). Under a timing model, whose runs
// free their communicators in the same order everywhere, a communicator
// with a barrier controller is released before Free returns. World
// cannot be freed.
func (c *Comm) Free() error {
	if err := c.check("Free"); err != nil {
		return err
	}
	if c.id == worldID {
		return fmt.Errorf("mpi: Free: World cannot be freed: %w", ErrComm)
	}
	if c.inter != nil {
		return c.interFree()
	}
	if !c.freed.CompareAndSwap(false, true) {
		return fmt.Errorf("mpi: Free: %w", ErrComm)
	}
	// Finalize settles the broadcasts of the communicators not freed; the
	// release's barrier settles c's.
	c.rt.keepAhead(c, false)
	var err error
	switch {
	case c.hw == nil:
		// No barrier controller: nothing to wait for.
	case c.rt.modelled:
		// The release's barrier beside the model's clock would hold it.
		err = c.release()
	default:
		c.requestStarted() // the release: the context id waits for it
		go func() {
			if err := c.release(); err != nil && !errors.Is(err, ErrFinalized) {
				fmt.Fprintf(os.Stderr, "mpi: rank %d: freeing a communicator: %v\n", c.rt.world.rank, err)
			}
			c.requestFinished()
		}()
	}
	c.releaseWhenIdle()
	return err
}

// release gives back the barrier controller of a freed c once every
// process has freed it: after a barrier of c's own messages, not the
// controller, no process reads the controller any more, and rank 0 gives
// it back (no blocking collective can be pending on a freed
// communicator). A process that never frees c keeps it in use; Finalize
// ends the wait.
func (c *Comm) release() error {
	err := c.runOn(&c.manager, "Free", func(u *collectives.Runner) error {
		// What is left to check arrives at the controller first: the
		// calls that moved no data since the last arrival (collectives'
		// Empty), which a process whose call moved some waits for.
		serr := u.Settle()
		u.HW = nil
		return errors.Join(serr, u.Barrier())
	})
	if err == nil && c.rank == 0 {
		if err = c.hw.Free(); err != nil {
			err = fmt.Errorf("mpi: Free: releasing the barrier controller: %w", err)
		}
	}
	return err
}

// manageAllreduce is Allreduce in place for communicator management.
func manageAllreduce[T Type](c *Comm, buf []T, op Op) error {
	return c.manage("Allreduce", func(u *collectives.Runner) error {
		r, err := reducer[T](u, collectives.CollAllreduce, op)
		if err != nil {
			return err
		}
		return u.Allreduce(nil, asBytes(buf), *r)
	})
}

// manageBcast is Bcast from rank 0 for communicator management.
func manageBcast[T Type](c *Comm, buf []T) error {
	return c.manage("Bcast", func(u *collectives.Runner) error {
		return u.Bcast(asBytes(buf), 0, sizeOf[T]())
	})
}

// manageAllgather is Allgather for communicator management.
func manageAllgather[T Type](c *Comm, send, recv []T) error {
	return c.manage("Allgather", func(u *collectives.Runner) error {
		return u.Allgather(asBytes(send), asBytes(recv), sizeOf[T]())
	})
}
