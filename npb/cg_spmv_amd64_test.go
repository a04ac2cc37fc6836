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
