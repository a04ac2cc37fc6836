package npb

import (
	"math"
	"math/bits"
)

// FT's 1-D FFTs: the Stockham radix-2 FFT of ft.f90's cfftz/fftz2 on
// blocks of lines, with the roots of unity of fft_init.
//
// The transforms run on w lines of n points at a time, laid out as n
// rows of w elements, row t holding element t of every line, so that
// every step of a pass runs along rows with one root of unity. The rows
// of the first pass's input and of the last pass's output can be
// anywhere (the grid's own rows, for the y and z transforms), those in
// between are scratch blocks: cffts2 and cffts3 copy lines in and out of
// a scratch block instead. Pass l of fftz2 reads one set of rows and
// writes another; here two consecutive passes l and l+1 are done
// together, each group of four elements going through both in registers
// (a radix-4 step built of the same radix-2 operations, in the same
// order, on the same values), so that the data cross the cache half as
// often. Multiplications by the root u[li] = 1 are left out, which
// changes no value.

// ftStridedPoints bounds the points of a block of the strided transforms
// (w·n): wide blocks make whole grid rows move at once.
const ftStridedPoints = 65536

// ftFFT holds the roots of unity and the scratch blocks of FT's 1-D FFTs:
// ft.f90's u (fft_init) and the scratch array of cffts1/2/3.
type ftFFT struct {
	// u holds the roots of unity (fft_init): for every power of two ln
	// up to n/2, u[ln+i] = exp(i·pi·i/ln), i = 0…ln-1. u[0] is unused
	// (fft_init keeps log2 n there).
	u []complex128
	// a and b are the two scratch blocks (cffts1's y(:,:,1) and
	// y(:,:,2)), ra and rb their rows for blocks of rn rows of rw
	// elements, rw+2 apart (padded against cache conflicts, as
	// fftblockpad).
	a, b   []complex128
	ra, rb [][]complex128
	rn, rw int
}

// ftEvolution describes the time evolution done on the way into a
// backward transform (evolve): element i of row t is multiplied by
// ex[base[t]+sq[i]].
type ftEvolution struct {
	ex       []float64
	base, sq []int
}

// ftStridedWidth returns the number of columns transformed together by
// the strided transforms of n points over width columns.
func ftStridedWidth(n, width int) int {
	return min(max(ftStridedPoints/n, ftBlock), width)
}

// newFTFFT allocates the roots and blocks for transforms of up to maxdim
// points over up to width columns.
func newFTFFT(maxdim, width int) ftFFT {
	size := (ftBlock + 2) * maxdim
	for n := 2; n <= maxdim; n *= 2 {
		size = max(size, (ftStridedWidth(n, width)+2)*n)
	}
	return ftFFT{
		u:  make([]complex128, maxdim),
		a:  make([]complex128, size),
		b:  make([]complex128, size),
		ra: make([][]complex128, maxdim),
		rb: make([][]complex128, maxdim),
	}
}

// ftLog2 returns log2 n for a power of two n (ilog2).
func ftLog2(n int) int { return bits.Len(uint(n)) - 1 }

// init computes the roots of unity for transforms of up to n points
// (fft_init).
func (f *ftFFT) init(n int) {
	f.u[0] = complex(float64(ftLog2(n)), 0)
	for ln := 1; ln < n; ln *= 2 {
		t := ftPi / float64(ln)
		for i := range ln {
			ti := float64(i) * t
			f.u[ln+i] = complex(math.Cos(ti), math.Sin(ti))
		}
	}
}

// scratch returns the rows of the scratch blocks for n rows of w
// elements.
func (f *ftFFT) scratch(n, w int) (ra, rb [][]complex128) {
	if n != f.rn || w != f.rw {
		p := w + 2
		for t := range n {
			f.ra[t] = f.a[t*p:][:w]
			f.rb[t] = f.b[t*p:][:w]
		}
		f.rn, f.rw = n, w
	}
	return f.ra[:n], f.rb[:n]
}

// cfftz transforms the w lines of n = 2^m points whose element t lies in
// in[t][ci:ci+w] (forward for is = 1, backward for is = -1) and writes
// element t of the result to out[t][co:co+w], or, if out is nil, leaves it
// in a scratch block and returns its rows (cfftz). in may be a scratch
// block; in and out may be the same rows. With ev, the elements of in are
// first evolved (and stored back).
func (f *ftFFT) cfftz(is, m, n, w int, in [][]complex128, ci int, out [][]complex128, co int, ev *ftEvolution) [][]complex128 {
	s0, s1 := f.scratch(n, w)
	if &in[0][0] == &s0[0][0] {
		s0, s1 = s1, s0
	}
	units := (m + 1) / 2
	if units == 1 && out != nil {
		// A single pass cannot read and write the same rows: start from
		// a copy.
		for t, row := range in {
			if ev != nil {
				ftEvolve(s1[t], row[ci:][:w], ev.ex[ev.base[t]:], ev.sq)
			} else {
				copy(s1[t], row[ci:][:w])
			}
		}
		in, ci, ev = s1, 0, nil
	}
	l := 1
	for k := range units {
		dst, c := s0, 0
		if k == units-1 && out != nil {
			dst, c = out, co
		}
		switch {
		case ev != nil:
			ftFftz2PairEvolve(m, n, w, f.u, in, ci, dst, c, ev)
			ev = nil
			l += 2
		case l < m:
			ftFftz2Pair(is, l, m, n, w, f.u, in, ci, dst, c)
			l += 2
		default:
			ftFftz2Last(n, w, in, ci, dst, c)
			l++
		}
		in, ci = dst, c
		s0, s1 = s1, s0
	}
	return in
}

// ftFftz2Pair does passes l and l+1 of fftz2 on the rows in (from column
// ci) into the rows out (from column co). Pass l, with lk = 2^(l-1) and
// li = 2^(m-l), combines for every i < li and k < lk rows i·lk+k and
// i·lk+k+n/2 into rows i·2lk+k (their sum) and i·2lk+lk+k (their
// difference times the root u[li+i], conjugated for the backward
// transform); pass l+1 does the same with 2lk and li/2. The four rows
// i·lk+k + {0, n/4, n/2, 3n/4} (i < li/2) go through pass l into four
// rows that pass l+1 combines among themselves, into rows
// i·4lk+k + {0, lk, 2lk, 3lk}.
func ftFftz2Pair(is, l, m, n, w int, u []complex128, in [][]complex128, ci int, out [][]complex128, co int) {
	lk := 1 << (l - 1)
	li := 1 << (m - l)
	h := li / 2
	q := n / 4
	for i := range h {
		// Roots of pass l for rows i and i+li/2, and of pass l+1.
		w1, w2, w3 := u[li+i], u[li+h+i], u[h+i]
		if is < 1 {
			w1 = complex(real(w1), -imag(w1))
			w2 = complex(real(w2), -imag(w2))
			w3 = complex(real(w3), -imag(w3))
		}
		for k := range lk {
			s := i*lk + k
			a := in[s][ci:][:w]
			c := in[s+q][ci:][:w]
			b := in[s+2*q][ci:][:w]
			d := in[s+3*q][ci:][:w]
			t := 4*i*lk + k
			o0 := out[t][co:][:w]
			o1 := out[t+lk][co:][:w]
			o2 := out[t+2*lk][co:][:w]
			o3 := out[t+3*lk][co:][:w]
			if i == 0 {
				// w1 = w3 = 1.
				ftRadix4One(a, b, c, d, o0, o1, o2, o3, w2)
			} else {
				ftRadix4(a, b, c, d, o0, o1, o2, o3, w1, w2, w3)
			}
		}
	}
}

// ftRadix4 does the butterflies of two passes on one group of four rows:
// pass l combines a, b with root w1 and c, d with w2, pass l+1 their
// results with w3.
func ftRadix4(a, b, c, d, o0, o1, o2, o3 []complex128, w1, w2, w3 complex128) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	o0, o1, o2, o3 = o0[:len(a)], o1[:len(a)], o2[:len(a)], o3[:len(a)]
	for j := range a {
		av, bv, cv, dv := a[j], b[j], c[j], d[j]
		y0, y1 := av+bv, w1*(av-bv)
		y2, y3 := cv+dv, w2*(cv-dv)
		o0[j] = y0 + y2
		o2[j] = w3 * (y0 - y2)
		o1[j] = y1 + y3
		o3[j] = w3 * (y1 - y3)
	}
}

// ftRadix4One is ftRadix4 for w1 = w3 = 1.
func ftRadix4One(a, b, c, d, o0, o1, o2, o3 []complex128, w2 complex128) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	o0, o1, o2, o3 = o0[:len(a)], o1[:len(a)], o2[:len(a)], o3[:len(a)]
	for j := range a {
		av, bv, cv, dv := a[j], b[j], c[j], d[j]
		y0, y1 := av+bv, av-bv
		y2, y3 := cv+dv, w2*(cv-dv)
		o0[j] = y0 + y2
		o2[j] = y0 - y2
		o1[j] = y1 + y3
		o3[j] = y1 - y3
	}
}

// ftFftz2PairEvolve is ftFftz2Pair for the first two passes (l = 1) of a
// backward transform, the rows in being first evolved (evolve: every
// element multiplied by its factor and stored back).
func ftFftz2PairEvolve(m, n, w int, u []complex128, in [][]complex128, ci int, out [][]complex128, co int, ev *ftEvolution) {
	li := n / 2
	q := n / 4
	sq := ev.sq[:w]
	for i := range q {
		w1, w2, w3 := u[li+i], u[li+q+i], u[q+i]
		w1 = complex(real(w1), -imag(w1))
		w2 = complex(real(w2), -imag(w2))
		w3 = complex(real(w3), -imag(w3))
		a := in[i][ci:][:w]
		c := in[i+q][ci:][:w]
		b := in[i+2*q][ci:][:w]
		d := in[i+3*q][ci:][:w]
		ftEvolveRow(a, ev.ex[ev.base[i]:], sq)
		ftEvolveRow(b, ev.ex[ev.base[i+2*q]:], sq)
		ftEvolveRow(c, ev.ex[ev.base[i+q]:], sq)
		ftEvolveRow(d, ev.ex[ev.base[i+3*q]:], sq)
		o0 := out[4*i][co:][:w]
		o1 := out[4*i+1][co:][:w]
		o2 := out[4*i+2][co:][:w]
		o3 := out[4*i+3][co:][:w]
		if i == 0 {
			ftRadix4One(a, b, c, d, o0, o1, o2, o3, w2)
		} else {
			ftRadix4(a, b, c, d, o0, o1, o2, o3, w1, w2, w3)
		}
	}
}

// ftEvolveRow multiplies every a[j] by e[sq[j]] in place (evolve:
// u0 = u0·twiddle).
func ftEvolveRow(a []complex128, e []float64, sq []int) {
	sq = sq[:len(a)]
	for j, s := range sq {
		v, f := a[j], e[s]
		a[j] = complex(real(v)*f, imag(v)*f)
	}
}

// ftEvolve multiplies every in[j] by e[sq[j]], storing it back into in and
// into s.
func ftEvolve(s, in []complex128, e []float64, sq []int) {
	in = in[:len(s)]
	sq = sq[:len(s)]
	for j, q := range sq {
		v, f := in[j], e[q]
		v = complex(real(v)*f, imag(v)*f)
		in[j] = v
		s[j] = v
	}
}

// ftFftz2Last does the last pass (l = m: li = 1, lk = n/2, the root is
// u[1] = 1) of fftz2 on the rows in into the rows out.
func ftFftz2Last(n, w int, in [][]complex128, ci int, out [][]complex128, co int) {
	lk := n / 2
	for k := range lk {
		a := in[k][ci:][:w]
		b := in[k+lk][ci:][:w]
		o0 := out[k][co:][:w]
		o1 := out[k+lk][co:][:w]
		b, o0, o1 = b[:len(a)], o0[:len(a)], o1[:len(a)]
		for j := range a {
			av, bv := a[j], b[j]
			o0[j] = av + bv
			o1[j] = av - bv
		}
	}
}

// contiguous transforms in place the lines of n points stored one after
// the other in lines (cffts1): ftBlock lines at a time (fewer if there
// are fewer) are copied into a scratch block, row t holding element t of
// the lines, transformed and copied back. (Reading and writing the lines
// in the first and last passes instead is no faster.)
func (f *ftFFT) contiguous(is int, lines []complex128, n int) {
	m := ftLog2(n)
	w := min(ftBlock, len(lines)/n)
	p := w + 2
	for jj := 0; jj+w*n <= len(lines); jj += w * n {
		blk := lines[jj:][:w*n]
		for j := range w {
			ftToColumn(f.a[j:], blk[j*n:][:n], p)
		}
		ra, _ := f.scratch(n, w)
		res := f.cfftz(is, m, n, w, ra, 0, nil, 0, nil)
		r := res[0][:cap(res[0])] // the rows lie p apart
		for j := range w {
			ftFromColumn(blk[j*n:][:n], r[j:], p)
		}
	}
}

// ftToColumn copies line into a[0], a[p], a[2p], …. (Kept out of line:
// inlined into its caller, its loop counter goes to the stack.)
//
//go:noinline
func ftToColumn(a, line []complex128, p int) {
	k := 0
	for _, v := range line {
		a[k] = v
		k += p
	}
}

// ftFromColumn copies a[0], a[p], a[2p], … into line.
//
//go:noinline
func ftFromColumn(line, a []complex128, p int) {
	k := 0
	for i := range line {
		line[i] = a[k]
		k += p
	}
}

// strided transforms the lines of n points whose element t lies in
// src[t] (a row of width columns, one for every t), column by column, and
// writes element t of the result into dst[t] (cffts2 and cffts3), a
// block of columns at a time. src and dst may be the same rows. With ev,
// the elements of src are first evolved and stored back.
func (f *ftFFT) strided(is, n int, src, dst [][]complex128, width int, ev *ftEvolution) {
	m := ftLog2(n)
	w := ftStridedWidth(n, width)
	src, dst = src[:n], dst[:n]
	var evb ftEvolution
	for ii := 0; ii+w <= width; ii += w {
		var e *ftEvolution
		if ev != nil {
			evb = ftEvolution{ex: ev.ex, base: ev.base, sq: ev.sq[ii:][:w]}
			e = &evb
		}
		f.cfftz(is, m, n, w, src, ii, dst, ii, e)
	}
}
