package npb

// The NPB pseudo-random number generator: the linear congruential
// generator x(k+1) = a·x(k) mod 2^46 with a = 5^13, returning x/2^46 in
// (0, 1). NPB computes it in double precision by splitting the factors
// into 23-bit halves (randlc, vranlc); every intermediate value is an
// integer below 2^53, so the integer form here gives the same numbers
// bit for bit, faster.

const (
	// A is NPB's multiplier, 5^13.
	A = 1220703125
	// Seed is the usual starting seed of the kernels.
	Seed = 314159265

	mod46 = 1<<46 - 1
	r46   = 1.0 / (1 << 46)
)

// Randlc advances the generator state *x by multiplier a (both below 2^46,
// as float64 integers, like NPB's randlc) and returns the new state
// divided by 2^46.
func Randlc(x *float64, a float64) float64 {
	s := uint64(*x) * uint64(a) & mod46
	*x = float64(s)
	return float64(s) * r46
}

// Vranlc fills y with the next len(y) numbers of the generator of state
// *x and multiplier a, as NPB's vranlc, and leaves the last state in *x.
func Vranlc(x *float64, a float64, y []float64) {
	s, m := uint64(*x), uint64(a)
	for i := range y {
		s = s * m & mod46
		y[i] = float64(s) * r46
	}
	*x = float64(s)
}

// Pow46 returns a^n mod 2^46 (a below 2^46), the multiplier that jumps
// the generator n steps ahead.
func Pow46(a float64, n int64) float64 {
	r, b := uint64(1), uint64(a)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r = r * b & mod46
		}
		b = b * b & mod46
	}
	return float64(r)
}

// randlcFloat is NPB's randlc as NPB writes it, in double precision with
// 23-bit halves; the tests check Randlc against it.
func randlcFloat(x *float64, a float64) float64 {
	const (
		r23 = 1.0 / (1 << 23)
		t23 = 1 << 23
		t46 = 1 << 46
	)
	t1 := r23 * a
	a1 := float64(int64(t1))
	a2 := a - t23*a1
	t1 = r23 * *x
	x1 := float64(int64(t1))
	x2 := *x - t23*x1
	t1 = a1*x2 + a2*x1
	t2 := float64(int64(r23 * t1))
	z := t1 - t23*t2
	t3 := t23*z + a2*x2
	t4 := float64(int64(r46 * t3))
	*x = t3 - t46*t4
	return r46 * *x
}
