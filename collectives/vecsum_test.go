package collectives

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// TestVectorSumsMatchLoop checks the vector kernels against the generic
// loop bit for bit, at every length around the kernels' unrolling and
// with the values whose sums are delicate (infinities, NaN, signed zeros,
// subnormals).
func TestVectorSumsMatchLoop(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.MaxFloat64, 1e308, 1.5, -2.25}
	rng := rand.New(rand.NewPCG(1, 2))
	value := func() float64 {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
	}
	modes := []bool{false}
	if vecsumAVX2 {
		modes = append(modes, true) // the AVX2 kernels, then gonum's alone
	}
	defer func(old bool) { vecsumAVX2 = old }(vecsumAVX2)
	for _, avx2 := range modes {
		vecsumAVX2 = avx2
		for n := 0; n <= 140; n++ {
			checkSum(t, "float64", n, sumFloat64, arith[float64](opSum), func(b []byte, i int) { view[float64](b)[i] = value() })
			checkSum(t, "float32", n, sumFloat32, arith[float32](opSum), func(b []byte, i int) { view[float32](b)[i] = float32(value()) })
		}
	}
}

// BenchmarkVectorSum times the sum of two float32 vectors of 1 MiB, with
// the AVX2 kernel and with gonum's alone.
func BenchmarkVectorSum(b *testing.B) {
	in, inout := make([]byte, 1<<20), make([]byte, 1<<20)
	defer func(old bool) { vecsumAVX2 = old }(vecsumAVX2)
	for _, avx2 := range []bool{true, false} {
		if avx2 && !vecsumAVX2 {
			continue
		}
		vecsumAVX2 = avx2
		b.Run(fmt.Sprintf("avx2=%v", avx2), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				sumFloat32(in, inout)
			}
		})
	}
}

func checkSum(t *testing.T, name string, n int, kernel, loop func(in, inout []byte), set func(b []byte, i int)) {
	t.Helper()
	elem := 8
	if name == "float32" {
		elem = 4
	}
	// Off the allocations' alignment by one element, as a slice of a
	// user's buffer may be.
	in, inout := make([]byte, (n+1)*elem)[elem:], make([]byte, (n+1)*elem)[elem:]
	for i := range n {
		set(in, i)
		set(inout, i)
	}
	want := append([]byte(nil), inout...)
	loop(in, want)
	got := append([]byte(nil), inout...)
	kernel(in, got)
	for i := 0; i < len(got); i += elem {
		if !sameBits(got[i:i+elem], want[i:i+elem]) {
			t.Fatalf("%s sum of %d elements: element %d differs from the loop's", name, n, i/elem)
		}
	}
}

// sameBits compares two elements bit for bit, taking any two NaNs as equal
// (the payload of a NaN sum is not specified).
func sameBits(a, b []byte) bool {
	if len(a) == 8 {
		x, y := *(*float64)(unsafe.Pointer(&a[0])), *(*float64)(unsafe.Pointer(&b[0]))
		return math.Float64bits(x) == math.Float64bits(y) || (x != x && y != y)
	}
	x, y := *(*float32)(unsafe.Pointer(&a[0])), *(*float32)(unsafe.Pointer(&b[0]))
	return math.Float32bits(x) == math.Float32bits(y) || (x != x && y != y)
}

// TestSumTableUsesKernels checks that Sum on float and complex elements
// goes through the kernels.
func TestSumTableUsesKernels(t *testing.T) {
	for kind, want := range map[reflect.Kind]func(in, inout []byte){
		reflect.Float64: sumFloat64, reflect.Complex128: sumFloat64,
		reflect.Float32: sumFloat32, reflect.Complex64: sumFloat32,
	} {
		if got := applyTable[opSum][kind]; reflect.ValueOf(got).Pointer() != reflect.ValueOf(want).Pointer() {
			t.Errorf("Sum on %v does not use its vector kernel", kind)
		}
	}
}
