package mpi_test

import (
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// TestStruct packs blocks of different datatypes at their own
// displacements, in the order given, and reads the struct's bounds.
func TestStruct(t *testing.T) {
	every3, err := mpi.Vector(2, 1, 3) // elements 0 and 3
	if err != nil {
		t.Fatal(err)
	}
	dt, err := mpi.Struct([]int{2, 1, 3}, []int{20, 0, 8}, []*mpi.Datatype{mpi.Element, every3, mpi.Element})
	if err != nil {
		t.Fatal(err)
	}
	if dt.Size() != 7 || dt.LowerBound() != 0 || dt.Extent() != 22 || dt.TrueExtent() != 22 || dt.IsContiguous() {
		t.Fatalf("size %d, bounds %d+%d, true extent %d, contiguous %v", dt.Size(), dt.LowerBound(), dt.Extent(), dt.TrueExtent(), dt.IsContiguous())
	}
	buf := make([]byte, 44)
	for i := range buf {
		buf[i] = byte(i)
	}
	out := make([]byte, 14)
	if _, err := mpi.Pack(buf, 2, dt, out); err != nil {
		t.Fatal(err)
	}
	want := []byte{20, 21, 0, 3, 8, 9, 10, 42, 43, 22, 25, 30, 31, 32}
	if !slices.Equal(out, want) {
		t.Fatalf("packed %v, want %v", out, want)
	}
	back := make([]byte, 44)
	if _, err := mpi.Unpack(out, back, 2, dt); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{20, 21, 0, 3, 8, 9, 10, 42, 43, 22, 25, 30, 31, 32} {
		if back[i] != byte(i) {
			t.Fatalf("unpacked byte %d is %d", i, back[i])
		}
	}
	if _, err := mpi.Struct([]int{1}, []int{0}, []*mpi.Datatype{nil}); err == nil {
		t.Error("a struct of a nil datatype")
	}
	if _, err := mpi.Struct([]int{1, 2}, []int{0}, []*mpi.Datatype{mpi.Element}); err == nil {
		t.Error("a struct of mismatched lengths")
	}
}

// TestRuns lists the runs of elements that items of a datatype cover.
func TestRuns(t *testing.T) {
	every3, err := mpi.Vector(3, 2, 5) // elements 0-1, 5-6, 10-11
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int
	for off, n := range every3.Runs(2) {
		got = append(got, [2]int{off, n})
	}
	// The second item starts at the extent, 12: its first run continues
	// the first item's last.
	want := [][2]int{{0, 2}, {5, 2}, {10, 4}, {17, 2}, {22, 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for range every3.Runs(2) {
		break // stopping early is allowed
	}
}
