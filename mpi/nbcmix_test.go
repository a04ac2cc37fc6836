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
	post, complete, nap := nbcRand(0x10bc), nbcRand(0x10bc), nbcRand(0x10bc+world.Rank())
	ops := make([]nbcOp, nbcWindow)
	reqs := make([]*mpi.Request, nbcWindow)
	posted, done := 0, 0
	start := func(i int) error {
		c := comms[post.intn(nbcComms)]
		op, err := startNBC(c, post.intn(nbcCases))
		if err != nil {
			return err
		}
		ops[i], reqs[i] = op, op.req
		posted++
		return nil
	}
	for i := range ops {
		if err := start(i); err != nil {
			return err
		}
	}
	for done < total {
		idx, err := completeNBC(complete.intn(8), &complete, reqs)
		if err != nil {
			return err
		}
		for _, i := range idx {
			if ops[i].check == nil {
				continue // already counted
			}
			if err := ops[i].check(); err != nil {
				return fmt.Errorf("operation %d: %w", done, err)
			}
			// Given back, as a C program's completion frees it: the next
			// operations reuse its Request and its collective's state.
			if r := ops[i].req; r != nil {
				if err := r.Release(); err != nil {
					return fmt.Errorf("operation %d: %w", done, err)
				}
			}
			ops[i].check = nil
			done++
			if posted < total {
				if err := start(i); err != nil {
					return err
				}
			}
		}
		if nap.intn(nbcNapChance) == 0 {
			time.Sleep(nbcNap)
		}
	}
	for _, c := range comms {
		if err := c.Free(); err != nil {
			return err
		}
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
	me, n := c.Rank(), c.Size()
	mine := make([]int32, nbcCount)
	for i := range mine {
		mine[i] = int32(me + i)
	}
	// The sums over every rank r of r+i, and over ranks up to me.
	sumTo := func(k, i int) int32 { return int32(k*(k+1)/2 + i*(k+1)) }
	recv := make([]int32, nbcCount*n)
	for i := range recv {
		recv[i] = -1
	}
	var req *mpi.Request
	var err error
	var want []int32 // what recv must hold (nil: nothing to check)
	switch kind {
	case 0:
		buf := make([]int32, nbcCount)
		if me == 0 {
			copy(buf, mine)
		}
		req, err = mpi.Ibcast(c, buf, 0)
		recv, want = buf, nbcSeq(nbcCount, 0)
	case 1:
		req, err = mpi.Ibarrier(c)
	case 2:
		req, err = mpi.Ireduce(c, mine, recv[:nbcCount], mpi.Sum, 0)
		if me == 0 {
			want = nbcFill(nbcCount, func(i int) int32 { return sumTo(n-1, i) })
		}
		recv = recv[:nbcCount]
	case 3:
		recv = recv[:nbcCount]
		req, err = mpi.Iallreduce(c, mine, recv, mpi.Sum)
		want = nbcFill(nbcCount, func(i int) int32 { return sumTo(n-1, i) })
	case 4:
		req, err = mpi.Igather(c, mine, recv, 0)
		if me == 0 {
			want = nbcFill(n*nbcCount, func(i int) int32 { return int32(i/nbcCount + i%nbcCount) })
		}
	case 5:
		all := nbcFill(n*nbcCount, func(i int) int32 { return int32(i) })
		recv = recv[:nbcCount]
		req, err = mpi.Iscatter(c, all, recv, 0)
		want = nbcSeq(nbcCount, int32(me*nbcCount))
	case 6:
		req, err = mpi.Iallgather(c, mine, recv)
		want = nbcFill(n*nbcCount, func(i int) int32 { return int32(i/nbcCount + i%nbcCount) })
	case 7:
		send := nbcFill(n*nbcCount, func(i int) int32 { return int32(me*1000 + i) })
		req, err = mpi.Ialltoall(c, send, recv)
		want = nbcFill(n*nbcCount, func(i int) int32 { return int32((i/nbcCount)*1000 + me*nbcCount + i%nbcCount) })
	case 8:
		recv = recv[:nbcCount]
		req, err = mpi.Iscan(c, mine, recv, mpi.Sum)
		want = nbcFill(nbcCount, func(i int) int32 { return sumTo(me, i) })
	case 9:
		recv = recv[:nbcCount]
		req, err = mpi.Iexscan(c, mine, recv, mpi.Sum)
		if me > 0 {
			want = nbcFill(nbcCount, func(i int) int32 { return sumTo(me-1, i) })
		}
	case 10:
		send := nbcFill(n*nbcCount, func(i int) int32 { return int32(me + i/nbcCount) })
		recv = recv[:nbcCount]
		req, err = mpi.IreduceScatterBlock(c, send, recv, mpi.Sum)
		want = nbcFill(nbcCount, func(int) int32 { return int32(n*(n-1)/2 + n*me) })
	default: // even ranks send to the odd rank above them
		recv = recv[:nbcCount]
		switch {
		case me%2 == 0 && me+1 < n:
			req, err = mpi.Isend(c, mine, me+1, 5)
		case me%2 == 1:
			req, err = mpi.Irecv(c, recv, me-1, 5)
			want = nbcSeq(nbcCount, int32(me-1))
		}
	}
	if err != nil {
		return nbcOp{}, fmt.Errorf("starting operation %d on a communicator of %d: %w", kind, n, err)
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
