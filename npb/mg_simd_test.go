package npb

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mgSentinel fills the space around a test line: the kernels must leave
// it alone.
const mgSentinel = -12345.678

// mgTestLine returns a line of n random values, the buffer it lies in,
// between sentinels, and its offset there, which is random (so that the
// alignment of the lines varies).
func mgTestLine(rng *rand.Rand, n int) (line, buf []float64, o int) {
	const gap = 5
	buf = make([]float64, n+2*gap)
	for i := range buf {
		buf[i] = mgSentinel
	}
	o = gap - rng.IntN(4)
	line = buf[o : o+n : o+n]
	for i := range line {
		line[i] = rng.Float64()*2 - 1
	}
	return line, buf, o
}

// mgTestLines is the input of one call of a line kernel: the line read
// and written (resid's v, which is also r here; psinv's u), the centre
// line of the stencil (resid's u, psinv's r) and its eight neighbour
// lines in the kernels' order.
type mgTestLines struct {
	out, outBuf []float64
	outOffset   int // out's offset in outBuf
	c           []float64
	nb          [8][]float64
}

// newMGTestLines makes random lines of n points.
func newMGTestLines(rng *rand.Rand, n int) *mgTestLines {
	var l mgTestLines
	l.out, l.outBuf, l.outOffset = mgTestLine(rng, n)
	l.c, _, _ = mgTestLine(rng, n)
	for i := range l.nb {
		l.nb[i], _, _ = mgTestLine(rng, n)
	}
	return &l
}

// clone returns a copy of l whose output line (and buffer) is its own.
func (l *mgTestLines) clone() *mgTestLines {
	c := *l
	c.outBuf = slices.Clone(l.outBuf)
	o := l.outOffset
	c.out = c.outBuf[o : o+len(l.out) : o+len(l.out)]
	return &c
}

// resid runs mgResidLine on l in place (r = v).
func (l *mgTestLines) resid(a *[4]float64) {
	nb := &l.nb
	mgResidLine(l.out, l.out, l.c, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], nb[6], nb[7], a)
}

// psinv runs mgPsinvLine on l.
func (l *mgTestLines) psinv(c *[4]float64) {
	nb := &l.nb
	mgPsinvLine(l.out, l.c, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], nb[6], nb[7], c)
}

// mgLineSums returns NPB's line temporaries: the edge sums (u1, r1) and
// the corner sums (u2, r2) of the neighbour lines at every point.
func mgLineSums(nb *[8][]float64, n int) (s1, s2 []float64) {
	s1, s2 = make([]float64, n), make([]float64, n)
	for j := range n {
		s1[j] = nb[0][j] + nb[1][j] + nb[2][j] + nb[3][j]
		s2[j] = nb[4][j] + nb[5][j] + nb[6][j] + nb[7][j]
	}
	return s1, s2
}

// refResid is mg.f90's resid on one line as NPB writes it: the
// temporaries for the whole line, then the combination.
func (l *mgTestLines) refResid(a *[4]float64) {
	n := len(l.out)
	u1, u2 := mgLineSums(&l.nb, n)
	for j := 1; j < n-1; j++ {
		l.out[j] = l.out[j] - a[0]*l.c[j] -
			a[2]*(u2[j]+u1[j-1]+u1[j+1]) -
			a[3]*(u2[j-1]+u2[j+1])
	}
}

// refPsinv is mg.f90's psinv on one line as NPB writes it.
func (l *mgTestLines) refPsinv(c *[4]float64) {
	n := len(l.out)
	r1, r2 := mgLineSums(&l.nb, n)
	r := l.c
	for j := 1; j < n-1; j++ {
		l.out[j] = l.out[j] + c[0]*r[j] +
			c[1]*(r[j-1]+r[j+1]+r1[j]) +
			c[2]*(r2[j]+r1[j-1]+r1[j+1])
	}
}

// firstBitDiff reports the first index where a and b differ bit for bit
// (0 when their lengths differ), or −1.
func firstBitDiff(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// mgCheckLines compares mgResidLine and mgPsinvLine as they run now with
// NPB's loops on random lines of 0 to 41 points (0 to 39 interior
// points, so every remainder modulo 4), in every buffer position.
func mgCheckLines(t *testing.T) {
	t.Helper()
	a, c := mgCoefficients('A')
	_, cb := mgCoefficients('B')
	rng := rand.New(rand.NewPCG(15, 2))
	for n := range 42 {
		for range 3 {
			l := newMGTestLines(rng, n)
			got, want := l.clone(), l.clone()
			got.resid(&a)
			want.refResid(&a)
			if i := firstBitDiff(got.outBuf, want.outBuf); i >= 0 {
				t.Errorf("resid on %d points: buffer index %d is %v, want %v", n, i, got.outBuf[i], want.outBuf[i])
			}
			for _, cc := range []*[4]float64{&c, &cb} {
				got, want := l.clone(), l.clone()
				got.psinv(cc)
				want.refPsinv(cc)
				if i := firstBitDiff(got.outBuf, want.outBuf); i >= 0 {
					t.Errorf("psinv on %d points: buffer index %d is %v, want %v", n, i, got.outBuf[i], want.outBuf[i])
				}
			}
		}
	}
}

// TestMGLines checks the line kernels bit for bit against NPB's loops,
// and that they write nothing outside the line's interior.
func TestMGLines(t *testing.T) {
	mgCheckLines(t)
}

// refRprj3Line is mg.f90's rprj3 on one coarse line as NPB writes it,
// with NPB's d on axis 0: the fine lines as mgRprj3LineGo takes them.
func refRprj3Line(sc []float64, f *[9][]float64, d int) {
	rl := f[0]
	x := func(i int) float64 { return f[1][i] + f[2][i] + f[3][i] + f[4][i] }
	y := func(i int) float64 { return f[5][i] + f[6][i] + f[7][i] + f[8][i] }
	for j1 := 1; j1 < len(sc)-1; j1++ {
		i1 := 2*j1 + 1 - d
		sc[j1] = 0.5*rl[i1] +
			0.25*(rl[i1-1]+rl[i1+1]+x(i1)) +
			0.125*(x(i1-1)+x(i1+1)+y(i1)) +
			0.0625*(y(i1-1)+y(i1+1))
	}
}

// mgCheckRprj3Lines compares mgRprj3Line as it runs now with NPB's loop
// on random coarse lines of 3 to 41 points (every remainder modulo 4),
// in every buffer position, with NPB's d of 1 and, on three points, of
// 2, and checks that it writes nothing outside the line's interior.
func mgCheckRprj3Lines(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(16, 3))
	for nc := 3; nc < 42; nc++ {
		for _, d := range []int{1, 2} {
			nf := 2*nc - 2
			if d == 2 {
				if nc != 3 {
					continue
				}
				nf = 3
			}
			for range 3 {
				var f [9][]float64
				for i := range f {
					f[i], _, _ = mgTestLine(rng, nf)
				}
				sc, buf, o := mgTestLine(rng, nc)
				want := slices.Clone(buf)
				refRprj3Line(want[o:o+nc], &f, d)
				mgRprj3Line(sc, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], d)
				if i := firstBitDiff(buf, want); i >= 0 {
					t.Errorf("rprj3 onto %d points (d %d): buffer index %d is %v, want %v", nc, d, i, buf[i], want[i])
				}
			}
		}
	}
}

// TestMGRprj3Lines checks the restriction's line kernel bit for bit
// against NPB's loop.
func TestMGRprj3Lines(t *testing.T) {
	mgCheckRprj3Lines(t)
}
