package mpi_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["nbc-mix"] = scenarioNBCMix
}

// TestNonblockingMix runs a mix of nonblocking collectives on several
// communicators at once, completed by every completion call, at job sizes
// up to more processes than the machine has cores.
func TestNonblockingMix(t *testing.T) {
	t.Parallel()
	runAt(t, "nbc-mix", []int{1, 2, 3, 4, 7})
}

// BenchmarkNonblockingMix times the mix at 2, 4 and 7 processes, b.N
// operations a job, the whole job's wall-clock time divided by b.N (the
// start-up included). MPICH's nonblocking3 completes 100,000:
//
//	go test -run '^$' -bench NonblockingMix -benchtime 100000x ./mpi
//
// With more processes than cores the time should stay within a few times
// that at 2 processes: the naps, one in nbcNapChance rounds of each
// process, hold up the others, and there are more of them.
func BenchmarkNonblockingMix(b *testing.B) {
	for _, np := range []int{2, 4, 7} {
		b.Run(fmt.Sprintf("np=%d", np), func(b *testing.B) {
			limit := jobTimeout + time.Duration(b.N)*time.Millisecond
			r := mpirunWithin(b, limit+30*time.Second, []string{envScenario + "=nbc-mix", envNBCOps + "=" + strconv.Itoa(b.N)},
				"-np", strconv.Itoa(np), "-timeout", limit.String(), self)
			if r.code != 0 {
				b.Fatalf("the mix failed:\n%v", r)
			}
			b.ReportMetric(float64(r.elapsed.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(r.elapsed.Seconds(), "s/job")
		})
	}
}

// The mix's shape, after MPICH's test/mpi/coll/nonblocking3: up to
// nbcWindow operations in flight over nbcComms duplicates of World,
// completed by a completion call chosen at random, with a nap of
// nbcNap once in nbcNapChance completion rounds, by each rank
// independently.
const (
	nbcWindow    = 20
	nbcComms     = 4
	nbcCount     = 10
	nbcNapChance = 1000
	nbcNap       = 50 * time.Millisecond
	envNBCOps    = "MPI_TEST_NBC_OPS" // operations to complete; default nbcOps
	nbcOps       = 3000
)

// nbcRand is the mix's generator: every rank draws the same sequence from
// the same seed (a multiplicative congruential generator modulo the
// largest 32-bit prime), so that all start the same operation on the
// same communicator.
type nbcRand uint64

func (r *nbcRand) next() uint64 {
	*r = nbcRand(uint64(*r) * 279470273 % 4294967291)
	return uint64(*r)
}

// intn is a draw in [0, n).
func (r *nbcRand) intn(n int) int { return int(r.next() % uint64(n)) }

// nbcOp is one operation of the mix in flight: its request, and the
// check of its result once complete.
type nbcOp struct {
	req   *mpi.Request
	check func() error
}

// scenarioNBCMix keeps nbcWindow nonblocking collectives (and
// point-to-point pairs) in flight on several communicators, completes
// them with Wait, Test and their -all, -any and -some forms chosen at
// random, checks each result, gives its Request back, and starts another
// in its place until MPI_TEST_NBC_OPS have completed.
func scenarioNBCMix(world *mpi.Comm) error {
	total := nbcOps
	if s := os.Getenv(envNBCOps); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("%s=%q: want a positive count", envNBCOps, s)
		}
		total = n
	}
	comms := make([]*mpi.Comm, nbcComms)
	for i := range comms {
		c, err := world.Dup()
		if err != nil {
			return err
		}
		comms[i] = c
	}
	m := &nbcMix{
		comms: comms, total: total,
		post: nbcRand(0x10bc), complete: nbcRand(0x10bc), nap: nbcRand(0x10bc + world.Rank()),
		ops: make([]nbcOp, nbcWindow), reqs: make([]*mpi.Request, nbcWindow),
	}
	if err := m.run(); err != nil {
		return err
	}
	for _, c := range comms {
		if err := c.Free(); err != nil {
			return err
		}
	}
	return nil
}

// nbcMix is the state of scenarioNBCMix: its communicators, its random
// sequences of operations, of completions and of naps, the operations in
// flight and their requests, and how many it has started and completed
// of the total.
type nbcMix struct {
	comms               []*mpi.Comm
	post, complete, nap nbcRand
	ops                 []nbcOp
	reqs                []*mpi.Request
	posted, done, total int
}

// start starts the next random operation in slot i.
func (m *nbcMix) start(i int) error {
	c := m.comms[m.post.intn(nbcComms)]
	op, err := startNBC(c, m.post.intn(nbcCases))
	if err != nil {
		return err
	}
	m.ops[i], m.reqs[i] = op, op.req
	m.posted++
	return nil
}

// run fills the window, then completes operations by random means,
// checking and giving back each and starting another in its place, until
// the total have completed.
func (m *nbcMix) run() error {
	for i := range m.ops {
		if err := m.start(i); err != nil {
			return err
		}
	}
	for m.done < m.total {
		idx, err := completeNBC(m.complete.intn(8), &m.complete, m.reqs)
		if err != nil {
			return err
		}
		for _, i := range idx {
			if err := m.finish(i); err != nil {
				return err
			}
		}
		if m.nap.intn(nbcNapChance) == 0 {
			time.Sleep(nbcNap)
		}
	}
	return nil
}

// finish checks the completed operation in slot i, unless already
// counted, gives its Request back, and starts another while the total
// is not yet posted.
func (m *nbcMix) finish(i int) error {
	if m.ops[i].check == nil {
		return nil // already counted
	}
	if err := m.ops[i].check(); err != nil {
		return fmt.Errorf("operation %d: %w", m.done, err)
	}
	// Given back, as a C program's completion frees it: the next
	// operations reuse its Request and its collective's state.
	if r := m.ops[i].req; r != nil {
		if err := r.Release(); err != nil {
			return fmt.Errorf("operation %d: %w", m.done, err)
		}
	}
	m.ops[i].check = nil
	m.done++
	if m.posted < m.total {
		return m.start(i)
	}
	return nil
}

// completeNBC completes some of reqs by the completion call numbered
// how, and returns the indices of the operations it completed; their
// entries are nil afterwards.
func completeNBC(how int, r *nbcRand, reqs []*mpi.Request) ([]int, error) {
	var idx []int
	switch how {
	case 0:
		if _, err := mpi.Waitall(reqs); err != nil {
			return nil, err
		}
		for i := range reqs {
			idx = append(idx, i)
		}
		clear(reqs)
		return idx, nil
	case 1:
		i, _, err := mpi.Testsome(reqs)
		return i, err
	case 2:
		i, _, err := mpi.Waitsome(reqs)
		return i, err
	case 3:
		i, _, err := mpi.Waitany(reqs)
		if err != nil || i == mpi.Undefined {
			return nil, err
		}
		return []int{i}, nil
	case 4:
		ok, i, _, err := mpi.Testany(reqs)
		if err != nil || !ok || i == mpi.Undefined {
			return nil, err
		}
		return []int{i}, nil
	case 5:
		ok, _, err := mpi.Testall(reqs)
		if err != nil || !ok {
			return nil, err
		}
		for i := range reqs {
			idx = append(idx, i)
		}
		clear(reqs)
		return idx, nil
	default: // 6: Wait, 7: Test on one at random
		i := r.intn(len(reqs))
		if reqs[i] == nil {
			return []int{i}, nil
		}
		if how == 6 {
			_, err := reqs[i].Wait()
			reqs[i] = nil
			return []int{i}, err
		}
		ok, _, err := reqs[i].Test()
		if err != nil || !ok {
			return nil, err
		}
		reqs[i] = nil
		return []int{i}, nil
	}
}

// nbcCases is the number of kinds of operation startNBC starts.
const nbcCases = 12

// startNBC starts operation kind on c, with operands that make every
// element of the result checkable.
func startNBC(c *mpi.Comm, kind int) (nbcOp, error) {
	var s nbcStart
	switch {
	case kind < 4:
		s = startNBCBcastReduce(c, kind)
	case kind < 8:
		s = startNBCGathers(c, kind)
	default:
		s = startNBCScansPairs(c, kind)
	}
	req, recv, want, err := s.req, s.recv, s.want, s.err
	if err != nil {
		return nbcOp{}, fmt.Errorf("starting operation %d on a communicator of %d: %w", kind, c.Size(), err)
	}
	check := func() error {
		if want != nil && !slices.Equal(recv, want) {
			return fmt.Errorf("operation %d: got %v, want %v", kind, recv, want)
		}
		return nil
	}
	// A rank with nothing to do (the odd one out of the pairs) has a nil
	// request, MPI's null request: the completion calls skip it, and
	// Waitall, Testall and Wait count it as complete.
	return nbcOp{req: req, check: check}, nil
}

// nbcStart is an operation that startNBC started: its request, the
// buffer it receives into, what that must hold (nil: nothing to check),
// and the error in starting it.
type nbcStart struct {
	req        *mpi.Request
	recv, want []int32
	err        error
}

// nbcOperands returns a rank's operand, me+i at i, and a receive buffer
// of a block a rank, each element -1.
func nbcOperands(me, n int) (mine, recv []int32) {
	mine = make([]int32, nbcCount)
	for i := range mine {
		mine[i] = int32(me + i)
	}
	recv = make([]int32, nbcCount*n)
	for i := range recv {
		recv[i] = -1
	}
	return mine, recv
}

// nbcSumTo is the sum over the ranks r up to k of r+i.
func nbcSumTo(k, i int) int32 { return int32(k*(k+1)/2 + i*(k+1)) }

// startNBCBcastReduce starts kinds 0 to 3: Ibcast, Ibarrier, Ireduce and
// Iallreduce.
func startNBCBcastReduce(c *mpi.Comm, kind int) (s nbcStart) {
	me, n := c.Rank(), c.Size()
	mine, recv := nbcOperands(me, n)
	switch kind {
	case 0:
		buf := make([]int32, nbcCount)
		if me == 0 {
			copy(buf, mine)
		}
		s.req, s.err = mpi.Ibcast(c, buf, 0)
		recv, s.want = buf, nbcSeq(nbcCount, 0)
	case 1:
		s.req, s.err = mpi.Ibarrier(c)
	case 2:
		s.req, s.err = mpi.Ireduce(c, mine, recv[:nbcCount], mpi.Sum, 0)
		if me == 0 {
			s.want = nbcFill(nbcCount, func(i int) int32 { return nbcSumTo(n-1, i) })
		}
		recv = recv[:nbcCount]
	case 3:
		recv = recv[:nbcCount]
		s.req, s.err = mpi.Iallreduce(c, mine, recv, mpi.Sum)
		s.want = nbcFill(nbcCount, func(i int) int32 { return nbcSumTo(n-1, i) })
	}
	s.recv = recv
	return s
}

// startNBCGathers starts kinds 4 to 7: Igather, Iscatter, Iallgather and
// Ialltoall.
func startNBCGathers(c *mpi.Comm, kind int) (s nbcStart) {
	me, n := c.Rank(), c.Size()
	mine, recv := nbcOperands(me, n)
	switch kind {
	case 4:
		s.req, s.err = mpi.Igather(c, mine, recv, 0)
		if me == 0 {
			s.want = nbcFill(n*nbcCount, func(i int) int32 { return int32(i/nbcCount + i%nbcCount) })
		}
	case 5:
		all := nbcFill(n*nbcCount, func(i int) int32 { return int32(i) })
		recv = recv[:nbcCount]
		s.req, s.err = mpi.Iscatter(c, all, recv, 0)
		s.want = nbcSeq(nbcCount, int32(me*nbcCount))
	case 6:
		s.req, s.err = mpi.Iallgather(c, mine, recv)
		s.want = nbcFill(n*nbcCount, func(i int) int32 { return int32(i/nbcCount + i%nbcCount) })
	case 7:
		send := nbcFill(n*nbcCount, func(i int) int32 { return int32(me*1000 + i) })
		s.req, s.err = mpi.Ialltoall(c, send, recv)
		s.want = nbcFill(n*nbcCount, func(i int) int32 { return int32((i/nbcCount)*1000 + me*nbcCount + i%nbcCount) })
	}
	s.recv = recv
	return s
}

// startNBCScansPairs starts kinds 8 to 11: Iscan, Iexscan,
// IreduceScatterBlock, and (any other kind) an Isend from each even rank
// to the odd rank above it.
func startNBCScansPairs(c *mpi.Comm, kind int) (s nbcStart) {
	me, n := c.Rank(), c.Size()
	mine, recv := nbcOperands(me, n)
	recv = recv[:nbcCount]
	switch kind {
	case 8:
		s.req, s.err = mpi.Iscan(c, mine, recv, mpi.Sum)
		s.want = nbcFill(nbcCount, func(i int) int32 { return nbcSumTo(me, i) })
	case 9:
		s.req, s.err = mpi.Iexscan(c, mine, recv, mpi.Sum)
		if me > 0 {
			s.want = nbcFill(nbcCount, func(i int) int32 { return nbcSumTo(me-1, i) })
		}
	case 10:
		send := nbcFill(n*nbcCount, func(i int) int32 { return int32(me + i/nbcCount) })
		s.req, s.err = mpi.IreduceScatterBlock(c, send, recv, mpi.Sum)
		s.want = nbcFill(nbcCount, func(int) int32 { return int32(n*(n-1)/2 + n*me) })
	default: // even ranks send to the odd rank above them
		switch {
		case me%2 == 0 && me+1 < n:
			s.req, s.err = mpi.Isend(c, mine, me+1, 5)
		case me%2 == 1:
			s.req, s.err = mpi.Irecv(c, recv, me-1, 5)
			s.want = nbcSeq(nbcCount, int32(me-1))
		}
	}
	s.recv = recv
	return s
}

// nbcSeq is from, from+1, ... of length n.
func nbcSeq(n int, from int32) []int32 {
	return nbcFill(n, func(i int) int32 { return from + int32(i) })
}

// nbcFill is f(0), ..., f(n-1).
func nbcFill(n int, f func(int) int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}
