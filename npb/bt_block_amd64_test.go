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

// TestBTBlocksAVX2 checks that a point's three blocks, the block product
// and the block solve give the same values, bit for bit, with their
// assembly on and off (TestBTBlockAlgebra checks that the product and
// the solve compute what they should).
func TestBTBlocksAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		a, b, c := btRandomBlock(rng, 0), btRandomBlock(rng, 6), btRandomBlock(rng, 0)
		var r [5]float64
		for i := range r {
			r[i] = 2*rng.Float64() - 1
		}
		jac := [5]btBlock{btRandomBlock(rng, 0), btRandomBlock(rng, 0), btRandomBlock(rng, 0), btRandomBlock(rng, 0), btRandomBlock(rng, 0)}
		dt1, dt2 := rng.Float64(), rng.Float64()
		var prod, solved, blocks [2][]float64
		for k, on := range []bool{true, false} {
			withAVX2(t, &adiUseAVX2, on, func() {
				m := c
				btMatMulSub(&a, &b, &m)
				prod[k] = btFlat(&m, &r)
				f, x, y := b, c, r
				btBinvCRHS(&f, &x, &y)
				solved[k] = btFlat(&x, &y)
				var lo, diag, up btBlock
				btBlocks(&lo, &diag, &up, &jac[0], &jac[1], &jac[2], &jac[3], &jac[4], &r, dt1, dt2)
				blocks[k] = append(append(btFlat(&lo, &r), btFlat(&diag, &r)...), btFlat(&up, &r)...)
			})
		}
		if i := adiSameValues(blocks[0], blocks[1]); i >= 0 {
			t.Fatalf("case %d: the blocks' value %d: %v with AVX2, %v without", n, i, blocks[0][i], blocks[1][i])
		}
		if i := adiSameValues(prod[0], prod[1]); i >= 0 {
			t.Fatalf("case %d: the product's value %d: %v with AVX2, %v without", n, i, prod[0][i], prod[1][i])
		}
		if i := adiSameValues(solved[0], solved[1]); i >= 0 {
			t.Fatalf("case %d: the solve's value %d: %v with AVX2, %v without", n, i, solved[0][i], solved[1][i])
		}
	}
}
