//go:build amd64 && !purego

package npb

import "github.com/klauspost/cpuid/v2"

// cgUseAVX2 says whether cgDot4x16 and cgDot4x32 use their AVX2
// assembly; the tests switch it to compare both ways.
var cgUseAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

// cgDot4x16AVX2 and cgDot4x32AVX2 are cgDot4 of the first n values of a
// and c (n a multiple of 4), the four rows' chains in the lanes of one
// AVX2 vector (cg_spmv_amd64.s). They do not check the indices against
// p's length.
//
//go:noescape
func cgDot4x16AVX2(a *float64, c *uint16, n int, p *float64) (s0, s1, s2, s3 float64)

//go:noescape
func cgDot4x32AVX2(a *float64, c *uint32, n int, p *float64) (s0, s1, s2, s3 float64)

// cgDot4x16 is cgDot4 for 16-bit indices, with AVX2 when the CPU has it;
// every index in c must lie below len(p). (The same few lines as
// cgDot4x32: a generic function taking the assembly as a value read
// 0.313 against 0.298 ns a nonzero, `go test ./npb -bench CGSpmv`.)
func cgDot4x16(a []float64, c []uint16, p []float64) (s0, s1, s2, s3 float64) {
	if !cgUseAVX2 || len(a) < 4 || len(p) == 0 {
		return cgDot4(a, c, p)
	}
	c = c[:len(a)]
	return cgDot4x16AVX2(&a[0], &c[0], len(a)&^3, &p[0])
}

// cgDot4x32 is cgDot4x16 for 32-bit indices.
func cgDot4x32(a []float64, c []uint32, p []float64) (s0, s1, s2, s3 float64) {
	if !cgUseAVX2 || len(a) < 4 || len(p) == 0 {
		return cgDot4(a, c, p)
	}
	c = c[:len(a)]
	return cgDot4x32AVX2(&a[0], &c[0], len(a)&^3, &p[0])
}
