package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["intercoll"] = scenarioIntercoll
}

// TestIntercommCollectives runs, in the manner of MPICH's icoll tests,
// every data-moving collective on intercommunicators between groups of
// unequal sizes, with every root of both groups, blocking and
// nonblocking (all the nonblocking ones overlapping), and checks that a
// bad argument on one process fails the call on every process of both
// groups, which stay aligned for the next call.
func TestIntercommCollectives(t *testing.T) {
	t.Parallel()
	runAt(t, "intercoll", nps(true))
}

// icx is one process's view of an intercommunicator under test.
type icx struct {
	ic           *mpi.Comm
	me, color    int   // World rank; group (0 or 1)
	rank         int   // in the local group
	mine, theirs []int // the groups' World ranks
}

// ival is element k of the data of World rank w.
func ival(w, k int) int64 { return int64(w*1000 + k) }

// icase is one call: run starts it (blocking or not), check verifies what
// it left once it is through.
type icase struct {
	name  string
	run   func(block bool) (*mpi.Request, error)
	check func() error
}

func scenarioIntercoll(w *mpi.Comm) error {
	n := w.Size()
	hs := []halves{
		{"first and rest", func(r int) int { return min(r, 1) }, func(int) int { return 0 }},
		{"even and odd", func(r int) int { return r % 2 }, func(size int) int { return size - 1 }},
	}
	if n >= 8 { // below, the sizes of the halves above
		hs = append(hs, halves{"three eighths", func(r int) int { return min(r*8/n/3, 1) }, func(int) int { return 0 }})
	}
	for _, h := range hs {
		if err := intercollOn(w, h); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}
	return nil
}

func intercollOn(w *mpi.Comm, h halves) error {
	me, n := w.Rank(), w.Size()
	x := icx{me: me, color: h.color(me)}
	x.mine, x.theirs = h.members(n, x.color), h.members(n, 1-x.color)
	if len(x.theirs) == 0 || len(x.mine) == 0 {
		return nil
	}
	local, err := w.Split(x.color, me)
	if err != nil {
		return err
	}
	x.rank = local.Rank()
	if x.ic, err = local.IntercommCreate(h.leader(len(x.mine)), w, x.theirs[h.leader(len(x.theirs))], 78); err != nil {
		return err
	}
	checks := []func(icx) error{interBlocking, interNonblocking, interCollErrors, interSplits, interCreates, interIdup}
	for _, f := range checks {
		if err := f(x); err != nil {
			return err
		}
	}
	return errors.Join(x.ic.Free(), local.Free())
}

// cases returns the calls of x with the root rank rr of group rootColor,
// then those without a root.
func (x icx) cases(rootColor, rr int) []icase {
	root := rr
	if x.color == rootColor {
		root = mpi.ProcNull
		if x.rank == rr {
			root = mpi.Root
		}
	}
	return append(x.rooted(root), x.unrooted()...)
}

// rooted returns the rooted calls of x with its root argument root.
func (x icx) rooted(root int) []icase {
	return []icase{x.bcast(root), x.gather(root), x.gatherv(root), x.scatter(root), x.scatterv(root), x.reduce(root)}
}

func (x icx) unrooted() []icase {
	return []icase{x.barrier(), x.allreduce(), x.allgather(), x.allgatherv(), x.alltoall(), x.alltoallv(), x.alltoallw(), x.reduceScatterBlock(), x.reduceScatter()}
}

// data returns k elements of x's data from element from on.
func (x icx) data(from, k int) []int64 {
	out := make([]int64, k)
	for i := range out {
		out[i] = ival(x.me, from+i)
	}
	return out
}

// expect compares got[at+k] with ival(w, from+k)+add for k < count.
func expect(what string, got []int64, at, w, from, count int, add int64) error {
	for k := range count {
		if want := ival(w, from+k) + add; got[at+k] != want {
			return fmt.Errorf("%s: element %d is %d, want %d (from World rank %d)", what, at+k, got[at+k], want, w)
		}
	}
	return nil
}

// prefix returns the displacements of blocks of counts one after the
// other with gap elements between them.
func prefix(counts []int, gap int) ([]int, int) {
	d, at := make([]int, len(counts)), 0
	for i, c := range counts {
		d[i], at = at, at+c+gap
	}
	return d, at
}

func (x icx) gather(root int) icase {
	r := len(x.theirs)
	send, recv := x.data(0, 2), make([]int64, 2*r)
	return icase{"Gather", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Gather(x.ic, send, recv, root)
		}
		return mpi.Igather(x.ic, send, recv, root)
	}, func() error {
		if root != mpi.Root {
			return nil
		}
		for i, w := range x.theirs {
			if err := expect("Gather", recv, 2*i, w, 0, 2, 0); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (x icx) gatherv(root int) icase {
	counts := make([]int, len(x.theirs))
	for i := range counts {
		counts[i] = i%3 + 1
	}
	// The blocks in reverse rank order.
	rev := slices.Clone(counts)
	slices.Reverse(rev)
	at, total := prefix(rev, 1)
	displs := make([]int, len(counts))
	for i := range displs {
		displs[i] = at[len(at)-1-i]
	}
	send, recv := x.data(0, x.rank%3+1), make([]int64, total)
	return icase{"Gatherv", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Gatherv(x.ic, send, recv, counts, displs, root)
		}
		return mpi.Igatherv(x.ic, send, recv, counts, displs, root)
	}, func() error {
		if root != mpi.Root {
			return nil
		}
		for i, w := range x.theirs {
			if err := expect("Gatherv", recv, displs[i], w, 0, counts[i], 0); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (x icx) scatter(root int) icase {
	send, recv := make([]int64, 2*len(x.theirs)), make([]int64, 2)
	for i, w := range x.theirs {
		send[2*i], send[2*i+1] = ival(w, 0)+7, ival(w, 1)+7
	}
	return icase{"Scatter", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Scatter(x.ic, send, recv, root)
		}
		return mpi.Iscatter(x.ic, send, recv, root)
	}, func() error {
		if root < 0 {
			return nil
		}
		return expect("Scatter", recv, 0, x.me, 0, 2, 7)
	}}
}

func (x icx) scatterv(root int) icase {
	counts := make([]int, len(x.theirs))
	for i := range counts {
		counts[i] = i % 3 // some blocks empty
	}
	displs, total := prefix(counts, 1)
	send := make([]int64, total)
	for i, w := range x.theirs {
		for k := range counts[i] {
			send[displs[i]+k] = ival(w, k) + 7
		}
	}
	recv := make([]int64, x.rank%3)
	return icase{"Scatterv", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Scatterv(x.ic, send, counts, displs, recv, root)
		}
		return mpi.Iscatterv(x.ic, send, counts, displs, recv, root)
	}, func() error {
		if root < 0 {
			return nil
		}
		return expect("Scatterv", recv, 0, x.me, 0, len(recv), 7)
	}}
}

// sumOf returns element k of the sum of the data of the processes ws.
func sumOf(ws []int, k int) int64 {
	var s int64
	for _, w := range ws {
		s += ival(w, k)
	}
	return s
}

// expectSum compares got[i] with element from+i of the sum of ws's data.
func expectSum(what string, got []int64, ws []int, from int) error {
	for i, v := range got {
		if want := sumOf(ws, from+i); v != want {
			return fmt.Errorf("%s: element %d is %d, want %d", what, i, v, want)
		}
	}
	return nil
}

func (x icx) reduce(root int) icase {
	send, recv := x.data(0, 3), make([]int64, 3)
	return icase{"Reduce", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Reduce(x.ic, send, recv, mpi.Sum, root)
		}
		return mpi.Ireduce(x.ic, send, recv, mpi.Sum, root)
	}, func() error {
		if root != mpi.Root {
			return nil
		}
		return expectSum("Reduce", recv, x.theirs, 0)
	}}
}

func (x icx) allgatherv() icase {
	counts := make([]int, len(x.theirs))
	for i := range counts {
		counts[i] = i%3 + 1
	}
	displs, total := prefix(counts, 2)
	send, recv := x.data(0, x.rank%3+1), make([]int64, total)
	return icase{"Allgatherv", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Allgatherv(x.ic, send, recv, counts, displs)
		}
		return mpi.Iallgatherv(x.ic, send, recv, counts, displs)
	}, func() error {
		for i, w := range x.theirs {
			if err := expect("Allgatherv", recv, displs[i], w, 0, counts[i], 0); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (x icx) alltoall() icase {
	r := len(x.theirs)
	send, recv := make([]int64, 2*r), make([]int64, 2*r)
	for j := range r {
		copy(send[2*j:], x.data(10*j, 2))
	}
	return icase{"Alltoall", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Alltoall(x.ic, send, recv)
		}
		return mpi.Ialltoall(x.ic, send, recv)
	}, func() error {
		for i, w := range x.theirs {
			if err := expect("Alltoall", recv, 2*i, w, 10*x.rank, 2, 0); err != nil {
				return err
			}
		}
		return nil
	}}
}

// vblocks returns the counts and displacements of x's Alltoallv blocks:
// (i+j)%3 elements between local rank i and remote rank j.
func (x icx) vblocks() (counts, displs []int, total int) {
	counts = make([]int, len(x.theirs))
	for j := range counts {
		counts[j] = (x.rank + j) % 3
	}
	displs, total = prefix(counts, 1)
	return counts, displs, total
}

func (x icx) alltoallvData() (send []int64, counts, displs []int, recv []int64) {
	counts, displs, total := x.vblocks()
	send, recv = make([]int64, total), make([]int64, total)
	for j, k := range counts {
		copy(send[displs[j]:], x.data(10*j, k))
	}
	return send, counts, displs, recv
}

// checkAlltoallv checks the blocks an Alltoallv of alltoallvData left.
func (x icx) checkAlltoallv(what string, recv []int64, counts, displs []int) error {
	for i, w := range x.theirs {
		if err := expect(what, recv, displs[i], w, 10*x.rank, counts[i], 0); err != nil {
			return err
		}
	}
	return nil
}

func (x icx) alltoallv() icase {
	send, counts, displs, recv := x.alltoallvData()
	return icase{"Alltoallv", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Alltoallv(x.ic, send, counts, displs, recv, counts, displs)
		}
		return mpi.Ialltoallv(x.ic, send, counts, displs, recv, counts, displs)
	}, func() error { return x.checkAlltoallv("Alltoallv", recv, counts, displs) }}
}

// alltoallw is Alltoallv's exchange with each received block one item of
// a contiguous datatype.
func (x icx) alltoallw() icase {
	send, counts, displs, recv := x.alltoallvData()
	stypes, rtypes := make([]*mpi.Datatype, len(counts)), make([]*mpi.Datatype, len(counts))
	rcounts := make([]int, len(counts))
	var terr error
	for j, k := range counts {
		stypes[j], rtypes[j] = mpi.Element, mpi.Element
		if k > 0 {
			rcounts[j] = 1
			var err error
			rtypes[j], err = mpi.Contiguous(k)
			terr = errors.Join(terr, err)
		}
	}
	return icase{"Alltoallw", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Alltoallw(x.ic, send, counts, displs, stypes, recv, rcounts, displs, rtypes)
		}
		return mpi.Ialltoallw(x.ic, send, counts, displs, stypes, recv, rcounts, displs, rtypes)
	}, func() error { return errors.Join(terr, x.checkAlltoallv("Alltoallw", recv, counts, displs)) }}
}

// reduceScatterBlock: both groups' vectors have len(mine)·len(theirs)
// elements, so each process gets len(theirs) of the other group's sum.
func (x icx) reduceScatterBlock() icase {
	blk := len(x.theirs)
	send, recv := x.data(0, len(x.mine)*blk), make([]int64, blk)
	return icase{"ReduceScatterBlock", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.ReduceScatterBlock(x.ic, send, recv, mpi.Sum)
		}
		return mpi.IreduceScatterBlock(x.ic, send, recv, mpi.Sum)
	}, func() error { return expectSum("ReduceScatterBlock", recv, x.theirs, x.rank*blk) }}
}

// reduceScatter: as reduceScatterBlock, with one element moved from the
// last process's block to the first's.
func (x icx) reduceScatter() icase {
	counts := make([]int, len(x.mine))
	for i := range counts {
		counts[i] = len(x.theirs)
	}
	if len(counts) > 1 {
		counts[0]++
		counts[len(counts)-1]--
	}
	displs, total := prefix(counts, 0)
	send, recv := x.data(0, total), make([]int64, counts[x.rank])
	return icase{"ReduceScatter", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.ReduceScatter(x.ic, send, recv, counts, mpi.Sum)
		}
		return mpi.IreduceScatter(x.ic, send, recv, counts, mpi.Sum)
	}, func() error { return expectSum("ReduceScatter", recv, x.theirs, displs[x.rank]) }}
}

// interBlocking runs every call blocking, with every root of both groups
// (the calls without a root once).
func interBlocking(x icx) error {
	sizes := []int{len(x.mine), len(x.theirs)}
	if x.color == 1 {
		sizes[0], sizes[1] = sizes[1], sizes[0]
	}
	first := true
	for rootColor := range 2 {
		for rr := range sizes[rootColor] {
			cs := x.rooted(x.rootArg(rootColor, rr))
			if first {
				cs, first = x.cases(rootColor, rr), false
			}
			for _, c := range cs {
				if _, err := c.run(true); err != nil {
					return fmt.Errorf("%s, root %d of group %d: %w", c.name, rr, rootColor, err)
				}
				if err := c.check(); err != nil {
					return fmt.Errorf("root %d of group %d: %w", rr, rootColor, err)
				}
			}
		}
	}
	return nil
}

// rootArg is x's root argument for the root rank rr of group rootColor.
func (x icx) rootArg(rootColor, rr int) int {
	switch {
	case x.color != rootColor:
		return rr
	case x.rank == rr:
		return mpi.Root
	}
	return mpi.ProcNull
}

// interNonblocking starts every call, rooted at the last rank of group 1
// and again at rank 0 of group 0, and then waits for them all.
func interNonblocking(x icx) error {
	last := len(x.theirs) - 1
	if x.color == 1 {
		last = len(x.mine) - 1
	}
	cs := append(x.cases(1, last), x.rooted(x.rootArg(0, 0))...)
	reqs := make([]*mpi.Request, len(cs))
	for i, c := range cs {
		var err error
		if reqs[i], err = c.run(false); err != nil {
			return fmt.Errorf("I-form of %s: %w", c.name, err)
		}
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		return fmt.Errorf("the nonblocking collectives: %w", err)
	}
	for _, c := range cs {
		if err := c.check(); err != nil {
			return fmt.Errorf("nonblocking: %w", err)
		}
	}
	return nil
}

// allFail checks that a call with a bad argument failed, at the process
// with the bad argument (bad) with an error of class.
func allFail(what string, err error, bad bool, class error) error {
	switch {
	case err == nil:
		return fmt.Errorf("%s: no error", what)
	case bad && !errors.Is(err, class):
		return fmt.Errorf("%s: %v at the process with the bad argument, want %v", what, err, class)
	}
	return nil
}

// interCollErrors gives one process a bad argument, call after call:
// every process of both groups must fail each, and then run a correct
// Gather.
func interCollErrors(x icx) error {
	if err := interGatherErrors(x); err != nil {
		return err
	}
	if err := interReduceBcastErrors(x); err != nil {
		return err
	}
	if err := interRootErrors(x); err != nil {
		return err
	}
	// One process's ReduceScatterBlock vector too long.
	blk := len(x.theirs)
	rsb := x.data(0, len(x.mine)*blk)
	if x.me == 0 {
		rsb = x.data(0, len(x.mine)*blk+len(x.mine))
	}
	err := mpi.ReduceScatterBlock(x.ic, rsb, make([]int64, blk+boolInt(x.me == 0)), mpi.Sum)
	if err := allFail("ReduceScatterBlock with one process's blocks longer", err, false, nil); err != nil {
		return err
	}
	// Still aligned: a correct Gather.
	c := x.gather(x.rootArg(1, 0))
	if _, err := c.run(true); err != nil {
		return fmt.Errorf("Gather after the errors: %w", err)
	}
	return c.check()
}

// interGatherErrors gives a Gather a root out of range at one process of
// group 1, then one with the root's receive buffer short by a block, then
// an Alltoall with rank 0 of World's receive buffer short.
func interGatherErrors(x icx) error {
	leader1 := x.color == 1 && x.rank == 0 // a process of the group that names the root
	r := len(x.theirs)
	send := x.data(0, 2)
	gatherRoot := x.rootArg(0, 0)
	// A root out of range at one process of group 1.
	root := gatherRoot
	if leader1 {
		root = r
	}
	err := mpi.Gather(x.ic, send, make([]int64, 2*r), root)
	if err := allFail("Gather with a root out of range", err, leader1, mpi.ErrRoot); err != nil {
		return err
	}
	// The root's receive buffer short by a block.
	rootProc := x.color == 0 && x.rank == 0
	recv := make([]int64, 2*r)
	if rootProc {
		recv = recv[:2*r-2]
	}
	err = mpi.Gather(x.ic, send, recv, gatherRoot)
	if err := allFail("Gather with the root's buffer short", err, rootProc, mpi.ErrBuffer); err != nil {
		return err
	}
	// Rank 0 of World with a receive buffer too short for Alltoall.
	recv = make([]int64, 2*r)
	if x.me == 0 {
		recv = recv[:2*r-1]
	}
	err = mpi.Alltoall(x.ic, make([]int64, 2*r), recv)
	return allFail("Alltoall with a short receive buffer", err, x.me == 0, mpi.ErrBuffer)
}

// interReduceBcastErrors gives an Ireduce a nil send buffer at one
// process of group 1, an Iallreduce a short receive buffer at rank 0 of
// World, and a Bcast longer buffers in the receiving group than at the
// root.
func interReduceBcastErrors(x icx) error {
	leader1 := x.color == 1 && x.rank == 0 // a process of the group that names the root
	// In place at one process of group 1.
	in := x.data(0, 3)
	if leader1 {
		in = nil
	}
	req, err := mpi.Ireduce(x.ic, in, make([]int64, 3), mpi.Sum, x.rootArg(0, 0))
	if err == nil {
		_, err = req.Wait()
	}
	if err := allFail("Ireduce with a nil send buffer", err, leader1, mpi.ErrBuffer); err != nil {
		return err
	}
	sum := make([]int64, 3)
	if x.me == 0 {
		sum = sum[:2]
	}
	if req, err = mpi.Iallreduce(x.ic, x.data(0, 3), sum, mpi.Sum); err == nil {
		_, err = req.Wait()
	}
	if err := allFail("Iallreduce with a short receive buffer", err, x.me == 0, mpi.ErrBuffer); err != nil {
		return err
	}
	// The receiving group's buffers one element longer than the root's.
	buf := make([]int64, 3)
	if x.color == 1 {
		buf = make([]int64, 4)
	}
	err = mpi.Bcast(x.ic, buf, x.rootArg(0, 0))
	return allFail("Bcast with the receivers' buffers longer than the root's", err, false, nil)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// interRootErrors: two roots in group 0, and a process of group 1 naming
// another root than the others.
func interRootErrors(x icx) error {
	n0, r := len(x.mine), len(x.theirs)
	if x.color == 1 {
		n0 = r
	}
	if n0 < 2 {
		return nil
	}
	root := x.rootArg(0, 0)
	if x.color == 0 && x.rank == 1 {
		root = mpi.Root
	}
	err := mpi.Scatter(x.ic, make([]int64, 2*r), make([]int64, 2), root)
	if err := allFail("Scatter with two roots", err, false, nil); err != nil {
		return err
	}
	root = x.rootArg(0, 0)
	if x.color == 1 && x.rank == 0 {
		root = 1
	}
	counts, displs := make([]int, r), make([]int, r)
	for i := range r {
		counts[i], displs[i] = 1, i
	}
	err = mpi.Gatherv(x.ic, x.data(0, 1), make([]int64, r), counts, displs, root)
	return allFail("Gatherv with one process naming another root", err, false, nil)
}

// wantInter checks that nc is the intercommunicator between the World
// ranks mine and theirs (nil if either is empty), and that data crosses
// it: an Allreduce gets the sum of the remote group's World ranks.
func wantInter(what string, nc *mpi.Comm, mine, theirs []int) error {
	if len(mine) == 0 || len(theirs) == 0 {
		if nc != nil {
			return fmt.Errorf("%s: an intercommunicator, want nil", what)
		}
		return nil
	}
	if nc == nil {
		return fmt.Errorf("%s: nil, want an intercommunicator of %v and %v", what, mine, theirs)
	}
	if err := checkInterQueries(nc, mine, theirs); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	sum, want := []int{0}, 0
	for _, w := range theirs {
		want += w
	}
	if err := mpi.Allreduce(nc, []int{mpi.World().Rank()}, sum, mpi.Sum); err != nil || sum[0] != want {
		return fmt.Errorf("%s: Allreduce: %v, sum %d, want %d", what, err, sum[0], want)
	}
	return nc.Free()
}

// byParity returns the World ranks of ws of World rank parity p, in
// reverse order.
func byParity(ws []int, p int) []int {
	var out []int
	for _, w := range slices.Backward(ws) {
		if w%2 == p {
			out = append(out, w)
		}
	}
	return out
}

// interSplits splits x's intercommunicator by the parity of the World
// rank, in reverse rank order; then with group 1 passing Undefined; then
// with a bad color at one process.
func interSplits(x icx) error {
	p := x.me % 2
	nc, err := x.ic.Split(p, -x.rank)
	if err != nil {
		return fmt.Errorf("Split: %w", err)
	}
	if err := wantInter("Split by parity", nc, byParity(x.mine, p), byParity(x.theirs, p)); err != nil {
		return err
	}
	color := 0
	if x.color == 1 {
		color = mpi.Undefined
	}
	if nc, err = x.ic.Split(color, 0); err != nil || nc != nil {
		return fmt.Errorf("Split with group 1 Undefined: %v, %v; want nil, nil", nc, err)
	}
	color = 0
	if x.me == 0 {
		color = -5
	}
	_, err = x.ic.Split(color, 0)
	return allFail("Split with a bad color at one process", err, x.me == 0, mpi.ErrColor)
}

// interCreates makes intercommunicators of the first half of group 0
// and group 1 in reverse order; then with group 0 passing an empty group;
// then with the processes of a group passing different groups.
func interCreates(x icx) error {
	g, half := x.ic.Group(), (len(x.mine)+1)/2
	ranks := make([]int, len(x.mine))
	for i := range ranks {
		ranks[i] = len(ranks) - 1 - i
	}
	if x.color == 0 {
		ranks = ranks[len(ranks)-half:]
		slices.Reverse(ranks)
	}
	sub, err := g.Incl(ranks...)
	if err != nil {
		return err
	}
	nc, err := x.ic.Create(sub)
	if err != nil {
		return fmt.Errorf("Create: %w", err)
	}
	if sub.Rank() != mpi.Undefined {
		pick := func(ws []int, color int) []int {
			if color == 0 {
				return ws[:(len(ws)+1)/2]
			}
			r := slices.Clone(ws)
			slices.Reverse(r)
			return r
		}
		if err := wantInter("Create", nc, pick(x.mine, x.color), pick(x.theirs, 1-x.color)); err != nil {
			return err
		}
	} else if nc != nil {
		return errors.New("Create: an intercommunicator for a process not in the group")
	}
	return interCreateErrors(x, g)
}

// interCreateErrors: an empty group from group 0 gives every process
// nil; different groups within group 1 fail every process.
func interCreateErrors(x icx, g mpi.Group) error {
	sub := g
	if x.color == 0 {
		sub = mpi.Group{}
	}
	nc, err := x.ic.Create(sub)
	if err != nil || nc != nil {
		return fmt.Errorf("Create with group 0 empty: %v, %v; want nil, nil", nc, err)
	}
	n1 := len(x.mine) // group 1's size, the same on every process
	if x.color == 0 {
		n1 = len(x.theirs)
	}
	if n1 < 2 {
		return nil
	}
	sub = g
	if x.color == 1 {
		if sub, err = g.Incl(min(x.rank, 1)); err != nil {
			return err
		}
	}
	_, err = x.ic.Create(sub)
	return allFail("Create with different groups in a group", err, false, nil)
}

// interIdup duplicates x's intercommunicator while an Alltoall runs on it.
func interIdup(x icx) error {
	dup, req, err := x.ic.Idup()
	if err != nil {
		return fmt.Errorf("Idup: %w", err)
	}
	c := x.alltoall()
	if _, err := c.run(true); err != nil {
		return fmt.Errorf("Alltoall during Idup: %w", err)
	}
	if _, err := req.Wait(); err != nil {
		return fmt.Errorf("Idup: %w", err)
	}
	if err := c.check(); err != nil {
		return err
	}
	return wantInter("Idup", dup, x.mine, x.theirs)
}

func (x icx) bcast(root int) icase {
	buf := make([]int64, 3)
	if root == mpi.Root {
		buf = x.data(0, 3)
	}
	return icase{"Bcast", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Bcast(x.ic, buf, root)
		}
		return mpi.Ibcast(x.ic, buf, root)
	}, func() error {
		if root < 0 {
			return nil
		}
		return expect("Bcast", buf, 0, x.theirs[root], 0, 3, 0)
	}}
}

func (x icx) barrier() icase {
	return icase{"Barrier", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Barrier(x.ic)
		}
		return mpi.Ibarrier(x.ic)
	}, func() error { return nil }}
}

func (x icx) allreduce() icase {
	send, recv := x.data(0, 3), make([]int64, 3)
	return icase{"Allreduce", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Allreduce(x.ic, send, recv, mpi.Sum)
		}
		return mpi.Iallreduce(x.ic, send, recv, mpi.Sum)
	}, func() error { return expectSum("Allreduce", recv, x.theirs, 0) }}
}

func (x icx) allgather() icase {
	send, recv := x.data(0, 2), make([]int64, 2*len(x.theirs))
	return icase{"Allgather", func(block bool) (*mpi.Request, error) {
		if block {
			return nil, mpi.Allgather(x.ic, send, recv)
		}
		return mpi.Iallgather(x.ic, send, recv)
	}, func() error {
		for i, w := range x.theirs {
			if err := expect("Allgather", recv, 2*i, w, 0, 2, 0); err != nil {
				return err
			}
		}
		return nil
	}}
}
