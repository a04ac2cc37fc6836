package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["coll-empty"] = scenarioEmpty }

// TestCollectiveEmpty runs collectives that move no data, in every form,
// between calls that do (scenarioEmpty); with the NIC's offload and
// without it, where every call is compared by messages.
func TestCollectiveEmpty(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-empty", collSizes(false))
	t.Run("no-offload", func(t *testing.T) {
		t.Parallel()
		runAt(t, "coll-empty", []int{3, 5}, "-no-offload")
	})
}

// scenarioEmpty makes collective calls that move no data, alternating
// between forms that reach the collectives by different ways (the
// generic calls, the typed ones, the nonblocking ones) from rank to rank,
// and after each a broadcast, an allreduce and a nonblocking allreduce
// of data, whose results show that every rank's calls are still in step
// (the messages' tags, the barrier's generations). Where the collectives
// compare arguments through the NIC's barrier, rank 0 then makes an
// empty broadcast and an empty allgather before the others can, which
// must return without them.
func scenarioEmpty(w *mpi.Comm) error {
	n := w.Size()
	calls := append(emptyRootedCalls(w), emptyAllCalls(w)...)
	if err := runEmptyCalls(w, calls); err != nil {
		return err
	}
	if err := emptyThenFree(w); err != nil {
		return err
	}
	if n < 2 || os.Getenv(launch.EnvNoOffload) == "1" {
		return nil
	}
	if err := emptyRankZeroFirst(w); err != nil {
		return err
	}
	return inStep(w, len(calls))
}

// emptyCall is one collective call of scenarioEmpty that moves no data.
type emptyCall struct {
	name string
	run  func() error
}

// emptyWait waits for q unless err is already an error.
func emptyWait(q *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = q.Wait()
	return err
}

// emptyRootedCalls are the empty broadcasts and reductions, which have a
// root.
func emptyRootedCalls(w *mpi.Comm) []emptyCall {
	me, n := w.Rank(), w.Size()
	odd := me%2 == 1
	none := []int32{}
	return []emptyCall{
		{"Bcast", func() error {
			if odd {
				return mpi.BcastType(w, none, 0, mpi.Element, n-1)
			}
			return mpi.Bcast(w, none, n-1)
		}},
		{"Ibcast", func() error {
			if odd {
				return emptyWait(mpi.IbcastType(w, none, 0, mpi.Element, 0))
			}
			return emptyWait(mpi.Ibcast(w, none, 0))
		}},
		{"Reduce", func() error { return mpi.Reduce(w, none, none, mpi.Sum, 0) }},
		{"Reduce in place", func() error {
			if me == 0 {
				return mpi.Reduce(w, nil, none, mpi.Max, 0)
			}
			return mpi.Reduce(w, none, nil, mpi.Max, 0)
		}},
		{"Ireduce", func() error { return emptyWait(mpi.Ireduce(w, none, none, mpi.Sum, n-1)) }},
	}
}

// emptyAllCalls are the empty allreduces, gathers, scatters and
// all-to-alls.
func emptyAllCalls(w *mpi.Comm) []emptyCall {
	me, n := w.Rank(), w.Size()
	odd := me%2 == 1
	none := []int32{}
	return []emptyCall{
		{"Allreduce", func() error {
			if odd {
				return mpi.Allreduce(w, nil, none, mpi.Sum)
			}
			return mpi.Allreduce(w, none, none, mpi.Sum)
		}},
		{"Iallreduce", func() error { return emptyWait(mpi.Iallreduce(w, none, none, mpi.Sum)) }},
		{"Gather", func() error {
			if odd {
				return mpi.GatherType(w, none, 0, mpi.Element, none, 0, mpi.Element, 0)
			}
			return mpi.Gather(w, none, none, 0)
		}},
		{"Igather", func() error { return emptyWait(mpi.Igather(w, none, none, n-1)) }},
		{"Scatter", func() error { return mpi.Scatter(w, none, none, 0) }},
		{"Iscatter", func() error { return emptyWait(mpi.Iscatter(w, none, none, 0)) }},
		{"Allgather", func() error { return mpi.Allgather(w, none, none) }},
		{"Iallgather", func() error { return emptyWait(mpi.Iallgather(w, none, none)) }},
		{"Alltoall", func() error { return mpi.Alltoall(w, none, none) }},
		{"Ialltoall", func() error { return emptyWait(mpi.Ialltoall(w, none, none)) }},
	}
}

// runEmptyCalls makes each call and checks after it that the ranks are
// still in step.
func runEmptyCalls(w *mpi.Comm, calls []emptyCall) error {
	me := w.Rank()
	for k, c := range calls {
		if err := c.run(); err != nil {
			return fmt.Errorf("rank %d: empty %s: %w", me, c.name, err)
		}
		if err := inStep(w, k); err != nil {
			return fmt.Errorf("rank %d: after the empty %s: %w", me, c.name, err)
		}
	}
	return nil
}

// emptyThenFree frees a communicator after calls that moved no data,
// their check still to come.
func emptyThenFree(w *mpi.Comm) error {
	me := w.Rank()
	none := []int32{}
	d, err := w.Dup()
	if err != nil {
		return err
	}
	if err := mpi.Bcast(d, none, 0); err != nil {
		return fmt.Errorf("rank %d: empty Bcast on a duplicate: %w", me, err)
	}
	if err := mpi.Allgather(d, none, none); err != nil {
		return fmt.Errorf("rank %d: empty Allgather on a duplicate: %w", me, err)
	}
	if err := d.Free(); err != nil {
		return fmt.Errorf("rank %d: Free after empty calls: %w", me, err)
	}
	return nil
}

// emptyRankZeroFirst has rank 0's empty calls return before rank 1 makes
// its own: rank 1 makes them only once rank 0 says it has returned.
func emptyRankZeroFirst(w *mpi.Comm) error {
	me := w.Rank()
	none := []int32{}
	note := []int32{0}
	switch me {
	case 0:
		if err := mpi.Bcast(w, none, 1); err != nil {
			return fmt.Errorf("rank 0: empty Bcast alone: %w", err)
		}
		if err := mpi.Allgather(w, none, none); err != nil {
			return fmt.Errorf("rank 0: empty Allgather alone: %w", err)
		}
		if err := mpi.Send(w, note, 1, 5); err != nil {
			return err
		}
	case 1:
		if _, err := mpi.Recv(w, note, 0, 5); err != nil {
			return err
		}
	}
	if me != 0 {
		if err := mpi.Bcast(w, none, 1); err != nil {
			return fmt.Errorf("rank %d: empty Bcast: %w", me, err)
		}
		if err := mpi.Allgather(w, none, none); err != nil {
			return fmt.Errorf("rank %d: empty Allgather: %w", me, err)
		}
	}
	return nil
}

// inStep checks a broadcast, an allreduce and a nonblocking allreduce of
// data on w, the k-th time.
func inStep(w *mpi.Comm, k int) error {
	me, n := w.Rank(), w.Size()
	b := make([]int32, 8)
	if me == k%n {
		for i := range b {
			b[i] = int32(k*10 + i)
		}
	}
	if err := mpi.Bcast(w, b, k%n); err != nil {
		return err
	}
	for i, v := range b {
		if v != int32(k*10+i) {
			return fmt.Errorf("Bcast: element %d is %d, want %d", i, v, k*10+i)
		}
	}
	sum := []int64{0}
	if err := mpi.Allreduce(w, []int64{int64(me + 1)}, sum, mpi.Sum); err != nil {
		return err
	}
	if want := int64(n * (n + 1) / 2); sum[0] != want {
		return fmt.Errorf("Allreduce: %d, want %d", sum[0], want)
	}
	most := []int64{0}
	q, err := mpi.Iallreduce(w, []int64{int64(me + k)}, most, mpi.Max)
	if err != nil {
		return err
	}
	if _, err := q.Wait(); err != nil {
		return err
	}
	if want := int64(n - 1 + k); most[0] != want {
		return fmt.Errorf("Iallreduce: %d, want %d", most[0], want)
	}
	return nil
}
