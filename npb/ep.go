package npb

// EP, the "embarrassingly parallel" kernel of NPB 3.4 (EP/ep.f90,
// EP/ep_data.f90, EP/verify.f90): generate 2^(M+1) uniform pseudo-random
// numbers with NPB's generator, turn the pairs into Gaussian deviates by
// the Marsaglia polar (acceptance-rejection) method, count them in the
// square annuli l ≤ max(|X|, |Y|) < l+1 and sum |X| and |Y|.
//
// The numbers come in 2^(M-MK) batches of 2·NK = 2^(MK+1) numbers. Batch kk
// starts at the seed S·AN^kk, AN = A^(2·NK), so every process jumps
// straight to the batches it owns; the process count changes only the
// order in which the per-batch sums are added, never the numbers.

import (
	"fmt"
	"math"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "EP", Run: runEP, Procs: AnyProcs, ProcsRule: "at least one process", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

const (
	// epMK is log2 of the batch size in pairs (ep_data.f90: mk = 16; it
	// does not change the results).
	epMK = 16
	// epNK is the number of pairs in a batch, 2^MK.
	epNK = 1 << epMK
	// epNQ is the number of annuli counted (nq).
	epNQ = 10
	// epSeed is EP's starting seed s (not the usual Seed of the other
	// kernels).
	epSeed = 271828183
	// epEpsilon is the relative tolerance of verify.f90.
	epEpsilon = 1e-8
)

// epClassParams are a class's M (log2 of the number of pairs) and the
// reference sums and pair count of verify.f90.
type epClassParams struct {
	m          int
	sx, sy, gc float64
}

// epParams returns the parameters of class, as npbparams.h and verify.f90
// define them.
func epParams(class Class) (epClassParams, bool) {
	switch class {
	case 'S':
		return epClassParams{24, 1.051299420395306e+07, 1.051517131857535e+07, 13176389}, true
	case 'W':
		return epClassParams{25, 2.102505525182392e+07, 2.103162209578822e+07, 26354769}, true
	case 'A':
		return epClassParams{28, 1.682235632304711e+08, 1.682195123368299e+08, 210832767}, true
	case 'B':
		return epClassParams{30, 6.728927543423024e+08, 6.728951822504275e+08, 843345606}, true
	case 'C':
		return epClassParams{32, 2.691444083862931e+09, 2.691519118724585e+09, 3373275903}, true
	}
	return epClassParams{}, false
}

// epShare returns the first batch and the number of batches of rank among
// np processes sharing nn batches: the first nn mod np ranks take one
// batch more (ep.f90's np, np_add and k_offset).
func epShare(nn, np, rank int) (first, count int) {
	count = nn / np
	large := nn % np
	if rank < large {
		count++
		return rank * count, count
	}
	return large*(count+1) + (rank-large)*count, count
}

// epSums holds one process's tallies: the annulus counts q(0:nq-1), kept
// as integers (NPB keeps them in doubles; both are exact), and the sums
// sx, sy. q has spare room up to 16 annuli so that the index can be masked
// instead of bounds-checked in the inner loop; a pair never reaches the
// spare annuli (every uniform number of the generator is an odd multiple
// of 2^-46, so t = x1²+x2² ≥ 2^-90 and max(|X|, |Y|) < 12).
type epSums struct {
	q      [16]int64
	sx, sy float64
}

// epChunk is how many accepted pairs go through the staged Gaussian loop
// at a time; its scratch arrays stay in L1.
const epChunk = 128

// epWork is one process's scratch space, allocated before the timed part.
type epWork struct {
	x          []float64 // the accepted pairs of a batch, x1 x2 x1 x2 …
	f, s, k, g [epChunk]float64
	l          [epChunk]int32 // the annuli of the pairs epGauss finishes
}

// epBatches generates batches first … first+count-1 and adds their
// Gaussian pairs into s (ep.f90, loop 150). It computes exactly what
// ep.f90 computes, in the same floating-point operations; only the work is
// arranged differently, for speed:
//
//   - the uniform numbers of a batch are generated and paired in one loop
//     that keeps only the accepted pairs (t ≤ 1), without a branch
//     (epAccepted, for vranlc and the test of loop 140);
//   - the accepted pairs then go through loop 140's body in chunks, in
//     stages over small arrays (log argument reduction and its division,
//     the rest of log, sqrt and its division, then the tallies), so that
//     the long dependency chain of one pair overlaps with many others
//     instead of stalling on divisions;
//   - log is math.Log's algorithm written out in the loop (epLogReduce,
//     epLogFinish): the same operations, so bit for bit the same values,
//     without a call per pair;
//   - with AVX2, the generation, the first two stages and the deviates
//     |X|, |Y| with their annuli run four pairs at a time in assembly
//     (ep_simd_amd64.s), again in the same operations; the tallies stay
//     in Go, the sums in the order of the pairs (epTally).
func epBatches(s *epSums, w *epWork, first, count int) {
	// AN = A^(2·NK) mod 2^46 jumps one batch ahead (ep.f90, loop 100:
	// MK+1 squarings of A).
	an := Pow46(A, 2*epNK)
	sx, sy := s.sx, s.sy
	for k := first; k < first+count; k++ {
		// The starting seed of batch k is S·AN^k (ep.f90, loop 120, by
		// binary powering; exact in integer form).
		seed := uint64(epSeed) * uint64(Pow46(an, int64(k))) & mod46
		y := w.x[:epAccepted(w.x, seed)]

		// Loop 140 on the accepted pairs, epChunk at a time.
		for len(y) > 0 {
			m := min(len(y)/2, epChunk)
			p, g := y[:2*m], w.g[:m]
			// Stages 1 and 2: the factor sqrt(-2·log(t)/t) of each pair,
			// and for the first d pairs already the deviates.
			d := epGauss(w, g, p)
			// Stage 3: the annuli and the sums.
			sx, sy = epTally(&s.q, sx, sy, p, g, w.l[:d])
			y = y[2*m:]
		}
	}
	s.sx, s.sy = sx, sy
}

// epTally is stage 3 of loop 140 on a chunk: it counts the pairs of p in
// their annuli in q and adds their |X| and |Y| to sx and sy, in the order
// of the pairs, and returns the sums. The first len(l) pairs of p are
// finished already (epGauss): they hold |X|, |Y|, and l their annuli;
// the others hold x1, x2, and g their factors, X = x1·g, Y = x2·g.
func epTally(q *[16]int64, sx, sy float64, p, g []float64, l []int32) (float64, float64) {
	p = p[:2*len(g)]
	// Four finished pairs at a time, through arrays: no bounds checks.
	j := 0
	for ; j+4 <= len(l); j += 4 {
		lj := (*[4]int32)(l[j:])
		d := (*[8]float64)(p[2*j:])
		q[lj[0]&15]++
		q[lj[1]&15]++
		q[lj[2]&15]++
		q[lj[3]&15]++
		sx += d[0]
		sy += d[1]
		sx += d[2]
		sy += d[3]
		sx += d[4]
		sy += d[5]
		sx += d[6]
		sy += d[7]
	}
	for ; j < len(l); j++ {
		q[l[j]&15]++
		sx += p[2*j]
		sy += p[2*j+1]
	}
	for ; j < len(g); j++ {
		gj := g[j]
		t3 := math.Abs(p[2*j] * gj)
		t4 := math.Abs(p[2*j+1] * gj)
		// int(max(t3, t4)) = max(int(t3), int(t4)) for t3, t4 ≥ 0, but
		// without a branch.
		q[int(max(t3, t4))&15]++
		sx += t3
		sy += t4
	}
	return sx, sy
}

// epGaussGo sets g[j] = sqrt(-2·log(t)/t), t = x1²+x2², for the pairs
// x1, x2 of p (len(p) = 2·len(g) ≤ 2·epChunk), in two stages over w's
// scratch arrays: log's argument reduction and its division, then the
// rest of log, the division by t and sqrt. epGauss runs it on what the
// assembly does not do.
func epGaussGo(w *epWork, g, p []float64) {
	m := len(g)
	p = p[:2*m]
	f, sd, kd := w.f[:m], w.s[:m], w.k[:m]
	// Stage 1: log's argument reduction and its division.
	for j := range f {
		x1, x2 := p[2*j], p[2*j+1]
		kd[j], f[j], sd[j] = epLogReduce(epNorm(x1, x2))
	}
	// Stage 2: the rest of log(t), then sqrt(-2·log(t)/t).
	for j := range g {
		x1, x2 := p[2*j], p[2*j+1]
		t := epNorm(x1, x2)
		g[j] = math.Sqrt(-2 * epLogFinish(kd[j], f[j], sd[j]) / t)
	}
}

// epAcceptedGo generates the batch of 2·NK uniform numbers that starts
// after state seed (NPB's vranlc(2·nk, t1, a, x)), forms the pairs
// x1 = 2·x(2i-1)-1, x2 = 2·x(2i)-1 of ep.f90's loop 140, and stores in x,
// in order, the pairs with x1²+x2² ≤ 1; it returns how many numbers it
// stored (twice the number of pairs). epAccepted runs it without AVX2.
//
// The generator runs as in Vranlc but a pair at a time: the second number
// of pair i+1 is the second of pair i times A², the first is that times A,
// so the serial chain of multiplications is half as long. A rejected pair
// is written too, then overwritten: no branch to mispredict.
func epAcceptedGo(x []float64, seed uint64) int {
	const a2 = uint64(A) * uint64(A) & mod46
	x = x[:2*epNK]
	n := 0
	u := seed
	for range epNK {
		v := u * A & mod46
		u = u * a2 & mod46
		x1 := 2*(float64(v)*r46) - 1
		x2 := 2*(float64(u)*r46) - 1
		x[n&(2*epNK-1)] = x1
		x[(n+1)&(2*epNK-1)] = x2
		d := 0
		if epNorm(x1, x2) <= 1 {
			d = 2
		}
		n += d
	}
	return n
}

// epNorm is t = x1²+x2², each square rounded (not fused into the add).
func epNorm(x1, x2 float64) float64 { return float64(x1*x1) + float64(x2*x2) }

// The log of math.Log (fdlibm's e_log.c): log(t) = k·ln2 + log(1+f) with
// 1+f in [√2/2, √2), log(1+f) = f - hfsq + s·(hfsq+R(s²)), s = f/(2+f).
const (
	epLn2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	epLn2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	epL1    = 6.666666666666735130e-01   // 0x3FE5555555555593
	epL2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
	epL3    = 2.857142874366239149e-01   // 0x3FD2492494229359
	epL4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	epL5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	epL6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	epL7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
	// epHalfSqrt2 is the bit pattern of √2/2.
	epHalfSqrt2 = 0x3FE6A09E667F3BCD
)

// epLogReduce is the first half of math.Log for a normal positive t: t =
// 2^k·(1+f) with 1+f in [√2/2, √2), and s = f/(2+f). math.Log takes the
// fraction in [1/2, 1) and doubles it below √2/2; adding 2^52 − the
// fraction bits of √2/2 to the bits of t makes the same choice without a
// branch (musl's log does the same).
func epLogReduce(t float64) (k, f, s float64) {
	b := math.Float64bits(t) + (0x3FF0000000000000 - epHalfSqrt2)
	k = float64(int(b>>52) - 0x3FF)
	f = math.Float64frombits(b&(1<<52-1)+epHalfSqrt2) - 1
	return k, f, f / (2 + f)
}

// epLogFinish is the second half of math.Log: log(t) from epLogReduce's k,
// f, s.
//
// Every product is converted explicitly: the compiler may otherwise fuse
// a multiply and an add (with GOAMD64=v3, say), which rounds once where
// math.Log and the assembly round twice.
func epLogFinish(k, f, s float64) float64 {
	s2 := s * s
	s4 := s2 * s2
	r7 := float64(s4 * epL7)
	r5 := float64(s4 * (epL5 + r7))
	r3 := float64(s4 * (epL3 + r5))
	odd := float64(s2 * (epL1 + r3))
	r6 := float64(s4 * epL6)
	r4 := float64(s4 * (epL4 + r6))
	even := float64(s4 * (epL2 + r4))
	r := odd + even
	hfsq := float64(0.5 * f * f)
	return float64(k*epLn2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*epLn2Lo))) - f)
}

// runEP runs EP of class on the processes of c.
func runEP(c *mpi.Comm, class Class, o Options) (*Result, error) {
	p, ok := epParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: ep: class %v: %w", class, ErrUnsupported)
	}
	np, rank := c.Size(), c.Rank()
	nn := 1 << (p.m - epMK) // number of batches
	if np > nn {
		return nil, fmt.Errorf("npb: ep: %d processes for %d batches: %w", np, nn, ErrUnsupported)
	}
	first, count := epShare(nn, np, rank)
	t, secs, err := epTimed(c, epNewWork(), first, count)
	if err != nil {
		return nil, err
	}

	if o.Corrupt {
		t.sx *= 1 + 1e-6
	}
	r := &Result{
		Kernel:     "EP",
		Class:      class,
		Size:       fmt.Sprintf("%.0f", math.Ldexp(1, p.m+1)),
		Iterations: 0,
		NP:         np,
		Seconds:    secs,
		Mops:       Mops(math.Ldexp(1, p.m+1), secs),
		Operation:  "Random numbers generated",
	}
	if rank != 0 {
		return r, nil
	}
	r.Verified, r.Detail = epVerify(p, t, secs)
	return r, nil
}

// epNewWork allocates a process's scratch space and touches it, so that
// the timed part finds it ready, as ep.f90 does for x.
func epNewWork() *epWork {
	w := &epWork{x: make([]float64, 2*epNK)}
	for i := range w.x {
		w.x[i] = -1e99
	}
	return w
}

// epTotals are the tallies summed over all processes: the annulus counts
// q, the sums sx and sy of |X| and |Y|, and the number of pairs gc.
type epTotals struct {
	q          []float64
	sx, sy, gc float64
}

// epTimed is the timed part: it generates batches first …
// first+count-1 with w's scratch space, sums the tallies over the
// processes, and returns them with the largest time over the processes.
func epTimed(c *mpi.Comm, w *epWork, first, count int) (epTotals, float64, error) {
	var s epSums
	local := make([]float64, epNQ+2)
	total := make([]float64, epNQ+2)

	if err := mpi.Barrier(c); err != nil {
		return epTotals{}, 0, fmt.Errorf("npb: ep: %w", err)
	}
	start := mpi.Wtime() // NPB times with MPI_Wtime: virtual time under -clock virtual

	epBatches(&s, w, first, count)
	mpi.Compute(float64(count) * 2 * epNK) // NPB's count: the numbers generated

	// Combine the tallies: ep.f90 does three Allreduces (sx, sy, q); one
	// of nq+2 numbers gives the same sums.
	for i, n := range s.q[:epNQ] {
		local[i] = float64(n)
	}
	local[epNQ], local[epNQ+1] = s.sx, s.sy
	if err := mpi.Allreduce(c, local, total, mpi.Sum); err != nil {
		return epTotals{}, 0, fmt.Errorf("npb: ep: allreduce: %w", err)
	}
	t := epTotals{q: total[:epNQ], sx: total[epNQ], sy: total[epNQ+1]}
	for _, v := range t.q {
		t.gc += v
	}
	elapsed := []float64{mpi.Wtime() - start}
	tm := make([]float64, 1)
	if err := mpi.Allreduce(c, elapsed, tm, mpi.Max); err != nil {
		return epTotals{}, 0, fmt.Errorf("npb: ep: allreduce: %w", err)
	}
	return t, tm[0], nil
}

// epVerify verifies the totals t as verify.f90 does, sx and sy within
// epsilon, then the number of pairs gc, and returns the verdict with rank
// 0's report of the run of secs seconds: the sums, the counts and their
// comparison with the reference.
func epVerify(p epClassParams, t epTotals, secs float64) (bool, string) {
	sxErr, syErr, gcErr := RelErr(t.sx, p.sx), RelErr(t.sy, p.sy), RelErr(t.gc, p.gc)
	verified := sxErr <= epEpsilon && syErr <= epEpsilon && gcErr <= epEpsilon

	var b strings.Builder
	fmt.Fprintf(&b, " EP Benchmark Results:\n\n")
	fmt.Fprintf(&b, " CPU Time =%10.3f\n", secs)
	fmt.Fprintf(&b, " N = 2^%5d\n", p.m)
	fmt.Fprintf(&b, " No. Gaussian Pairs =%15.0f\n", t.gc)
	fmt.Fprintf(&b, " Sums = %25.15E%25.15E\n", t.sx, t.sy)
	fmt.Fprintf(&b, " Counts:\n")
	for i, v := range t.q {
		fmt.Fprintf(&b, " %3d%15.0f\n", i, v)
	}
	fmt.Fprintf(&b, "\n Verification values (epsilon %.1E):\n", epEpsilon)
	fmt.Fprintf(&b, "   sx: computed %22.15E  reference %22.15E  error %.3E\n", t.sx, p.sx, sxErr)
	fmt.Fprintf(&b, "   sy: computed %22.15E  reference %22.15E  error %.3E\n", t.sy, p.sy, syErr)
	fmt.Fprintf(&b, "   gc: computed %22.0f  reference %22.0f  error %.3E\n", t.gc, p.gc, gcErr)
	return verified, b.String()
}
