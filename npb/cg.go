package npb

// CG: the conjugate gradient kernel of NPB 3.4 (MPI version, cg.f90).
//
// The inverse power method estimates the smallest eigenvalue of a random
// sparse symmetric positive definite matrix A (NPB's makea): each of niter
// outer iterations solves A·z = x approximately with 25 iterations of the
// conjugate gradient method (conj_grad), then sets
// zeta = shift + 1/(x·z) and x = z/||z||.
//
// The processes form a 2-D grid of nprows × npcols (npcols = nprows or
// 2·nprows); process (row, col) holds the block of A with the rows of its
// process row and the columns of its process column, and the vector
// pieces of its columns. The product q = A·p is formed in three steps, as
// cg.f90 does: the local block times the local piece of p gives partial
// sums for the block's rows; these are summed across the process row by
// recursive halving/doubling with point-to-point exchanges; and the
// summed row piece is exchanged with the transpose process, which turns it
// into the column piece of q. Dot products are summed across the process
// row by the same exchanges.
//
// Every sum is formed in cg.f90's order, so that ||r|| and zeta are NPB's
// bit for bit at every process count. The problem generation (makea) is
// in cg_makea.go; the local block's layout for the sparse product, the
// hot loop, in cg_spmv.go.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "CG", Run: runCG, Procs: PowerOfTwo, ProcsRule: "a power of two", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

const (
	cgRcond   = 0.1   // rcond: the diagonal added, bounding the smallest eigenvalue from below
	cgIters   = 25    // cgitmax: CG iterations per outer iteration
	cgEpsilon = 1e-10 // relative tolerance of the verification of zeta
)

// cgParams are a class's parameters (npbparams.h) and its verification
// value (cg.f90).
type cgParams struct {
	na, nonzer, niter int
	shift             float64
	zeta              float64 // zeta_verify_value
}

// cgClassParams returns the parameters of class.
func cgClassParams(class Class) (cgParams, bool) {
	switch class {
	case 'S':
		return cgParams{na: 1400, nonzer: 7, niter: 15, shift: 10, zeta: 8.5971775078648}, true
	case 'W':
		return cgParams{na: 7000, nonzer: 8, niter: 15, shift: 12, zeta: 10.362595087124}, true
	case 'A':
		return cgParams{na: 14000, nonzer: 11, niter: 15, shift: 20, zeta: 17.130235054029}, true
	case 'B':
		return cgParams{na: 75000, nonzer: 13, niter: 75, shift: 60, zeta: 22.712745482631}, true
	case 'C':
		return cgParams{na: 150000, nonzer: 15, niter: 75, shift: 110, zeta: 28.973605592845}, true
	}
	return cgParams{}, false
}

// cgOps is NPB's operation count of a run (the numerator of its Mop/s).
// Under declared computing (mpi.Compute) the compute phases declare it
// piece by piece, over the process's local vectors and block, which at one
// process adds up to cgOps per niter outer iterations; with more, the
// vector operations repeated in every process row and the row reduction's
// additions come on top.
func cgOps(p cgParams) float64 {
	nz := float64(p.nonzer) * float64(p.nonzer+1)
	return 2 * float64(p.niter) * float64(p.na) * (3 + nz + 25*(5+nz) + 3)
}

// cgGrid is one process's place in the process grid and its communication
// schedule (cg.f90's setup_proc_info and setup_submatrix_info). Rows and
// columns are NPB's global numbers, 1-based; starts of vector pieces are
// 0-based offsets into the local vectors.
type cgGrid struct {
	me               int
	npcols, nprows   int
	procRow, procCol int

	firstrow, lastrow int
	firstcol, lastcol int

	// The piece of the row sums this process sends to the transpose
	// process (and owns after the row reduction).
	sendStart, sendLen int
	exchProc           int // the transpose process
	exchRecvLen        int

	// The row reduction: l2npcols = log2(npcols) steps; step i exchanges
	// with reduceExchProc[i]. The vector reduction runs its steps from
	// the last to the first, the scalar ones from the first to the last.
	l2npcols         int
	reduceExchProc   []int
	reduceSendStarts []int
	reduceSendLens   []int
	reduceRecvStarts []int
	reduceRecvLens   []int
}

// cgProcGrid returns the grid dimensions for np processes, a power of two:
// npcols = nprows or 2·nprows (NPB's get_active_nprocs, kind 3).
func cgProcGrid(np int) (npcols, nprows int) {
	l := 0
	for 1<<(l+1) <= np {
		l++
	}
	return 1 << (l - l/2), 1 << (l / 2)
}

// cgNewGrid computes the partition and the schedules of process me of np
// for a matrix of order na (setup_submatrix_info).
func cgNewGrid(na, np, me int) *cgGrid {
	g := &cgGrid{me: me}
	g.npcols, g.nprows = cgProcGrid(np)
	g.procRow = me / g.npcols
	g.procCol = me - g.procRow*g.npcols
	g.setBlock(na)
	g.setTranspose()
	g.setReduceSchedule()
	g.exchRecvLen = g.lastcol - g.firstcol + 1
	return g
}

// cgSplit divides 1..n into parts pieces, the first n mod parts of them
// one longer, and returns the first element and the size of piece k: the
// partition of rows and columns where na does not divide evenly.
func cgSplit(n, parts, k int) (first, size int) {
	extra := n - n/parts*parts
	if k < extra {
		size = n/parts + 1
		return k*size + 1, size
	}
	size = n / parts
	return extra*(size+1) + (k-extra)*size + 1, size
}

// setBlock sets the rows and columns of the process's block of the matrix
// of order na: its process row's share of the rows and its process
// column's share of the columns, as setup_submatrix_info splits them.
func (g *cgGrid) setBlock(na int) {
	npcols, nprows := g.npcols, g.nprows
	if na/npcols*npcols == na {
		colSize := na / npcols
		g.firstcol = g.procCol*colSize + 1
		g.lastcol = g.firstcol - 1 + colSize
		rowSize := na / nprows
		g.firstrow = g.procRow*rowSize + 1
		g.lastrow = g.firstrow - 1 + rowSize
		return
	}
	first, size := cgSplit(na, nprows, g.procRow)
	g.firstrow, g.lastrow = first, first-1+size
	if npcols == nprows {
		first, size = cgSplit(na, npcols, g.procCol)
		g.firstcol, g.lastcol = first, first-1+size
		return
	}
	// Split like the rows, then halve each piece between the even and
	// the odd process column.
	first, size = cgSplit(na, npcols/2, g.procCol/2)
	if g.me%2 == 0 {
		g.firstcol, g.lastcol = first, first-1+(size-1)/2+1
	} else {
		g.firstcol = first + (size-1)/2 + 1
		g.lastcol = g.firstcol - 1 + size/2
	}
}

// setTranspose sets the piece of the row sums the process owns after the
// row reduction and sends to its transpose process, and that process:
// the exchange that turns a row piece of the product into a column piece.
func (g *cgGrid) setTranspose() {
	me, npcols, nprows := g.me, g.npcols, g.nprows
	nrows := g.lastrow - g.firstrow + 1
	if npcols == nprows {
		g.sendStart, g.sendLen = 0, nrows
	} else if me%2 == 0 {
		g.sendStart, g.sendLen = 0, (1+nrows)/2
	} else {
		g.sendStart, g.sendLen = (1+nrows)/2, nrows/2
	}

	if npcols == nprows {
		g.exchProc = me%nprows*nprows + me/nprows
	} else {
		g.exchProc = 2*(me/2%nprows*nprows+me/2/nprows) + me%2
	}
}

// setReduceSchedule sets the steps of the row reduction: the partner of
// each of the log2(npcols) exchanges and the pieces each sends and
// receives, so that every process ends with the sum over its send piece.
func (g *cgGrid) setReduceSchedule() {
	me, npcols, nprows := g.me, g.npcols, g.nprows
	nrows := g.lastrow - g.firstrow + 1
	for i := npcols / 2; i > 0; i /= 2 {
		g.l2npcols++
	}
	n := g.l2npcols
	g.reduceExchProc = make([]int, n)
	g.reduceSendStarts = make([]int, n)
	g.reduceSendLens = make([]int, n)
	g.reduceRecvStarts = make([]int, n)
	g.reduceRecvLens = make([]int, n)
	div := npcols
	for i := range n {
		j := (g.procCol+div/2)%div + g.procCol/div*div
		g.reduceExchProc[i] = g.procRow*npcols + j
		div /= 2
	}
	for i := n - 1; i >= 0; i-- {
		if nprows == npcols {
			g.reduceSendStarts[i] = g.sendStart
			g.reduceSendLens[i] = g.sendLen
			g.reduceRecvLens[i] = nrows
		} else {
			g.reduceRecvLens[i] = g.sendLen
			if i == n-1 {
				// The first step (with the neighbouring column) sends
				// the half the neighbour keeps.
				g.reduceSendLens[i] = nrows - g.sendLen
				if me%2 == 0 {
					g.reduceSendStarts[i] = g.sendStart + g.sendLen
				} else {
					g.reduceSendStarts[i] = 0
				}
			} else {
				g.reduceSendLens[i] = g.sendLen
				g.reduceSendStarts[i] = g.sendStart
			}
		}
		g.reduceRecvStarts[i] = g.sendStart
	}
}

// cgSolver is one process's part of the CG benchmark: its block of the
// matrix, its vector pieces and its communication buffers.
type cgSolver struct {
	c *mpi.Comm
	g *cgGrid

	block cgProduct // the local block of the matrix

	// Vector pieces over the local columns (length ncols): x, z, p, q, r;
	// w holds row sums (length nrows), recv the row reduction's incoming
	// pieces.
	x, z, p, q, r []float64
	w, recv       []float64

	sbuf, rbuf []float64 // the scalar exchanges' buffers

	// mul is the operations declared for one product by the local block
	// (cgOps's 2·nonzer·(nonzer+1) per row, times the block's share of a
	// row's columns): NPB counts nominal nonzeros, not the generated ones.
	mul float64
}

// cgNewSolver builds process c.Rank()'s part of the problem: its grid
// position and its block of NPB's matrix.
func cgNewSolver(c *mpi.Comm, pr cgParams) *cgSolver {
	g := cgNewGrid(pr.na, c.Size(), c.Rank())
	// NPB first draws one number from the generator (zeta = randlc(tran,
	// amult)), then makea continues the same stream.
	tran := float64(Seed)
	Randlc(&tran, A)
	m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &tran)
	nrows := g.lastrow - g.firstrow + 1
	ncols := g.lastcol - g.firstcol + 1
	vec := func(n int) []float64 { return make([]float64, n) }
	return &cgSolver{
		c:     c,
		g:     g,
		block: cgNewProduct(m, ncols),
		x:     vec(ncols),
		z:     vec(ncols),
		p:     vec(ncols),
		q:     vec(ncols),
		r:     vec(ncols),
		w:     vec(nrows),
		recv:  vec(nrows),
		sbuf:  vec(2),
		rbuf:  vec(2),
		mul:   2 * float64(pr.nonzer*(pr.nonzer+1)) * float64(nrows) * float64(ncols) / float64(pr.na),
	}
}

// rowSum sums v (one or two values) over the process row, leaving the sum
// on all of them: the exchanges with reduce_exch_proc that cg.f90 uses in
// place of mpi_allreduce, in its order of addition.
func (s *cgSolver) rowSum(v []float64) error {
	g := s.g
	sb, rb := s.sbuf[:len(v)], s.rbuf[:len(v)]
	for i := 0; i < g.l2npcols; i++ {
		copy(sb, v)
		if _, err := mpi.Sendrecv(s.c, sb, g.reduceExchProc[i], i+1, rb, g.reduceExchProc[i], i+1); err != nil {
			return err
		}
		for k := range v {
			v[k] += rb[k]
		}
	}
	return nil
}

// rowSum1 is rowSum of one value.
func (s *cgSolver) rowSum1(v float64) (float64, error) {
	b := [1]float64{v}
	err := s.rowSum(b[:])
	return b[0], err
}

// assemble turns the partial row sums in s.w into the column piece out of
// the full product: it sums w across the process row (each process ending
// with the sum over its send piece), then exchanges the piece with the
// transpose process, whose rows are this process's columns.
func (s *cgSolver) assemble(out []float64) error {
	g := s.g
	w := s.w
	for i := g.l2npcols - 1; i >= 0; i-- {
		ss, rs := g.reduceSendStarts[i], g.reduceRecvStarts[i]
		rb := s.recv[rs : rs+g.reduceRecvLens[i]]
		if _, err := mpi.Sendrecv(s.c, w[ss:ss+g.reduceSendLens[i]], g.reduceExchProc[i], i+1, rb, g.reduceExchProc[i], i+1); err != nil {
			return err
		}
		ws := w[g.sendStart : g.sendStart+len(rb)]
		for j, v := range rb {
			ws[j] += v
		}
		mpi.Compute(float64(len(rb))) // not in NPB's count: the partition's own
	}
	piece := w[g.sendStart : g.sendStart+g.sendLen]
	out = out[:g.exchRecvLen]
	if g.l2npcols == 0 || g.exchProc == g.me {
		// No transpose partner: the piece is already this process's
		// columns.
		copy(out, piece)
		return nil
	}
	_, err := mpi.Sendrecv(s.c, piece, g.exchProc, 1, out, g.exchProc, 1)
	return err
}

// conjGrad runs cgIters CG iterations on A·z = x from z = 0 and returns
// ||x - A·z|| (conj_grad).
func (s *cgSolver) conjGrad() (rnorm float64, err error) {
	rho, err := s.startCG()
	if err != nil {
		return 0, err
	}
	for range cgIters {
		if rho, err = s.stepCG(rho); err != nil {
			return 0, err
		}
	}
	return s.residualNorm()
}

// startCG sets up the CG iterations, z = 0 and p = r = x, and returns
// rho = r·r over the whole vector, which the first iteration needs.
func (s *cgSolver) startCG() (rho float64, err error) {
	x, z, p, r := s.x, s.z, s.p, s.r
	n := len(x)
	z, p, r = z[:n], p[:n], r[:n]
	for j := range z {
		z[j] = 0
	}
	copy(r, x)
	copy(p, r)

	// rho = r·r
	sum := 0.0
	for _, v := range r {
		sum += v * v
	}
	mpi.Compute(2 * float64(n))
	return s.rowSum1(sum)
}

// stepCG is one CG iteration: q = A·p, then z, r and p updated by the
// step lengths alpha and beta. It takes rho = r·r and returns the new
// one, which the next iteration takes.
func (s *cgSolver) stepCG(rho float64) (float64, error) {
	x, z, p, q, r := s.x, s.z, s.p, s.q, s.r
	n := len(x)
	z, p, q, r = z[:n], p[:n], q[:n], r[:n]

	// q = A·p
	s.block.mul(p, s.w)
	mpi.Compute(s.mul)
	if err := s.assemble(q); err != nil {
		return 0, err
	}

	// alpha = rho / (p·q)
	sum := 0.0
	for j, v := range p {
		sum += v * q[j]
	}
	d, err := s.rowSum1(sum)
	if err != nil {
		return 0, err
	}
	alpha := rho / d
	rho0 := rho

	// z = z + alpha·p, r = r - alpha·q, and rho = r·r (fused: each
	// element is computed as in the separate loops of cg.f90, and the
	// sum is in the same order).
	sum = 0
	for j := range r {
		z[j] += alpha * p[j]
		rj := r[j] - alpha*q[j]
		r[j] = rj
		sum += rj * rj
	}
	if rho, err = s.rowSum1(sum); err != nil {
		return 0, err
	}

	// p = r + beta·p
	beta := rho / rho0
	for j, v := range r {
		p[j] = v + beta*p[j]
	}
	mpi.Compute(10 * float64(n)) // the five vector operations, 2 each
	return rho, nil
}

// residualNorm returns ||x - A·z||, the measure of how far the CG
// iterations are from solving A·z = x, with A·z formed into r.
func (s *cgSolver) residualNorm() (float64, error) {
	x, r := s.x, s.r
	n := len(x)
	r = r[:n]
	s.block.mul(s.z[:n], s.w)
	mpi.Compute(s.mul)
	if err := s.assemble(r); err != nil {
		return 0, err
	}
	sum := 0.0
	for j, v := range x {
		d := v - r[j]
		sum += d * d
	}
	mpi.Compute(4 * float64(n))
	d, err := s.rowSum1(sum)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(d), nil
}

// powerStep is one outer iteration of the inverse power method after
// conj_grad: it returns x·z and sets x = z/||z||.
func (s *cgSolver) powerStep() (xz float64, err error) {
	x, z := s.x, s.z
	z = z[:len(x)]
	var t [2]float64
	for j, v := range z {
		t[0] += x[j] * v
		t[1] += v * v
	}
	if err := s.rowSum(t[:]); err != nil {
		return 0, err
	}
	norm := 1 / math.Sqrt(t[1])
	for j, v := range z {
		x[j] = norm * v
	}
	mpi.Compute(6 * float64(len(x)))
	return t[0], nil
}

// cgOnes sets every element of v to 1 (the starting vector).
func cgOnes(v []float64) {
	for j := range v {
		v[j] = 1
	}
}

// runCG runs CG of class on the processes of c (cg.f90's main program):
// the matrix generation, one untimed outer iteration, then the timed
// niter outer iterations and the verification of the last zeta.
func runCG(c *mpi.Comm, class Class, o Options) (*Result, error) {
	pr, ok := cgClassParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: cg: class %v: %w", class, ErrUnsupported)
	}
	if !PowerOfTwo(c.Size()) {
		return nil, fmt.Errorf("npb: cg: %d processes: %w (want a power of two)", c.Size(), ErrUnsupported)
	}
	s := cgNewSolver(c, pr)
	if err := s.warmUp(); err != nil {
		return nil, fmt.Errorf("npb: cg: %w", err)
	}
	rnorms, zetas, secs, err := s.timedIterations(pr)
	if err != nil {
		return nil, fmt.Errorf("npb: cg: %w", err)
	}
	return cgResult(c, class, pr, o, secs, rnorms, zetas), nil
}

// warmUp runs one untimed outer iteration to touch all code and data, then
// resets x to (1, ..., 1) for the timed ones and waits for all processes.
func (s *cgSolver) warmUp() error {
	cgOnes(s.x)
	if _, err := s.conjGrad(); err != nil {
		return err
	}
	if _, err := s.powerStep(); err != nil {
		return err
	}
	cgOnes(s.x)
	return mpi.Barrier(s.c)
}

// timedIterations runs the timed niter outer iterations and returns ||r||
// and zeta of each, for NPB's iteration table, and the largest time over
// the processes (on rank 0).
func (s *cgSolver) timedIterations(pr cgParams) (rnorms, zetas []float64, secs float64, err error) {
	rnorms = make([]float64, pr.niter)
	zetas = make([]float64, pr.niter)
	start := mpi.Wtime()
	for it := range pr.niter {
		rnorm, err := s.conjGrad()
		if err != nil {
			return nil, nil, 0, err
		}
		xz, err := s.powerStep()
		if err != nil {
			return nil, nil, 0, err
		}
		rnorms[it], zetas[it] = rnorm, pr.shift+1/xz
	}
	t := []float64{mpi.Wtime() - start}
	tmax := []float64{0}
	if err := mpi.Reduce(s.c, t, tmax, mpi.Max, 0); err != nil {
		return nil, nil, 0, err
	}
	return rnorms, zetas, tmax[0], nil
}

// cgResult returns the result of a run of secs seconds; on rank 0 it
// verifies the last zeta and reports NPB's iteration table of ||r|| and
// zeta with the verification.
func cgResult(c *mpi.Comm, class Class, pr cgParams, o Options, secs float64, rnorms, zetas []float64) *Result {
	res := &Result{
		Kernel:     "CG",
		Class:      class,
		Size:       strconv.Itoa(pr.na),
		Iterations: pr.niter,
		NP:         c.Size(),
		Seconds:    secs,
		Mops:       Mops(cgOps(pr), secs),
		Operation:  "floating point",
	}
	if c.Rank() != 0 {
		return res
	}
	zeta := zetas[pr.niter-1]
	if o.Corrupt {
		zeta *= 1 + 1e-6
	}
	var b strings.Builder
	b.WriteString("   iteration           ||r||                 zeta\n")
	for it := range pr.niter {
		fmt.Fprintf(&b, "    %5d      %s%20.13f\n", it+1, fortranE(rnorms[it], 14, 21), zetas[it])
	}
	res.Verified = cgVerify(&b, zeta, pr.zeta)
	res.Detail = b.String()
	return res
}

// cgVerify compares zeta with the class's value as cg.f90 does and writes
// NPB's verification lines to b.
func cgVerify(b *strings.Builder, zeta, want float64) bool {
	err := RelErr(zeta, want)
	ok := err <= cgEpsilon // false for NaN
	if ok {
		b.WriteString(" VERIFICATION SUCCESSFUL\n")
		fmt.Fprintf(b, " Zeta is    %s\n", fortranE(zeta, 13, 20))
		fmt.Fprintf(b, " Error is   %s\n", fortranE(err, 13, 20))
	} else {
		b.WriteString(" VERIFICATION FAILED\n")
		fmt.Fprintf(b, " Zeta                %s\n", fortranE(zeta, 13, 20))
		fmt.Fprintf(b, " The correct zeta is %s\n", fortranE(want, 13, 20))
		fmt.Fprintf(b, " Error is            %s\n", fortranE(err, 13, 20))
	}
	return ok
}
