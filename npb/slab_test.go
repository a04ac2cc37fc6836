package npb

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/internal/hugepage"
)

// TestAllocFloats checks that the arrays have their lengths, start on
// cache lines, do not overlap and cannot grow into each other.
func TestAllocFloats(t *testing.T) {
	lengths := []int{13, 8, 1, 100}
	arrays := make([][]float64, len(lengths))
	fields := make([]floatField, len(lengths))
	for i, n := range lengths {
		fields[i] = floatField{&arrays[i], n}
	}
	allocFloats(fields...)
	var prev []float64
	for i, n := range lengths {
		a := arrays[i]
		if len(a) != n || cap(a) != n {
			t.Fatalf("array %d of %d values: len %d cap %d", i, n, len(a), cap(a))
		}
		if p := uintptr(unsafe.Pointer(&a[0])); p%(slabAlign*8) != 0 {
			t.Errorf("array %d starts at %#x, not on a cache line", i, p)
		}
		for k := range a {
			a[k] = float64(n)
		}
		for k, v := range prev {
			if v != float64(len(prev)) {
				t.Fatalf("array of %d overwritten at %d by the next", len(prev), k)
			}
		}
		prev = a
	}
}

// TestHugeSliceAdvice checks that a slice spanning whole huge pages has
// them advised: the kernel lists the mapping holding them with the flag
// "hg" (MADV_HUGEPAGE) in /proc/self/smaps.
func TestHugeSliceAdvice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge-page advice is Linux's")
	}
	s := hugeSlice[float64](3 * hugepage.Size / 8)
	p := uintptr(unsafe.Pointer(&s[0]))
	inside := (p + hugepage.Size - 1) &^ (hugepage.Size - 1)
	flags, err := vmFlags(inside)
	if err != nil {
		t.Skipf("no smaps to check against: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has flags %q, without hg", inside, flags)
	}
	runtime.KeepAlive(s)
}

// vmFlags returns the VmFlags line of the mapping of this process that
// holds address a.
func vmFlags(a uintptr) (string, error) { return hugepage.SmapsField(a, "VmFlags") }
