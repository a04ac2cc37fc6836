package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["intercomm"] = scenarioIntercomm
}

// TestIntercommunicators makes intercommunicators between the even and
// the odd ranks and between the lower and the upper ranks (leaders
// other than rank 0), and checks their queries, point-to-point traffic
// by remote rank, Merge's orders, Dup, the collectives with MPI's root
// semantics, Free, and the errors of the calls they do not support.
func TestIntercommunicators(t *testing.T) {
	t.Parallel()
	runAt(t, "intercomm", typedSizes())
}

// halves is a split of World into two groups for an intercommunicator.
type halves struct {
	name  string
	color func(r int) int // 0 or 1
	// leader: the local leader's rank in its group.
	leader func(size int) int
}

func scenarioIntercomm(w *mpi.Comm) error {
	if err := intercommErrors(w); err != nil {
		return err
	}
	n := w.Size()
	if n < 2 {
		return nil
	}
	for _, h := range []halves{
		{"even and odd", func(r int) int { return r % 2 }, func(int) int { return 0 }},
		{"lower and upper", func(r int) int { return r * 2 / n }, func(size int) int { return size - 1 }},
	} {
		if err := checkIntercomm(w, h); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}
	return nil
}

// members returns the World ranks of group color of h, in order.
func (h halves) members(n, color int) []int {
	var out []int
	for r := range n {
		if h.color(r) == color {
			out = append(out, r)
		}
	}
	return out
}

func checkIntercomm(w *mpi.Comm, h halves) error {
	me, n := w.Rank(), w.Size()
	color := h.color(me)
	mine, theirs := h.members(n, color), h.members(n, 1-color)
	local, err := w.Split(color, me)
	if err != nil {
		return err
	}
	// The leaders' World ranks.
	remoteLeader := theirs[h.leader(len(theirs))]
	ic, err := local.IntercommCreate(h.leader(len(mine)), w, remoteLeader, 77)
	if err != nil {
		return err
	}
	if err := checkInterQueries(ic, mine, theirs); err != nil {
		return err
	}
	if err := interPointToPoint(ic, theirs); err != nil {
		return fmt.Errorf("point-to-point: %w", err)
	}
	if err := interCollectives(ic, color, mine, theirs); err != nil {
		return err
	}
	if err := interMerges(ic, color, mine, theirs); err != nil {
		return err
	}
	dup, err := ic.Dup()
	if err != nil {
		return fmt.Errorf("Dup: %w", err)
	}
	if err := checkInterQueries(dup, mine, theirs); err != nil {
		return fmt.Errorf("Dup: %w", err)
	}
	if err := interPointToPoint(dup, theirs); err != nil {
		return fmt.Errorf("point-to-point on the Dup: %w", err)
	}
	if err := interMergeErrors(ic, mine); err != nil {
		return err
	}
	for _, c := range []*mpi.Comm{dup, ic, local} {
		if err := c.Free(); err != nil {
			return fmt.Errorf("Free: %w", err)
		}
	}
	if _, err := ic.RemoteSize(); !errors.Is(err, mpi.ErrComm) {
		return fmt.Errorf("RemoteSize after Free: %v, want ErrComm", err)
	}
	return nil
}

// checkInterQueries checks the sizes and groups of ic.
func checkInterQueries(ic *mpi.Comm, mine, theirs []int) error {
	me := mpi.World().Rank()
	rs, err := ic.RemoteSize()
	if err != nil {
		return err
	}
	rg, err := ic.RemoteGroup()
	if err != nil {
		return err
	}
	switch {
	case !ic.IsInter():
		return errors.New("IsInter is false")
	case ic.Size() != len(mine) || ic.Rank() != slices.Index(mine, me):
		return fmt.Errorf("rank %d of %d, want %d of %d", ic.Rank(), ic.Size(), slices.Index(mine, me), len(mine))
	case rs != len(theirs) || !slices.Equal(rg.WorldRanks(), theirs):
		return fmt.Errorf("remote size %d, group %v; want %d, %v", rs, rg.WorldRanks(), len(theirs), theirs)
	case !slices.Equal(ic.Group().WorldRanks(), mine):
		return fmt.Errorf("local group %v, want %v", ic.Group().WorldRanks(), mine)
	}
	return nil
}

// interPointToPoint has every process send to every remote rank and
// receive from every one with AnySource, then ping-pong with its
// counterpart of the same rank.
func interPointToPoint(ic *mpi.Comm, theirs []int) error {
	me := mpi.World().Rank()
	var reqs []*mpi.Request
	for r := range theirs {
		q, err := mpi.Isend(ic, []int64{int64(me), int64(r)}, r, 5)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	for range theirs {
		buf := make([]int64, 2)
		st, err := mpi.Recv(ic, buf, mpi.AnySource, 5)
		if err != nil {
			return err
		}
		if st.Source < 0 || st.Source >= len(theirs) || buf[0] != int64(theirs[st.Source]) || buf[1] != int64(ic.Rank()) {
			return fmt.Errorf("a message %v from remote rank %d (World rank %v)", buf, st.Source, theirs)
		}
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		return err
	}
	if ic.Rank() >= len(theirs) {
		return nil
	}
	peer := ic.Rank()
	big := pattern[float64](20000, me) // past the eager limit
	back := make([]float64, len(big))
	if _, err := mpi.Sendrecv(ic, big, peer, 6, back, peer, 6); err != nil {
		return err
	}
	if d := diff(back, pattern[float64](20000, theirs[peer])); d != "" {
		return fmt.Errorf("ping-pong with remote rank %d: %s", peer, d)
	}
	return nil
}

// interCollectives checks Barrier, Bcast from each group, Allreduce and
// Allgather on ic.
func interCollectives(ic *mpi.Comm, color int, mine, theirs []int) error {
	me := mpi.World().Rank()
	if err := mpi.Barrier(ic); err != nil {
		return fmt.Errorf("Barrier: %w", err)
	}
	for rootColor := range 2 {
		rootRank := 1 % []int{len(mine), len(theirs)}[rootColor^color] // the root's rank in its group
		buf := make([]int32, 3000)
		root := rootRank
		switch {
		case color == rootColor && ic.Rank() == rootRank:
			root = mpi.Root
			copy(buf, pattern[int32](3000, 23, rootColor))
		case color == rootColor:
			root = mpi.ProcNull
		}
		if err := mpi.Bcast(ic, buf, root); err != nil {
			return fmt.Errorf("Bcast from group %d: %w", rootColor, err)
		}
		want := pattern[int32](3000, 23, rootColor)
		if color == rootColor && root == mpi.ProcNull {
			want = make([]int32, 3000) // untouched
		}
		if d := diff(buf, want); d != "" {
			return fmt.Errorf("Bcast from group %d: %s", rootColor, d)
		}
	}
	sum := make([]int64, 2)
	if err := mpi.Allreduce(ic, []int64{int64(me), 1}, sum, mpi.Sum); err != nil {
		return fmt.Errorf("Allreduce: %w", err)
	}
	want := int64(0)
	for _, r := range theirs {
		want += int64(r)
	}
	if sum[0] != want || sum[1] != int64(len(theirs)) {
		return fmt.Errorf("Allreduce gave %v, want [%d %d]", sum, want, len(theirs))
	}
	all := make([]int64, 2*len(theirs))
	if err := mpi.Allgather(ic, []int64{int64(me), int64(ic.Rank())}, all); err != nil {
		return fmt.Errorf("Allgather: %w", err)
	}
	for i, r := range theirs {
		if all[2*i] != int64(r) || all[2*i+1] != int64(i) {
			return fmt.Errorf("Allgather gave %v from remote group %v", all, theirs)
		}
	}
	return nil
}

// interMerges merges ic with each group low in turn and with both the
// same, and checks the order and that the result works.
func interMerges(ic *mpi.Comm, color int, mine, theirs []int) error {
	me := mpi.World().Rank()
	g0, g1 := mine, theirs
	if color == 1 {
		g0, g1 = theirs, mine
	}
	byLeader := slices.Concat(mine, theirs)
	if theirs[0] < mine[0] {
		byLeader = slices.Concat(theirs, mine)
	}
	for _, c := range []struct {
		name  string
		high  bool
		order []int
	}{
		{"group 1 high", color == 1, slices.Concat(g0, g1)},
		{"group 0 high", color == 0, slices.Concat(g1, g0)},
		{"both low", false, byLeader},
		{"both high", true, byLeader},
	} {
		m, err := ic.IntercommMerge(c.high)
		if err != nil {
			return fmt.Errorf("IntercommMerge, %s: %w", c.name, err)
		}
		if got := m.Group().WorldRanks(); !slices.Equal(got, c.order) || m.Rank() != slices.Index(c.order, me) {
			return fmt.Errorf("IntercommMerge, %s: group %v, rank %d; want %v, %d", c.name, got, m.Rank(), c.order, slices.Index(c.order, me))
		}
		sum := []int{0}
		if err := mpi.Allreduce(m, []int{me}, sum, mpi.Sum); err != nil || sum[0] != m.Size()*(m.Size()-1)/2 {
			return fmt.Errorf("Allreduce on the merge, %s: %v, sum %d", c.name, err, sum[0])
		}
		if err := m.Free(); err != nil {
			return err
		}
	}
	return nil
}

// interMergeErrors: a group whose processes pass different values of
// high makes every process of both fail.
func interMergeErrors(ic *mpi.Comm, mine []int) error {
	if rs, _ := ic.RemoteSize(); len(mine) < 2 && rs < 2 {
		return nil
	}
	_, err := ic.IntercommMerge(ic.Rank() == 1)
	return wantErr("IntercommMerge with high differing in a group", err, mpi.ErrMismatch)
}

// intercommErrors checks the calls an intercommunicator does not
// support, and those that need one.
func intercommErrors(w *mpi.Comm) error {
	if _, err := w.RemoteSize(); !errors.Is(err, mpi.ErrInter) {
		return fmt.Errorf("RemoteSize of World: %v, want ErrInter", err)
	}
	if _, err := w.IntercommMerge(false); !errors.Is(err, mpi.ErrInter) {
		return fmt.Errorf("IntercommMerge of World: %v, want ErrInter", err)
	}
	// World with itself: the groups overlap, on every process.
	_, err := w.IntercommCreate(0, w, 0, 9)
	if err := wantErr("IntercommCreate of overlapping groups", err, mpi.ErrRank); err != nil {
		return err
	}
	if _, err := w.IntercommCreate(w.Size(), w, 0, 9); !errors.Is(err, mpi.ErrRank) {
		return fmt.Errorf("IntercommCreate with a local leader out of range: %v, want ErrRank", err)
	}
	if w.Size() < 2 {
		return nil
	}
	me := w.Rank()
	local, err := w.Split(me%2, me)
	if err != nil {
		return err
	}
	// Both leaders name a remote leader outside the peer communicator:
	// each group fails with its leader's error.
	_, err = local.IntercommCreate(0, w, w.Size(), 3)
	if err := wantErr("IntercommCreate with a remote leader out of range", err, mpi.ErrRank); err != nil {
		return err
	}
	ic, err := local.IntercommCreate(0, w, 1-me%2, 3)
	if err != nil {
		return err
	}
	calls := map[string]error{
		"Allreduce in place": mpi.Allreduce(ic, nil, make([]int, 1), mpi.Sum),
	}
	_, calls["CartCreate"] = ic.CartCreate([]int{1}, nil, false)
	_, calls["IntercommCreate"] = ic.IntercommCreate(0, w, 0, 4)
	_, calls["CreateGroup"] = ic.CreateGroup(ic.Group(), 4)
	if err := interShortBuffer(ic, me); err != nil {
		return err
	}
	for name, err := range calls {
		want := mpi.ErrInter
		if name == "Allreduce in place" {
			want = mpi.ErrBuffer
		}
		if !errors.Is(err, want) {
			return fmt.Errorf("%s on an intercommunicator: %v, want %v", name, err, want)
		}
	}
	if err := ic.Free(); err != nil {
		return err
	}
	return local.Free()
}

// interShortBuffer gives World's rank 0 a receive buffer too short for
// Allreduce and for Allgather on ic: every process of both groups must
// fail (rank 0 with ErrBuffer), and none may wait for it.
func interShortBuffer(ic *mpi.Comm, me int) error {
	remote, err := ic.RemoteSize()
	if err != nil {
		return err
	}
	sum, all := make([]int64, 2), make([]int64, 2*remote)
	if me == 0 {
		sum, all = sum[:1], all[:1]
	}
	for name, err := range map[string]error{
		"Allreduce": mpi.Allreduce(ic, []int64{1, 2}, sum, mpi.Sum),
		"Allgather": mpi.Allgather(ic, []int64{1, 2}, all),
	} {
		switch {
		case err == nil:
			return fmt.Errorf("%s on an intercommunicator with rank 0's receive buffer too short: no error at rank %d", name, me)
		case me == 0 && !errors.Is(err, mpi.ErrBuffer):
			return fmt.Errorf("%s with a receive buffer too short: %v, want ErrBuffer", name, err)
		}
	}
	return nil
}
