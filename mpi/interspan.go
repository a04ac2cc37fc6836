package mpi

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// The data-moving collectives of an intercommunicator (Gather, Scatter,
// Alltoall, Reduce, ReduceScatter and their v-forms) run on its span: a
// private intracommunicator of both groups, made at the first such call.
// Each call first agrees over the span: every process tells every other
// how many bytes it will send it, each compares that with what it expects
// to receive, and an allreduce spreads the verdict, so that a bad argument
// on any process (a wrong root, a buffer too short, an operation undefined
// on the type) fails the call on every process of both groups before any
// data moves. Only then does the data move, by the span's Alltoallv (and
// the local group's Reduce or Scatterv where the call combines data).

// spanMap gives the ranks in the span of the intercommunicator's
// processes: the group that comes first in IntercommMerge's default order
// (interComm.first) first, each group in its own rank order.
type spanMap struct {
	me, local0, remote0 int // the caller's span rank; the span ranks of local and remote rank 0
	nLocal, nRemote     int
}

// spanOf returns the spanMap of the intercommunicator c.
func (c *Comm) spanOf() spanMap {
	m := spanMap{nLocal: c.inter.local.size, nRemote: c.size}
	if c.inter.first {
		m.remote0 = m.nLocal
	} else {
		m.local0 = m.nRemote
	}
	m.me = m.local0 + c.rank
	return m
}

// size is the number of processes of the span.
func (m spanMap) size() int { return m.nLocal + m.nRemote }

// remote returns the span rank of remote rank r.
func (m spanMap) remote(r int) int { return m.remote0 + r }

// isRemote reports whether span rank s is in the remote group.
func (m spanMap) isRemote(s int) bool { return s >= m.remote0 && s < m.remote0+m.nRemote }

// perRank returns a zeroed count or displacement for every span rank.
func (m spanMap) perRank() []int { return make([]int, m.size()) }

// openSpan makes the span of the intercommunicator c, just made: a
// collective over both groups, which the calls that make an
// intercommunicator are, where a nonblocking collective on it, its first
// use, may have to make it while some processes wait for the others
// elsewhere (MPI_Comm_idup on an intercommunicator, then MPI_Ssend).
func (c *Comm) openSpan(op string) error {
	c.collMu.Lock()
	defer c.collMu.Unlock()
	_, err := c.span(op)
	return err
}

// span returns the span of the intercommunicator c, making it (a
// collective over both groups) if this is the first call that needs it.
// c.collMu must be held.
func (c *Comm) span(op string) (*Comm, error) {
	if s := c.inter.span; s != nil {
		return s, nil
	}
	id, err := c.rt.agreeContext(op, c.bridge().allreduce)
	if err != nil {
		return nil, err
	}
	world := slices.Concat(c.inter.local.Group().world, c.world)
	if !c.inter.first {
		world = slices.Concat(c.world, c.inter.local.Group().world)
	}
	s := newComm(c.rt, id, c.spanOf().me, world)
	c.inter.span = s
	return s, nil
}

// interRun runs the intercommunicator collective op of c: f with a Runner
// of the local group (lu) and one of the span (su), both with their tags
// taken now. block runs it before returning; otherwise it runs in a
// goroutine, and the Request of the span tells when it is through.
func (c *Comm) interRun(op string, block bool, f func(lu, su *collectives.Runner) error) (*Request, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	c.collMu.Lock()
	s, err := c.span(op)
	if err != nil {
		c.collMu.Unlock()
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	lu, su := c.inter.local.softRunner(), s.softRunner()
	run := func() error {
		defer lu.release()
		defer su.release()
		return f(&lu.u, &su.u)
	}
	if !block {
		c.collMu.Unlock()
		return s.launch(op+" on an intercommunicator", run), nil
	}
	defer c.collMu.Unlock()
	if err := run(); err != nil {
		return nil, fmt.Errorf("mpi: %s on an intercommunicator: %w", op, err)
	}
	return nil, nil
}

// interPlan is what one process moves in an intercommunicator collective,
// as the agreement checks it: bytes to and from every span rank.
type interPlan struct {
	bad      error // the process's own arguments are invalid
	sendTo   []int
	recvFrom []int
}

// agree checks p over the span with every process's: a process whose
// expected bytes differ from what a sender announces fails with
// ErrBuffer (it expects fewer: its buffer is too short) or ErrMismatch,
// and every process fails if any did. A failing process returns its own
// error, the others one naming the first class of error found.
func agree(su *collectives.Runner, p interPlan) error {
	n := su.Net.Size()
	out, in := make([]uint64, n), make([]uint64, n)
	if p.bad == nil {
		for j, b := range p.sendTo {
			out[j] = uint64(b)
		}
	}
	if err := su.Alltoall(asBytes(out), asBytes(in), 8); err != nil {
		return err
	}
	err := p.bad
	if err == nil {
		err = announced(in, p.recvFrom)
	}
	verdict := []uint64{0}
	if err != nil {
		verdict[0] = uint64(classIndex(err))
	}
	r, rerr := collectives.ReducerFor[uint64](Max)
	if rerr != nil {
		return rerr
	}
	if aerr := su.Allreduce(nil, asBytes(verdict), r); aerr != nil {
		return errors.Join(err, aerr)
	}
	if err == nil && verdict[0] != 0 {
		err = fmt.Errorf("another process's arguments are invalid: %w", classAt(int(verdict[0])))
	}
	return err
}

// announced compares the bytes every span rank announced (in) with those
// expected from it (want).
func announced(in []uint64, want []int) error {
	for s, got := range in {
		switch w := uint64(want[s]); {
		case got > w:
			return fmt.Errorf("%w: room for %d bytes from the process of span rank %d, which sends %d", ErrBuffer, w, s, got)
		case got < w:
			return fmt.Errorf("%w: %d bytes expected from the process of span rank %d, which sends %d", ErrMismatch, w, s, got)
		}
	}
	return nil
}

// spanMove moves the data of an agreed plan over the span: send's
// sendTo[j] bytes at sdispls[j] to span rank j, recvFrom[i] bytes from
// span rank i to recv at rdispls[i].
func spanMove(su *collectives.Runner, send []byte, sendTo, sdispls []int, recv []byte, recvFrom, rdispls []int) error {
	if send == nil {
		send = noBytes // nil would mean in place
	}
	if sdispls == nil {
		sdispls = make([]int, len(sendTo))
	}
	if rdispls == nil {
		rdispls = make([]int, len(recvFrom))
	}
	return su.Alltoallv(send, sendTo, sdispls, recv, recvFrom, rdispls, 1)
}

// interRoot classifies the root argument of a rooted intercommunicator
// collective: Root, ProcNull, or a rank of the remote group (which
// returns true).
func interRoot(root, remote int) (bool, error) {
	switch {
	case root == Root || root == ProcNull:
		return false, nil
	case root < 0 || root >= remote:
		return false, fmt.Errorf("root %d: %w (Root, ProcNull or a rank of the remote group of %d)", root, ErrRoot, remote)
	}
	return true, nil
}
