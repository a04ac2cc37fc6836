package npb

import "math"

// The CG problem: NPB's makea, sprnvc, vecset and sparse. The matrix is
//
//	A = Σ_{i=1..n} size_i · v_i·v_iᵀ + (rcond - shift)·I
//
// with size_i = rcond^((i-1)/n) and v_i a random sparse vector of nonzer
// random elements at random positions, with element i set to 0.5. Every
// process draws the whole sequence of random vectors, in NPB's order, and
// keeps the elements of its block; the elements of each row are then
// summed in the order NPB's bucket sort and duplicate elimination give
// them, so that each row's nonzeros, values and order are NPB's.

// cgMatrix is a block of the matrix in CSR form: the nonzeros of local row
// j (global row firstrow+j) are a[rowstr[j]:rowstr[j+1]], in local columns
// colidx (global column firstcol+colidx).
type cgMatrix struct {
	rowstr []int
	colidx []uint32
	a      []float64
}

// cgSparseVectors are the n random sparse vectors of makea, each with at
// most nonzer+1 elements, stored with a stride of nonzer+1: vector i has
// elements val[i*stride:][:n[i]] at global positions idx[i*stride:][:n[i]]
// (1-based).
type cgSparseVectors struct {
	stride int
	n      []int
	idx    []int32
	val    []float64
}

// cgSprnvc draws the n sparse vectors as makea does, calling sprnvc for
// nonzer elements and then vecset to set element i (1-based) to 0.5, from
// the generator state *tran.
func cgSprnvc(n, nonzer int, tran *float64) *cgSparseVectors {
	stride := nonzer + 1
	sv := &cgSparseVectors{
		stride: stride,
		n:      make([]int, n),
		idx:    make([]int32, n*stride),
		val:    make([]float64, n*stride),
	}
	// nn1 is the smallest power of two not less than n (and at least 2).
	nn1 := 1
	for {
		nn1 *= 2
		if nn1 >= n {
			break
		}
	}
	mark := make([]bool, n+1)
	for i := range n {
		idx := sv.idx[i*stride : (i+1)*stride]
		val := sv.val[i*stride : (i+1)*stride]
		// sprnvc: nonzer distinct random positions in 1..n, each with a
		// random value (drawn before the position, also when the position
		// is rejected).
		nzv := 0
		for nzv < nonzer {
			vecelt := Randlc(tran, A)
			vecloc := Randlc(tran, A)
			k := int(float64(nn1)*vecloc) + 1 // icnvrt
			if k > n || mark[k] {
				continue
			}
			mark[k] = true
			idx[nzv] = int32(k)
			val[nzv] = vecelt
			nzv++
		}
		for _, k := range idx[:nzv] {
			mark[k] = false
		}
		// vecset: element i+1 becomes 0.5, added if absent.
		set := false
		for k := range nzv {
			if int(idx[k]) == i+1 {
				val[k] = 0.5
				set = true
			}
		}
		if !set {
			idx[nzv] = int32(i + 1)
			val[nzv] = 0.5
			nzv++
		}
		sv.n[i] = nzv
	}
	return sv
}

// cgMakea builds the block of g of NPB's matrix of order n (makea, then
// sparse), drawing from the generator state *tran.
//
// makea lists the elements (row, column, value) of the outer products in
// its block, then the diagonal; sparse bucket-sorts them by row, keeping
// their order within a row, and sums the duplicates. Here a first pass
// counts the elements of each row (cgRowStarts), a second puts them in
// place (cgPlaceElements) and a third sums them (cgSumDuplicates).
func cgMakea(n, nonzer int, shift float64, g *cgGrid, tran *float64) *cgMatrix {
	sv := cgSprnvc(n, nonzer, tran)
	rowstr := cgRowStarts(sv, n, g)
	a, colidx := cgPlaceElements(sv, n, shift, g, rowstr)
	nza := cgSumDuplicates(rowstr, colidx, a, g.lastcol-g.firstcol+1)
	return &cgMatrix{rowstr: rowstr, colidx: colidx[:nza:nza], a: a[:nza:nza]}
}

// cgRowStarts counts the elements makea lists in each row of g's block
// (those of the outer products of the n vectors of sv, and the diagonal)
// and returns where each row's elements start, rowstr[j] for local row j,
// with rowstr[nrows] the count of all: the bucket sort's first pass, which
// sizes the arrays before the elements are placed.
func cgRowStarts(sv *cgSparseVectors, n int, g *cgGrid) []int {
	nrows := g.lastrow - g.firstrow + 1
	rowstr := make([]int, nrows+1)
	inRows := func(k int32) bool { return int(k) >= g.firstrow && int(k) <= g.lastrow }
	inCols := func(k int32) bool { return int(k) >= g.firstcol && int(k) <= g.lastcol }
	for i := range n {
		idx := sv.idx[i*sv.stride:][:sv.n[i]]
		for _, jcol := range idx {
			if !inCols(jcol) {
				continue
			}
			for _, irow := range idx {
				if inRows(irow) {
					rowstr[int(irow)-g.firstrow+1]++
				}
			}
		}
	}
	for i := g.firstrow; i <= g.lastrow; i++ {
		if i >= g.firstcol && i <= g.lastcol {
			rowstr[i-g.firstrow+1]++
		}
	}
	for j := 1; j <= nrows; j++ {
		rowstr[j] += rowstr[j-1]
	}
	return rowstr
}

// cgPlaceElements lists makea's elements of g's block into their rows, as
// cgRowStarts counted them: the outer products size_i·v_i·v_iᵀ of the n
// vectors of sv, in makea's order, then the diagonal. It returns the
// values and local columns, row by row from rowstr's starts, duplicates
// not yet summed.
func cgPlaceElements(sv *cgSparseVectors, n int, shift float64, g *cgGrid, rowstr []int) (a []float64, colidx []uint32) {
	nrows := g.lastrow - g.firstrow + 1
	ratio := math.Pow(cgRcond, 1/float64(n))
	inRows := func(k int32) bool { return int(k) >= g.firstrow && int(k) <= g.lastrow }
	inCols := func(k int32) bool { return int(k) >= g.firstcol && int(k) <= g.lastcol }
	nnza := rowstr[nrows]
	a = make([]float64, nnza)
	colidx = make([]uint32, nnza)
	next := make([]int, nrows)
	copy(next, rowstr[:nrows])

	size := 1.0
	for i := range n {
		idx := sv.idx[i*sv.stride:][:sv.n[i]]
		val := sv.val[i*sv.stride:][:sv.n[i]]
		for ivelt, jcol := range idx {
			if !inCols(jcol) {
				continue
			}
			scale := size * val[ivelt]
			for ivelt1, irow := range idx {
				if !inRows(irow) {
					continue
				}
				j := int(irow) - g.firstrow
				k := next[j]
				next[j]++
				a[k] = val[ivelt1] * scale
				colidx[k] = uint32(int(jcol) - g.firstcol)
			}
		}
		size *= ratio
	}
	// The diagonal shifted by rcond - shift: the smallest eigenvalue of
	// the sum of outer products is bounded below by rcond.
	for i := g.firstrow; i <= g.lastrow; i++ {
		if i >= g.firstcol && i <= g.lastcol {
			j := i - g.firstrow
			k := next[j]
			next[j]++
			a[k] = cgRcond - shift
			colidx[k] = uint32(i - g.firstcol)
		}
	}
	return a, colidx
}

// cgSumDuplicates is sparse's summing of the duplicates of each row, in
// place in a and colidx, over a block of ncols columns, so that each row
// holds NPB's nonzeros in NPB's order. The row's distinct columns keep
// the order in which their sums first became nonzero; columns whose sum is
// zero are dropped. It updates rowstr to the summed rows and returns the
// number of nonzeros left.
func cgSumDuplicates(rowstr []int, colidx []uint32, a []float64, ncols int) int {
	nrows := len(rowstr) - 1
	x := make([]float64, ncols)
	mark := make([]bool, ncols)
	nzloc := make([]uint32, 0, ncols)
	nza := 0
	lo := 0
	for j := range nrows {
		hi := rowstr[j+1]
		nzloc = nzloc[:0]
		for k := lo; k < hi; k++ {
			c := colidx[k]
			x[c] += a[k]
			if !mark[c] && x[c] != 0 {
				mark[c] = true
				nzloc = append(nzloc, c)
			}
		}
		for _, c := range nzloc {
			mark[c] = false
			xi := x[c]
			x[c] = 0
			if xi != 0 {
				a[nza] = xi
				colidx[nza] = c
				nza++
			}
		}
		lo = hi
		rowstr[j+1] = nza
	}
	return nza
}
