package mpi_test

import (
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// IsContiguous tells a datatype whose elements are one run in order from
// one whose size equals its extent but which reorders them.
func TestIsContiguous(t *testing.T) {
	must := func(dt *mpi.Datatype, err error) *mpi.Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	for _, tc := range []struct {
		name string
		dt   *mpi.Datatype
		want bool
	}{
		{"contiguous", must(mpi.Contiguous(4)), true},
		{"indexed in order", must(mpi.Indexed([]int{1, 2}, []int{0, 1})), true},
		{"indexed swapped", must(mpi.Indexed([]int{1, 1}, []int{1, 0})), false},
		{"vector with gaps", must(mpi.Vector(3, 1, 2)), false},
		{"vector without gaps", must(mpi.Vector(3, 2, 2)), true},
	} {
		if got := tc.dt.IsContiguous(); got != tc.want {
			t.Errorf("%s: IsContiguous() = %v, want %v (size %d, extent %d)", tc.name, got, tc.want, tc.dt.Size(), tc.dt.Extent())
		}
	}
}
