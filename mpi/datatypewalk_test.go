package mpi

import (
	"slices"
	"testing"
)

// TestDatatypeRuns checks that the walker hands contiguous data over as
// one run, however it was built and however many items: Pack of a
// contiguous datatype is one copy.
func TestDatatypeRuns(t *testing.T) {
	must := func(dt *Datatype, err error) *Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	col := must(Vector(4, 1, 5))
	cases := []struct {
		name  string
		dt    *Datatype
		count int
		want  [][2]int // offset, length
	}{
		{"Contiguous(2^20)", must(Contiguous(1 << 20)), 3, [][2]int{{0, 3 << 20}}},
		{"Vector of abutting blocks", must(Vector(1<<20, 2, 2)), 1, [][2]int{{0, 2 << 20}}},
		{"Contiguous of Contiguous", must(must(Contiguous(3)).Contiguous(1 << 10)), 2, [][2]int{{0, 6 << 10}}},
		{"column", col, 1, [][2]int{{0, 1}, {5, 1}, {10, 1}, {15, 1}}},
		{"columns side by side", must(must(col.Resized(0, 1)).Contiguous(2)), 1,
			[][2]int{{0, 1}, {5, 1}, {10, 1}, {15, 1}, {1, 1}, {6, 1}, {11, 1}, {16, 1}}},
		{"indexed blocks that meet", must(Indexed([]int{2, 3, 1}, []int{4, 6, 0})), 1, [][2]int{{4, 5}, {0, 1}}},
		{"full rows of a subarray", must(Subarray([]int{4, 5}, []int{2, 5}, []int{1, 0}, OrderC)), 1, [][2]int{{5, 10}}},
		{"rows of a subarray", must(Subarray([]int{4, 5}, []int{2, 3}, []int{1, 2}, OrderC)), 2,
			[][2]int{{7, 3}, {12, 3}, {27, 3}, {32, 3}}},
		{"one item of a resized vector", must(must(Vector(2, 3, 3)).Resized(-2, 100)), 1, [][2]int{{0, 6}}},
	}
	for _, c := range cases {
		var got [][2]int
		c.dt.runs(c.count, func(runs []run) bool {
			for _, r := range runs {
				got = append(got, [2]int{r.off, r.n})
			}
			return true
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: runs %v, want %v", c.name, got, c.want)
		}
	}
}
