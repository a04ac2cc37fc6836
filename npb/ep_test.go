package npb

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestEP(t *testing.T) {
	checkKernel(t, "EP", 'S', 1, 2, 3, 4)
}

// TestEPSeed checks the jump to a batch's starting seed, S·AN^k, against
// ep.f90's loop 120 done with NPB's double-precision randlc.
func TestEPSeed(t *testing.T) {
	// AN as ep.f90's loop 100: MK+1 squarings of A.
	an := float64(A)
	for range epMK + 1 {
		randlcFloat(&an, an)
	}
	if want := Pow46(A, 2*epNK); an != want {
		t.Fatalf("AN = %v, want %v", an, want)
	}
	for _, k := range []int{0, 1, 2, 3, 7, 255, 256, 1000, 16383} {
		t1, t2 := float64(epSeed), an
		for kk := k; ; {
			ik := kk / 2
			if 2*ik != kk {
				randlcFloat(&t1, t2)
			}
			if ik == 0 {
				break
			}
			randlcFloat(&t2, t2)
			kk = ik
		}
		got := float64(uint64(epSeed) * uint64(Pow46(an, int64(k))) & mod46)
		if got != t1 {
			t.Errorf("seed of batch %d = %v, want %v", k, got, t1)
		}
	}
}

// TestEPShare checks that the batches are split into contiguous ranges
// covering all of them, the first nn mod np ranks taking one more.
func TestEPShare(t *testing.T) {
	for _, nn := range []int{1, 5, 256, 1024} {
		for np := 1; np <= min(nn, 7); np++ {
			next := 0
			for r := range np {
				first, count := epShare(nn, np, r)
				want := nn / np
				if r < nn%np {
					want++
				}
				if first != next || count != want {
					t.Errorf("nn=%d np=%d rank %d: batches %d+%d, want %d+%d", nn, np, r, first, count, next, want)
				}
				next = first + count
			}
			if next != nn {
				t.Errorf("nn=%d np=%d: %d batches covered", nn, np, next)
			}
		}
	}
}

// TestEPBatches checks epBatches bit for bit against ep.f90's loops 120
// and 140 written plainly, with Vranlc into a buffer and math.Log, over
// the first batches and a few far ones.
func TestEPBatches(t *testing.T) {
	w := &epWork{x: make([]float64, 2*epNK)}
	x := make([]float64, 2*epNK)
	an := Pow46(A, 2*epNK)
	for _, b := range [][2]int{{0, 3}, {17, 1}, {1000, 2}, {16383, 1}} {
		var got epSums
		epBatches(&got, w, b[0], b[1])

		var q [epNQ]float64
		var sx, sy float64
		for k := b[0]; k < b[0]+b[1]; k++ {
			t1 := float64(epSeed)
			randlcFloat(&t1, Pow46(an, int64(k)))
			Vranlc(&t1, A, x)
			for i := range epNK {
				x1 := 2*x[2*i] - 1
				x2 := 2*x[2*i+1] - 1
				t1 := epNorm(x1, x2) // NPB rounds each square
				if t1 <= 1 {
					t2 := math.Sqrt(-2 * math.Log(t1) / t1)
					t3 := math.Abs(x1 * t2)
					t4 := math.Abs(x2 * t2)
					q[int(max(t3, t4))]++
					sx += t3
					sy += t4
				}
			}
		}
		if got.sx != sx || got.sy != sy {
			t.Errorf("batches %d+%d: sx, sy = %v, %v, want %v, %v", b[0], b[1], got.sx, got.sy, sx, sy)
		}
		for l := range epNQ {
			if float64(got.q[l]) != q[l] {
				t.Errorf("batches %d+%d: q(%d) = %d, want %v", b[0], b[1], l, got.q[l], q[l])
			}
		}
		if [16 - epNQ]int64(got.q[epNQ:]) != [16 - epNQ]int64{} {
			t.Errorf("batches %d+%d: counts beyond q(%d): %v", b[0], b[1], epNQ-1, got.q[epNQ:])
		}
	}
}

// TestEPLog checks the written-out log against math.Log on the range EP
// takes it on, [2^-90, 1], and around the reduction's switch at √2/2.
func TestEPLog(t *testing.T) {
	check := func(x float64) {
		k, f, s := epLogReduce(x)
		if got, want := epLogFinish(k, f, s), math.Log(x); got != want {
			t.Fatalf("log(%v) = %v, want %v", x, got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(math.Ldexp(1+r.Float64(), -1-r.IntN(90)))
	}
	for _, x := range []float64{1, math.Nextafter(1, 0), 0.5, math.Ldexp(1, -90), math.Sqrt2 / 2, math.Sqrt2 / 4} {
		check(x)
		check(math.Nextafter(x, 0))
		check(math.Nextafter(x, 2))
	}
}

// BenchmarkEPBatches measures one process's work on 16 batches (2^21
// numbers) and reports Mnum/s, the Mop/s of NPB for one process.
func BenchmarkEPBatches(b *testing.B) {
	w := &epWork{x: make([]float64, 2*epNK)}
	for b.Loop() {
		var s epSums
		epBatches(&s, w, 0, 16)
	}
	b.ReportMetric(float64(32*epNK)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnum/s")
}
