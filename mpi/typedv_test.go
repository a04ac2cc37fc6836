package mpi_test

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// vColumns is the layout of typedVectors: a rows×cols matrix of which
// rank i owns counts[i] columns from column displs[i] on.
type vColumns struct {
	rows, cols     int
	counts, displs []int
	col            *mpi.Datatype // a column, resized to one element
}

func newVColumns(n, rows int) vColumns {
	v := vColumns{rows: rows, counts: make([]int, n), displs: make([]int, n)}
	for i := range n {
		v.counts[i], v.displs[i] = i%2+1, v.cols
		v.cols += v.counts[i]
	}
	v.col = must(must(mpi.Vector(rows, 1, v.cols)).Resized(0, 1))
	return v
}

// own returns rank r's columns of a, one after the other.
func (v vColumns) own(a []int64, r int) []int64 {
	var out []int64
	for j := range v.counts[r] {
		for k := range v.rows {
			out = append(out, a[k*v.cols+v.displs[r]+j])
		}
	}
	return out
}

// typedVectors gathers, scatters and allgathers the columns of a matrix,
// a varying number per process, as column datatypes at the vector side
// (counts and displacements in columns), in place too, and exchanges
// strided pairs with AlltoallvType.
func typedVectors(w *mpi.Comm, rows int, nb bool) error {
	me, n := w.Rank(), w.Size()
	root := n / 2
	v := newVColumns(n, rows)
	a := make([]int64, rows*v.cols)
	for i := range a {
		a[i] = int64(1000 + i)
	}
	mine := v.own(a, me)
	back := make([]int64, len(a))
	if err := typedCall(nb, func() error {
		return mpi.GathervType(w, mine, len(mine), mpi.Element, back, v.counts, v.displs, v.col, root)
	}, func() (*mpi.Request, error) {
		return mpi.IgathervType(w, mine, len(mine), mpi.Element, back, v.counts, v.displs, v.col, root)
	}); err != nil {
		return fmt.Errorf("GathervType: %w", err)
	}
	if d := diff(back, a); me == root && d != "" {
		return fmt.Errorf("GathervType of the columns: %s", d)
	}
	got := make([]int64, len(mine))
	if err := typedCall(nb, func() error {
		return mpi.ScattervType(w, a, v.counts, v.displs, v.col, got, len(got), mpi.Element, root)
	}, func() (*mpi.Request, error) {
		return mpi.IscattervType(w, a, v.counts, v.displs, v.col, got, len(got), mpi.Element, root)
	}); err != nil {
		return fmt.Errorf("ScattervType: %w", err)
	}
	if d := diff(got, mine); d != "" {
		return fmt.Errorf("ScattervType of the columns: %s", d)
	}
	if err := typedAllgatherv(w, v, a, nb); err != nil {
		return err
	}
	return typedAlltoallv(w, nb)
}

// typedAllgatherv allgathers the columns of a, then again in place.
func typedAllgatherv(w *mpi.Comm, v vColumns, a []int64, nb bool) error {
	me := w.Rank()
	mine := v.own(a, me)
	all := make([]int64, len(a))
	if err := typedCall(nb, func() error {
		return mpi.AllgathervType(w, mine, len(mine), mpi.Element, all, v.counts, v.displs, v.col)
	}, func() (*mpi.Request, error) {
		return mpi.IallgathervType(w, mine, len(mine), mpi.Element, all, v.counts, v.displs, v.col)
	}); err != nil {
		return fmt.Errorf("AllgathervType: %w", err)
	}
	if d := diff(all, a); d != "" {
		return fmt.Errorf("AllgathervType of the columns: %s", d)
	}
	in := make([]int64, len(a)) // own columns only
	for k := range v.rows {
		for j := range v.counts[me] {
			at := k*v.cols + v.displs[me] + j
			in[at] = a[at]
		}
	}
	if err := typedCall(nb, func() error {
		return mpi.AllgathervType(w, nil, 0, mpi.Element, in, v.counts, v.displs, v.col)
	}, func() (*mpi.Request, error) {
		return mpi.IallgathervType(w, nil, 0, mpi.Element, in, v.counts, v.displs, v.col)
	}); err != nil {
		return fmt.Errorf("AllgathervType in place: %w", err)
	}
	if d := diff(in, a); d != "" {
		return fmt.Errorf("AllgathervType in place: %s", d)
	}
	return nil
}

// pairCounts returns the items rank r sends to each of n ranks in
// typedAlltoallv, (r+j)%2+1 to rank j, and where each block starts, in
// items.
func pairCounts(r, n int) (counts, displs []int, total int) {
	counts, displs = make([]int, n), make([]int, n)
	for j := range n {
		counts[j], displs[j] = (r+j)%2+1, total
		total += counts[j]
	}
	return counts, displs, total
}

// typedAlltoallv sends each rank blocks of pairs (a vector of two
// elements two apart, extent 3), received as plain elements.
func typedAlltoallv(w *mpi.Comm, nb bool) error {
	me, n := w.Rank(), w.Size()
	pair := must(mpi.Vector(2, 1, 2))
	sendOf := func(r int) []int64 {
		_, _, total := pairCounts(r, n)
		s := make([]int64, 3*total)
		for i := range s {
			s[i] = int64(r*10000 + i)
		}
		return s
	}
	scounts, sdispls, _ := pairCounts(me, n)
	rcounts, rdispls := make([]int, n), make([]int, n)
	at := 0
	for i := range n {
		rcounts[i], rdispls[i] = 2*((i+me)%2+1), at
		at += rcounts[i]
	}
	send, recv := sendOf(me), make([]int64, at)
	if err := typedCall(nb, func() error {
		return mpi.AlltoallvType(w, send, scounts, sdispls, pair, recv, rcounts, rdispls, mpi.Element)
	}, func() (*mpi.Request, error) {
		return mpi.IalltoallvType(w, send, scounts, sdispls, pair, recv, rcounts, rdispls, mpi.Element)
	}); err != nil {
		return fmt.Errorf("AlltoallvType: %w", err)
	}
	for i := range n {
		theirs := sendOf(i)
		_, d, _ := pairCounts(i, n)
		for q := range rcounts[i] / 2 {
			for e := range 2 {
				want, got := theirs[3*(d[me]+q)+2*e], recv[rdispls[i]+2*q+e]
				if got != want {
					return fmt.Errorf("AlltoallvType: element %d from rank %d is %d, want %d", 2*q+e, i, got, want)
				}
			}
		}
	}
	return nil
}
