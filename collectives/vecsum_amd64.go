//go:build amd64 && !purego

package collectives

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// vecsumAVX2 says whether the sums of float32 and float64 vectors use the
// AVX2 kernels (vecsum_amd64.s); the tests switch it to compare both ways.
var vecsumAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

//go:noescape
func addFloat32AVX2(dst, src unsafe.Pointer, n int)

//go:noescape
func addFloat64AVX2(dst, src unsafe.Pointer, n int)

// addVectors adds the elements of the longest prefix of in that is a whole
// number of 32-byte vectors to those of inout, as float64 elements if
// double, else float32, and returns the prefix's length in bytes: 0
// without AVX2.
func addVectors(in, inout []byte, double bool) int {
	n := min(len(in), len(inout)) &^ 31
	if !vecsumAVX2 || n == 0 {
		return 0
	}
	if double {
		addFloat64AVX2(unsafe.Pointer(&inout[0]), unsafe.Pointer(&in[0]), n)
	} else {
		addFloat32AVX2(unsafe.Pointer(&inout[0]), unsafe.Pointer(&in[0]), n)
	}
	return n
}
