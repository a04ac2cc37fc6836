package npb

import "unsafe"

// The large arrays of the benchmarks ask for transparent huge pages
// before anything is written to them (adviseHugePages): a rank's data
// then takes a few TLB entries instead of thousands, which matters most
// when ranks outnumber cores, each rank finding the TLB refilled by
// another's run when it gets its core back.

// hugeSlice returns a slice of n zero values of T, its memory advised to
// huge pages. T holds no pointers.
func hugeSlice[T any](n int) []T {
	s := make([]T, n)
	if n > 0 {
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(n)*unsafe.Sizeof(s[0]))
	}
	return s
}

// slabAlign is the alignment, in float64s, of each array a slab hands
// out: one cache line.
const slabAlign = 8

// floatSlab hands out float64 arrays carved from one allocation advised
// to huge pages, each starting on a cache line: arrays too small to hold
// a huge page of their own share them.
type floatSlab struct {
	buf []float64
}

// newFloatSlab returns a slab for arrays of the given lengths.
func newFloatSlab(lengths ...int) *floatSlab {
	n := 0
	for _, l := range lengths {
		n += slabRound(l)
	}
	return &floatSlab{buf: hugeSlice[float64](n)}
}

// take returns the next array of n values (zero), whose capacity ends
// where it does.
func (s *floatSlab) take(n int) []float64 {
	a := s.buf[:n:n]
	s.buf = s.buf[min(slabRound(n), len(s.buf)):]
	return a
}

// slabRound rounds n up to a whole number of cache lines.
func slabRound(n int) int { return (n + slabAlign - 1) / slabAlign * slabAlign }
