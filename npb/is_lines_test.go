package npb

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// alignedKeys returns n int32s whose first begins a cache line.
func alignedKeys(n int) []int32 {
	b := make([]int32, n+16)
	off := (64 - int(uintptr(unsafe.Pointer(&b[0]))%64)) % 64 / 4
	return b[off : off+n : off+n]
}

// TestISPartitionLines checks the bucket sort through lines against the
// plain loop: the same keys in the same places, the same counts after, and
// nothing written past the keys; with buckets empty, shorter than a line,
// a line long and longer, starting and ending anywhere in their lines.
func TestISPartitionLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		nb, n int
		skew  bool
	}{{16, 1000, false}, {16, 5, false}, {512, 30000, false}, {isMaxBuckets, 100000, false},
		{isMaxBuckets, 70001, true}, {isMaxBuckets, 3, false}, {64, 64*16 + 7, false}} {
		const shift = 3
		keys := make([]int32, tc.n)
		for i := range keys {
			b := rng.IntN(tc.nb)
			if tc.skew { // most buckets empty or nearly so
				b = min(rng.IntN(tc.nb), rng.IntN(tc.nb), rng.IntN(tc.nb))
			}
			keys[i] = int32(b<<shift | rng.IntN(1<<shift))
		}
		var counts [isMaxBuckets]int32
		for _, k := range keys {
			counts[k>>shift]++
		}
		want, got := make([]int32, tc.n), alignedKeys(tc.n+16)
		wantCounts, gotCounts := counts, counts
		isPartition(want, &wantCounts, tc.nb, keys, shift)
		for i := range got {
			got[i] = -1
		}
		isPartitionLines(got, &gotCounts, tc.nb, keys, shift, new(isLines))
		if !slices.Equal(got[:tc.n], want) || gotCounts != wantCounts {
			t.Errorf("%d buckets, %d keys: the sort through lines differs from the plain loop", tc.nb, tc.n)
		}
		if i := slices.IndexFunc(got[tc.n:], func(k int32) bool { return k != -1 }); i >= 0 {
			t.Errorf("%d buckets, %d keys: written past the keys, at %d", tc.nb, tc.n, tc.n+i)
		}
	}
}

// TestISLinesFit: lines only for isLinesMin keys or more, into a buffer
// that begins a cache line, where the CPU has the stores.
func TestISLinesFit(t *testing.T) {
	keys := make([]int32, isLinesMin)
	buf := alignedKeys(isLinesMin + 1)
	if got := isLinesFit(buf[:isLinesMin], keys); got != isLineStores {
		t.Errorf("an aligned buffer of isLinesMin keys: %v, want %v", got, isLineStores)
	}
	if isLinesFit(buf[1:], keys) {
		t.Error("a buffer that does not begin a cache line: sorted through lines")
	}
	if isLinesFit(buf[:isLinesMin-1], keys[:isLinesMin-1]) {
		t.Error("fewer keys than isLinesMin: sorted through lines")
	}
}

// BenchmarkISPartitionLines is BenchmarkISPartition through lines.
func BenchmarkISPartitionLines(b *testing.B) {
	keys, counts, shift, nb := isPartitionInput()
	sizes := *counts
	buf, lines := alignedKeys(len(keys)), new(isLines)
	for b.Loop() {
		*counts = sizes
		isPartitionLines(buf, counts, nb, keys, shift, lines)
	}
}

// TestISThroughLines runs IS where each process's keys go through lines
// (class A at 2 processes: 4 Mi keys each) and checks that it verifies.
func TestISThroughLines(t *testing.T) {
	if !isLineStores {
		t.Skip("no non-temporal stores here: IS keeps its plain loop")
	}
	if testing.Short() {
		t.Skip("class A: a second or two")
	}
	if p, _ := isParams('A'); 1<<p.totalKeysLog2/2 < isLinesMin {
		t.Fatalf("class A's keys at 2 processes no longer reach isLinesMin (%d)", isLinesMin)
	}
	out, code := runKernel(t, "IS", 'A', 2, false)
	if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
		t.Errorf("IS class A np=2 did not verify (exit %d):\n%s", code, out)
	}
}
