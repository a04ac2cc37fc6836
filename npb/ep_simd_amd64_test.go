//go:build amd64 && !purego

package npb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEPAcceptedAVX2 checks that the generator stores the same accepted
// pairs, bit for bit, with the assembly on and off, for the seeds of a
// few batches and random seeds.
func TestEPAcceptedAVX2(t *testing.T) {
	an := Pow46(A, 2*epNK)
	seeds := []uint64{epSeed, 1, mod46}
	for _, k := range []int64{1, 2, 17, 1000, 16383} {
		seeds = append(seeds, uint64(epSeed)*uint64(Pow46(an, k))&mod46)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		seeds = append(seeds, r.Uint64()&mod46)
	}
	var x [2][]float64
	var n [2]int
	for _, seed := range seeds {
		for i, on := range []bool{true, false} {
			withAVX2(t, &epUseAVX2, on, func() {
				x[i] = make([]float64, 2*epNK)
				n[i] = epAccepted(x[i], seed)
			})
		}
		if n[0] != n[1] {
			t.Fatalf("seed %#x: %d numbers with AVX2, %d without", seed, n[0], n[1])
		}
		if i := firstBitDiff(x[0][:n[0]], x[1][:n[1]]); i >= 0 {
			t.Fatalf("seed %#x: x(%d) = %v with AVX2, %v without", seed, i, x[0][i], x[1][i])
		}
	}
}

// epTestPairs returns m pairs for epGauss, x1 x2 x1 x2 …, all with
// 2^-90 ≤ x1²+x2² ≤ 1 as in EP, of the kind kind: 0 uniform in the
// disc, 1 with x1²+x2² within a few ulps of √2/2 or √2/4 (where the
// reduction switches), 2 on the extremes (t = 2^-90, 2^-89, 1 and just
// below 1, x = 0, ±1), 3 a mixture of them.
func epTestPairs(r *rand.Rand, m, kind int) []float64 {
	p := make([]float64, 0, 2*m)
	for len(p) < 2*m {
		k := kind
		if k == 3 {
			k = r.IntN(3)
		}
		var x1, x2 float64
		switch k {
		case 0:
			for x1, x2 = 1, 1; x1*x1+x2*x2 > 1; {
				x1, x2 = 2*r.Float64()-1, 2*r.Float64()-1
			}
		case 1:
			c := []float64{math.Sqrt2 / 2, math.Sqrt2 / 4}[r.IntN(2)]
			x1 = (2*r.Float64() - 1) * math.Sqrt(c)
			x2 = math.Sqrt(c - x1*x1)
			for range r.IntN(4) {
				x2 = math.Nextafter(x2, float64(r.IntN(2)))
			}
		case 2:
			tiny := math.Ldexp(1, -45)
			e := [][2]float64{{tiny, 0}, {0, -tiny}, {tiny, -tiny}, {1, 0}, {0, -1}, {-1, 0},
				{math.Nextafter(1, 0), 0}, {0.6, 0.8}, {-0.6, 0.8}, {0, 0.5}}[r.IntN(10)]
			x1, x2 = e[0], e[1]
		}
		if r.IntN(2) == 0 {
			x1, x2 = x2, x1
		}
		p = append(p, x1, x2)
	}
	return p
}

// epSentinel fills the space around the test chunks: epGauss must leave
// it alone.
const epSentinel = -12345.678

// TestEPGaussAVX2 checks epGauss with AVX2 against epGaussGo, bit for
// bit, on chunks of every length up to 20 and a few longer up to
// epChunk, of each kind of epTestPairs: g for all pairs, and for the
// pairs the assembly finishes (all but the last m mod 4) the deviates
// |x1·g|, |x2·g| in place of the pairs and their annuli; the rest of p
// and everything beyond the chunk stays untouched.
func TestEPGaussAVX2(t *testing.T) {
	withAVX2(t, &epUseAVX2, true, func() {})
	r := rand.New(rand.NewPCG(5, 6))
	w := &epWork{x: make([]float64, 2*epNK)}
	ref := &epWork{}
	lengths := []int{29, 64, 101, 127, epChunk}
	for m := range 21 {
		lengths = append(lengths, m)
	}
	for _, m := range lengths {
		for kind := range 4 {
			for range 20 {
				p := epTestPairs(r, m, kind)
				buf := append(append([]float64(nil), p...), epSentinel, epSentinel)
				for i := range w.g {
					w.g[i], w.l[i] = epSentinel, -1
				}
				epGaussGo(ref, ref.g[:m], p)
				var d int
				withAVX2(t, &epUseAVX2, true, func() { d = epGauss(w, w.g[:m], buf[:2*m]) })
				if d != m&^3 {
					t.Fatalf("m=%d: %d pairs finished, want %d", m, d, m&^3)
				}
				if err := epCheckGauss(p, buf, ref.g[:m], w, d); err != "" {
					t.Fatalf("m=%d kind %d: %s", m, kind, err)
				}
			}
		}
	}
}

// epCheckGauss compares the results of epGauss in w and buf (the pairs
// p, then two sentinels) with d pairs finished, with the factors g of
// epGaussGo; it returns what differs, or "".
func epCheckGauss(p, buf, g []float64, w *epWork, d int) string {
	m := len(g)
	for j := range m {
		if math.Float64bits(w.g[j]) != math.Float64bits(g[j]) {
			return fmt.Sprintf("g(%d) = %v, want %v (pair %v, %v)", j, w.g[j], g[j], p[2*j], p[2*j+1])
		}
		x, y := p[2*j], p[2*j+1]
		if j < d {
			x, y = math.Abs(x*g[j]), math.Abs(y*g[j])
			if l := int32(max(int(x), int(y))); w.l[j] != l {
				return fmt.Sprintf("annulus of pair %d = %d, want %d", j, w.l[j], l)
			}
		}
		if firstBitDiff(buf[2*j:2*j+2], []float64{x, y}) >= 0 {
			return fmt.Sprintf("pair %d = %v, want %v, %v", j, buf[2*j:2*j+2], x, y)
		}
	}
	switch {
	case buf[2*m] != epSentinel || buf[2*m+1] != epSentinel:
		return "p written beyond the chunk"
	case m < epChunk && w.g[m] != epSentinel:
		return "g written beyond the chunk"
	case d < epChunk && w.l[d] != -1:
		return "annuli written beyond the finished pairs"
	}
	return ""
}

// TestEPBatchesAVX2 checks that epBatches gives the same tallies with
// the assembly on and off.
func TestEPBatchesAVX2(t *testing.T) {
	for _, b := range [][2]int{{0, 2}, {511, 1}, {16383, 1}} {
		var s [2]epSums
		for i, on := range []bool{true, false} {
			withAVX2(t, &epUseAVX2, on, func() {
				epBatches(&s[i], &epWork{x: make([]float64, 2*epNK)}, b[0], b[1])
			})
		}
		if s[0] != s[1] {
			t.Errorf("batches %d+%d: %v with AVX2, %v without", b[0], b[1], s[0], s[1])
		}
	}
}

// benchEP times f with the assembly on and off.
func benchEP(b *testing.B, f func()) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		b.Run(name, func(b *testing.B) {
			withAVX2(b, &epUseAVX2, on, func() {
				for b.Loop() {
					f()
				}
			})
		})
	}
}

// BenchmarkEPAccepted times the generator on one batch.
func BenchmarkEPAccepted(b *testing.B) {
	x := make([]float64, 2*epNK)
	benchEP(b, func() { epAccepted(x, epSeed) })
}

// BenchmarkEPGauss times the first two stages and the deviates on the
// accepted pairs of a batch, a chunk at a time, as epBatches runs them.
func BenchmarkEPGauss(b *testing.B) {
	w := &epWork{x: make([]float64, 2*epNK)}
	x := w.x[:epAcceptedGo(w.x, epSeed)]
	p := make([]float64, len(x))
	benchEP(b, func() {
		copy(p, x)
		for y := p; len(y) > 0; {
			m := min(len(y)/2, epChunk)
			epGauss(w, w.g[:m], y[:2*m])
			y = y[2*m:]
		}
	})
}

// BenchmarkEPSIMD is BenchmarkEPBatches with the assembly on and off.
func BenchmarkEPSIMD(b *testing.B) {
	w := &epWork{x: make([]float64, 2*epNK)}
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "avx2", false: "go"}[on]
		b.Run(name, func(b *testing.B) {
			withAVX2(b, &epUseAVX2, on, func() {
				for b.Loop() {
					var s epSums
					epBatches(&s, w, 0, 16)
				}
			})
			b.ReportMetric(float64(32*epNK)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnum/s")
		})
	}
}
