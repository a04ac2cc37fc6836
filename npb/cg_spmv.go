package npb

import "slices"

// The sparse matrix-vector product of conj_grad, w = A·p over the local
// block, is the hot loop of CG. NPB sums each row in the order of its
// nonzeros, one chain of dependent additions per row, so its speed is
// bound by the latency of a floating-point addition. Here each row is
// still summed in NPB's order, so that the results are NPB's bit for bit,
// but four rows are summed at once, in four independent chains, from one
// sequential stream of data:
//
//   - the rows are stored sorted by their number of nonzeros (stably), so
//     that four consecutive rows have about the same length, and perm maps
//     a stored row back to its local row;
//   - in each group of four stored rows, the first m nonzeros of each row
//     (m the shortest row's length) are interleaved, the k-th of row 0,
//     1, 2, 3, then the (k+1)-th, and so on; each row's remaining nonzeros
//     follow, in order.
//
// This is the sliced ELLPACK layout with a slice height of four and
// rows sorted by length (SELL-4-σ), without its padding: no zero is
// added to a row's sum. The product streams through the values and the
// column indices once, so its speed also depends on their size: the
// column indices are 16-bit when the block has at most 65536 columns
// (all but class B on one process and class C on up to four), 32-bit
// otherwise.

// cgIndex is the type of the local column indices.
type cgIndex interface{ uint16 | uint32 }

// cgProduct is the local block of the matrix: mul sets w to the block
// times p (w indexed by local row, p by local column).
type cgProduct interface {
	mul(p, w []float64)
}

// cgNewProduct lays out the CSR block m, of ncols columns, for the
// product. Its groups of four rows are summed by cgDot4x16 or cgDot4x32,
// which have an AVX2 form on amd64 that trusts the column indices to lie
// below ncols: cgWithDot4 checks them first.
func cgNewProduct(m *cgMatrix, ncols int) cgProduct {
	if ncols <= 1<<16 {
		return cgWithDot4(cgNewBlock[uint16](m), m, ncols, cgDot4x16)
	}
	return cgWithDot4(cgNewBlock[uint32](m), m, ncols, cgDot4x32)
}

// cgWithDot4 gives b the sums dot4 where the column indices of m, b's
// matrix, lie below ncols; otherwise b keeps cgDot4, which checks them.
func cgWithDot4[T cgIndex](b *cgBlock[T], m *cgMatrix, ncols int, dot4 func(a []float64, c []T, p []float64) (s0, s1, s2, s3 float64)) *cgBlock[T] {
	if slices.IndexFunc(m.colidx, func(c uint32) bool { return int(c) >= ncols }) < 0 {
		b.ncols, b.dot4 = ncols, dot4
	}
	return b
}

// cgBlock is the local block of the matrix in the layout above.
type cgBlock[T cgIndex] struct {
	nrows int
	// The first nrows mod 4 stored rows (the shortest) stand alone: row i
	// is a[single[i]:single[i+1]]. The groups follow.
	single []int
	// grp holds five offsets per group: the end of the interleaved part
	// (which begins where the previous group or the lone rows end) and
	// the ends of the four rows' tails (each beginning where the previous
	// one ends).
	grp  []int
	perm []int32 // local row of each stored row
	a    []float64
	col  []T
	// dot4 sums the groups of four rows (cgDot4 where nil); p must then
	// hold at least ncols values.
	dot4  func(a []float64, c []T, p []float64) (s0, s1, s2, s3 float64)
	ncols int
}

// cgNewBlock lays out the CSR block m for the product, with column
// indices of type T (which must hold every column index of m).
func cgNewBlock[T cgIndex](m *cgMatrix) *cgBlock[T] {
	nrows := len(m.rowstr) - 1
	length := func(j int32) int { return m.rowstr[j+1] - m.rowstr[j] }
	perm := make([]int32, nrows)
	for j := range perm {
		perm[j] = int32(j)
	}
	slices.SortStableFunc(perm, func(x, y int32) int { return length(x) - length(y) })

	b := &cgBlock[T]{
		nrows: nrows,
		perm:  perm,
		a:     hugeSlice[float64](len(m.a))[:0],
		col:   hugeSlice[T](len(m.a))[:0],
	}
	row := func(j int32) ([]float64, []uint32) {
		lo, hi := m.rowstr[j], m.rowstr[j+1]
		return m.a[lo:hi], m.colidx[lo:hi]
	}
	appendCols := func(c []uint32) {
		for _, v := range c {
			b.col = append(b.col, T(v))
		}
	}
	nsingle := nrows % 4
	b.single = append(b.single, 0)
	for _, j := range perm[:nsingle] {
		ra, rc := row(j)
		b.a = append(b.a, ra...)
		appendCols(rc)
		b.single = append(b.single, len(b.a))
	}
	for g := nsingle; g < nrows; g += 4 {
		rows := perm[g : g+4]
		n := length(rows[0])
		for _, j := range rows[1:] {
			n = min(n, length(j))
		}
		for k := range n {
			for _, j := range rows {
				ra, rc := row(j)
				b.a = append(b.a, ra[k])
				b.col = append(b.col, T(rc[k]))
			}
		}
		b.grp = append(b.grp, len(b.a))
		for _, j := range rows {
			ra, rc := row(j)
			b.a = append(b.a, ra[n:]...)
			appendCols(rc[n:])
			b.grp = append(b.grp, len(b.a))
		}
	}
	return b
}

// mul sets w to the block times p.
func (b *cgBlock[T]) mul(p, w []float64) {
	a, col := b.a, b.col
	w = w[:b.nrows]
	single := b.single
	nsingle := len(single) - 1
	for i := range nsingle {
		lo, hi := single[i], single[i+1]
		w[b.perm[i]] = cgDot(0, a[lo:hi], col[lo:hi], p)
	}
	off := single[nsingle]
	grp := b.grp
	perm := b.perm[nsingle:]
	dot4 := b.dot4
	if dot4 == nil {
		dot4 = cgDot4[T]
	} else {
		p = p[:b.ncols] // dot4 trusts the indices to lie below len(p)
	}
	for g := 0; g+5 <= len(grp); g += 5 {
		t := grp[g : g+5 : g+5]
		s0, s1, s2, s3 := dot4(a[off:t[0]], col[off:t[0]], p)
		r := perm[:4:4]
		perm = perm[4:]
		w[r[0]] = cgDot(s0, a[t[0]:t[1]], col[t[0]:t[1]], p)
		w[r[1]] = cgDot(s1, a[t[1]:t[2]], col[t[1]:t[2]], p)
		w[r[2]] = cgDot(s2, a[t[2]:t[3]], col[t[2]:t[3]], p)
		w[r[3]] = cgDot(s3, a[t[3]:t[4]], col[t[3]:t[4]], p)
		off = t[4]
	}
}

// cgDot returns s plus the sum of a[k]·p[c[k]], added in order.
func cgDot[T cgIndex](s float64, a []float64, c []T, p []float64) float64 {
	c = c[:len(a)]
	for k, v := range a {
		s += v * p[c[k]]
	}
	return s
}

// cgDot4 returns the sums of four rows whose nonzeros are interleaved in
// a and c (a[4k+i] is the k-th of row i), each added in order, in four
// independent chains. It is kept out of line so that its loop has the
// registers to itself.
//
//go:noinline
func cgDot4[T cgIndex](a []float64, c []T, p []float64) (s0, s1, s2, s3 float64) {
	c = c[:len(a)]
	for k := 0; k+4 <= len(a); k += 4 {
		v := a[k : k+4 : k+4]
		i := c[k : k+4 : k+4]
		s0 += v[0] * p[i[0]]
		s1 += v[1] * p[i[1]]
		s2 += v[2] * p[i[2]]
		s3 += v[3] * p[i[3]]
	}
	return s0, s1, s2, s3
}
