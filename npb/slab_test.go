package npb

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
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
	s := hugeSlice[float64](3 * hugePageSize / 8)
	p := uintptr(unsafe.Pointer(&s[0]))
	inside := (p + hugePageSize - 1) &^ (hugePageSize - 1)
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
func vmFlags(a uintptr) (string, error) { return smapsField(a, "VmFlags") }

// smapsField returns the value of the field name of the mapping of this
// process that holds address a, from /proc/self/smaps.
func smapsField(a uintptr, name string) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, name+":") {
			return strings.TrimSpace(strings.TrimPrefix(line, name+":")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", a)
}
