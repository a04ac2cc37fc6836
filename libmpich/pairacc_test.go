package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// x87Of returns the x87 extended-precision form of f (a normal number or
// a zero), 16 bytes as C's long double.
func x87Of(f float64) []byte {
	b := make([]byte, 16)
	bits := math.Float64bits(f)
	sign := uint16(bits>>63) << 15
	if f == 0 {
		binary.LittleEndian.PutUint16(b[8:], sign)
		return b
	}
	exp := uint16(int(bits>>52&0x7ff) - 1023 + 16383)
	binary.LittleEndian.PutUint64(b, 1<<63|(bits&(1<<52-1))<<11)
	binary.LittleEndian.PutUint16(b[8:], sign|exp)
	return b
}

func TestCmpX87(t *testing.T) {
	vals := []float64{-1e300, -3.5, -1, -1e-300, 0, 1e-300, 0.75, 1, 2, 3.5, 1e300}
	for i, a := range vals {
		for j, b := range vals {
			if got, want := cmpX87(x87Of(a), x87Of(b)), cmpInts(i, j); got != want {
				t.Errorf("cmpX87(%g, %g) = %d, want %d", a, b, got, want)
			}
		}
	}
	if c := cmpX87(x87Of(math.Copysign(0, -1)), x87Of(0)); c != 0 {
		t.Errorf("cmpX87(-0, 0) = %d, want 0", c)
	}
}

func cmpInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// doubleInt returns MPI_DOUBLE_INT items as C lays them out (16 bytes).
func doubleInt(items ...[2]float64) []byte {
	b := make([]byte, 16*len(items))
	for k, it := range items {
		binary.LittleEndian.PutUint64(b[16*k:], math.Float64bits(it[0]))
		binary.LittleEndian.PutUint32(b[16*k+8:], uint32(int32(it[1])))
	}
	return b
}

func TestPairCombine(t *testing.T) {
	l := layoutOf(typeDoubleInt)
	in := doubleInt([2]float64{5, 1}, [2]float64{2, 3}, [2]float64{4, 2}, [2]float64{4, 9})
	cur := [2]float64{4, 7}
	tests := []struct {
		op   int32
		want []byte
	}{
		{opMaxLoc, doubleInt([2]float64{5, 1}, [2]float64{4, 7}, [2]float64{4, 2}, [2]float64{4, 7})},
		{opMinLoc, doubleInt([2]float64{4, 7}, [2]float64{2, 3}, [2]float64{4, 2}, [2]float64{4, 7})},
		{opReplace, in},
		{opNoOp, doubleInt(cur, cur, cur, cur)},
	}
	for _, tc := range tests {
		inout := doubleInt(cur, cur, cur, cur)
		l.combine(tc.op)(in, inout[:len(inout)-4]) // the last item without its padding
		if !bytes.Equal(inout, tc.want) {
			t.Errorf("op %#x: got % x, want % x", uint32(tc.op), inout, tc.want)
		}
	}
}

// TestPairSpread lays out MPI_SHORT_INT items (value at 0, index at 4,
// extent 8) from their packed form (6 bytes each) as a vector of two
// blocks of two items, three items apart, places them, and back.
func TestPairSpread(t *testing.T) {
	l := layoutOf(typeShortInt)
	f := pairForm{l.packed, l.value}
	var runs []rmaRun
	for _, item := range []int{0, 1, 3, 4} {
		runs = append(runs, rmaRun{100 + 8*item, 2}, rmaRun{100 + 8*item + 4, 4})
	}
	packed := make([]byte, 4*6)
	for i := range packed {
		packed[i] = byte(i + 1)
	}
	starts, err := l.starts(runs, 4, f)
	if err != nil || !slices.Equal(starts, []int{100, 108, 124, 132}) {
		t.Fatalf("starts = %v, %v", starts, err)
	}
	plan, at := l.spread(packed, f, starts)
	if want := []rmaRun{{100, 16}, {124, 16}}; !slices.Equal(plan.runs, want) {
		t.Errorf("runs %v, want %v", plan.runs, want)
	}
	back := make([]byte, len(packed))
	l.gather(back, f, plan.data, at)
	if !bytes.Equal(back, packed) {
		t.Errorf("gathered % x, want % x", back, packed)
	}
	if _, err := l.starts(runs[:7], 4, f); err == nil {
		t.Error("starts of an item cut short: no error")
	}
}

func TestStringTag(t *testing.T) {
	a, b := stringTag("org.example.a"), stringTag("org.example.b")
	if a == b || a < 0 || b < 0 || a != stringTag("org.example.a") {
		t.Errorf("stringTag: %d and %d", a, b)
	}
}
