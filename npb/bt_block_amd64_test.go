//go:build amd64 && !purego

package npb

import (
	"math/rand/v2"
	"testing"
)

// btFlat is a block's values and a vector's, one after the other.
func btFlat(b *btBlock, r *[5]float64) []float64 {
	var out []float64
	for i := range b {
		out = append(out, b[i][:]...)
	}
	return append(out, r[:]...)
}

// TestBTBlocksAVX2 checks that the block product and the block solve give
// the same values, bit for bit, with their assembly on and off
// (TestBTBlockAlgebra checks that they compute what they should).
func TestBTBlocksAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		a, b, c := btRandomBlock(rng, 0), btRandomBlock(rng, 6), btRandomBlock(rng, 0)
		var r [5]float64
		for i := range r {
			r[i] = 2*rng.Float64() - 1
		}
		var prod, solved [2][]float64
		for k, on := range []bool{true, false} {
			withAVX2(t, &adiUseAVX2, on, func() {
				m := c
				btMatMulSub(&a, &b, &m)
				prod[k] = btFlat(&m, &r)
				f, x, y := b, c, r
				btBinvCRHS(&f, &x, &y)
				solved[k] = btFlat(&x, &y)
			})
		}
		if i := adiSameValues(prod[0], prod[1]); i >= 0 {
			t.Fatalf("case %d: the product's value %d: %v with AVX2, %v without", n, i, prod[0][i], prod[1][i])
		}
		if i := adiSameValues(solved[0], solved[1]); i >= 0 {
			t.Fatalf("case %d: the solve's value %d: %v with AVX2, %v without", n, i, solved[0][i], solved[1][i])
		}
	}
}
