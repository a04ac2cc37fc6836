//go:build amd64 && !purego

package npb

import (
	"math/rand/v2"
	"testing"
)

// TestCGSpmvAVX2 checks that the product of class S's and W's blocks of a
// job of 1 and 4 processes gives the same bits with the assembly on and
// off, on random vectors.
func TestCGSpmvAVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, class := range []Class{'S', 'W'} {
		pr, _ := cgClassParams(class)
		for _, np := range []int{1, 4} {
			g := cgNewGrid(pr.na, np, np-1)
			tran := float64(Seed)
			Randlc(&tran, A)
			m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &tran)
			ncols := g.lastcol - g.firstcol + 1
			blk := cgNewProduct(m, ncols)
			if b, ok := blk.(*cgBlock[uint16]); !ok || b.dot4 == nil {
				t.Fatalf("class %c, %d processes: the block does not take cgDot4x16", class, np)
			}
			p := make([]float64, ncols)
			for i := range p {
				p[i] = 2*rng.Float64() - 1
			}
			var got [2][]float64
			for k, on := range []bool{true, false} {
				withAVX2(t, &cgUseAVX2, on, func() {
					got[k] = make([]float64, g.lastrow-g.firstrow+1)
					blk.mul(p, got[k])
				})
			}
			if i := adiSameValues(got[0], got[1]); i >= 0 {
				t.Errorf("class %c, %d processes: row %d: %v with AVX2, %v without", class, np, i, got[0][i], got[1][i])
			}
		}
	}
}

// TestCGDot4AVX2 checks cgDot4x16 and cgDot4x32 against cgDot4, bit for
// bit, on random rows of 0 to 41 interleaved values with indices across
// the whole of p.
func TestCGDot4AVX2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := make([]float64, 70000)
	for i := range p {
		p[i] = 2*rng.Float64() - 1
	}
	for n := range 42 {
		a := make([]float64, n)
		c16, c32 := make([]uint16, n), make([]uint32, n)
		for i := range a {
			a[i] = 2*rng.Float64() - 1
			c16[i] = uint16(rng.IntN(1 << 16))
			c32[i] = uint32(rng.IntN(len(p)))
		}
		var got16, got32 [2][4]float64
		for k, on := range []bool{true, false} {
			withAVX2(t, &cgUseAVX2, on, func() {
				got16[k][0], got16[k][1], got16[k][2], got16[k][3] = cgDot4x16(a, c16, p)
				got32[k][0], got32[k][1], got32[k][2], got32[k][3] = cgDot4x32(a, c32, p)
			})
		}
		if i := adiSameValues(got16[0][:], got16[1][:]); i >= 0 {
			t.Errorf("%d values, 16-bit indices: row %d: %v with AVX2, %v without", n, i, got16[0][i], got16[1][i])
		}
		if i := adiSameValues(got32[0][:], got32[1][:]); i >= 0 {
			t.Errorf("%d values, 32-bit indices: row %d: %v with AVX2, %v without", n, i, got32[0][i], got32[1][i])
		}
	}
}
