package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func TestDimsCreate(t *testing.T) {
	for _, c := range []struct {
		n          int
		dims, want []int
	}{
		{6, []int{0, 0}, []int{3, 2}},
		{72, []int{0, 0}, []int{9, 8}}, // greedy prime placement gives 12×6
		{16, []int{0, 0, 0}, []int{4, 2, 2}},
		{24, []int{0, 0, 0}, []int{4, 3, 2}},
		{64, []int{0, 0, 0}, []int{4, 4, 4}},
		{12, []int{0, 3, 0}, []int{2, 3, 2}},
		{30, []int{2, 0}, []int{2, 15}},
		{7, []int{0, 0}, []int{7, 1}},
		{1, []int{0, 0, 0}, []int{1, 1, 1}},
		{6, []int{3, 2}, []int{3, 2}},
		{1, nil, nil},
	} {
		in := slices.Clone(c.dims)
		got, err := mpi.DimsCreate(c.n, c.dims)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", c.n, in, got, err, c.want)
		}
		if !slices.Equal(c.dims, in) {
			t.Errorf("DimsCreate(%d, %v) changed its argument to %v", c.n, in, c.dims)
		}
	}
	for _, c := range []struct {
		n    int
		dims []int
	}{
		{0, []int{0}},
		{-4, []int{0, 0}},
		{6, []int{-1, 0}},
		{6, []int{4, 0}},
		{6, []int{2, 2}},
		{6, nil},
	} {
		if got, err := mpi.DimsCreate(c.n, c.dims); !errors.Is(err, mpi.ErrDims) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want an error wrapping ErrDims", c.n, c.dims, got, err)
		}
	}
}

// Every grid DimsCreate chooses is non-increasing, has the right product,
// and spreads no more than the best of every factorisation.
func TestDimsCreateBalanced(t *testing.T) {
	for n := 1; n <= 300; n++ {
		for k := 1; k <= 4; k++ {
			got, err := mpi.DimsCreate(n, make([]int, k))
			if err != nil {
				t.Fatalf("DimsCreate(%d, %d dims): %v", n, k, err)
			}
			p := 1
			for i, d := range got {
				p *= d
				if i > 0 && d > got[i-1] {
					t.Fatalf("DimsCreate(%d, %d dims) = %v: not non-increasing", n, k, got)
				}
			}
			if p != n {
				t.Fatalf("DimsCreate(%d, %d dims) = %v: product %d", n, k, got, p)
			}
			if best := bestSpread(n, k); got[0]-got[k-1] != best {
				t.Fatalf("DimsCreate(%d, %d dims) = %v: spread %d, the best is %d", n, k, got, got[0]-got[k-1], best)
			}
		}
	}
}

// bestSpread returns the least difference between the largest and the
// smallest of k factors of n, by trying every tuple of divisors.
func bestSpread(n, k int) int {
	var divs []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			divs = append(divs, d)
		}
	}
	best := n
	var try func(rem, left, lo, hi int)
	try = func(rem, left, lo, hi int) {
		if left == 0 {
			if rem == 1 {
				best = min(best, hi-lo)
			}
			return
		}
		for _, d := range divs {
			if rem%d == 0 {
				try(rem/d, left-1, min(lo, d), max(hi, d))
			}
		}
	}
	try(n, k, n, 1)
	return best
}
