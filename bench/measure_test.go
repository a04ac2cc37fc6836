package bench

import (
	"slices"
	"testing"
)

// TestSizesOf: a size-less benchmark is measured whatever the sizes
// asked for (Barrier had no row unless 0 was among them).
func TestSizesOf(t *testing.T) {
	sizes := []int{2, 8, 1024}
	for _, tc := range []struct {
		benchmark string
		want      []int
	}{
		{"Barrier", []int{0}},
		{"PingPong", []int{2, 8, 1024}},
		{"Allreduce", []int{8, 1024}},
		{"Reduce", []int{8, 1024}},
		{"Bcast", []int{2, 8, 1024}},
	} {
		if got := SizesOf(tc.benchmark, sizes); !slices.Equal(got, tc.want) {
			t.Errorf("SizesOf(%s, %v) = %v, want %v", tc.benchmark, sizes, got, tc.want)
		}
	}
	if !slices.Equal(sizes, []int{2, 8, 1024}) {
		t.Errorf("SizesOf changed its argument: %v", sizes)
	}
	if !SizeLess("Barrier") || SizeLess("Bcast") {
		t.Error("SizeLess: only Barrier has no size")
	}
}
