package npb

import "unsafe"

// The large arrays of the benchmarks ask for transparent huge pages when
// they are made (adviseHugePages): a rank's data then takes a few TLB
// entries instead of thousands, which matters most to loops that write
// many places far apart (IS's bucket sort, FT's transposes) and when
// ranks outnumber cores, each rank finding the TLB refilled by another's
// run when it gets its core back.

// hugeSlice returns a slice of n zero values of T, its memory advised to
// huge pages. T holds no pointers.
func hugeSlice[T any](n int) []T {
	s := make([]T, n)
	if n > 0 {
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(n)*unsafe.Sizeof(s[0]))
	}
	return s
}

// slabAlign is the alignment, in float64s, of each array allocFloats
// hands out: one cache line.
const slabAlign = 8

// floatField is an array for allocFloats to set: where it goes and its
// length.
type floatField struct {
	dst *[]float64
	n   int
}

// allocFloats sets every field to an array of n zero values, the arrays
// carved from one allocation advised to huge pages, each starting on a
// cache line, and each with its capacity ending where it does: arrays
// too small to hold a huge page of their own share them.
func allocFloats(fields ...floatField) {
	total := 0
	for _, f := range fields {
		total += slabRound(f.n)
	}
	buf := hugeSlice[float64](total)
	for _, f := range fields {
		*f.dst = buf[:f.n:f.n]
		buf = buf[slabRound(f.n):]
	}
}

// slabRound rounds n up to a whole number of cache lines.
func slabRound(n int) int { return (n + slabAlign - 1) / slabAlign * slabAlign }
