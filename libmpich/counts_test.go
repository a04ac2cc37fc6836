package main

import (
	"math"
	"slices"
	"testing"
	"unsafe"
)

// TestCArray checks that a cArray reads C int arrays and MPI_Count /
// MPI_Aint arrays alike, in place, and scales them.
func TestCArray(t *testing.T) {
	ints := []int32{3, -1, 7}
	wide := []int64{3, -1, 1 << 40}
	a, w := cInts(unsafe.Pointer(&ints[0])), cWide(unsafe.Pointer(&wide[0]))
	if a.at(2) != 7 || w.at(2) != 1<<40 || a.at(1) != -1 || w.at(1) != -1 {
		t.Errorf("at: %d %d %d %d", a.at(2), w.at(2), a.at(1), w.at(1))
	}
	if got := a.scaled(3, 4); !slices.Equal(got, []int{12, -4, 28}) {
		t.Errorf("ints scaled by 4: %v", got)
	}
	if got := w.scaled(3, 2); !slices.Equal(got, []int{6, -2, 1 << 41}) {
		t.Errorf("MPI_Counts scaled by 2: %v", got)
	}
	if got := cWide(nil).scaled(2, 8); !slices.Equal(got, []int{0, 0}) {
		t.Errorf("nil array scaled: %v", got)
	}
	if err := w.countsOK(3); errorClassOf(err) != errCount {
		t.Errorf("countsOK with a count of -1: %v", err)
	}
	if err := a.countsOK(1); err != nil {
		t.Errorf("countsOK of 3: %v", err)
	}
	if got := cCounts(unsafe.Pointer(&wide[0]), true).at(2); got != 1<<40 {
		t.Errorf("cCounts of a _c form: %d", got)
	}
}

// TestCheckCount checks the counts a buffer can hold: MPI_ERR_COUNT for
// a negative one and for one past maxSpan bytes, and the saturating
// product of blockItems.
func TestCheckCount(t *testing.T) {
	cases := []struct {
		count  int64
		stride int
		ok     bool
	}{
		{0, 8, true}, {1 << 31, 1, true}, {1<<31 + 1, 8, true}, {-1, 4, false},
		{maxSpan, 1, true}, {maxSpan + 1, 1, false}, {maxSpan / 8, 16, false},
		{math.MaxInt64, 0, true}, {math.MinInt64, 0, false},
	}
	for _, c := range cases {
		err := checkCount(c.count, c.stride)
		if (err == nil) != c.ok || err != nil && errorClassOf(err) != errCount {
			t.Errorf("checkCount(%d, %d): %v", c.count, c.stride, err)
		}
	}
	if got := blockItems(math.MaxInt64/2, 3); got != math.MaxInt64 {
		t.Errorf("blockItems past int64: %d", got)
	}
	if got := blockItems(1<<31, 4); got != 1<<33 {
		t.Errorf("blockItems(2^31, 4): %d", got)
	}
}

// TestLargeBuffers checks cbufOf with MPI_Count counts: a count of
// 2^31+1 bytes maps straight through (no memory is touched), and a
// negative or overflowing count is MPI_ERR_COUNT, for a predefined and a
// derived datatype.
func TestLargeBuffers(t *testing.T) {
	var b [1]byte
	p := unsafe.Pointer(&b[0])
	cb, err := cbufOf(p, 1<<31+1, typeByte)
	if err != nil || cb.n != 1<<31+1 {
		t.Errorf("2^31+1 bytes: len %d, %v", cb.n, err)
	}
	for _, n := range []int64{-1, math.MaxInt64 / 2} {
		if _, err := cbufOf(p, n, typeDouble); errorClassOf(err) != errCount {
			t.Errorf("%d doubles: %v", n, err)
		}
	}
	var h int32
	if rc := typeVector("MPI_Type_vector_c", true, 2, 1, 1<<40, typeInt, &h); rc != errSuccess {
		t.Fatalf("Type_vector_c: %s", errorText(rc))
	}
	defer PMPI_Type_free(&h)
	if _, err := cbufOf(p, 1<<10, h); errorClassOf(err) != errCount {
		t.Errorf("1024 vectors of extent 2^42: %v", err)
	}
	env, err := envelopeOf(h)
	if err != nil || len(env.ints) != 0 || !slices.Equal(env.counts, []int64{2, 1, 1 << 40}) {
		t.Errorf("Type_vector_c's envelope: %+v, %v", env, err)
	}
}
