package mpi_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["nbc-queue"] = nbcScenario(true)
	scenarios["nbc-soft"] = nbcScenario(false)
}

// TestNonblockingQueue: with a core each, the commonest nonblocking
// collectives run as the blocking ones do (the same algorithms, counted
// alike), in the order the processes started them among the blocking
// calls, and progress while their process waits for something else,
// without a Wait or a Test; without the synchronisation network
// (-no-offload) they run on a Runner of their own, as they do where
// processes outnumber cores (-tune with one CPU), on the software
// algorithms, and then keep their order and progress too.
func TestNonblockingQueue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, scenario string
		np             int
		flags          []string
	}{
		{"np=2", "nbc-queue", 2, nil},
		{"np=3", "nbc-queue", 3, []string{"-tune", "intel:4"}},
		{"no-offload/np=2", "nbc-queue", 2, []string{"-no-offload"}},
		{"oversubscribed/np=2", "nbc-soft", 2, []string{"-tune", "intel:1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, c.np, c.scenario, c.flags...)
		})
	}
}

// nbcScenario returns the scenario of TestNonblockingQueue whose
// nonblocking collectives run by the algorithms of their blocking forms
// (queued) or not (sameAlgorithms), where processes outnumber cores with
// the broadcasts queued all the same, ahead of their check (bcastAhead).
func nbcScenario(queued bool) func(w *mpi.Comm) error {
	return func(w *mpi.Comm) error {
		if err := sameAlgorithms(w, queued); err != nil {
			return err
		}
		if !queued {
			if err := bcastAhead(w); err != nil {
				return err
			}
			if err := reduceAhead(w); err != nil {
				return err
			}
		}
		if err := queueOrder(w); err != nil {
			return err
		}
		return queueProgress(w)
	}
}

// bcastAheadWithin bounds the root's wait for its Ibcast in bcastAhead.
const bcastAheadWithin = 10 * time.Second

// bcastAhead checks that an Ibcast runs ahead of its argument check where
// processes outnumber cores (tuning.Waiting.QueueRooted): the root's
// completes before the others start theirs, which they do only once the
// root's message after it has come. On the software path the root's
// check waits for the others' records, and the root reports it.
func bcastAhead(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	data, token := []int64{-1}, []int32{0}
	const tag = 9
	if me == 0 {
		data[0] = 4242
		r, err := mpi.Ibcast(w, data, 0)
		if err != nil {
			return err
		}
		if err := completeWithin(r, bcastAheadWithin); err != nil {
			return fmt.Errorf("the root's Ibcast, before the others started theirs: %w", err)
		}
		for dst := 1; dst < n; dst++ {
			if err := mpi.Send(w, token, dst, tag); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := mpi.Recv(w, token, 0, tag); err != nil {
		return err
	}
	r, err := mpi.Ibcast(w, data, 0)
	if err == nil {
		_, err = r.Wait()
	}
	if err == nil && data[0] != 4242 {
		err = fmt.Errorf("the Ibcast ahead brought %d, want 4242", data[0])
	}
	return err
}

// reduceAhead checks that an Ireduce runs ahead of its argument check
// where processes outnumber cores (tuning.Waiting.QueueRooted): every
// other process's completes before the root starts its own, which it
// does only once their messages after them have come. On the software
// path the others' checks wait for the root's record, and they report
// it. The root's sum is every process's.
func reduceAhead(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	in, sum, token := []int64{int64(me + 1)}, []int64{0}, []int32{0}
	const tag = 10
	if me != 0 {
		r, err := mpi.Ireduce(w, in, sum, mpi.Sum, 0)
		if err != nil {
			return err
		}
		if err := completeWithin(r, bcastAheadWithin); err != nil {
			return fmt.Errorf("a non-root's Ireduce, before the root started its own: %w", err)
		}
		return mpi.Send(w, token, 0, tag)
	}
	for src := 1; src < n; src++ {
		if _, err := mpi.Recv(w, token, src, tag); err != nil {
			return err
		}
	}
	r, err := mpi.Ireduce(w, in, sum, mpi.Sum, 0)
	if err == nil {
		_, err = r.Wait()
	}
	if want := int64(n * (n + 1) / 2); err == nil && sum[0] != want {
		err = fmt.Errorf("the Ireduce ahead summed %d, want %d", sum[0], want)
	}
	return err
}

// completeWithin tests r until it completes, or fails once d has passed
// (where r waits for processes that have not started theirs: it did not
// run ahead of its check).
func completeWithin(r *mpi.Request, d time.Duration) error {
	for deadline := time.Now().Add(d); ; {
		done, _, err := r.Test()
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not complete in %v: it did not run ahead of its check", d)
		}
	}
}

// sameAlgorithms checks that each nonblocking collective adds to the
// counts what its blocking form adds (same), or, where the blocking
// barrier runs on the NIC, something else (!same).
func sameAlgorithms(w *mpi.Comm, same bool) error {
	buf, out := []int64{int64(w.Rank())}, make([]int64, w.Size())
	pairs := []struct {
		name     string
		block    func() error
		nonblock func() (*mpi.Request, error)
	}{
		{"Barrier", func() error { return mpi.Barrier(w) }, func() (*mpi.Request, error) { return mpi.Ibarrier(w) }},
		{"Bcast", func() error { return mpi.Bcast(w, buf, 0) }, func() (*mpi.Request, error) { return mpi.Ibcast(w, buf, 0) }},
		{"Allreduce", func() error { return mpi.Allreduce(w, buf, out[:1], mpi.Sum) },
			func() (*mpi.Request, error) { return mpi.Iallreduce(w, buf, out[:1], mpi.Sum) }},
		{"Allgather", func() error { return mpi.Allgather(w, buf, out) }, func() (*mpi.Request, error) { return mpi.Iallgather(w, buf, out) }},
	}
	for _, p := range pairs {
		blocking, err := countsOf(p.block)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		nonblocking, err := countsOf(func() error {
			r, err := p.nonblock()
			if err == nil {
				_, err = r.Wait()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("I%s: %w", p.name, err)
		}
		switch {
		case same && !slices.Equal(blocking, nonblocking):
			return fmt.Errorf("I%s ran by %v, %s by %v", p.name, nonblocking, p.name, blocking)
		case !same && p.name == "Barrier" && slices.Equal(blocking, nonblocking):
			return fmt.Errorf("I%s ran by %v as %s did, not by the software algorithms", p.name, nonblocking, p.name)
		}
	}
	return nil
}

// countsOf runs f and returns the collective counts that grew, as
// "collective/algorithm" keys.
func countsOf(f func() error) ([]string, error) {
	before, err := mpi.ReadStats()
	if err != nil {
		return nil, err
	}
	if err := f(); err != nil {
		return nil, err
	}
	after, err := mpi.ReadStats()
	if err != nil {
		return nil, err
	}
	var grew []string
	for k, n := range after.Collectives {
		if n > before.Collectives[k] {
			grew = append(grew, k)
		}
	}
	slices.Sort(grew)
	return grew, nil
}

// queueOrder starts nonblocking collectives, runs a blocking one between
// them, and waits for them in reverse order: each gets its own data.
func queueOrder(w *mpi.Comm) error {
	n, rank := w.Size(), w.Rank()
	const ops = 6
	bufs := make([][]int32, ops)
	reqs := make([]*mpi.Request, ops)
	for i := range ops {
		bufs[i] = []int32{int32(100*i + rank)}
		var err error
		if i%2 == 0 {
			reqs[i], err = mpi.Ibcast(w, bufs[i], i%n)
		} else {
			reqs[i], err = mpi.Iallreduce(w, nil, bufs[i], mpi.Sum)
		}
		if err != nil {
			return err
		}
		if i == ops/2 {
			sum := []int32{1}
			if err := mpi.Allreduce(w, nil, sum, mpi.Sum); err != nil || sum[0] != int32(n) {
				return fmt.Errorf("the blocking Allreduce between the starts: %v, %v (want %d)", err, sum[0], n)
			}
		}
	}
	for i := ops - 1; i >= 0; i-- {
		if _, err := reqs[i].Wait(); err != nil {
			return err
		}
		want := int32(100*i + i%n) // the root's
		if i%2 == 1 {
			want = int32(100*i*n + n*(n-1)/2)
		}
		if bufs[i][0] != want {
			return fmt.Errorf("operation %d got %d, want %d", i, bufs[i][0], want)
		}
	}
	return nil
}

// queueProgress: rank 0 starts a barrier and waits for a message that
// rank 1 sends only once its own barrier is through, and then a
// broadcast that rank 0 polls with Test after sending what rank 1 waits
// for before it starts its own.
func queueProgress(w *mpi.Comm) error {
	rank := w.Rank()
	b, err := mpi.Ibarrier(w)
	if err != nil {
		return err
	}
	token := []int32{7}
	switch rank {
	case 0:
		if _, err := mpi.Recv(w, token, 1, 3); err != nil {
			return err
		}
	case 1:
		if _, err := b.Wait(); err != nil {
			return err
		}
		if err := mpi.Send(w, token, 0, 3); err != nil {
			return err
		}
	}
	if _, err := b.Wait(); err != nil {
		return err
	}
	data := []int32{int32(rank)}
	if rank == 1 {
		if _, err := mpi.Recv(w, token, 0, 4); err != nil {
			return err
		}
	}
	r, err := mpi.Ibcast(w, data, 0)
	if err != nil {
		return err
	}
	if rank == 0 {
		if err := mpi.Send(w, token, 1, 4); err != nil {
			return err
		}
		for {
			done, _, err := r.Test()
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
	} else if _, err := r.Wait(); err != nil {
		return err
	}
	if data[0] != 0 {
		return fmt.Errorf("the broadcast brought %d, want 0", data[0])
	}
	return nil
}
