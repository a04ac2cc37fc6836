package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func TestDarrayLayouts(t *testing.T) {
	const (
		B, C, N, D = mpi.DistributeBlock, mpi.DistributeCyclic, mpi.DistributeNone, mpi.DistributeDefault
	)
	cases := []struct {
		name          string
		size, rank    int
		gsizes        []int
		distribs      []mpi.Distribution
		dargs, psizes []int
		order         mpi.Order
		want          []float64 // the element indices of the part
	}{
		{"block-block C", 6, 4, []int{4, 6}, []mpi.Distribution{B, B}, []int{D, D}, []int{2, 3}, mpi.OrderC,
			[]float64{14, 15, 20, 21}},
		{"block-block Fortran", 6, 4, []int{4, 6}, []mpi.Distribution{B, B}, []int{D, D}, []int{2, 3}, mpi.OrderFortran,
			[]float64{10, 11, 14, 15}},
		{"cyclic", 3, 1, []int{7}, []mpi.Distribution{C}, []int{D}, []int{3}, mpi.OrderC, []float64{1, 4}},
		{"cyclic(2)", 2, 0, []int{7}, []mpi.Distribution{C}, []int{2}, []int{2}, mpi.OrderC, []float64{0, 1, 4, 5}},
		{"block(3) of 7 over 3", 3, 2, []int{7}, []mpi.Distribution{B}, []int{3}, []int{3}, mpi.OrderC, []float64{6}},
		{"an empty block", 4, 3, []int{3}, []mpi.Distribution{B}, []int{D}, []int{4}, mpi.OrderC, nil},
		{"none-block", 2, 1, []int{3, 4}, []mpi.Distribution{N, B}, []int{D, D}, []int{1, 2}, mpi.OrderC,
			[]float64{2, 3, 6, 7, 10, 11}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dt, err := mpi.Darray(c.size, c.rank, c.gsizes, c.distribs, c.dargs, c.psizes, c.order)
			if err != nil {
				t.Fatal(err)
			}
			total := 1
			for _, g := range c.gsizes {
				total *= g
			}
			if dt.Extent() != total || dt.LowerBound() != 0 || dt.Size() != len(c.want) {
				t.Errorf("size, lb, extent = %d, %d, %d; want %d, 0, %d", dt.Size(), dt.LowerBound(), dt.Extent(), len(c.want), total)
			}
			if got := packAll(t, iota(total), 1, dt); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
				t.Errorf("packed %v, want %v", got, c.want)
			}
		})
	}
}

// TestDarrayCovers checks that the parts of all processes cover every
// element of the array once, with mixed distributions.
func TestDarrayCovers(t *testing.T) {
	gsizes, psizes := []int{5, 7, 3}, []int{2, 3, 1}
	distribs := []mpi.Distribution{mpi.DistributeCyclic, mpi.DistributeBlock, mpi.DistributeNone}
	for _, order := range []mpi.Order{mpi.OrderC, mpi.OrderFortran} {
		seen := make([]int, 5*7*3)
		for r := range 6 {
			dt, err := mpi.Darray(6, r, gsizes, distribs, []int{2, mpi.DistributeDefault, mpi.DistributeDefault}, psizes, order)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range packAll(t, iota(len(seen)), 1, dt) {
				seen[int(x)]++
			}
		}
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("order %d: element %d is in %d parts", order, i, k)
			}
		}
	}
}

func TestDarrayErrors(t *testing.T) {
	B := mpi.DistributeBlock
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"grid of another size", darrayErr(4, 0, []int{4}, []mpi.Distribution{B}, []int{-1}, []int{3}), mpi.ErrDims},
		{"rank outside", darrayErr(2, 2, []int{4}, []mpi.Distribution{B}, []int{-1}, []int{2}), mpi.ErrRank},
		{"not distributed over 2", darrayErr(2, 0, []int{4}, []mpi.Distribution{mpi.DistributeNone}, []int{-1}, []int{2}), mpi.ErrDims},
		{"blocks too small", darrayErr(2, 0, []int{5}, []mpi.Distribution{B}, []int{2}, []int{2}), mpi.ErrDatatype},
		{"argument 0", darrayErr(2, 0, []int{5}, []mpi.Distribution{mpi.DistributeCyclic}, []int{0}, []int{2}), mpi.ErrDatatype},
		{"lists of other lengths", darrayErr(2, 0, []int{5, 2}, []mpi.Distribution{B}, []int{-1}, []int{2}), mpi.ErrDatatype},
		{"unknown distribution", darrayErr(2, 0, []int{5}, []mpi.Distribution{7}, []int{-1}, []int{2}), mpi.ErrDatatype},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
}

func darrayErr(size, rank int, gsizes []int, distribs []mpi.Distribution, dargs, psizes []int) error {
	_, err := mpi.Darray(size, rank, gsizes, distribs, dargs, psizes, mpi.OrderC)
	return err
}

func TestIndexedBlockOfDerived(t *testing.T) {
	pair := must(mpi.Contiguous(2))
	dt, err := pair.IndexedBlock(1, []int{2, 0}) // the third pair, then the first
	if err != nil {
		t.Fatal(err)
	}
	if got, want := packAll(t, iota(6), 1, dt), []float64{4, 5, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("packed %v, want %v", got, want)
	}
	if _, err := pair.IndexedBlock(-1, []int{0}); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a negative block length: %v, want ErrDatatype", err)
	}
}
