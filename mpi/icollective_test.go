package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["coll-nonblocking-forms"] = scenarioNonblockingForms
}

// TestCollectiveNonblockingForms runs every nonblocking collective that
// has a blocking twin, all in flight at once, and compares each result
// with its blocking twin's on the same operands.
func TestCollectiveNonblockingForms(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-nonblocking-forms", collSizes(false))
}

// nbCase is one collective run twice: start runs its nonblocking form
// into the case's receive buffer, block its blocking form into another.
type nbCase struct {
	name  string
	start func(recv []int64) (*mpi.Request, error)
	block func(recv []int64) error
	n     int // length of the receive buffer
}

// nbCases are the collectives of the scenario on w, with operands made
// from key: variable counts (some zero), every root, sizes past the eager
// limit.
func nbCases(w *mpi.Comm, key int) []nbCase {
	me, n := w.Rank(), w.Size()
	root := key % n
	blk := 1 + key%5*1500 // up to 6001 int64: 48 KiB, past the eager limit
	counts := make([]int, n)
	for r := range n {
		counts[r] = (r + key) % 3 * (blk / 2)
	}
	displs, total := layoutOf(counts)
	send := pattern[int64](blk, key, me)
	own := pattern[int64](counts[me], key, me, 1)
	all := pattern[int64](n*blk, key, me, 2)
	var toAll []int64
	for r := range n {
		toAll = append(toAll, pattern[int64](counts[r], key, me, r, 3)...)
	}
	// Alltoallv: rank me sends sc(me, r) elements to r and receives
	// sc(r, me) from r.
	sc := func(from, to int) int { return counts[(from+to)%n] }
	scounts, rcounts := make([]int, n), make([]int, n)
	for r := range n {
		scounts[r], rcounts[r] = sc(me, r), sc(r, me)
	}
	sdispls, stotal := layoutOf(scounts)
	rdispls, rtotal := layoutOf(rcounts)
	vsend := pattern[int64](stotal, key, me, 4)
	return []nbCase{
		{"Igather", func(r []int64) (*mpi.Request, error) { return mpi.Igather(w, send, r, root) },
			func(r []int64) error { return mpi.Gather(w, send, r, root) }, n * blk},
		{"Igatherv", func(r []int64) (*mpi.Request, error) { return mpi.Igatherv(w, own, r, counts, displs, root) },
			func(r []int64) error { return mpi.Gatherv(w, own, r, counts, displs, root) }, total},
		{"Iscatter", func(r []int64) (*mpi.Request, error) { return mpi.Iscatter(w, all, r, root) },
			func(r []int64) error { return mpi.Scatter(w, all, r, root) }, blk},
		{"Iscatterv", func(r []int64) (*mpi.Request, error) { return mpi.Iscatterv(w, toAll, counts, displs, r, root) },
			func(r []int64) error { return mpi.Scatterv(w, toAll, counts, displs, r, root) }, counts[me]},
		{"Iallgatherv", func(r []int64) (*mpi.Request, error) { return mpi.Iallgatherv(w, own, r, counts, displs) },
			func(r []int64) error { return mpi.Allgatherv(w, own, r, counts, displs) }, total},
		{"Ialltoallv", func(r []int64) (*mpi.Request, error) {
			return mpi.Ialltoallv(w, vsend, scounts, sdispls, r, rcounts, rdispls)
		}, func(r []int64) error { return mpi.Alltoallv(w, vsend, scounts, sdispls, r, rcounts, rdispls) }, rtotal},
		{"IreduceScatterBlock", func(r []int64) (*mpi.Request, error) { return mpi.IreduceScatterBlock(w, all, r, mpi.Sum) },
			func(r []int64) error { return mpi.ReduceScatterBlock(w, all, r, mpi.Sum) }, blk},
		{"IreduceScatter", func(r []int64) (*mpi.Request, error) { return mpi.IreduceScatter(w, toAll, r, counts, mpi.Max) },
			func(r []int64) error { return mpi.ReduceScatter(w, toAll, r, counts, mpi.Max) }, counts[me]},
		{"Iscan", func(r []int64) (*mpi.Request, error) { return mpi.Iscan(w, send, r, mpi.Sum) },
			func(r []int64) error { return mpi.Scan(w, send, r, mpi.Sum) }, blk},
		{"Iexscan", func(r []int64) (*mpi.Request, error) { return mpi.Iexscan(w, send, r, mpi.BXor) },
			func(r []int64) error { return mpi.Exscan(w, send, r, mpi.BXor) }, blk},
		{"Ireduce", func(r []int64) (*mpi.Request, error) { return mpi.Ireduce(w, send, r, mpi.Min, root) },
			func(r []int64) error { return mpi.Reduce(w, send, r, mpi.Min, root) }, blk},
	}
}

// layoutOf returns the displacements of blocks of counts laid end to end
// and their total.
func layoutOf(counts []int) ([]int, int) {
	displs := make([]int, len(counts))
	total := 0
	for i, c := range counts {
		displs[i] = total
		total += c
	}
	return displs, total
}

// scenarioNonblockingForms starts every case of a round at once, waits
// for them all, then runs the blocking twins and compares.
func scenarioNonblockingForms(w *mpi.Comm) error {
	var f failures
	for round := range 4 {
		cases := nbCases(w, round+7)
		got := make([][]int64, len(cases))
		reqs := make([]*mpi.Request, len(cases))
		for i, c := range cases {
			got[i] = pattern[int64](c.n, 0x5e47, round, i)
			q, err := c.start(got[i])
			if err != nil {
				return fmt.Errorf("round %d: %s: %w", round, c.name, err)
			}
			reqs[i] = q
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return fmt.Errorf("round %d: Waitall: %w", round, err)
		}
		for i, c := range cases {
			want := pattern[int64](c.n, 0x5e47, round, i)
			if err := c.block(want); err != nil {
				return fmt.Errorf("round %d: the blocking twin of %s: %w", round, c.name, err)
			}
			if d := diff(got[i], want); d != "" {
				f.add("rank %d, round %d: %s differs from its blocking twin: %s", w.Rank(), round, c.name, d)
			}
		}
	}
	return f.err()
}

func TestReduceLocal(t *testing.T) {
	in, inout := []int32{1, 5, -2}, []int32{4, 2, -7}
	if err := mpi.ReduceLocal(in, inout, mpi.Max); err != nil {
		t.Fatal(err)
	}
	if want := []int32{4, 5, -2}; !slices.Equal(inout, want) {
		t.Errorf("Max: %v, want %v", inout, want)
	}
	// A non-commutative operation sees in as the lower operand.
	sub := mpi.NewOp("sub", func(in, inout []float64) {
		for i := range in {
			inout[i] = in[i] - inout[i]
		}
	}, false)
	a, b := []float64{10, 1}, []float64{3, 4}
	if err := mpi.ReduceLocal(a, b, sub); err != nil {
		t.Fatal(err)
	}
	if want := []float64{7, -3}; !slices.Equal(b, want) {
		t.Errorf("user op: %v, want %v", b, want)
	}
	pairs := []float64{3, 0, 1, 1}
	acc := []float64{2, 5, 1, 0}
	if err := mpi.ReduceLocal(pairs, acc, mpi.MinLoc); err != nil {
		t.Fatal(err)
	}
	if want := []float64{2, 5, 1, 0}; !slices.Equal(acc, want) {
		t.Errorf("MinLoc: %v, want %v", acc, want)
	}
	if err := mpi.ReduceLocal([]int32{1}, []int32{1, 2}, mpi.Sum); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("different lengths: %v, want ErrCount", err)
	}
	if err := mpi.ReduceLocal([]float64{1, 2, 3}, []float64{1, 2, 3}, mpi.MaxLoc); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("odd MaxLoc length: %v, want ErrCount", err)
	}
	if err := mpi.ReduceLocal([]float64{1}, []float64{1}, mpi.BAnd); !errors.Is(err, mpi.ErrOp) {
		t.Errorf("BAnd on float64: %v, want ErrOp", err)
	}
	if err := mpi.ReduceLocal([]int8(nil), nil, mpi.Sum); err != nil {
		t.Errorf("empty: %v", err)
	}
}
