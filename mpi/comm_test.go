package mpi_test

// Multi-process tests of communicators: Dup, Split, Create, groups, Free,
// isolation of their traffic, concurrent use from goroutines, reuse of
// context ids and of the NIC's barrier controllers.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["comm-isolation"] = scenarioCommIsolation
	scenarios["comm-groups"] = scenarioCommGroups
	scenarios["comm-concurrent"] = scenarioCommConcurrent
	scenarios["comm-free"] = scenarioCommFree
	scenarios["comm-free-pending"] = scenarioCommFreePending
	scenarios["comm-free-held"] = scenarioCommFreeHeld
	scenarios["comm-many"] = func(w *mpi.Comm) error { return scenarioCommMany(w, false) }
	scenarios["comm-many-keep"] = func(w *mpi.Comm) error { return scenarioCommMany(w, true) }
}

// release frees c; nil is ignored.
func release(c *mpi.Comm) error {
	if c == nil {
		return nil
	}
	return c.Free()
}

// TestCommunicators runs the communicator scenarios with the NIC's
// offload (each communicator of more than one process gets a barrier
// controller while there are free ones) and without.
func TestCommunicators(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		heavy bool
		flags []string
	}{
		{name: "isolation"},
		{name: "groups"},
		{name: "concurrent"},
		{name: "free", heavy: true},
		{name: "free-pending"},
		{name: "free-held"},
		{name: "many", heavy: true},
		// Communicators left alive for Finalize.
		{name: "many-keep", heavy: true},
		// Without the NIC's synchronisation network, every communicator
		// is software only.
		{name: "isolation", flags: []string{"-no-offload"}},
		{name: "groups", flags: []string{"-no-offload"}},
		{name: "concurrent", flags: []string{"-no-offload"}},
		{name: "free", heavy: true, flags: []string{"-no-offload"}},
		{name: "free-pending", flags: []string{"-no-offload"}},
		// Without a barrier controller, whose release keeps the context
		// id until every process has freed the communicator, only the
		// endpoint's operations keep it.
		{name: "free-held", flags: []string{"-no-offload"}},
		{name: "many", heavy: true, flags: []string{"-no-offload"}},
	} {
		sub := c.name
		if len(c.flags) > 0 {
			sub += "/" + strings.Join(c.flags, "")[1:]
		}
		t.Run(sub, func(t *testing.T) {
			offload := !slices.Contains(c.flags, "-no-offload")
			t.Parallel()
			sizes := collSizes(c.heavy)
			if !offload {
				sizes = []int{2, 5}
				if raceEnabled {
					sizes = []int{3}
				}
			}
			runAt(t, "comm-"+c.name, sizes, c.flags...)
		})
	}
}

// ranksWhere returns the ranks r of 0..n-1 for which keep(r) holds,
// ordered by key(r) and then by rank.
func ranksWhere(n int, keep func(r int) bool, key func(r int) int) []int {
	var rs []int
	for r := range n {
		if keep(r) {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b int) int { return key(a) - key(b) })
	return rs
}

// exerciseComm checks that c is the communicator of the World ranks
// members, in its rank order, and runs point-to-point and collective
// traffic on it.
func exerciseComm(c *mpi.Comm, name string, members []int, worldRank int) error {
	rank := slices.Index(members, worldRank)
	if c == nil {
		return fmt.Errorf("%s: nil communicator for member %d of %v", name, worldRank, members)
	}
	n := len(members)
	if c.Rank() != rank || c.Size() != n {
		return fmt.Errorf("%s: rank %d of %d, want %d of %d (members %v)", name, c.Rank(), c.Size(), rank, n, members)
	}
	g := c.Group()
	if got := g.WorldRanks(); !slices.Equal(got, members) || g.Size() != n || g.Rank() != rank {
		return fmt.Errorf("%s: group %v (size %d, rank %d), want %v (rank %d)", name, got, g.Size(), g.Rank(), members, rank)
	}
	u := commUnderTest{c: c, name: name, members: members, worldRank: worldRank, rank: rank, n: n}
	return firstError(u.ring, u.allreduces, u.bcasts, u.allgatherScan)
}

// commUnderTest is a communicator that exerciseComm runs traffic on: c,
// named name, of the World ranks members, where this process is
// worldRank, rank rank of n.
type commUnderTest struct {
	c               *mpi.Comm
	name            string
	members         []int
	worldRank, rank int
	n               int
}

// ring sends around a ring, received with wildcards: Status.Source is a
// rank of c.
func (u commUnderTest) ring() error {
	c, name, members, worldRank, rank, n := u.c, u.name, u.members, u.worldRank, u.rank, u.n
	right, left := (rank+1)%n, (rank-1+n)%n
	for round := range 3 {
		q, err := mpi.Isend(c, []int64{int64(worldRank), int64(round)}, right, 100+round+rank)
		if err != nil {
			return fmt.Errorf("%s: Isend: %w", name, err)
		}
		buf := []int64{-1, -1}
		st, err := mpi.Recv(c, buf, mpi.AnySource, mpi.AnyTag)
		if err != nil {
			return fmt.Errorf("%s: Recv: %w", name, err)
		}
		if _, err := q.Wait(); err != nil {
			return fmt.Errorf("%s: Isend: %w", name, err)
		}
		if err := checkStatus(name+": ring Recv", st, left, 100+round+left, 2, 16); err != nil {
			return err
		}
		if buf[0] != int64(members[left]) || buf[1] != int64(round) {
			return fmt.Errorf("%s: ring Recv got %v, want [%d %d]", name, buf, members[left], round)
		}
	}
	return nil
}

// sum is the sum of the members' World ranks.
func (u commUnderTest) sum() int {
	sum := 0
	for _, m := range u.members {
		sum += m
	}
	return sum
}

// allreduces runs a short Allreduce (the NIC's, when the communicator has
// a barrier controller) and a long one.
func (u commUnderTest) allreduces() error {
	c, name, worldRank, n, sum := u.c, u.name, u.worldRank, u.n, u.sum()
	got := []int64{0, 0}
	if err := mpi.Allreduce(c, []int64{int64(worldRank), 1}, got, mpi.Sum); err != nil {
		return fmt.Errorf("%s: Allreduce: %w", name, err)
	}
	if got[0] != int64(sum) || got[1] != int64(n) {
		return fmt.Errorf("%s: Allreduce: %v, want [%d %d]", name, got, sum, n)
	}
	long := make([]int32, 20000)
	for i := range long {
		long[i] = int32(worldRank + i)
	}
	longOut := make([]int32, len(long))
	if err := mpi.Allreduce(c, long, longOut, mpi.Sum); err != nil {
		return fmt.Errorf("%s: long Allreduce: %w", name, err)
	}
	for i, v := range longOut {
		if v != int32(sum+n*i) {
			return fmt.Errorf("%s: long Allreduce: element %d is %d, want %d", name, i, v, sum+n*i)
		}
	}
	return nil
}

// bcasts runs Bcast from every root.
func (u commUnderTest) bcasts() error {
	c, name, members, worldRank, rank, n := u.c, u.name, u.members, u.worldRank, u.rank, u.n
	for root := range n {
		b := []int32{-1, -1}
		if root == rank {
			b = []int32{int32(10 * worldRank), int32(root)}
		}
		if err := mpi.Bcast(c, b, root); err != nil {
			return fmt.Errorf("%s: Bcast from %d: %w", name, root, err)
		}
		if b[0] != int32(10*members[root]) || b[1] != int32(root) {
			return fmt.Errorf("%s: Bcast from %d: %v", name, root, b)
		}
	}
	return nil
}

// allgatherScan runs Allgather, Scan and Barrier.
func (u commUnderTest) allgatherScan() error {
	c, name, members, worldRank, rank, n := u.c, u.name, u.members, u.worldRank, u.rank, u.n
	all := make([]int16, n)
	if err := mpi.Allgather(c, []int16{int16(worldRank)}, all); err != nil {
		return fmt.Errorf("%s: Allgather: %w", name, err)
	}
	for i, m := range members {
		if all[i] != int16(m) {
			return fmt.Errorf("%s: Allgather: %v, want %v", name, all, members)
		}
	}
	pre := []int64{0}
	if err := mpi.Scan(c, []int64{1}, pre, mpi.Sum); err != nil {
		return fmt.Errorf("%s: Scan: %w", name, err)
	}
	if pre[0] != int64(rank+1) {
		return fmt.Errorf("%s: Scan of ones: %d, want %d", name, pre[0], rank+1)
	}
	if err := mpi.Barrier(c); err != nil {
		return fmt.Errorf("%s: Barrier: %w", name, err)
	}
	return nil
}

// scenarioCommIsolation posts a wildcard receive on World, runs traffic on
// communicators made by Dup, Split and Create, and checks that the
// receive got only the World message sent last.
func scenarioCommIsolation(w *mpi.Comm) error {
	worldBuf := []int64{-1, -1}
	wreq, err := mpi.Irecv(w, worldBuf, mpi.AnySource, mpi.AnyTag)
	if err != nil {
		return err
	}
	var comms []*mpi.Comm
	keep := func(c *mpi.Comm) { comms = append(comms, c) }
	if err := firstError(
		func() error { return isolationDup(w, keep) },
		func() error { return isolationSplits(w, keep) },
		func() error { return isolationTies(w, keep) },
		func() error { return isolationCreate(w, keep) },
	); err != nil {
		return err
	}
	total, err := isolationWorldCollectives(w, wreq, worldBuf, comms)
	if err != nil {
		return err
	}
	return isolationWorldMessage(w, wreq, worldBuf, total)
}

// isolationDup exercises a Dup of World, which it keeps.
func isolationDup(w *mpi.Comm, keep func(*mpi.Comm)) error {
	me, n := w.Rank(), w.Size()
	every := make([]int, n)
	for r := range every {
		every[r] = r
	}
	dup, err := w.Dup()
	if err != nil {
		return fmt.Errorf("Dup: %w", err)
	}
	keep(dup)
	return exerciseComm(dup, "Dup of World", every, me)
}

// isolationSplits exercises a Split by three colors, keys reversing the
// order, where every fourth rank (of 5 and more) is left out; then a Dup
// of the split and a split of that. It keeps them.
func isolationSplits(w *mpi.Comm, keep func(*mpi.Comm)) error {
	me, n := w.Rank(), w.Size()
	color := func(r int) int {
		if n >= 5 && r%4 == 3 {
			return mpi.Undefined
		}
		return r % 3
	}
	sp, err := w.Split(color(me), -me)
	if err != nil {
		return fmt.Errorf("Split: %w", err)
	}
	if color(me) == mpi.Undefined {
		if sp != nil {
			return fmt.Errorf("Split with color Undefined returned a communicator of size %d", sp.Size())
		}
	} else {
		keep(sp)
		members := ranksWhere(n, func(r int) bool { return color(r) == color(me) }, func(r int) int { return -r })
		if err := exerciseComm(sp, fmt.Sprintf("Split color %d", color(me)), members, me); err != nil {
			return err
		}
		return isolationSplitOfSplit(sp, members, me, keep)
	}
	return nil
}

// isolationSplitOfSplit exercises a Dup of the split sp of the World
// ranks members, and a split of it by parity with equal keys (ties go by
// rank in the split). It keeps them.
func isolationSplitOfSplit(sp *mpi.Comm, members []int, me int, keep func(*mpi.Comm)) error {
	d2, err := sp.Dup()
	if err != nil {
		return fmt.Errorf("Dup of a split: %w", err)
	}
	keep(d2)
	if err := exerciseComm(d2, "Dup of a split", members, me); err != nil {
		return err
	}
	half := func(r int) int { return r % 2 }
	s2, err := d2.Split(half(me), 0)
	if err != nil {
		return fmt.Errorf("Split of a Dup of a split: %w", err)
	}
	keep(s2)
	var sub []int
	for _, m := range members {
		if half(m) == half(me) {
			sub = append(sub, m)
		}
	}
	return exerciseComm(s2, "Split of a Dup of a split", sub, me)
}

// isolationTies exercises a Split with ties: keys (n-me)/2 order the
// pairs downwards, and a pair keeps its rank order. It keeps it.
func isolationTies(w *mpi.Comm, keep func(*mpi.Comm)) error {
	me, n := w.Rank(), w.Size()
	ties, err := w.Split(0, (n-me)/2)
	if err != nil {
		return fmt.Errorf("Split with ties: %w", err)
	}
	keep(ties)
	return exerciseComm(ties, "Split with tied keys", ranksWhere(n, func(int) bool { return true }, func(r int) int { return (n - r) / 2 }), me)
}

// isolationCreate exercises a Create from the group of the even ranks,
// reversed, which it keeps: the others get nil.
func isolationCreate(w *mpi.Comm, keep func(*mpi.Comm)) error {
	me, n := w.Rank(), w.Size()
	var evens []int
	for r := n - 1; r >= 0; r-- {
		if r%2 == 0 {
			evens = append(evens, r)
		}
	}
	g, err := w.Group().Incl(evens...)
	if err != nil {
		return fmt.Errorf("Group.Incl(%v): %w", evens, err)
	}
	cr, err := w.Create(g)
	if err != nil {
		return fmt.Errorf("Create: %w", err)
	}
	if me%2 == 1 {
		if cr != nil {
			return fmt.Errorf("Create: a non-member got a communicator of size %d", cr.Size())
		}
	} else {
		keep(cr)
		if err := exerciseComm(cr, "Create of the even ranks reversed", evens, me); err != nil {
			return err
		}
	}
	return nil
}

// isolationWorldCollectives runs World collectives, which do not match
// the pending receive wreq either, then frees comms. It returns the sum
// of the counts of communicators kept.
func isolationWorldCollectives(w *mpi.Comm, wreq *mpi.Request, worldBuf []int64, comms []*mpi.Comm) (int64, error) {
	if err := mpi.Barrier(w); err != nil {
		return 0, err
	}
	total := []int64{0}
	if err := mpi.Allreduce(w, []int64{int64(len(comms))}, total, mpi.Sum); err != nil {
		return 0, err
	}
	if done, st, err := wreq.Test(); done || err != nil {
		return 0, fmt.Errorf("the wildcard receive on World completed (%+v, %v, %v) before any World message was sent", st, err, worldBuf)
	}
	for i, c := range comms {
		if err := release(c); err != nil {
			return 0, fmt.Errorf("Free of communicator %d: %w", i, err)
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return 0, err
	}
	return total[0], nil
}

// isolationWorldMessage sends a World message to the right neighbour and
// checks that the pending wildcard receive wreq gets it.
func isolationWorldMessage(w *mpi.Comm, wreq *mpi.Request, worldBuf []int64, total int64) error {
	me, n := w.Rank(), w.Size()
	src := (me - 1 + n) % n
	if err := mpi.Send(w, []int64{int64(1000 + me), total}, (me+1)%n, 4242); err != nil {
		return err
	}
	st, err := wreq.Wait()
	if err != nil {
		return err
	}
	if err := checkStatus("the World message", st, src, 4242, 2, 16); err != nil {
		return err
	}
	if worldBuf[0] != int64(1000+src) || worldBuf[1] != total {
		return fmt.Errorf("the World message: %v, want [%d %d]", worldBuf, 1000+src, total)
	}
	return nil
}

// scenarioCommGroups checks the group operations, Create from groups,
// and Create's errors.
func scenarioCommGroups(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	gs, err := makeCommGroups(w)
	if err != nil {
		return err
	}
	if err := firstError(
		func() error { return checkGroupAlgebra(gs, n) },
		func() error { return checkTranslateRanks(gs, me, n) },
		func() error { return checkInvalidGroupRanks(gs, n) },
		func() error { return createFromGroups(w, gs) },
		func() error { return createMismatched(w, gs) },
	); err != nil {
		return err
	}
	return createDisjoint(w)
}

// commGroups are the groups of scenarioCommGroups: World's, its reverse,
// the odd ranks, and the lower half taken from the reverse.
type commGroups struct {
	g, rg, odd, low mpi.Group
	rev             []int // the World ranks of rg
	oddRanks        []int // the World ranks of odd
	wantLow         []int // the World ranks of low
}

// makeCommGroups makes the groups of scenarioCommGroups by Incl and Excl
// and checks their members.
func makeCommGroups(w *mpi.Comm) (*commGroups, error) {
	me, n := w.Rank(), w.Size()
	g := w.Group()
	if g.Size() != n || g.Rank() != me {
		return nil, fmt.Errorf("World's group: size %d rank %d", g.Size(), g.Rank())
	}
	gs := &commGroups{g: g}
	if err := firstError(
		func() error { return gs.reverse(me, n) },
		func() error { return gs.odds(n) },
		func() error { return gs.lowerHalf(n) },
	); err != nil {
		return nil, err
	}
	return gs, nil
}

// reverse makes rg, World's group in reverse, and checks it.
func (gs *commGroups) reverse(me, n int) error {
	g := gs.g
	var rev []int
	for r := n - 1; r >= 0; r-- {
		rev = append(rev, r)
	}
	rg, err := g.Incl(rev...)
	if err != nil {
		return err
	}
	if got := rg.WorldRanks(); !slices.Equal(got, rev) || rg.Rank() != n-1-me {
		return fmt.Errorf("Incl(%v): %v, rank %d", rev, got, rg.Rank())
	}
	if rg.Equal(g) != (n == 1) || !rg.Equal(rg) {
		return fmt.Errorf("Equal of World's group and its reverse: %v", rg.Equal(g))
	}
	gs.rev, gs.rg = rev, rg
	return nil
}

// odds makes odd, the group of the odd ranks, and checks it and its
// complement, the even ranks.
func (gs *commGroups) odds(n int) error {
	g := gs.g
	var oddRanks []int
	for r := 1; r < n; r += 2 {
		oddRanks = append(oddRanks, r)
	}
	odd, err := g.Incl(oddRanks...)
	if err != nil {
		return err
	}
	evens, err := g.Excl(oddRanks...)
	if err != nil {
		return err
	}
	var wantEvens []int
	for r := 0; r < n; r += 2 {
		wantEvens = append(wantEvens, r)
	}
	if !slices.Equal(evens.WorldRanks(), wantEvens) {
		return fmt.Errorf("Excl(%v): %v, want %v", oddRanks, evens.WorldRanks(), wantEvens)
	}
	gs.oddRanks, gs.odd = oddRanks, odd
	return nil
}

// lowerHalf makes low, the lower half of World's ranks, from the
// reversed group, and checks it.
func (gs *commGroups) lowerHalf(n int) error {
	rev, rg := gs.rev, gs.rg
	var lowIdx []int // ranks of rg holding World ranks below n/2
	for i, r := range rev {
		if r < (n+1)/2 {
			lowIdx = append(lowIdx, i)
		}
	}
	low, err := rg.Incl(lowIdx...)
	if err != nil {
		return err
	}
	var wantLow []int
	for _, i := range lowIdx {
		wantLow = append(wantLow, rev[i])
	}
	if !slices.Equal(low.WorldRanks(), wantLow) {
		return fmt.Errorf("Incl of the lower half: %v, want %v", low.WorldRanks(), wantLow)
	}
	gs.low, gs.wantLow = low, wantLow
	return nil
}

// checkGroupAlgebra checks Union (odd, then the members of low not in
// it), Intersection and Difference (in the first group's order), also
// with World's group.
func checkGroupAlgebra(gs *commGroups, n int) error {
	g, rg, odd, low, oddRanks, wantLow := gs.g, gs.rg, gs.odd, gs.low, gs.oddRanks, gs.wantLow
	evenLow := slices.DeleteFunc(slices.Clone(wantLow), func(r int) bool { return r%2 == 1 })
	oddLow := slices.DeleteFunc(slices.Clone(wantLow), func(r int) bool { return r%2 == 0 })
	want := append(slices.Clone(oddRanks), evenLow...)
	if got := odd.Union(low).WorldRanks(); !slices.Equal(got, want) {
		return fmt.Errorf("Union %v ∪ %v = %v, want %v", oddRanks, wantLow, got, want)
	}
	if got := low.Intersection(odd).WorldRanks(); !slices.Equal(got, oddLow) {
		return fmt.Errorf("Intersection %v ∩ %v = %v, want %v", wantLow, oddRanks, got, oddLow)
	}
	want = evenLow
	if got := low.Difference(odd).WorldRanks(); !slices.Equal(got, want) {
		return fmt.Errorf("Difference %v ∖ %v = %v, want %v", wantLow, oddRanks, got, want)
	}
	if odd.Difference(g).Size() != 0 || g.Intersection(rg).Size() != n || !g.Union(rg).Equal(g) {
		return errors.New("Difference, Intersection or Union with World's group is wrong")
	}
	return nil
}

// checkTranslateRanks checks TranslateRanks from the reversed group to
// odd and to World's, and odd's rank.
func checkTranslateRanks(gs *commGroups, me, n int) error {
	g, rg, odd, rev := gs.g, gs.rg, gs.odd, gs.rev
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	tr, err := rg.TranslateRanks(all, g)
	if err != nil {
		return err
	}
	if !slices.Equal(tr, rev) {
		return fmt.Errorf("TranslateRanks(%v, World) from the reverse: %v, want %v", all, tr, rev)
	}
	tr, err = rg.TranslateRanks(all, odd)
	if err != nil {
		return err
	}
	for i, r := range rev {
		want := mpi.Undefined
		if r%2 == 1 {
			want = r / 2
		}
		if tr[i] != want {
			return fmt.Errorf("TranslateRanks(%v, odd) from the reverse: %v", all, tr)
		}
	}
	if (odd.Rank() == mpi.Undefined) != (me%2 == 0) {
		return fmt.Errorf("odd.Rank() = %d on World rank %d", odd.Rank(), me)
	}
	return nil
}

// checkInvalidGroupRanks checks that Incl, Excl and TranslateRanks of
// invalid ranks fail with ErrRank.
func checkInvalidGroupRanks(gs *commGroups, n int) error {
	g, rg := gs.g, gs.rg
	if _, err := g.Incl(n); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("Incl(%d): %v, want ErrRank", n, err)
	}
	if _, err := g.Incl(0, 0); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("Incl(0, 0): %v, want ErrRank", err)
	}
	if _, err := g.Excl(-1); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("Excl(-1): %v, want ErrRank", err)
	}
	if _, err := g.TranslateRanks([]int{n}, rg); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("TranslateRanks(%d): %v, want ErrRank", n, err)
	}
	return nil
}

// createFromGroups runs Create from the odd ranks, from the lower half in
// the reversed order, and from the empty group: ranks in the group's
// order; the others get nil.
func createFromGroups(w *mpi.Comm, gs *commGroups) error {
	for _, c := range []struct {
		name string
		g    mpi.Group
	}{{"odd ranks", gs.odd}, {"lower half reversed", gs.low}, {"empty group", mpi.Group{}}} {
		if err := createFromGroup(w, c.name, c.g, gs.g); err != nil {
			return err
		}
	}
	return nil
}

// createFromGroup runs Create from the group grp, exercises the new
// communicator, creates again from it (its group, reversed) and checks
// that Create of g, World's group, from it fails if g is not a subset.
func createFromGroup(w *mpi.Comm, name string, grp, g mpi.Group) error {
	me, n := w.Rank(), w.Size()
	nc, err := w.Create(grp)
	if err != nil {
		return fmt.Errorf("Create of the %s: %w", name, err)
	}
	if grp.Rank() == mpi.Undefined {
		if nc != nil {
			return fmt.Errorf("Create of the %s: a non-member got a communicator", name)
		}
		return nil
	}
	if err := exerciseComm(nc, "Create of the "+name, grp.WorldRanks(), me); err != nil {
		return err
	}
	// Create again from the new communicator: its group, reversed.
	var back []int
	for i := nc.Size() - 1; i >= 0; i-- {
		back = append(back, i)
	}
	sub, err := nc.Group().Incl(back...)
	if err != nil {
		return err
	}
	nc2, err := nc.Create(sub)
	if err != nil {
		return fmt.Errorf("Create from a created communicator: %w", err)
	}
	if err := exerciseComm(nc2, "Create from the "+name, sub.WorldRanks(), me); err != nil {
		return err
	}
	// A group not a subset of the communicator fails everywhere.
	if nc.Size() < n {
		if bad, err := nc.Create(g); err == nil || bad != nil {
			return fmt.Errorf("Create of World's group from the %s: %v, %v; want an error", name, bad, err)
		}
	}
	if err := release(nc2); err != nil {
		return err
	}
	return release(nc)
}

// createMismatched checks that groups that differ between processes make
// every process fail: different sizes, and the same size with other
// members; World works afterwards.
func createMismatched(w *mpi.Comm, gs *commGroups) error {
	me, n := w.Rank(), w.Size()
	g, rg, odd, all := gs.g, gs.rg, gs.odd, allRanks(n)
	if n > 1 {
		mine := g
		if me == n-1 {
			mine = odd
		}
		if nc, err := w.Create(mine); !errors.Is(err, mpi.ErrMismatch) || nc != nil {
			return fmt.Errorf("Create with groups of different sizes: %v, %v; want ErrMismatch", nc, err)
		}
		mine = g
		if me == 0 {
			mine = rg
		}
		if nc, err := w.Create(mine); !errors.Is(err, mpi.ErrMismatch) || nc != nil {
			return fmt.Errorf("Create with different groups of one size: %v, %v; want ErrMismatch", nc, err)
		}
		if err := exerciseComm(w, "World after failed Creates", all, me); err != nil {
			return err
		}
	}
	return nil
}

// createDisjoint: the even ranks pass the group of the even ranks to
// Create and the odd ones that of the odd ones (MPI-2.2): each gets a
// communicator of its own group.
func createDisjoint(w *mpi.Comm) error {
	me := w.Rank()
	mine, g, err := parityGroup(w)
	if err != nil {
		return err
	}
	nc, err := w.Create(g)
	if err != nil {
		return fmt.Errorf("Create of disjoint groups: %w", err)
	}
	if nc == nil || nc.Size() != len(mine) || nc.Rank() != me/2 {
		return fmt.Errorf("Create of disjoint groups: a communicator %v of the group %v", nc, mine)
	}
	if err := checkRankSum(nc, mine, "Create of disjoint groups"); err != nil {
		return err
	}
	return nc.Free()
}

// scenarioCommConcurrent runs collectives and point-to-point traffic on
// three communicators at once, each owned by a goroutine of every
// process.
func scenarioCommConcurrent(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	a, err := w.Dup()
	if err != nil {
		return err
	}
	b, err := w.Split(0, -me) // reversed
	if err != nil {
		return err
	}
	c, err := w.Split(me%2, me)
	if err != nil {
		return err
	}
	every := make([]int, n)
	for r := range every {
		every[r] = r
	}
	rev := slices.Clone(every)
	slices.Reverse(rev)
	var par []int
	for r := me % 2; r < n; r += 2 {
		par = append(par, r)
	}
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, job := range []struct {
		c       *mpi.Comm
		members []int
	}{{a, every}, {b, rev}, {c, par}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = concurrentRounds(job.c, i, job.members, me)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return errors.Join(release(a), release(b), release(c))
}

// concurrentRounds exercises communicator i of scenarioCommConcurrent, c
// of the World ranks members, round after round, with a nonblocking
// allreduce after each.
func concurrentRounds(c *mpi.Comm, i int, members []int, me int) error {
	rounds := 15
	if raceEnabled {
		rounds = 5
	}
	for round := range rounds {
		if err := exerciseComm(c, fmt.Sprintf("communicator %d, round %d", i, round), members, me); err != nil {
			return err
		}
		// Nonblocking collectives of the goroutine's own
		// communicator too.
		out := []int32{0}
		q, err := mpi.Iallreduce(c, []int32{int32(round + i)}, out, mpi.Max)
		if err == nil {
			_, err = q.Wait()
		}
		if err != nil || out[0] != int32(round+i) {
			return fmt.Errorf("communicator %d: Iallreduce: %v, %v", i, out, err)
		}
	}
	return nil
}

// scenarioCommFree checks the errors of freed communicators and of
// World.Free, and that 300 Dup and Free in a row reuse context ids and
// barrier controllers.
func scenarioCommFree(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	if err := commFreedErrors(w); err != nil {
		return err
	}
	// World still works.
	if err := exerciseComm(w, "World after World.Free", allRanks(n), me); err != nil {
		return err
	}

	offload := n > 1 && os.Getenv(launch.EnvNoOffload) != "1"
	loops := 300
	if err := commDupFreeLoop(w, loops); err != nil {
		return err
	}
	if err := commSplitFreeLoop(w, loops/3); err != nil {
		return err
	}
	// After all that, a new communicator still gets a barrier controller,
	// once every process has freed the others.
	return retryDup(w, func(d *mpi.Comm) (bool, error) {
		nic, err := barrierCounts(func() error { return mpi.Barrier(d) })
		if err != nil {
			return false, err
		}
		if offload && nic != 1 {
			return false, fmt.Errorf("after %d Dup and Free, a new communicator's Barrier used the NIC %d times, want 1", loops, nic)
		}
		return true, nil
	})
}

// commFreedErrors checks that World.Free fails, and that every call on a
// freed duplicate of World fails with ErrComm.
func commFreedErrors(w *mpi.Comm) error {
	if err := w.Free(); err == nil || !errors.Is(err, mpi.ErrComm) {
		return fmt.Errorf("World.Free: %v, want an error wrapping ErrComm", err)
	}
	d, err := w.Dup()
	if err != nil {
		return err
	}
	if err := d.Free(); err != nil {
		return fmt.Errorf("Free: %w", err)
	}
	buf := []int32{0}
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"Free", d.Free},
		{"Barrier", d.Barrier},
		{"Allreduce", func() error { return mpi.Allreduce(d, []int32{1}, buf, mpi.Sum) }},
		{"Bcast", func() error { return mpi.Bcast(d, buf, 0) }},
		{"Send", func() error { return mpi.Send(d, buf, 0, 1) }},
		{"Irecv", func() error { _, err := mpi.Irecv(d, buf, 0, 1); return err }},
		{"Iallreduce", func() error { _, err := mpi.Iallreduce(d, []int32{1}, buf, mpi.Sum); return err }},
		{"Ibarrier", func() error { _, err := mpi.Ibarrier(d); return err }},
		{"Dup", func() error { _, err := d.Dup(); return err }},
		{"Split", func() error { _, err := d.Split(0, 0); return err }},
		{"Create", func() error { _, err := d.Create(d.Group()); return err }},
	} {
		if err := c.err(); !errors.Is(err, mpi.ErrComm) {
			return fmt.Errorf("%s on a freed communicator: %v, want ErrComm", c.name, err)
		}
	}
	return nil
}

// commDupFreeLoop duplicates World and frees the duplicate loops times,
// checking an Allreduce on every 60th.
func commDupFreeLoop(w *mpi.Comm, loops int) error {
	n := w.Size()
	for i := range loops {
		d, err := w.Dup()
		if err != nil {
			return fmt.Errorf("Dup %d: %w", i, err)
		}
		if i%60 == 0 {
			got := []int64{0}
			if err := mpi.Allreduce(d, []int64{int64(i)}, got, mpi.Sum); err != nil || got[0] != int64(i*n) {
				return fmt.Errorf("Allreduce on Dup %d: %v, %v", i, got, err)
			}
		}
		if err := d.Free(); err != nil {
			return fmt.Errorf("Free of Dup %d: %w", i, err)
		}
	}
	return nil
}

// commSplitFreeLoop splits World with Undefined colors and frees the
// parts, loops times.
func commSplitFreeLoop(w *mpi.Comm, loops int) error {
	me := w.Rank()
	for i := range loops {
		color := mpi.Undefined
		if (me+i)%3 != 0 {
			color = 0
		}
		s, err := w.Split(color, 0)
		if err != nil {
			return fmt.Errorf("Split %d: %w", i, err)
		}
		if s != nil {
			if err := s.Free(); err != nil {
				return fmt.Errorf("Free of Split %d: %w", i, err)
			}
		}
	}
	return nil
}

// scenarioCommFreePending frees a communicator while point-to-point
// requests (eager and rendezvous) and a nonblocking collective are
// pending on it: they complete normally through Wait, Waitany and Test,
// and its context id is not reused until they have.
func scenarioCommFreePending(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	d, id, E, err := dupToFree(w)
	if err != nil {
		return err
	}
	sizes := []int{8, E + 1} // eager and rendezvous
	bufs, recvs, sends, err := startPendingP2P(d, sizes)
	if err != nil {
		return err
	}
	sum := []int64{0}
	coll, err := mpi.Iallreduce(d, []int64{int64(me + 1)}, sum, mpi.Sum)
	if err != nil {
		return err
	}
	if err := d.Free(); err != nil {
		return fmt.Errorf("Free with requests pending: %w", err)
	}
	// A communicator made now must not get the freed one's context.
	d2, err := w.Dup()
	if err != nil {
		return err
	}
	if got := mpi.ContextIDForTest(d2); got == id {
		return fmt.Errorf("a Dup made while requests of a freed communicator were pending got its context id %d", id)
	}
	if err := completePendingP2P(w, sizes, bufs, recvs, sends); err != nil {
		return err
	}
	if _, err := coll.Wait(); err != nil || sum[0] != int64(n*(n+1)/2) {
		return fmt.Errorf("Iallreduce completed after Free: %v, %v", sum, err)
	}
	// Every request has completed: the context id is free again, once
	// every process has freed d (retryDup: Free does not wait for them).
	if err := d2.Free(); err != nil {
		return err
	}
	return retryDup(w, func(d *mpi.Comm) (bool, error) {
		if got := mpi.ContextIDForTest(d); got != id {
			return false, fmt.Errorf("after the requests completed, a Dup got context id %d, want the freed %d back", got, id)
		}
		return true, nil
	})
}

// startPendingP2P posts on d a receive from the left of each size, then
// a send to the right of each, and returns the receive buffers and the
// requests.
func startPendingP2P(d *mpi.Comm, sizes []int) (bufs [][]byte, recvs, sends []*mpi.Request, err error) {
	me := d.Rank()
	bufs = make([][]byte, len(sizes))
	for k, size := range sizes {
		bufs[k] = make([]byte, size)
		r, err := mpi.Irecv(d, bufs[k], left(d), k)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("Irecv of %d bytes: %w", size, err)
		}
		recvs = append(recvs, r)
	}
	for k, size := range sizes {
		s, err := mpi.Isend(d, pattern[byte](size, me, k), right(d), k)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("Isend of %d bytes: %w", size, err)
		}
		sends = append(sends, s)
	}
	return bufs, recvs, sends, nil
}

// completePendingP2P completes the requests of startPendingP2P after
// their communicator was freed: the receives by Waitall, checking their
// statuses and data, the sends by Waitany and then Test.
func completePendingP2P(w *mpi.Comm, sizes []int, bufs [][]byte, recvs, sends []*mpi.Request) error {
	sts, err := mpi.Waitall(recvs)
	if err != nil {
		return fmt.Errorf("Waitall on the freed communicator: %w", err)
	}
	for k, size := range sizes {
		if err := checkStatus(fmt.Sprintf("%d bytes after Free", size), sts[k], left(w), k, size, size); err != nil {
			return err
		}
		if !bytes.Equal(bufs[k], pattern[byte](size, left(w), k)) {
			return fmt.Errorf("%d bytes received after Free: wrong data", size)
		}
	}
	if i, _, err := mpi.Waitany(sends); err != nil || i == mpi.Undefined {
		return fmt.Errorf("Waitany on the freed communicator: %d, %v", i, err)
	}
	for _, s := range sends {
		for s != nil {
			done, _, err := s.Test()
			if err != nil {
				return fmt.Errorf("Test on the freed communicator: %w", err)
			}
			if done {
				s = nil
			}
		}
	}
	return nil
}

// dupToFree returns a duplicate of w for a scenario to free, its context
// id and the engine's eager limit.
func dupToFree(w *mpi.Comm) (d *mpi.Comm, id, eager int, err error) {
	if eager, err = eagerLimit(); err != nil {
		return nil, 0, 0, err
	}
	if d, err = w.Dup(); err != nil {
		return nil, 0, 0, err
	}
	return d, mpi.ContextIDForTest(d), eager, nil
}

// scenarioCommFreeHeld frees a communicator in rank 0 while a receive
// and a rendezvous send of its own are in flight, requests that the
// communicator does not count (the endpoint holds their operations):
// rank 0 keeps the context id while the endpoint holds either, and gives
// it back once neither is left (and, where the communicator has a
// barrier controller, once every process has freed it). The other ranks
// free the communicator last, so only rank 0's hold is looked at.
func scenarioCommFreeHeld(w *mpi.Comm) error {
	me := w.Rank()
	if w.Size() < 2 {
		return nil
	}
	d, id, E, err := dupToFree(w)
	if err != nil {
		return err
	}
	big := E + 1 // rendezvous
	in := make([]byte, 8)
	var recv, send *mpi.Request
	if me == 0 {
		if recv, send, err = heldStartAndFree(w, d, id, in, big); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := heldCompleteReceive(w, d, id, in, recv); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := heldCompleteSend(w, d, big, send); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil || me != 0 {
		return err
	}
	// The barrier controller's release (Free) ends in the background.
	for deadline := time.Now().Add(10 * time.Second); !mpi.ContextFreeForTest(w, id); {
		if time.Now().After(deadline) {
			return fmt.Errorf("context id %d not given back once the freed communicator's operations completed", id)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// heldStartAndFree, on rank 0, posts a receive into in from rank 1 and a
// rendezvous send of big bytes to it, frees d, and checks that its
// context id id is still held.
func heldStartAndFree(w, d *mpi.Comm, id int, in []byte, big int) (recv, send *mpi.Request, err error) {
	if recv, err = mpi.Irecv(d, in, 1, 5); err != nil {
		return nil, nil, err
	}
	if send, err = mpi.Isend(d, pattern[byte](big, 0, 6), 1, 6); err != nil {
		return nil, nil, err
	}
	if err := d.Free(); err != nil {
		return nil, nil, err
	}
	if mpi.ContextFreeForTest(w, id) {
		return nil, nil, fmt.Errorf("context id %d free while a receive and a send of the freed communicator are in flight", id)
	}
	return recv, send, nil
}

// heldCompleteReceive has rank 1 send rank 0 the message that rank 0's
// receive recv waits for, and rank 0 check it and that the context id id
// is still held for the send.
func heldCompleteReceive(w, d *mpi.Comm, id int, in []byte, recv *mpi.Request) error {
	me := w.Rank()
	if me == 1 {
		if err := mpi.Send(d, pattern[byte](8, 1, 5), 0, 5); err != nil {
			return err
		}
	}
	if me == 0 {
		if _, err := recv.Wait(); err != nil {
			return err
		}
		if !bytes.Equal(in, pattern[byte](8, 1, 5)) {
			return fmt.Errorf("the receive of the freed communicator got %v", in)
		}
		if mpi.ContextFreeForTest(w, id) {
			return fmt.Errorf("context id %d free while a rendezvous send of the freed communicator is in flight", id)
		}
	}
	return nil
}

// heldCompleteSend has rank 0 wait for its rendezvous send, rank 1
// receive and check it, and every rank but 0 free d.
func heldCompleteSend(w, d *mpi.Comm, big int, send *mpi.Request) error {
	switch w.Rank() {
	case 0:
		if _, err := send.Wait(); err != nil {
			return err
		}
	case 1:
		out := make([]byte, big)
		if _, err := mpi.Recv(d, out, 0, 6); err != nil {
			return err
		}
		if !bytes.Equal(out, pattern[byte](big, 0, 6)) {
			return fmt.Errorf("the rendezvous message of the freed communicator arrived wrong")
		}
		fallthrough
	default:
		if err := d.Free(); err != nil {
			return err
		}
	}
	return nil
}

// retryDup duplicates w and asks ok about the copy until it says yes, for
// two seconds at most (then its error): what Free gives back comes back
// once every process has freed it, which Free does not wait for. The
// processes agree on each answer, as on retrying.
func retryDup(w *mpi.Comm, ok func(d *mpi.Comm) (bool, error)) error {
	for try := 0; ; try++ {
		d, err := w.Dup()
		if err != nil {
			return err
		}
		yes, why := ok(d)
		if err := d.Free(); err != nil {
			return err
		}
		all := []int32{0}
		if yes {
			all[0] = 1
		}
		if err := mpi.Allreduce(w, nil, all, mpi.Min); err != nil {
			return err
		}
		switch {
		case all[0] == 1:
			return nil
		case try == 200 && why != nil:
			return why
		case try == 200:
			return errors.New("another process never got it back")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func allRanks(n int) []int {
	rs := make([]int, n)
	for i := range rs {
		rs[i] = i
	}
	return rs
}

// barrierCounts runs f and returns how many barriers it ran on the NIC.
func barrierCounts(f func() error) (nic int, err error) {
	before, err := mpi.ReadStats()
	if err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		return 0, err
	}
	after, err := mpi.ReadStats()
	if err != nil {
		return 0, err
	}
	return int(after.Collectives["barrier/nic"] - before.Collectives["barrier/nic"]), nil
}

// scenarioCommMany keeps more communicators alive than the NIC has
// barrier controllers (256): the last ones run in software. Each does a
// Barrier and an Allreduce; then all are freed, and the controllers are
// free again, or (keep) they are left to Finalize.
func scenarioCommMany(w *mpi.Comm, keep bool) error {
	n := w.Size()
	const many = 270
	comms, err := makeManyComms(w, many)
	if err != nil {
		return err
	}
	nic, soft, err := manyBarrierCounts(w, comms)
	if err != nil {
		return err
	}
	offload := n > 1 && os.Getenv(launch.EnvNoOffload) != "1"
	switch {
	case nic+soft != many:
		return fmt.Errorf("%d barriers on the NIC and %d in software, want %d in all", nic, soft, many)
	case offload && (nic == 0 || soft < many-255):
		return fmt.Errorf("%d live communicators: %d barriers on the NIC and %d in software, want at most 255 on the NIC", many, nic, soft)
	case !offload && nic != 0:
		return fmt.Errorf("%d barriers on the NIC without offload", nic)
	}
	if keep {
		return nil // Finalize with them alive
	}
	for i, c := range comms {
		if err := release(c); err != nil {
			return fmt.Errorf("Free of communicator %d: %w", i, err)
		}
	}
	// The controllers are free again, once every process has freed the
	// communicators.
	return retryDup(w, func(d *mpi.Comm) (bool, error) {
		k, err := barrierCounts(d.Barrier)
		if err != nil {
			return false, err
		}
		if offload && k != 1 {
			return false, fmt.Errorf("after freeing %d communicators, a new one's Barrier used the NIC %d times, want 1", many, k)
		}
		return true, nil
	})
}

// makeManyComms makes many communicators from w, Dup and Split in turn.
func makeManyComms(w *mpi.Comm, many int) ([]*mpi.Comm, error) {
	me := w.Rank()
	comms := make([]*mpi.Comm, 0, many)
	for i := range many {
		var c *mpi.Comm
		var err error
		if i%2 == 0 {
			c, err = w.Dup()
		} else {
			c, err = w.Split(0, -me)
		}
		if err != nil {
			return nil, fmt.Errorf("communicator %d: %w", i, err)
		}
		comms = append(comms, c)
	}
	return comms, nil
}

// manyBarrierCounts runs a Barrier and a checked Allreduce on each of
// comms, and returns how many barriers ran on the NIC and how many in
// software meanwhile.
func manyBarrierCounts(w *mpi.Comm, comms []*mpi.Comm) (nic, soft uint64, err error) {
	me, n := w.Rank(), w.Size()
	before, err := mpi.ReadStats()
	if err != nil {
		return 0, 0, err
	}
	for i, c := range comms {
		if err := mpi.Barrier(c); err != nil {
			return 0, 0, fmt.Errorf("Barrier on communicator %d: %w", i, err)
		}
		got := []int64{0, 0}
		if err := mpi.Allreduce(c, []int64{int64(me), int64(i)}, got, mpi.Sum); err != nil {
			return 0, 0, fmt.Errorf("Allreduce on communicator %d: %w", i, err)
		}
		if got[0] != int64(n*(n-1)/2) || got[1] != int64(n*i) {
			return 0, 0, fmt.Errorf("Allreduce on communicator %d: %v", i, got)
		}
	}
	after, err := mpi.ReadStats()
	if err != nil {
		return 0, 0, err
	}
	nic = after.Collectives["barrier/nic"] - before.Collectives["barrier/nic"]
	for _, alg := range []string{"dissemination", "binomial"} {
		soft += after.Collectives["barrier/"+alg] - before.Collectives["barrier/"+alg]
	}
	return nic, soft, nil
}
