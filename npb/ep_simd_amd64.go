//go:build amd64 && !purego

package npb

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// epUseAVX2 says whether EP's generator and Gaussian factors use the AVX2
// assembly; the tests switch it to compare both ways.
var epUseAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

// epGaussVec are the constants of epReduceAVX2 and epFinishAVX2, each in the four lanes of
// a vector (ep_simd_amd64.s reads them at fixed offsets).
type epGaussVec struct {
	reduce [4]uint64  // 0x3FF0000000000000 − epHalfSqrt2, added to the bits of t
	mant   [4]uint64  // the fraction bits, 2^52 − 1
	half2  [4]uint64  // epHalfSqrt2
	one    [4]float64 // 1
	two    [4]float64 // 2
	expHi  [4]uint64  // the bits of 2^52, or-ed to the biased exponent
	expOff [4]float64 // 2^52 + 0x3FF, subtracted to leave k
	l      [7][4]float64
	hf     [4]float64 // 0.5
	ln2Hi  [4]float64
	ln2Lo  [4]float64
	m2     [4]float64 // −2
	abs    [4]uint64  // all bits but the sign
}

// epLCGVec are the constants of epAcceptedAVX2 (ep_simd_amd64.s reads
// them at fixed offsets).
type epLCGVec struct {
	a      [4]uint64    // A, which is below 2^32
	a2     [2][4]uint64 // 64·A² mod 2^52: its low and high 32 bits
	a16    [2][4]uint64 // A^16 mod 2^46: its low and high 32 bits
	mask46 [4]uint64    // 2^46 − 1
	mask52 [4]uint64    // 2^52 − 1
	expHi  [4]uint64    // the bits of 2^52
	off    [4]float64   // 2^52 + 2^45
	scale  [4]float64   // 2^-45
	two    [4]uint64    // the bits of 2
	three  [4]float64   // 3
	one    [4]float64   // 1
	// perm[m] gathers the pairs accepted in mask m (VPERMPS indices), the
	// i-th of them into lane (0, 2, 1, 3)[i]; step[m] is 16 times how
	// many they are: the bytes they take in x.
	perm [16][8]uint32
	step [16]int64
}

// Offsets that ep_simd_amd64.s relies on.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(epGaussVec{}.l)-224]
	_ = [1]struct{}{}[unsafe.Offsetof(epGaussVec{}.abs)-576]
	_ = [1]struct{}{}[unsafe.Offsetof(epLCGVec{}.mask46)-160]
	_ = [1]struct{}{}[unsafe.Offsetof(epLCGVec{}.perm)-416]
	_ = [1]struct{}{}[unsafe.Offsetof(epLCGVec{}.step)-928]
	_ = [1]struct{}{}[A>>32] // A < 2^32: u·A needs no high half of A
)

// The constants of the assembly.
var (
	epGaussK = newEPGaussVec()
	epLCGK   = newEPLCGVec()
)

// newEPGaussVec returns the constants of epReduceAVX2 and epFinishAVX2,
// those of epLogReduce and epLogFinish.
func newEPGaussVec() *epGaussVec {
	v := new(epGaussVec)
	for i := range 4 {
		v.reduce[i] = 0x3FF0000000000000 - epHalfSqrt2
		v.mant[i] = 1<<52 - 1
		v.half2[i] = epHalfSqrt2
		v.one[i], v.two[i] = 1, 2
		v.expHi[i] = math.Float64bits(1 << 52)
		v.expOff[i] = 1<<52 + 0x3FF
		for j, l := range [...]float64{epL1, epL2, epL3, epL4, epL5, epL6, epL7} {
			v.l[j][i] = l
		}
		v.hf[i], v.ln2Hi[i], v.ln2Lo[i], v.m2[i] = 0.5, epLn2Hi, epLn2Lo, -2
		v.abs[i] = 1<<63 - 1
	}
	return v
}

// newEPLCGVec returns the constants of epAcceptedAVX2.
func newEPLCGVec() *epLCGVec {
	v := new(epLCGVec)
	a2 := uint64(Pow46(A, 2)) << 6
	a16 := uint64(Pow46(A, 16))
	for i := range 4 {
		v.a[i] = A
		v.a2[0][i], v.a2[1][i] = a2&(1<<32-1), a2>>32
		v.a16[0][i], v.a16[1][i] = a16&(1<<32-1), a16>>32
		v.mask46[i], v.mask52[i] = mod46, 1<<52-1
		v.expHi[i] = math.Float64bits(1 << 52)
		v.off[i] = 1<<52 + 1<<45
		v.scale[i] = 1.0 / (1 << 45)
		v.two[i] = math.Float64bits(2)
		v.three[i], v.one[i] = 3, 1
	}
	for m := range 16 {
		k := 0
		for lane := range 4 {
			if m>>lane&1 == 1 {
				to := [4]int{0, 2, 1, 3}[k]
				v.perm[m][2*to], v.perm[m][2*to+1] = uint32(2*lane), uint32(2*lane+1)
				k++
			}
		}
		v.step[m] = 16 * int64(bits.OnesCount(uint(m)))
	}
	return v
}

// epReduceAVX2 does the first stage of epGaussGo on the pairs of p,
// len(p) = 2·len(t), len(t) a multiple of 4, four pairs in one vector
// (ep_simd_amd64.s): it stores t = x1²+x2² in t and k, f, s of
// epLogReduce in k, f and s, all four of a vector in the order of its
// lanes (0, 2, 1, 3 for pairs 0–3), which epFinishAVX2 reads.
//
//go:noescape
func epReduceAVX2(t, p []float64, f, s, k *[epChunk]float64, c *epGaussVec)

// epFinishAVX2 does the second stage of epGaussGo on what epReduceAVX2
// left in g (t), f, s and k, len(p) = 2·len(g), len(g) = len(l) a
// multiple of 4 (ep_simd_amd64.s), storing g in order, and then finishes
// the pairs for epTally: it replaces them in p with the deviates |x1·g|,
// |x2·g| and sets l to their annuli, int(max(|x1·g|, |x2·g|)).
//
//go:noescape
func epFinishAVX2(g, p []float64, l []int32, f, s, k *[epChunk]float64, c *epGaussVec)

// epAcceptedAVX2 does epAcceptedGo's work in len(x)/16 rounds of eight
// pairs, two vectors of four (ep_simd_amd64.s): u holds the states before
// the first round's pairs (u·A, u·A² mod 2^46 are a pair's numbers), and
// the accepted pairs of four go to x in two unaligned stores of four
// values, which may run past them, into what the next four overwrite or
// what is not returned.
//
//go:noescape
func epAcceptedAVX2(x []float64, u *[8]uint64, k *epLCGVec) int

// epGauss is epGaussGo: with AVX2, four pairs at a time, which it also
// finishes for epTally, and the last up to three in Go. It returns how
// many pairs it finished: they are at the start of p, and w.l holds their
// annuli.
func epGauss(w *epWork, g, p []float64) int {
	m := len(g)
	d := 0
	if epUseAVX2 {
		d = m &^ 3
		if d > 0 {
			// The assembly trusts the lengths: make sure of them (and
			// of d ≤ epChunk, the length of the scratch arrays).
			g, p, l := g[:d], p[:2*d], w.l[:d]
			epReduceAVX2(g, p, &w.f, &w.s, &w.k, epGaussK)
			epFinishAVX2(g, p, l, &w.f, &w.s, &w.k, epGaussK)
		}
	}
	if d < m {
		epGaussGo(w, g[d:], p[2*d:2*m])
	}
	return d
}

// epAccepted is epAcceptedGo: with AVX2, eight pairs at a time.
func epAccepted(x []float64, seed uint64) int {
	if !epUseAVX2 {
		return epAcceptedGo(x, seed)
	}
	const a2 = uint64(A) * uint64(A) & mod46
	var u [8]uint64
	u[0] = seed
	for i := 1; i < len(u); i++ {
		u[i] = u[i-1] * a2 & mod46
	}
	return epAcceptedAVX2(x[:2*epNK], &u, epLCGK)
}
