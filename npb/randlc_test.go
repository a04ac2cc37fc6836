package npb

import (
	"math"
	"testing"
)

// TestRandlc checks the integer generator against NPB's double-precision
// algorithm, step for step, from several seeds and multipliers.
func TestRandlc(t *testing.T) {
	for _, seed := range []float64{Seed, 1, 271828183, float64(1<<46 - 1)} {
		for _, a := range []float64{A, Pow46(A, 2), Pow46(A, 12345)} {
			x, y := seed, seed
			for i := range 100000 {
				got, want := Randlc(&x, a), randlcFloat(&y, a)
				if got != want || x != y {
					t.Fatalf("seed %v, a %v, step %d: Randlc %v (state %v), NPB's %v (state %v)", seed, a, i, got, x, want, y)
				}
			}
		}
	}
}

// TestRandlcKnown checks values that follow from the definition: the
// first number after the seed 314159265 is (5^13 × 314159265 mod 2^46) /
// 2^46.
func TestRandlcKnown(t *testing.T) {
	x := float64(Seed)
	want := float64((uint64(A)*uint64(Seed))%(1<<46)) / (1 << 46)
	if got := Randlc(&x, A); got != want {
		t.Errorf("first number = %v, want %v", got, want)
	}
	// A 46-bit generator has period 2^44 for a = 5^13: a^(2^44) = 1.
	if p := Pow46(A, 1<<44); p != 1 {
		t.Errorf("a^(2^44) mod 2^46 = %v, want 1", p)
	}
	if p := Pow46(A, 1<<43); p == 1 {
		t.Error("a^(2^43) mod 2^46 = 1: the period is shorter than 2^44")
	}
}

func TestVranlc(t *testing.T) {
	x, y := float64(Seed), float64(Seed)
	buf := make([]float64, 1000)
	Vranlc(&x, A, buf)
	for i, v := range buf {
		if w := Randlc(&y, A); v != w || v <= 0 || v >= 1 || math.IsNaN(v) {
			t.Fatalf("number %d: Vranlc %v, Randlc %v", i, v, w)
		}
	}
	if x != y {
		t.Errorf("states differ after 1000: %v, %v", x, y)
	}
	// Jumping ahead by Pow46 lands where stepping does.
	z := float64(Seed)
	Randlc(&z, Pow46(A, 1000))
	if z != x {
		t.Errorf("jump of 1000 = %v, 1000 steps = %v", z, x)
	}
}
