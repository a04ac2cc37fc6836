package mpi_test

// Multi-process tests of the collective operations: every reduction with
// every operation and element type, the data-movement collectives, every
// algorithm (forced with mpirun -coll), argument mismatches and the
// nonblocking collectives. Every rank computes the expected results
// itself, naively, from inputs every rank can generate for every other.
// The communicator tests are in comm_test.go.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["coll-reduce-int"] = func(w *mpi.Comm) error { return scenarioReductions(w, "int") }
	scenarios["coll-reduce-float"] = func(w *mpi.Comm) error { return scenarioReductions(w, "float") }
	scenarios["coll-reduce-user"] = func(w *mpi.Comm) error { return scenarioReductions(w, "user") }
	scenarios["coll-move"] = scenarioMovement
	scenarios["coll-algs"] = scenarioAlgorithms
	scenarios["coll-mismatch"] = scenarioMismatch
	scenarios["coll-ahead"] = scenarioRunAhead
	scenarios["coll-nonblocking"] = scenarioCollNonblocking
}

// collSizes are the communicator sizes of the collective tests: 1, 2, 3
// and 5 (no powers of two), 8 (more ranks than this machine's cores).
// Under the race detector, heavy scenarios leave 5 and 8 out and the
// others 8.
func collSizes(heavy bool) []int {
	switch {
	case raceEnabled && heavy:
		return []int{1, 2, 3}
	case raceEnabled:
		return []int{1, 2, 3, 5}
	}
	return []int{1, 2, 3, 5, 8}
}

func TestCollectiveReductions(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"coll-reduce-int", "coll-reduce-float", "coll-reduce-user"} {
		t.Run(strings.TrimPrefix(name, "coll-reduce-"), func(t *testing.T) {
			t.Parallel()
			runAt(t, name, collSizes(true))
		})
	}
}

func TestCollectiveMovement(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-move", collSizes(true))
}

// TestCollectiveRunAhead runs many small broadcasts and reductions to a
// root, with rotating roots, at process counts above the cores (where
// they run ahead of their check through the barrier's ring, nicemu's
// RecordRingDepth generations deep) and at 2.
func TestCollectiveRunAhead(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-ahead", []int{2, 3, 5, 8})
	// With a core each (-tune generic:16 tells the ranks so), from 8
	// processes the broadcasts of a data word alone run ahead; a
	// difference in such a broadcast is still reported.
	for _, name := range []string{"coll-ahead", "coll-mismatch"} {
		t.Run("words-"+strings.TrimPrefix(name, "coll-"), func(t *testing.T) {
			t.Parallel()
			runAt(t, name, []int{8}, "-tune", "generic:16")
		})
	}
}

func TestCollectiveMismatch(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-mismatch", collSizes(false))
}

func TestCollectiveNonblocking(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-nonblocking", collSizes(false))
}

// TestCollectiveAlgorithms runs a smaller reduction and data-movement
// scenario once per algorithm of every collective, forced with mpirun
// -coll; then with an algorithm of every collective forced at once, in
// turn, at other sizes; and once each without the argument check and
// without the NIC's offload. Under the race detector, only the jobs that
// force every collective's algorithm at once run.
func TestCollectiveAlgorithms(t *testing.T) {
	t.Parallel()
	for c := collectives.CollBarrier; c <= collectives.CollExscan && !raceEnabled; c++ {
		algs := collectives.Algorithms(c)
		if len(algs) < 2 {
			continue // nothing to choose: every other run uses it
		}
		for _, alg := range algs {
			np := 5
			if needsPowerOfTwo(c, alg) {
				np = 4
			}
			sel := c.String() + "=" + alg
			t.Run(fmt.Sprintf("%s/np=%d", sel, np), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, np, "coll-algs", "-coll", sel)
			})
		}
	}
	sizes := []int{3, 8}
	if raceEnabled {
		sizes = []int{3, 4}
	}
	for _, np := range sizes {
		for k := range 3 {
			sel := combinedSelection(np, k)
			t.Run(fmt.Sprintf("every-%d/np=%d", k, np), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, np, "coll-algs", "-coll", sel)
			})
		}
	}
	for _, flag := range []string{"-no-coll-check", "-no-offload"} {
		t.Run(flag[1:], func(t *testing.T) {
			t.Parallel()
			runAt(t, "coll-algs", collSizes(true), flag)
		})
	}
}

// combinedSelection forces an algorithm of every collective that has a
// choice: for k = 0, 1, 2 together, each algorithm that applies on np
// processes (shared aside, which the small calls use anyway).
func combinedSelection(np, k int) string {
	var items []string
	for c := collectives.CollBarrier; c <= collectives.CollExscan; c++ {
		var algs []string
		for _, alg := range collectives.Algorithms(c) {
			if alg == collectives.AlgShared || (needsPowerOfTwo(c, alg) && np&(np-1) != 0) {
				continue
			}
			algs = append(algs, alg)
		}
		if len(algs) > 1 {
			items = append(items, c.String()+"="+algs[(k+int(c))%len(algs)])
		}
	}
	return strings.Join(items, ",")
}

// needsPowerOfTwo tells the algorithms that only run on communicators of
// a power-of-two size.
func needsPowerOfTwo(c collectives.Collective, alg string) bool {
	return (c == collectives.CollAllgather && alg == collectives.AlgRecursiveDoubling) || alg == collectives.AlgRecursiveHalving
}

// needsCommutative tells the algorithms that only run commutative
// operations.
func needsCommutative(alg string) bool {
	return alg == collectives.AlgRing || alg == collectives.AlgReduceScatterGather || alg == "recursive-halving" ||
		alg == collectives.AlgHierarchical
}

// ---- helpers ----

// hmix hashes keys into 64 pseudo-random bits, cheaply: every rank
// generates the inputs of all.
func hmix(keys ...int) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, k := range keys {
		h = (h ^ uint64(k)) * 0x100000001B3
	}
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 29
	h *= 0x94D049BB133111EB
	return h ^ h>>32
}

// failures collects the wrong results of a scenario, which goes on after
// one (the collectives stay in step), and reports the first few.
type failures struct {
	errs []error
	n    int
}

func (f *failures) add(format string, args ...any) {
	f.n++
	if len(f.errs) < 10 {
		f.errs = append(f.errs, fmt.Errorf(format, args...))
	}
}

func (f *failures) err() error {
	if f.n == 0 {
		return nil
	}
	errs := f.errs
	if f.n > len(errs) {
		errs = append(errs, fmt.Errorf("and %d more wrong results", f.n-len(errs)))
	}
	return errors.Join(errs...)
}

// valueDiff compares got with want by value (so that -0 equals 0) and
// describes the first difference, or returns "".
func valueDiff[T mpi.Type](got, want []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	bad := 0
	first := -1
	for i := range want {
		if got[i] != want[i] {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if first < 0 {
		return ""
	}
	return fmt.Sprintf("element %d of %d is %v, want %v (%d elements differ)", first, len(want), got[first], want[first], bad)
}

func concat[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// scrambled returns a permutation of 0..n-1 determined by seed.
func scrambled(n, seed int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	slices.SortFunc(p, func(a, b int) int {
		ha, hb := hmix(seed, a), hmix(seed, b)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	return p
}

// layout places blocks of counts in a buffer in the order order, with
// gap elements before every block, and returns their displacements and
// the buffer's length.
func layout(counts, order []int, gap int) (displs []int, total int) {
	displs = make([]int, len(counts))
	for _, r := range order {
		total += gap
		displs[r] = total
		total += counts[r]
	}
	return displs, total + gap
}

// ---- reductions ----

type intT interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

type floatT interface{ ~float32 | ~float64 }

type realT interface{ intT | floatT }

type cplxT interface{ complex64 | complex128 }

// redCase is a reduction operation on elements of type T, its reference
// semantics and the inputs to test it with.
type redCase[T mpi.Type] struct {
	name string
	op   mpi.Op
	unit int                    // elements combined as one: 2 for MinLoc and MaxLoc pairs
	gen  func(seed, r, i int) T // element i of rank r's input
	ref  func(in, inout []T)    // inout = in ∘ inout, in the lower ranks' operand
	big  bool                   // run it with the long vector too
}

func each[T mpi.Type](f func(a, b T) T) func(in, inout []T) {
	return func(in, inout []T) {
		for i := range inout {
			inout[i] = f(in[i], inout[i])
		}
	}
}

func truth[T intT](b bool) T {
	if b {
		return 1
	}
	return 0
}

// locRef is MinLoc (less) or MaxLoc on (value, index) pairs: the extreme
// value, and the smallest index among the pairs that hold it.
func locRef[T realT](less bool) func(in, inout []T) {
	return func(in, inout []T) {
		for i := 0; i+1 < len(inout); i += 2 {
			a, b := in[i], inout[i]
			better := a > b
			if less {
				better = a < b
			}
			if better || (a == b && in[i+1] < inout[i+1]) {
				inout[i], inout[i+1] = a, in[i+1]
			}
		}
	}
}

// locGen makes (value, index) pairs with many ties: values 0..3 and
// indices 0..7 in no relation to ranks.
func locGen[T realT](seed, r, i int) T {
	h := hmix(seed, r, i/2)
	if i%2 == 0 {
		return T(h % 4)
	}
	return T(h >> 8 % 8)
}

func intCases[T intT]() []redCase[T] {
	rnd := func(seed, r, i int) T { return T(hmix(seed, r, i)) }
	// Logical operands: zero with a probability that depends on the
	// element, from always to 1/8, so that every result occurs.
	logical := func(seed, r, i int) T {
		h := hmix(seed, r, i)
		if h%uint64(1+(i*5+3)%8) == 0 {
			return 0
		}
		if v := T(h >> 8); v != 0 {
			return v
		}
		return 1
	}
	return []redCase[T]{
		{name: "Sum", op: mpi.Sum, gen: rnd, ref: each(func(a, b T) T { return a + b }), big: true},
		{name: "Prod", op: mpi.Prod, gen: func(seed, r, i int) T { return T(hmix(seed, r, i) | uint64(i&1)) },
			ref: each(func(a, b T) T { return a * b })},
		{name: "Min", op: mpi.Min, gen: rnd, ref: each(func(a, b T) T { return min(a, b) })},
		{name: "Max", op: mpi.Max, gen: rnd, ref: each(func(a, b T) T { return max(a, b) })},
		{name: "LAnd", op: mpi.LAnd, gen: logical, ref: each(func(a, b T) T { return truth[T](a != 0 && b != 0) })},
		{name: "LOr", op: mpi.LOr, gen: logical, ref: each(func(a, b T) T { return truth[T](a != 0 || b != 0) })},
		{name: "LXor", op: mpi.LXor, gen: logical, ref: each(func(a, b T) T { return truth[T]((a != 0) != (b != 0)) })},
		// Operands with most bits set for BAnd, few for BOr.
		{name: "BAnd", op: mpi.BAnd, gen: func(seed, r, i int) T { return T(hmix(seed, r, i) | hmix(seed, r, i, 1) | hmix(seed, r, i, 2)) },
			ref: each(func(a, b T) T { return a & b })},
		{name: "BOr", op: mpi.BOr, gen: func(seed, r, i int) T { return T(hmix(seed, r, i) & hmix(seed, r, i, 1) & hmix(seed, r, i, 2)) },
			ref: each(func(a, b T) T { return a | b })},
		{name: "BXor", op: mpi.BXor, gen: rnd, ref: each(func(a, b T) T { return a ^ b })},
		{name: "MinLoc", op: mpi.MinLoc, unit: 2, gen: locGen[T], ref: locRef[T](true)},
		{name: "MaxLoc", op: mpi.MaxLoc, unit: 2, gen: locGen[T], ref: locRef[T](false), big: true},
	}
}

// floatCases use small integers, so that results are exact whatever the
// order of combination: sums of -8..8, products of ±1..3 (3^8 at most),
// quarters for Min and Max.
func floatCases[T floatT]() []redCase[T] {
	return []redCase[T]{
		{name: "Sum", op: mpi.Sum, gen: func(seed, r, i int) T { return T(int64(hmix(seed, r, i)%17) - 8) },
			ref: each(func(a, b T) T { return a + b }), big: true},
		{name: "Prod", op: mpi.Prod, gen: func(seed, r, i int) T {
			h := hmix(seed, r, i)
			v := T(1 + h%3)
			if h&(1<<40) != 0 {
				v = -v
			}
			return v
		}, ref: each(func(a, b T) T { return a * b }), big: true},
		{name: "Min", op: mpi.Min, gen: func(seed, r, i int) T { return T(int64(hmix(seed, r, i)%2001)-1000) / 4 },
			ref: each(func(a, b T) T { return min(a, b) })},
		{name: "Max", op: mpi.Max, gen: func(seed, r, i int) T { return T(int64(hmix(seed, r, i)%2001)-1000) / 4 },
			ref: each(func(a, b T) T { return max(a, b) })},
		{name: "MinLoc", op: mpi.MinLoc, unit: 2, gen: locGen[T], ref: locRef[T](true), big: true},
		{name: "MaxLoc", op: mpi.MaxLoc, unit: 2, gen: locGen[T], ref: locRef[T](false)},
	}
}

func mkComplex[T cplxT](re, im float64) T {
	var z T
	switch p := any(&z).(type) {
	case *complex64:
		*p = complex64(complex(re, im))
	case *complex128:
		*p = complex(re, im)
	}
	return z
}

// complexCases: Gaussian integers, small enough for exact products of 8
// (|z|² ≤ 10).
func complexCases[T cplxT]() []redCase[T] {
	return []redCase[T]{
		{name: "Sum", op: mpi.Sum, gen: func(seed, r, i int) T {
			h := hmix(seed, r, i)
			return mkComplex[T](float64(int(h%9)-4), float64(int(h>>8%9)-4))
		}, ref: each(func(a, b T) T { return a + b }), big: true},
		{name: "Prod", op: mpi.Prod, gen: func(seed, r, i int) T {
			h := hmix(seed, r, i)
			return mkComplex[T](float64(1+h%3), float64(int(h>>8%3)-1))
		}, ref: each(func(a, b T) T { return a * b }), big: true},
	}
}

// runsCombine is an associative, non-commutative operation on runs of
// ranks, an element packing first<<32|last: a run followed by the next
// one joins them, anything else is -1, which absorbs. A wrong order or a
// missing or repeated operand shows in the result.
func runsCombine(in, inout []int64) {
	for i, b := range inout {
		a := in[i]
		if a < 0 || b < 0 || a&0xffffffff+1 != b>>32 {
			inout[i] = -1
		} else {
			inout[i] = a>>32<<32 | b&0xffffffff
		}
	}
}

var runsOp = mpi.NewOp("runs", runsCombine, false)

func runsGen(seed, r, i int) int64 {
	b := int64((i*7+seed)%100000)*64 + int64(r)
	return b<<32 | b
}

func runsCase() redCase[int64] {
	return redCase[int64]{name: "runs", op: runsOp, gen: runsGen, ref: runsCombine, big: true}
}

// satAdd is a commutative user operation: addition saturating at 65535.
func satAdd(in, inout []uint16) {
	for i := range inout {
		inout[i] = uint16(min(uint32(in[i])+uint32(inout[i]), 0xffff))
	}
}

var satAddOp = mpi.NewOp("satadd", satAdd, true)

func satAddCase() redCase[uint16] {
	return redCase[uint16]{name: "satadd", op: satAddOp, big: true, ref: satAdd,
		gen: func(seed, r, i int) uint16 { return uint16(hmix(seed, r, i) % 20000) }}
}

// bigCount is the long vector of the reductions: 40000 elements take the
// long-vector algorithms for elements of 2 bytes and more.
const bigCount = 40000

// firstError runs the steps in turn until one fails, and returns its error.
func firstError(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func scenarioReductions(w *mpi.Comm, which string) error {
	var f failures
	var err error
	switch which {
	case "int":
		err = firstError(
			func() error { return runRedType(w, &f, 1000, intCases[int8]()) },
			func() error { return runRedType(w, &f, 2000, intCases[uint16]()) },
			func() error { return runRedType(w, &f, 3000, intCases[int32]()) },
			func() error { return runRedType(w, &f, 4000, intCases[int64]()) },
			func() error { return runRedType(w, &f, 5000, intCases[uint64]()) },
		)
	case "float":
		err = firstError(
			func() error { return runRedType(w, &f, 6000, floatCases[float32]()) },
			func() error { return runRedType(w, &f, 7000, floatCases[float64]()) },
			func() error { return runRedType(w, &f, 8000, complexCases[complex64]()) },
			func() error { return runRedType(w, &f, 9000, complexCases[complex128]()) },
		)
	case "user":
		if err = runRedType(w, &f, 10000, []redCase[int64]{runsCase()}); err == nil {
			err = runRedType(w, &f, 11000, []redCase[uint16]{satAddCase()})
		}
	}
	return errors.Join(err, f.err())
}

// runRedType runs every case with counts 1 and 7 (2 and 8 for pairs) and,
// for the cases marked big, bigCount, out of place and in place. Under the
// race detector, whose ranks are much slower at combining long vectors,
// only the first case marked big runs with bigCount.
func runRedType[T mpi.Type](w *mpi.Comm, f *failures, seed int, cases []redCase[T]) error {
	bigDone := false
	for ci, rc := range cases {
		if raceEnabled && bigDone {
			rc.big = false
		}
		bigDone = bigDone || rc.big
		if rc.unit == 0 {
			rc.unit = 1
		}
		counts := []int{1, 7}
		if rc.unit == 2 {
			counts = []int{2, 8}
		}
		if rc.big {
			counts = append(counts, bigCount)
		}
		for k, count := range counts {
			for _, inPlace := range []bool{false, true} {
				s := seed + 20*ci + 2*k
				if inPlace {
					s++
				}
				if err := runReductions(w, f, rc, s, count, inPlace); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// runReductions runs every reduction collective on the inputs of seed:
// Allreduce, Reduce at every root, Scan, Exscan, ReduceScatterBlock,
// ReduceScatter with unequal counts (zeros among them), and Iallreduce
// with Ireduce at once. The collectives of inapplicable (forced to an
// algorithm that does not apply) must fail on every rank with
// ErrAlgorithm instead.
func runReductions[T mpi.Type](w *mpi.Comm, f *failures, rc redCase[T], seed, count int, inPlace bool,
	inapplicable ...collectives.Collective) error {
	r := newReduction(w, f, rc, seed, count, inPlace, inapplicable)
	return firstError(r.allreduce, r.reduces, r.scan, r.exscan, r.reduceScatterBlock, r.reduceScatter,
		r.nonblocking)
}

// reduction is a run of runReductions: a case on count elements, in
// place or not, and the results every rank computes naively for all.
type reduction[T mpi.Type] struct {
	w            *mpi.Comm
	f            *failures
	rc           redCase[T]
	seed, count  int
	inPlace      bool
	inapplicable []collectives.Collective
	me, n        int
	what         string // the case, count and type, for the messages
	blk          int    // ReduceScatterBlock's block
	rcounts, off []int  // ReduceScatter's counts, and their offsets
	pre          [][]T  // pre[k] = ins[0] ∘ … ∘ ins[k]
	all, mine    []T    // pre[n-1], and this rank's input
}

// newReduction prepares a run of runReductions.
func newReduction[T mpi.Type](w *mpi.Comm, f *failures, rc redCase[T], seed, count int, inPlace bool,
	inapplicable []collectives.Collective) *reduction[T] {
	me, n, u := w.Rank(), w.Size(), rc.unit
	what := fmt.Sprintf("%s on %d %s", rc.name, count, typeName[T]())
	if inPlace {
		what += " in place"
	}
	// ReduceScatterBlock's block and ReduceScatter's counts: about count
	// elements in all for the long vector, count per rank otherwise.
	blk := count
	if count > 64 {
		blk = max(count/n/u*u, u)
	}
	cu := max(blk/u, 1)
	rcounts, off := make([]int, n), make([]int, n+1)
	for r := range n {
		rcounts[r] = u * (((r+1)%3)*cu + r%2)
		off[r+1] = off[r] + rcounts[r]
	}
	ins, pre := reductionInputs(rc, seed, n, max(count, n*blk, off[n]))
	return &reduction[T]{w: w, f: f, rc: rc, seed: seed, count: count, inPlace: inPlace, inapplicable: inapplicable,
		me: me, n: n, what: what, blk: blk, rcounts: rcounts, off: off, pre: pre, all: pre[n-1], mine: ins[me]}
}

// reductionInputs generates the inputs of L elements of the n ranks, and
// their prefix reductions.
func reductionInputs[T mpi.Type](rc redCase[T], seed, n, L int) (ins, pre [][]T) {
	ins = make([][]T, n)
	pre = make([][]T, n) // pre[k] = ins[0] ∘ … ∘ ins[k]
	for r := range n {
		ins[r] = make([]T, L)
		for i := range ins[r] {
			ins[r][i] = rc.gen(seed, r, i)
		}
		pre[r] = slices.Clone(ins[r])
		if r > 0 {
			rc.ref(pre[r-1], pre[r])
		}
	}
	return ins, pre
}

// input returns a copy of the first k elements of this rank's input.
func (r *reduction[T]) input(k int) []T { return slices.Clone(r.mine[:k]) }

// sentinel returns k elements that a collective is to overwrite.
func (r *reduction[T]) sentinel(k int) []T { return pattern[T](k, 0x5e47, r.seed) }

// check records a difference of got from want.
func (r *reduction[T]) check(call string, got, want []T) {
	if d := valueDiff(got, want); d != "" {
		r.f.add("rank %d: %s: %s: %s", r.me, r.what, call, d)
	}
}

// checkSend records a change of the send buffer send, if not nil.
func (r *reduction[T]) checkSend(call string, send []T) {
	if send != nil {
		r.check(call+": the send buffer changed", send, r.mine[:len(send)])
	}
}

// run runs one collective and tells whether to check its results: an
// error is fatal, except where the algorithm does not apply.
func (r *reduction[T]) run(coll collectives.Collective, call string, f1 func() error) (bool, error) {
	err := f1()
	if slices.Contains(r.inapplicable, coll) {
		if !errors.Is(err, collectives.ErrAlgorithm) {
			r.f.add("rank %d: %s: %s with an inapplicable algorithm: error %v, want one wrapping ErrAlgorithm", r.me, r.what, call, err)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %s: %w", r.what, call, err)
	}
	return true, nil
}

// buffers returns the send and receive buffers of k elements: the
// input and a sentinel, or, in place, nil and the input.
func (r *reduction[T]) buffers(k, recvLen int) ([]T, []T) {
	if r.inPlace {
		return nil, r.input(k)
	}
	return r.input(k), r.sentinel(recvLen)
}

// allreduce runs Allreduce.
func (r *reduction[T]) allreduce() error {
	send, recv := r.buffers(r.count, r.count)
	ok, err := r.run(collectives.CollAllreduce, "Allreduce", func() error { return mpi.Allreduce(r.w, send, recv, r.rc.op) })
	if err != nil {
		return err
	}
	if ok {
		r.check("Allreduce", recv, r.all[:r.count])
		r.checkSend("Allreduce", send)
	}
	return nil
}

// reduces runs Reduce to every root; for the long vector, to the first,
// the last and a middle one.
func (r *reduction[T]) reduces() error {
	me, n, count := r.me, r.n, r.count
	roots := make([]int, 0, n)
	for root := range n {
		if count <= 64 || root == 0 || root == n-1 || root == n/2 {
			roots = append(roots, root)
		}
	}
	for _, root := range roots {
		send, recv := r.input(count), []T(nil)
		if me == root {
			send, recv = r.buffers(count, count)
		}
		call := fmt.Sprintf("Reduce to %d", root)
		ok, err := r.run(collectives.CollReduce, call, func() error { return mpi.Reduce(r.w, send, recv, r.rc.op, root) })
		if err != nil {
			return err
		}
		if ok && me == root {
			r.check(call, recv, r.all[:count])
		}
		if ok {
			r.checkSend(call, send)
		}
	}
	return nil
}

// scan runs Scan.
func (r *reduction[T]) scan() error {
	send, recv := r.buffers(r.count, r.count)
	ok, err := r.run(collectives.CollScan, "Scan", func() error { return mpi.Scan(r.w, send, recv, r.rc.op) })
	if err != nil {
		return err
	}
	if ok {
		r.check("Scan", recv, r.pre[r.me][:r.count])
		r.checkSend("Scan", send)
	}
	return nil
}

// exscan runs Exscan, which must leave rank 0's receive buffer alone.
func (r *reduction[T]) exscan() error {
	send, recv := r.buffers(r.count, r.count)
	before := slices.Clone(recv)
	ok, err := r.run(collectives.CollExscan, "Exscan", func() error { return mpi.Exscan(r.w, send, recv, r.rc.op) })
	if err != nil {
		return err
	}
	switch {
	case !ok:
	case r.me == 0:
		if d := diff(recv, before); d != "" {
			r.f.add("rank 0: %s: Exscan changed rank 0's receive buffer: %s", r.what, d)
		}
	default:
		r.check("Exscan", recv, r.pre[r.me-1][:r.count])
	}
	if ok {
		r.checkSend("Exscan", send)
	}
	return nil
}

// reduceScatterBlock runs ReduceScatterBlock.
func (r *reduction[T]) reduceScatterBlock() error {
	me, blk := r.me, r.blk
	send, recv := r.buffers(r.n*blk, blk)
	call := fmt.Sprintf("ReduceScatterBlock of %d-element blocks", blk)
	ok, err := r.run(collectives.CollReduceScatterBlock, call, func() error { return mpi.ReduceScatterBlock(r.w, send, recv, r.rc.op) })
	if err != nil {
		return err
	}
	if ok {
		r.check(call, recv[:blk], r.all[me*blk:(me+1)*blk])
		r.checkSend(call, send)
	}
	return nil
}

// reduceScatter runs ReduceScatter with unequal counts, zeros among them.
func (r *reduction[T]) reduceScatter() error {
	me, rcounts, off := r.me, r.rcounts, r.off
	send, recv := r.buffers(off[r.n], rcounts[me])
	call := fmt.Sprintf("ReduceScatter of %v", rcounts)
	ok, err := r.run(collectives.CollReduceScatter, call, func() error { return mpi.ReduceScatter(r.w, send, recv, rcounts, r.rc.op) })
	if err != nil {
		return err
	}
	if ok {
		r.check(call, recv[:rcounts[me]], r.all[off[me]:off[me+1]])
		r.checkSend(call, send)
	}
	return nil
}

// nonblocking runs Iallreduce and Ireduce in flight together.
func (r *reduction[T]) nonblocking() error {
	me, count, what := r.me, r.count, r.what
	root := r.seed % r.n
	s1, r1 := r.buffers(count, count)
	s2, r2 := r.input(count), []T(nil)
	if me == root {
		s2, r2 = r.buffers(count, count)
	}
	q1, err := mpi.Iallreduce(r.w, s1, r1, r.rc.op)
	if err != nil {
		return fmt.Errorf("%s: Iallreduce: %w", what, err)
	}
	q2, err := mpi.Ireduce(r.w, s2, r2, r.rc.op, root)
	if err != nil {
		return fmt.Errorf("%s: Ireduce: %w", what, err)
	}
	ok, err := r.run(collectives.CollAllreduce, "Iallreduce", func() error { _, err := q1.Wait(); return err })
	if err != nil {
		return err
	}
	if ok {
		r.check("Iallreduce", r1, r.all[:count])
		r.checkSend("Iallreduce", s1)
	}
	call := fmt.Sprintf("Ireduce to %d", root)
	ok, err = r.run(collectives.CollReduce, call, func() error { _, err := q2.Wait(); return err })
	if err != nil {
		return err
	}
	if ok && me == root {
		r.check(call, r2, r.all[:count])
	}
	if ok {
		r.checkSend(call, s2)
	}
	return nil
}

// ---- data movement ----

// moveSizes are the sizes the data-movement collectives are run with, in
// elements unless said otherwise.
type moveSizes struct {
	bcastBytes []int // Bcast and Ibcast, in bytes
	blocks     []int // Gather, Scatter, Allgather, Alltoall blocks
	vunits     []int // the unit of the irregular counts of the v variants
	allRoots   bool  // every root, or the first and last only
}

var fullMoveSizes = moveSizes{
	bcastBytes: []int{0, 1, 100, 70000},
	blocks:     []int{0, 1, 13, -24000}, // negative: that many bytes
	vunits:     []int{1, -3000},
	allRoots:   true,
}

func scenarioMovement(w *mpi.Comm) error {
	var f failures
	err := moveType[uint8](w, &f, 100, fullMoveSizes)
	if err == nil {
		err = moveType[int32](w, &f, 200, fullMoveSizes)
	}
	if err == nil {
		err = moveType[float64](w, &f, 300, fullMoveSizes)
	}
	if err == nil {
		err = moveType[complex128](w, &f, 400, fullMoveSizes)
	}
	return errors.Join(err, f.err())
}

// vcount is the irregular count of rank r (or of the pair r, s): zero
// for some.
func vcount(unit, seed int, r ...int) int {
	return int(hmix(append([]int{seed}, r...)...)%5) * unit
}

// mover runs the data-movement collectives on elements of type T, for
// moveType: every call gets a tag of its own, from seed*1000 up, that
// keys its data.
type mover[T mpi.Type] struct {
	w        *mpi.Comm
	f        *failures
	seed     int
	sz       moveSizes
	me, n, e int    // this rank, the size, the element's bytes
	tn       string // the element type's name
	roots    []int
	tag      int // the last tag used
}

// moveType runs every data-movement collective on elements of type T, at
// the sizes sz, and checks every result.
func moveType[T mpi.Type](w *mpi.Comm, f *failures, seed int, sz moveSizes) error {
	me, n := w.Rank(), w.Size()
	roots := []int{0, n - 1}
	if sz.allRoots || n == 1 {
		roots = roots[:0]
		for r := range n {
			roots = append(roots, r)
		}
	}
	m := &mover[T]{w: w, f: f, seed: seed, sz: sz, me: me, n: n, e: int(unsafe.Sizeof(*new(T))),
		tn: typeName[T](), roots: roots, tag: seed * 1000}
	return firstError(m.bcasts, m.gathersScatters, m.gathervsScattervs, m.allgathersAlltoalls,
		m.allgathervsAlltoallvs, m.nonblocking)
}

// elems is the count of elements of a size k: k elements, or if
// negative, -k bytes.
func (m *mover[T]) elems(k int) int {
	if k < 0 {
		return -k / m.e
	}
	return k
}

// sentinel returns k elements of a pattern keyed by keys, which a
// collective is to overwrite.
func (m *mover[T]) sentinel(k int, keys ...int) []T {
	return pattern[T](k, append([]int{0x5e47, m.seed}, keys...)...)
}

// check records a difference of got from want.
func (m *mover[T]) check(what string, got, want []T) {
	if d := diff(got, want); d != "" {
		m.f.add("rank %d: %s of %s: %s", m.me, what, m.tn, d)
	}
}

// bcasts runs Bcast from every root, at every size.
func (m *mover[T]) bcasts() error {
	w, me, e, tn, sentinel, check := m.w, m.me, m.e, m.tn, m.sentinel, m.check
	for _, root := range m.roots {
		for _, nb := range m.sz.bcastBytes {
			m.tag++
			tag := m.tag
			cnt := (nb + e - 1) / e
			want := pattern[T](cnt, tag, root)
			buf := sentinel(cnt, tag)
			if me == root {
				buf = slices.Clone(want)
			}
			if err := mpi.Bcast(w, buf, root); err != nil {
				return fmt.Errorf("Bcast of %d %s from %d: %w", cnt, tn, root, err)
			}
			check(fmt.Sprintf("Bcast of %d from %d", cnt, root), buf, want)
		}
	}
	return nil
}

// gathersScatters runs Gather and Scatter, in place at the root and not,
// at every root and block size.
func (m *mover[T]) gathersScatters() error {
	for _, root := range m.roots {
		for _, b := range m.sz.blocks {
			blk := m.elems(b)
			for _, inPlace := range []bool{false, true} {
				m.tag++
				if err := m.gatherScatter(root, blk, m.tag, inPlace); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// gatherScatter gathers blocks of blk elements to root, then scatters
// them from it.
func (m *mover[T]) gatherScatter(root, blk, tag int, inPlace bool) error {
	w, me, n, tn, sentinel, check := m.w, m.me, m.n, m.tn, m.sentinel, m.check
	block := func(r int) []T { return pattern[T](blk, tag, r) }
	want := make([]T, 0, n*blk)
	for r := range n {
		want = append(want, block(r)...)
	}
	what := fmt.Sprintf("Gather of %d to %d", blk, root)
	var send, recv []T
	if me == root {
		recv = sentinel(n*blk, tag)
	}
	if inPlace && me == root {
		copy(recv[root*blk:], block(root))
		what += " in place"
	} else {
		send = block(me)
	}
	if err := mpi.Gather(w, send, recv, root); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	if me == root {
		check(what, recv, want)
	}

	what = fmt.Sprintf("Scatter of %d from %d", blk, root)
	send, recv = nil, sentinel(blk, tag, 1)
	if me == root {
		send = slices.Clone(want)
		if inPlace {
			recv = nil
			what += " in place"
		}
	}
	if err := mpi.Scatter(w, send, recv, root); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	if recv != nil {
		check(what, recv, block(me))
	}
	if me == root {
		check(what+": the root's send buffer", send, want)
	}
	return nil
}

// gathervsScattervs runs Gatherv and Scatterv, in place at the root and
// not, at every root and unit of the irregular counts.
func (m *mover[T]) gathervsScattervs() error {
	for _, root := range m.roots {
		for _, vu := range m.sz.vunits {
			unit := m.elems(vu)
			for _, inPlace := range []bool{false, true} {
				m.tag++
				if err := m.gathervScatterv(root, unit, m.tag, inPlace); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// gathervScatterv gathers irregular counts (multiples of unit, zeros
// among them) to root, its blocks in a scrambled order with gaps that
// must stay untouched, then scatters them from it.
func (m *mover[T]) gathervScatterv(root, unit, tag int, inPlace bool) error {
	w, me, n, tn, sentinel, check := m.w, m.me, m.n, m.tn, m.sentinel, m.check
	counts := make([]int, n)
	for r := range n {
		counts[r] = vcount(unit, tag, r)
	}
	displs, total := layout(counts, scrambled(n, tag), 2)
	block := func(r int) []T { return pattern[T](counts[r], tag, r) }
	full := sentinel(total, tag)
	for r := range n {
		copy(full[displs[r]:], block(r))
	}
	what := fmt.Sprintf("Gatherv of %v at %v to %d", counts, displs, root)
	var send, recv []T
	var c, d []int
	if me == root {
		recv, c, d = sentinel(total, tag), counts, displs
	}
	if inPlace && me == root {
		copy(recv[displs[root]:], block(root))
		what += " in place"
	} else {
		send = block(me)
	}
	if err := mpi.Gatherv(w, send, recv, c, d, root); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	if me == root {
		check(what, recv, full)
	}

	what = fmt.Sprintf("Scatterv of %v at %v from %d", counts, displs, root)
	send, recv = nil, sentinel(counts[me], tag, 1)
	if me == root {
		send = slices.Clone(full)
		if inPlace {
			recv = nil
			what += " in place"
		}
	}
	if err := mpi.Scatterv(w, send, c, d, recv, root); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	if recv != nil {
		check(what, recv, block(me))
	}
	if me == root {
		check(what+": the root's send buffer", send, full)
	}
	return nil
}

// allgathersAlltoalls runs Allgather and Alltoall, in place and not, at
// every block size.
func (m *mover[T]) allgathersAlltoalls() error {
	for _, b := range m.sz.blocks {
		blk := m.elems(b)
		for _, inPlace := range []bool{false, true} {
			m.tag++
			if err := m.allgatherAlltoall(blk, m.tag, inPlace); err != nil {
				return err
			}
		}
	}
	return nil
}

// allgatherAlltoall runs Allgather, then Alltoall, of blocks of blk
// elements.
func (m *mover[T]) allgatherAlltoall(blk, tag int, inPlace bool) error {
	w, me, n, tn, sentinel, check := m.w, m.me, m.n, m.tn, m.sentinel, m.check
	block := func(r int) []T { return pattern[T](blk, tag, r) }
	want := make([]T, 0, n*blk)
	for r := range n {
		want = append(want, block(r)...)
	}
	what := fmt.Sprintf("Allgather of %d", blk)
	send, recv := block(me), sentinel(n*blk, tag)
	if inPlace {
		copy(recv[me*blk:], send)
		send = nil
		what += " in place"
	}
	if err := mpi.Allgather(w, send, recv); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	check(what, recv, want)

	pair := func(from, to int) []T { return pattern[T](blk, tag, from, to, 7) }
	send, want = nil, nil
	for to := range n {
		send = append(send, pair(me, to)...)
	}
	for from := range n {
		want = append(want, pair(from, me)...)
	}
	what = fmt.Sprintf("Alltoall of %d", blk)
	recv = sentinel(n*blk, tag, 1)
	if inPlace {
		copy(recv, send)
		send = nil
		what += " in place"
	}
	if err := mpi.Alltoall(w, send, recv); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	check(what, recv, want)
	return nil
}

// allgathervsAlltoallvs runs Allgatherv (in place and not), then
// Alltoallv, irregular and scrambled, at every unit of the irregular
// counts.
func (m *mover[T]) allgathervsAlltoallvs() error {
	for _, vu := range m.sz.vunits {
		unit := m.elems(vu)
		for _, inPlace := range []bool{false, true} {
			m.tag++
			if err := m.allgatherv(unit, m.tag, inPlace); err != nil {
				return err
			}
		}
		m.tag++
		if err := m.alltoallv(unit, m.tag); err != nil {
			return err
		}
	}
	return nil
}

// allgatherv runs Allgatherv of irregular counts, multiples of unit, at
// scrambled displacements with gaps.
func (m *mover[T]) allgatherv(unit, tag int, inPlace bool) error {
	w, me, n, tn, sentinel, check := m.w, m.me, m.n, m.tn, m.sentinel, m.check
	counts := make([]int, n)
	for r := range n {
		counts[r] = vcount(unit, tag, r)
	}
	displs, total := layout(counts, scrambled(n, tag), 3)
	block := func(r int) []T { return pattern[T](counts[r], tag, r) }
	want := sentinel(total, tag)
	for r := range n {
		copy(want[displs[r]:], block(r))
	}
	what := fmt.Sprintf("Allgatherv of %v at %v", counts, displs)
	send, recv := block(me), sentinel(total, tag)
	if inPlace {
		copy(recv[displs[me]:], send)
		send = nil
		what += " in place"
	}
	if err := mpi.Allgatherv(w, send, recv, counts, displs); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	check(what, recv, want)
	return nil
}

// alltoallv runs Alltoallv of irregular counts, multiples of unit, at
// scrambled displacements, and checks that the send buffer is left as
// it was.
func (m *mover[T]) alltoallv(unit, tag int) error {
	w, me, n, tn, sentinel, check := m.w, m.me, m.n, m.tn, m.sentinel, m.check
	scounts, rcounts := make([]int, n), make([]int, n)
	for r := range n {
		scounts[r], rcounts[r] = vcount(unit, tag, me, r), vcount(unit, tag, r, me)
	}
	sdispls, stotal := layout(scounts, scrambled(n, tag+me), 1)
	rdispls, rtotal := layout(rcounts, scrambled(n, tag-me), 2)
	pair := func(from, to int) []T { return pattern[T](vcount(unit, tag, from, to), tag, from, to) }
	send := sentinel(stotal, tag, me)
	for r := range n {
		copy(send[sdispls[r]:], pair(me, r))
	}
	want := sentinel(rtotal, tag, me, 1)
	for r := range n {
		copy(want[rdispls[r]:], pair(r, me))
	}
	recv := sentinel(rtotal, tag, me, 1)
	sendCopy := slices.Clone(send)
	what := fmt.Sprintf("Alltoallv sending %v at %v, receiving %v at %v", scounts, sdispls, rcounts, rdispls)
	if err := mpi.Alltoallv(w, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	check(what, recv, want)
	check(what+": the send buffer", send, sendCopy)
	return nil
}

// nonblocking runs Ibcast, Iallgather and Ialltoall at once, in place and
// not, at every block size.
func (m *mover[T]) nonblocking() error {
	for k, b := range m.sz.blocks {
		blk := m.elems(b)
		for _, inPlace := range []bool{false, true} {
			m.tag++
			if err := m.nonblockingAtOnce(k, blk, m.tag, inPlace); err != nil {
				return err
			}
		}
	}
	return nil
}

// nonblockingAtOnce starts Ibcast (of the k-th broadcast size, from a
// root that rotates with tag), Iallgather and Ialltoall (of blocks of
// blk), waits for all three and checks them.
func (m *mover[T]) nonblockingAtOnce(k, blk, tag int, inPlace bool) error {
	w, me, n, e, tn, sentinel, check := m.w, m.me, m.n, m.e, m.tn, m.sentinel, m.check
	sz := m.sz
	root := (tag + k) % n
	nb := sz.bcastBytes[k%len(sz.bcastBytes)]
	cnt := (nb + e - 1) / e
	bwant := pattern[T](cnt, tag, root)
	bbuf := sentinel(cnt, tag)
	if me == root {
		bbuf = slices.Clone(bwant)
	}
	block := func(r int) []T { return pattern[T](blk, tag, r, 1) }
	var gwant, asend, awant []T
	for r := range n {
		gwant = append(gwant, block(r)...)
		asend = append(asend, pattern[T](blk, tag, me, r, 2)...)
		awant = append(awant, pattern[T](blk, tag, r, me, 2)...)
	}
	gsend, grecv, arecv := block(me), sentinel(n*blk, tag, 1), sentinel(n*blk, tag, 2)
	what := fmt.Sprintf("Ibcast of %d from %d, Iallgather and Ialltoall of %d", cnt, root, blk)
	if inPlace {
		copy(grecv[me*blk:], gsend)
		copy(arecv, asend)
		gsend, asend = nil, nil
		what += " in place"
	}
	q1, err := mpi.Ibcast(w, bbuf, root)
	if err != nil {
		return fmt.Errorf("%s: Ibcast: %w", what, err)
	}
	q2, err := mpi.Iallgather(w, gsend, grecv)
	if err != nil {
		return fmt.Errorf("%s: Iallgather: %w", what, err)
	}
	q3, err := mpi.Ialltoall(w, asend, arecv)
	if err != nil {
		return fmt.Errorf("%s: Ialltoall: %w", what, err)
	}
	if _, err := mpi.Waitall([]*mpi.Request{q1, q2, q3}); err != nil {
		return fmt.Errorf("%s %s: %w", what, tn, err)
	}
	check(what+": Ibcast", bbuf, bwant)
	check(what+": Iallgather", grecv, gwant)
	check(what+": Ialltoall", arecv, awant)
	return nil
}

// ---- every algorithm ----

// forcedSelection returns the algorithms forced by mpirun -coll.
func forcedSelection() (collectives.Selection, error) {
	return collectives.ParseSelection(os.Getenv(launch.EnvColl))
}

// scenarioAlgorithms runs a smaller set of reductions and data movements:
// those of the collective whose algorithm mpirun -coll forces run it, and
// the scenario checks in the statistics that they did. Calls the forced
// algorithm does not apply to (a non-commutative operation for ring, say)
// must fail with ErrAlgorithm on every rank, and the next ones work.
func scenarioAlgorithms(w *mpi.Comm) error {
	sel, err := forcedSelection()
	if err != nil {
		return err
	}
	before, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	var f failures
	sizes, counts := algorithmSizes(sel)
	for range 3 {
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("Barrier: %w", err)
		}
	}
	if err := moveType[int32](w, &f, 500, sizes); err != nil {
		return err
	}
	if err := algorithmReductions(w, &f, sel, counts); err != nil {
		return err
	}
	if err := undefinedOpFails(w, &f); err != nil {
		return err
	}
	if err := f.err(); err != nil {
		return err
	}
	return checkForcedRan(sel, before)
}

// algorithmSizes returns the sizes of the data movements and the counts
// of the reductions of scenarioAlgorithms. The shared algorithm carries
// 88 bytes per process: with it, only the smallest sizes (blocks of one
// int32, 8 of them at most).
func algorithmSizes(sel collectives.Selection) (moveSizes, []int) {
	shared := false
	for _, alg := range sel {
		shared = shared || alg == collectives.AlgShared
	}
	sizes := moveSizes{bcastBytes: []int{4, 70000}, blocks: []int{1, -24000}, vunits: []int{1, -3000}}
	counts := []int{1, 20000}
	if shared {
		sizes = moveSizes{bcastBytes: []int{4}, blocks: []int{1}, vunits: []int{1}}
		counts = counts[:1]
	}
	return sizes, counts
}

// algorithmReductions runs the reductions of scenarioAlgorithms: a Sum,
// and the non-commutative runs operation, which must fail with
// ErrAlgorithm where an algorithm for commutative operations is forced.
func algorithmReductions(w *mpi.Comm, f *failures, sel collectives.Selection, counts []int) error {
	sum := redCase[int32]{name: "Sum", op: mpi.Sum, unit: 1,
		gen: func(seed, r, i int) int32 { return int32(hmix(seed, r, i)) },
		ref: each(func(a, b int32) int32 { return a + b })}
	runs := runsCase()
	runs.unit = 1
	var inapplicable []collectives.Collective
	for c, alg := range sel {
		if needsCommutative(alg) {
			inapplicable = append(inapplicable, c)
		}
	}
	for k, count := range counts {
		for _, inPlace := range []bool{false, true} {
			s := 600 + 2*k
			if inPlace {
				s++
			}
			if err := runReductions(w, f, sum, s, count, inPlace); err != nil {
				return err
			}
			if err := runReductions(w, f, runs, s, count, inPlace, inapplicable...); err != nil {
				return err
			}
		}
	}
	return nil
}

// undefinedOpFails checks that an operation undefined on the type fails
// on every rank, with the argument check or without.
func undefinedOpFails(w *mpi.Comm, f *failures) error {
	for _, inPlace := range []bool{false, true} {
		send, recv := []float64{1, 2}, []float64{3, 4}
		if inPlace {
			send = nil
		}
		if err := mpi.Allreduce(w, send, recv, mpi.BAnd); !errors.Is(err, mpi.ErrOp) {
			f.add("rank %d: Allreduce with BAnd on float64: %v, want ErrOp", w.Rank(), err)
		}
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("Barrier after an invalid operation: %w", err)
		}
	}
	return nil
}

// checkForcedRan checks in the statistics, against those before, that
// every forced algorithm ran, and with -no-offload, that nothing ran on
// the NIC.
func checkForcedRan(sel collectives.Selection, before mpi.Stats) error {
	after, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	for c, alg := range sel {
		key := c.String() + "/" + alg
		ran := uint64(0)
		for k, v := range after.Collectives {
			if k == key || strings.HasPrefix(k, key+"-") {
				ran += v - before.Collectives[k]
			}
		}
		if ran == 0 {
			return fmt.Errorf("forced %s: the statistics show no call of it: %v", key, after.Collectives)
		}
	}
	if os.Getenv(launch.EnvNoOffload) == "1" {
		for k, v := range after.Collectives {
			if strings.HasSuffix(k, "/nic") || strings.HasSuffix(k, "-nic") {
				return fmt.Errorf("with -no-offload, %d calls of %s", v, k)
			}
		}
	}
	return nil
}

// ---- argument mismatches ----

// mismatch is a case of scenarioMismatch: a collective call whose
// arguments differ between the ranks, or are invalid.
type mismatch struct {
	name string
	run  func() error
	// own: what the odd rank's error must contain, when its own
	// argument is invalid ("" if it gets ErrMismatch too).
	own string
	// all: the call is invalid on every rank, so it fails alone.
	all bool
	// others: what the other ranks' errors may contain instead of
	// wrapping ErrMismatch.
	others string
	// names: what every rank's difference must name (the call of
	// the odd rank, as the others see it and as it sees itself).
	names string
}

// mismatchEnv is what the cases of scenarioMismatch are built from: the
// communicator, this rank, the size and the odd rank, the one that
// passes something else (the last).
type mismatchEnv struct {
	w          *mpi.Comm
	me, n, odd int
}

// pick returns b on the odd rank, a elsewhere.
func (e mismatchEnv) pick(a, b int) int {
	if e.me == e.odd {
		return b
	}
	return a
}

// i32 returns a buffer of k int32 elements for a mismatch case.
func i32(k int) []int32 { return make([]int32, k) }

// f64 returns a buffer of k float64 elements for a mismatch case.
func f64(k int) []float64 { return make([]float64, k) }

// scenarioMismatch passes inconsistent arguments to collectives: every
// rank must fail (ErrMismatch, or on the rank whose own argument was
// invalid, an error naming it), none may hang, and the communicator must
// work afterwards.
func scenarioMismatch(w *mpi.Comm) error {
	e := mismatchEnv{w: w, me: w.Rank(), n: w.Size(), odd: w.Size() - 1}
	cases := mismatchInvalidEverywhere(e)
	if e.n > 1 {
		cases = append(cases, mismatchOneRankDiffers(e)...)
	}
	return runMismatches(e, cases)
}

// mismatchInvalidEverywhere returns the cases whose arguments are invalid
// on every rank: they fail on every rank, also alone.
func mismatchInvalidEverywhere(e mismatchEnv) []mismatch {
	w, n := e.w, e.n
	return []mismatch{
		{name: "invalid root everywhere", run: func() error { return mpi.Bcast(w, i32(3), n+5) }, all: true,
			own: fmt.Sprintf("root %d", n+5)},
		{name: "BAnd on float64", run: func() error { return mpi.Allreduce(w, f64(3), f64(3), mpi.BAnd) }, all: true},
		{name: "runs op on float64", run: func() error { return mpi.Allreduce(w, f64(3), f64(3), runsOp) }, all: true},
		{name: "MinLoc on an odd count", run: func() error { return mpi.Allreduce(w, i32(3), i32(3), mpi.MinLoc) }, all: true},
		{name: "MinLoc on complex128", run: func() error {
			return mpi.Reduce(w, make([]complex128, 2), make([]complex128, 2), mpi.MinLoc, 0)
		}, all: true},
		{name: "Ibcast with an invalid root everywhere", run: func() error {
			q, err := mpi.Ibcast(w, i32(2), -3)
			if err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		}, all: true, own: "root -3"},
		{name: "Split with an invalid color everywhere", run: func() error {
			c, err := w.Split(-7, 0)
			if c != nil {
				return errors.New("got a communicator")
			}
			return err
		}, all: true, own: "color -7"},
		{name: "Iallreduce BAnd on float32", run: func() error {
			q, err := mpi.Iallreduce(w, make([]float32, 4), make([]float32, 4), mpi.BAnd)
			if err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		}, all: true},
	}
}

// mismatchOneRankDiffers returns the cases where the odd rank passes
// something else than the others (at 2 processes and more), in their
// groups, and last, Iallreduce with another count.
func mismatchOneRankDiffers(e mismatchEnv) []mismatch {
	w, pick := e.w, e.pick
	return concat(
		mismatchRoots(e),
		mismatchCounts(e),
		mismatchPartElements(e),
		mismatchBlockCounts(e),
		mismatchOps(e),
		mismatchNothingAgainstData(e),
		mismatchDifferentCalls(e),
		mismatchInvalidOnOneRank(e),
		[]mismatch{
			{name: "Iallreduce counts", run: func() error {
				q, err := mpi.Iallreduce(w, i32(pick(3, 4)), i32(pick(3, 4)), mpi.Sum)
				if err != nil {
					return err
				}
				_, err = q.Wait()
				return err
			}},
		},
	)
}

// mismatchRoots returns the cases where the odd rank passes another root,
// short and long, and at the sizes whose data moves while the arguments
// are compared (with the counts that differ at those sizes).
func mismatchRoots(e mismatchEnv) []mismatch {
	w, n, odd, pick := e.w, e.n, e.odd, e.pick
	return []mismatch{
		{name: "Bcast roots", run: func() error { return mpi.Bcast(w, i32(4), pick(0, 1)) }},
		{name: "long Bcast roots", run: func() error { return mpi.Bcast(w, i32(30000), pick(0, 1)) }},
		// Each root's requests to send to the other's receivers
		// are never matched: interrupted, they are withdrawn.
		{name: "long Scatter roots", run: func() error { return mpi.Scatter(w, i32(30000*n), i32(30000), pick(0, odd)) }},
		// Medium sizes move their data while the arguments are
		// compared (an overlapped check): the difference must
		// interrupt the receives that wait for data never sent.
		{name: "medium Bcast roots", run: func() error { return mpi.Bcast(w, i32(500), pick(0, 1)) }},
		{name: "medium Reduce roots", run: func() error {
			return mpi.Reduce(w, i32(500), i32(500), mpi.Sum, pick(odd, 0))
		}},
		// Blocks of 12 KiB: at two processes their check overlaps
		// their data too, which the difference must interrupt.
		{name: "12 KiB Bcast roots", run: func() error { return mpi.Bcast(w, i32(3072), pick(0, 1)) }},
		{name: "12 KiB Reduce roots", run: func() error {
			return mpi.Reduce(w, i32(3072), i32(3072), mpi.Sum, pick(odd, 0))
		}},
		{name: "12 KiB Scatter roots", run: func() error { return mpi.Scatter(w, i32(3072*n), i32(3072), pick(0, odd)) }},
		{name: "medium Allgather counts", run: func() error {
			k := pick(200, 201)
			return mpi.Allgather(w, i32(k), i32(k*n))
		}},
		{name: "medium Alltoall counts", run: func() error {
			k := pick(100, 99)
			return mpi.Alltoall(w, i32(k*n), i32(k*n))
		}},
		{name: "Reduce roots", run: func() error { return mpi.Reduce(w, i32(4), i32(4), mpi.Sum, pick(odd, 0)) }},
		{name: "Gather roots", run: func() error { return mpi.Gather(w, i32(2), i32(2*n), pick(0, odd)) }},
		{name: "Scatter roots", run: func() error { return mpi.Scatter(w, i32(2*n), i32(2), pick(0, odd)) }},
		{name: "Gatherv roots", run: func() error {
			cs, ds := make([]int, n), make([]int, n)
			for r := range n {
				cs[r], ds[r] = 1, r
			}
			return mpi.Gatherv(w, i32(1), i32(n), cs, ds, pick(0, odd))
		}},
	}
}

// mismatchCounts returns the cases where the odd rank passes another
// count or element type.
func mismatchCounts(e mismatchEnv) []mismatch {
	w, me, n, odd, pick := e.w, e.me, e.n, e.odd, e.pick
	return []mismatch{
		{name: "Allreduce counts", run: func() error { return mpi.Allreduce(w, i32(pick(3, 4)), i32(pick(3, 4)), mpi.Sum) }},
		{name: "long Allreduce counts", run: func() error {
			k := pick(30000, 30001)
			return mpi.Allreduce(w, i32(k), i32(k), mpi.Sum)
		}},
		{name: "Bcast counts", run: func() error { return mpi.Bcast(w, i32(pick(5, 6)), 0) }},
		{name: "Bcast element types", run: func() error {
			if me == odd {
				return mpi.Bcast(w, make([]int64, 2), 0)
			}
			return mpi.Bcast(w, i32(4), 0)
		}},
		{name: "Allgather counts", run: func() error {
			k := pick(2, 3)
			return mpi.Allgather(w, i32(k), i32(k*n))
		}},
	}
}

// mismatchPartElements returns the cases of a count that divides among
// the ranks by bytes but not by elements.
func mismatchPartElements(e mismatchEnv) []mismatch {
	w, n := e.w, e.n
	return []mismatch{
		// A count that divides among the ranks by bytes but not by
		// elements: refused everywhere, never spliced.
		{name: "Alltoall of part elements", run: func() error {
			return mpi.Alltoall(w, f64(n*3/2+n%2), f64(n*3/2+n%2))
		}, all: true, own: "whole 8-byte elements"},
		{name: "Alltoall in place of part elements", run: func() error {
			return mpi.Alltoall(w, nil, f64(n*3/2+n%2))
		}, all: true, own: "whole 8-byte elements"},
		{name: "Ialltoall of part elements", run: func() error {
			q, err := mpi.Ialltoall(w, f64(n*3/2+n%2), f64(n*3/2+n%2))
			if err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		}, all: true, own: "whole 8-byte elements"},
		{name: "Allgather in place of part elements", run: func() error {
			return mpi.Allgather(w, nil, f64(n*3/2+n%2))
		}, all: true, own: "whole 8-byte elements"},
	}
}

// mismatchBlockCounts returns the cases where the odd rank passes another
// count of the blocks it sends or receives.
func mismatchBlockCounts(e mismatchEnv) []mismatch {
	w, n, pick := e.w, e.n, e.pick
	return []mismatch{
		{name: "Alltoall counts", run: func() error {
			k := pick(1, 2)
			return mpi.Alltoall(w, i32(k*n), i32(k*n))
		}},
		{name: "Gatherv counts", run: func() error {
			cs, ds := make([]int, n), make([]int, n)
			for r := range n {
				cs[r], ds[r] = 2, 2*r
			}
			return mpi.Gatherv(w, i32(pick(2, 1)), i32(2*n), cs, ds, 0)
		}},
		{name: "Scatter counts", run: func() error {
			k := pick(2, 3)
			return mpi.Scatter(w, i32(k*n), i32(k), 0)
		}},
		{name: "Scatterv counts", run: func() error {
			cs, ds := make([]int, n), make([]int, n)
			for r := range n {
				cs[r], ds[r] = 2, 2*r
			}
			return mpi.Scatterv(w, i32(2*n), cs, ds, i32(pick(2, 3)), 0)
		}},
		{name: "ReduceScatter counts", run: func() error {
			cs := make([]int, n)
			for r := range n {
				cs[r] = 1
			}
			cs[0] = pick(1, 2)
			total := n - 1 + cs[0]
			return mpi.ReduceScatter(w, i32(total), i32(2), cs, mpi.Sum)
		}},
	}
}

// mismatchOps returns the cases where the odd rank passes another
// operation, short and long.
func mismatchOps(e mismatchEnv) []mismatch {
	w, me, odd := e.w, e.me, e.odd
	return []mismatch{
		{name: "ops", run: func() error {
			op := mpi.Sum
			if me == odd {
				op = mpi.Max
			}
			return mpi.Allreduce(w, i32(3), i32(3), op)
		}},
		{name: "long Allreduce ops", run: func() error {
			op := mpi.Sum
			if me == odd {
				op = mpi.Max
			}
			return mpi.Allreduce(w, i32(30000), i32(30000), op)
		}},
	}
}

// mismatchNothingAgainstData returns the cases where the odd rank moves
// no data and the others do.
func mismatchNothingAgainstData(e mismatchEnv) []mismatch {
	w, n, pick := e.w, e.n, e.pick
	return []mismatch{
		// A call that moves no data returns at once where the NIC's
		// barrier compares the calls: the next call (the Barrier
		// below) compares it with the others' call.
		{name: "Bcast of nothing against data", run: func() error { return mpi.Bcast(w, i32(pick(4, 0)), 0) }},
		{name: "Ibcast of nothing against data", run: func() error {
			q, err := mpi.Ibcast(w, i32(pick(4, 0)), 0)
			if err == nil {
				_, err = q.Wait()
			}
			return err
		}},
		{name: "Allgather of nothing against data", run: func() error {
			k := pick(1, 0)
			return mpi.Allgather(w, i32(k), i32(k*n))
		}},
	}
}

// mismatchDifferentCalls returns the cases where the odd rank calls
// another collective.
func mismatchDifferentCalls(e mismatchEnv) []mismatch {
	w, me, odd := e.w, e.me, e.odd
	return []mismatch{
		// Where the Bcast runs ahead of its check (ranks outnumbering
		// cores), the Barrier's arrival and the Bcast's meet at the
		// barrier: each side reads the other's call from its record.
		{name: "Barrier against Bcast", run: func() error {
			if me == odd {
				return mpi.Barrier(w)
			}
			return mpi.Bcast(w, i32(2), 0)
		}, names: fmt.Sprintf("rank %d called barrier", odd)},
		{name: "Barrier against Bcast of nothing", run: func() error {
			if me == odd {
				return mpi.Barrier(w)
			}
			return mpi.Bcast(w, i32(0), 0)
		}, names: fmt.Sprintf("rank %d called barrier", odd)},
		{name: "Allreduce against Reduce", run: func() error {
			if me == odd {
				return mpi.Reduce(w, i32(2), i32(2), mpi.Sum, 0)
			}
			return mpi.Allreduce(w, i32(2), i32(2), mpi.Sum)
		}, names: fmt.Sprintf("rank %d called reduce", odd)},
	}
}

// mismatchInvalidOnOneRank returns the cases where only the odd rank's
// own argument is invalid.
func mismatchInvalidOnOneRank(e mismatchEnv) []mismatch {
	w, me, n, odd, pick := e.w, e.me, e.n, e.odd, e.pick
	return []mismatch{
		{name: "invalid root on one rank", run: func() error { return mpi.Bcast(w, i32(3), pick(0, -1)) }, own: "root -1"},
		{name: "invalid Reduce root on one rank", run: func() error {
			return mpi.Reduce(w, i32(3), i32(3), mpi.Sum, pick(0, n))
		}, own: fmt.Sprintf("root %d", n)},
		{name: "BAnd on float64 on one rank", run: func() error {
			op := mpi.Sum
			if me == odd {
				op = mpi.BAnd
			}
			return mpi.Allreduce(w, f64(3), f64(3), op)
		}, own: "BAnd"},
		{name: "short receive buffer on one rank", run: func() error {
			return mpi.Allgather(w, i32(2), i32(pick(2*n, 2*n-1)))
		}, own: "receive buffer"},
		{name: "short receive buffer at the Reduce root", run: func() error {
			return mpi.Reduce(w, i32(5), i32(pick(5, 4)), mpi.Sum, odd)
		}, own: "receive buffer"},
		{name: "short send buffer at the Scatter root", run: func() error {
			return mpi.Scatter(w, i32(pick(0, 2*n-1)), i32(2), odd)
		}, own: "send buffer"},
		{name: "too few counts at the Gatherv root", run: func() error {
			return mpi.Gatherv(w, i32(1), i32(n), make([]int, n-1), make([]int, n-1), odd)
		}, own: "counts"},
		{name: "Ibcast with an invalid root on one rank", run: func() error {
			q, err := mpi.Ibcast(w, i32(2), pick(0, -1))
			if err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		}, own: "root -1"},
		{name: "Split with an invalid color on one rank", run: func() error {
			c, err := w.Split(pick(0, -5), 0)
			if c != nil {
				return errors.Join(errors.New("got a communicator"), release(c))
			}
			return err
		}, own: "color -5", others: "color -5"},
	}
}

// runMismatches runs the cases in turn, checks each one's error on every
// rank, and that the communicator works after it.
func runMismatches(e mismatchEnv, cases []mismatch) error {
	w := e.w
	var f failures
	for k, c := range cases {
		err := c.run()
		// A call that runs ahead of its check (ranks outnumbering
		// cores) may return before the difference shows: the next call,
		// the Barrier below, reports it, and runs all the same.
		late := err == nil
		if late {
			err = mpi.Barrier(w)
		}
		checkMismatchError(e, &f, c, err)
		if err := checkAfterMismatch(e, &f, k, c.name, late); err != nil {
			return err
		}
	}
	return f.err()
}

// checkMismatchError checks the error a case gave this rank (or the
// Barrier after it, if the case returned before the difference showed).
func checkMismatchError(e mismatchEnv, f *failures, c mismatch, err error) {
	me, odd := e.me, e.odd
	switch {
	case err == nil:
		f.add("rank %d: %s: no error", me, c.name)
	case c.own != "" && (c.all || me == odd):
		if !strings.Contains(err.Error(), c.own) {
			f.add("rank %d: %s: error %q does not name %q", me, c.name, err, c.own)
		}
	case c.all:
		if !errors.Is(err, mpi.ErrOp) && !errors.Is(err, mpi.ErrMismatch) && !errors.Is(err, collectives.ErrBuffer) {
			f.add("rank %d: %s: error %q wraps neither ErrOp, ErrMismatch nor ErrBuffer", me, c.name, err)
		}
	case c.others != "" && strings.Contains(err.Error(), c.others):
	case !errors.Is(err, mpi.ErrMismatch):
		f.add("rank %d: %s: error %q does not wrap ErrMismatch", me, c.name, err)
	case c.names != "" && !strings.Contains(err.Error(), c.names):
		f.add("rank %d: %s: error %q does not name %q", me, c.name, err, c.names)
	}
	// A rank's call is read from what it published at the barrier,
	// whichever way it arrived: never an empty record.
	if err != nil && strings.Contains(err.Error(), "called invalid") {
		f.add("rank %d: %s: error %q names a call not published", me, c.name, err)
	}
}

// checkAfterMismatch checks that the communicator still works after case
// k: the NIC's barrier, and software collectives whose messages are
// tagged by the count of calls. (A rank that reported late has passed
// one barrier already.)
func checkAfterMismatch(e mismatchEnv, f *failures, k int, name string, late bool) error {
	w, me, n := e.w, e.me, e.n
	if !late {
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("Barrier after %s: %w (earlier: %v)", name, err, f.err())
		}
	}
	long, longOut := make([]int64, 3000), make([]int64, 3000)
	for i := range long {
		long[i] = int64(i + me)
	}
	if err := mpi.Allreduce(w, long, longOut, mpi.Max); err != nil {
		return fmt.Errorf("long Allreduce after %s: %w (earlier: %v)", name, err, f.err())
	}
	if longOut[0] != int64(n-1) || longOut[2999] != int64(n+2998) {
		f.add("rank %d: long Allreduce after %s: %d…%d", me, name, longOut[0], longOut[2999])
	}
	got := []int64{0, 0}
	if err := mpi.Allreduce(w, []int64{int64(me), int64(k)}, got, mpi.Sum); err != nil {
		return fmt.Errorf("Allreduce after %s: %w (earlier: %v)", name, err, f.err())
	}
	if want := []int64{int64(n * (n - 1) / 2), int64(k * n)}; !slices.Equal(got, want) {
		f.add("rank %d: Allreduce after %s: %v, want %v", me, name, got, want)
	}
	return nil
}

// ---- nonblocking ----

// sumTo is the sum of the ranks below k.
func sumTo(k int) int64 { return int64(k * (k - 1) / 2) }

// scenarioCollNonblocking runs nonblocking collectives beside blocking
// ones and point-to-point messages, completed by Wait, Test, Waitany,
// Testall and Testany, and many at once.
func scenarioCollNonblocking(w *mpi.Comm) error {
	var f failures
	for round := range 3 {
		if err := firstError(
			func() error { return nbcBesideBlocking(w, &f, round) },
			func() error { return nbcPolled(w, &f) },
			func() error { return nbcWaitany(w, &f, round) },
		); err != nil {
			return err
		}
	}
	if err := firstError(
		func() error { return nbcIbarrierDelivers(w, &f) },
		func() error { return nbcTestallTestany(w, &f) },
		func() error { return nbcManyInFlight(w, &f) },
	); err != nil {
		return err
	}
	return f.err()
}

// nbcBesideBlocking runs an Ibcast, then a blocking Allreduce, then
// Iallreduce, Ibarrier, Barrier, and Waitall, the root rotating with
// round.
func nbcBesideBlocking(w *mpi.Comm, f *failures, round int) error {
	me, n := w.Rank(), w.Size()
	root := round % n
	bwant := pattern[float64](3000, round, root)
	bbuf := make([]float64, 3000)
	if me == root {
		copy(bbuf, bwant)
	}
	q1, err := mpi.Ibcast(w, bbuf, root)
	if err != nil {
		return err
	}
	sum := []int64{0}
	if err := mpi.Allreduce(w, []int64{int64(me)}, sum, mpi.Sum); err != nil {
		return fmt.Errorf("Allreduce while an Ibcast is pending: %w", err)
	}
	if sum[0] != sumTo(n) {
		f.add("rank %d: Allreduce during Ibcast: %d, want %d", me, sum[0], sumTo(n))
	}
	big := make([]int32, 20000)
	for i := range big {
		big[i] = int32(me + i)
	}
	bigOut := make([]int32, len(big))
	q2, err := mpi.Iallreduce(w, big, bigOut, mpi.Max)
	if err != nil {
		return err
	}
	q3, err := mpi.Ibarrier(w)
	if err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return fmt.Errorf("Barrier while Ibarrier is pending: %w", err)
	}
	if _, err := mpi.Waitall([]*mpi.Request{q1, q2, q3}); err != nil {
		return fmt.Errorf("Waitall: %w", err)
	}
	if d := diff(bbuf, bwant); d != "" {
		f.add("rank %d: Ibcast from %d: %s", me, root, d)
	}
	for i, v := range bigOut {
		if v != int32(n-1+i) {
			f.add("rank %d: Iallreduce Max: element %d is %d, want %d", me, i, v, n-1+i)
			break
		}
	}
	return nil
}

// nbcPolled polls an Iallreduce with Test until done, and tests it again
// after completion, which returns the same.
func nbcPolled(w *mpi.Comm, f *failures) error {
	me, n := w.Rank(), w.Size()
	out := []int64{0, 0}
	q, err := mpi.Iallreduce(w, []int64{int64(me), 1}, out, mpi.Sum)
	if err != nil {
		return err
	}
	for {
		done, _, err := q.Test()
		if err != nil {
			return fmt.Errorf("Test of an Iallreduce: %w", err)
		}
		if done {
			break
		}
	}
	if out[0] != sumTo(n) || out[1] != int64(n) {
		f.add("rank %d: polled Iallreduce: %v, want [%d %d]", me, out, sumTo(n), n)
	}
	// Test after completion returns the same again.
	if done, _, err := q.Test(); !done || err != nil {
		f.add("rank %d: Test of a completed Iallreduce: %v, %v", me, done, err)
	}
	return nil
}

// waitanyMix is the buffers and requests of nbcWaitany: an Iallgather,
// an Ireduce, an Ibarrier, an Ibcast, an Irecv and an Isend.
type waitanyMix struct {
	gat  []int16
	red  []uint64
	bc   []int32
	tok  []int64
	reqs []*mpi.Request
}

// nbcWaitany completes collective requests and a point-to-point pair
// with Waitany, the root rotating with round, and checks their results.
func nbcWaitany(w *mpi.Comm, f *failures, round int) error {
	root := round % w.Size()
	x, err := startWaitanyMix(w, round, root)
	if err != nil {
		return err
	}
	if err := x.waitEach(w, f, round); err != nil {
		return err
	}
	x.check(w, f, round, root)
	return nil
}

// startWaitanyMix starts the requests of nbcWaitany.
func startWaitanyMix(w *mpi.Comm, round, root int) (*waitanyMix, error) {
	me, n := w.Rank(), w.Size()
	var err error
	x := &waitanyMix{gat: make([]int16, n), red: make([]uint64, 2), bc: []int32{0, 0}, tok: []int64{-1},
		reqs: make([]*mpi.Request, 6)}
	if me == root {
		x.bc = []int32{7, int32(round)}
	}
	gat, red, bc, tok, reqs := x.gat, x.red, x.bc, x.tok, x.reqs
	if reqs[0], err = mpi.Iallgather(w, []int16{int16(me * 3)}, gat); err != nil {
		return nil, err
	}
	if reqs[1], err = mpi.Ireduce(w, []uint64{uint64(me), 1}, red, mpi.Sum, root); err != nil {
		return nil, err
	}
	if reqs[2], err = mpi.Ibarrier(w); err != nil {
		return nil, err
	}
	if reqs[3], err = mpi.Ibcast(w, bc, root); err != nil {
		return nil, err
	}
	if reqs[4], err = mpi.Irecv(w, tok, left(w), 90+round); err != nil {
		return nil, err
	}
	if reqs[5], err = mpi.Isend(w, []int64{int64(1000*round + me)}, right(w), 90+round); err != nil {
		return nil, err
	}
	return x, nil
}

// waitEach completes every request with Waitany, each once, and then
// Waitany returns Undefined.
func (x *waitanyMix) waitEach(w *mpi.Comm, f *failures, round int) error {
	me, reqs := w.Rank(), x.reqs
	seen := make([]bool, len(reqs))
	for range len(reqs) {
		i, st, err := mpi.Waitany(reqs)
		if err != nil {
			return fmt.Errorf("Waitany: request %d: %w", i, err)
		}
		if i < 0 || i >= len(reqs) || seen[i] {
			return fmt.Errorf("Waitany returned %d (seen %v)", i, seen)
		}
		seen[i] = true
		if i == 4 {
			if err := checkStatus("Waitany's Irecv", st, left(w), 90+round, 1, 8); err != nil {
				f.add("rank %d: %v", me, err)
			}
		}
	}
	if i, _, err := mpi.Waitany(reqs); i != mpi.Undefined || err != nil {
		f.add("rank %d: Waitany with every request done: %d, %v; want Undefined", me, i, err)
	}
	return nil
}

// check checks the results of the requests of nbcWaitany.
func (x *waitanyMix) check(w *mpi.Comm, f *failures, round, root int) {
	me, n := w.Rank(), w.Size()
	gat, red, bc, tok := x.gat, x.red, x.bc, x.tok
	for r := range n {
		if gat[r] != int16(3*r) {
			f.add("rank %d: Iallgather via Waitany: %v", me, gat)
			break
		}
	}
	if me == root && (red[0] != uint64(sumTo(n)) || red[1] != uint64(n)) {
		f.add("rank %d: Ireduce via Waitany: %v", me, red)
	}
	if bc[0] != 7 || bc[1] != int32(round) {
		f.add("rank %d: Ibcast via Waitany: %v", me, bc)
	}
	if tok[0] != int64(1000*round+left(w)) {
		f.add("rank %d: Irecv via Waitany: %v", me, tok)
	}
}

// nbcIbarrierDelivers checks that once an Ibarrier completes, the message
// every rank sent before starting it is there. One rank is late.
func nbcIbarrierDelivers(w *mpi.Comm, f *failures) error {
	me, n := w.Rank(), w.Size()
	for round := range 3 {
		tag := 200 + round
		for p := range n {
			if p != me {
				if err := mpi.Send(w, []int32{int32(round)}, p, tag); err != nil {
					return err
				}
			}
		}
		if me == round%n {
			time.Sleep(5 * time.Millisecond)
		}
		q, err := mpi.Ibarrier(w)
		if err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return fmt.Errorf("Ibarrier: %w", err)
		}
		for p := range n {
			if p == me {
				continue
			}
			found := false
			for try := 0; try < 1000 && !found; try++ {
				if found, _, err = w.Iprobe(p, tag); err != nil {
					return err
				}
			}
			if !found {
				f.add("rank %d: after Ibarrier %d, the message rank %d sent before starting it is not there", me, round, p)
			}
			if _, err := mpi.Recv(w, make([]int32, 1), p, tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// nbcTestallTestany polls collective requests with Testall and Testany,
// with a Dup (itself collective) while they are in flight.
func nbcTestallTestany(w *mpi.Comm, f *failures) error {
	d, err := nbcTestallBesideDup(w, f)
	if err != nil {
		return err
	}
	return nbcTestanyOnDup(d)
}

// nbcTestallBesideDup starts an Iallreduce and an Ialltoall, runs Dup
// while they are in flight, polls them with Testall and checks them; it
// returns the Dup.
func nbcTestallBesideDup(w *mpi.Comm, f *failures) (*mpi.Comm, error) {
	me, n := w.Rank(), w.Size()
	out1, out2 := make([]int64, 1), make([]int32, n)
	q1, err := mpi.Iallreduce(w, []int64{int64(me + 1)}, out1, mpi.Prod)
	if err != nil {
		return nil, err
	}
	q2, err := mpi.Ialltoall(w, slices.Repeat([]int32{int32(me)}, n), out2)
	if err != nil {
		return nil, err
	}
	d, err := w.Dup()
	if err != nil {
		return nil, fmt.Errorf("Dup while nonblocking collectives are in flight: %w", err)
	}
	reqs := []*mpi.Request{q1, q2}
	for {
		done, _, err := mpi.Testall(reqs)
		if err != nil {
			return nil, fmt.Errorf("Testall: %w", err)
		}
		if done {
			break
		}
	}
	fact := int64(1)
	for r := 2; r <= n; r++ {
		fact *= int64(r)
	}
	if out1[0] != fact {
		f.add("rank %d: Iallreduce Prod polled by Testall: %d, want %d", me, out1[0], fact)
	}
	for r, v := range out2 {
		if v != int32(r) {
			f.add("rank %d: Ialltoall polled by Testall: %v", me, out2)
			break
		}
	}
	return d, nil
}

// nbcTestanyOnDup polls an Ibarrier on d with Testany beside a nil
// request, and frees d.
func nbcTestanyOnDup(d *mpi.Comm) error {
	q3, err := mpi.Ibarrier(d)
	if err != nil {
		return err
	}
	reqs := []*mpi.Request{nil, q3}
	for {
		_, i, _, err := mpi.Testany(reqs)
		if err != nil {
			return fmt.Errorf("Testany: %w", err)
		}
		if i == 1 {
			break
		}
		if i != mpi.Undefined {
			return fmt.Errorf("Testany returned %d", i)
		}
	}
	return release(d)
}

// nbcManyInFlight starts many nonblocking collectives at once and
// completes them in reverse order.
func nbcManyInFlight(w *mpi.Comm, f *failures) error {
	me, n := w.Rank(), w.Size()
	const k = 40
	outs := make([][]int64, k)
	reqs := make([]*mpi.Request, k)
	for i := range k {
		outs[i] = make([]int64, 1)
		var err error
		if reqs[i], err = mpi.Iallreduce(w, []int64{int64(i * me)}, outs[i], mpi.Sum); err != nil {
			return err
		}
	}
	for i := k - 1; i >= 0; i-- {
		if _, err := reqs[i].Wait(); err != nil {
			return fmt.Errorf("Iallreduce %d of %d in flight: %w", i, k, err)
		}
		if want := int64(i) * sumTo(n); outs[i][0] != want {
			f.add("rank %d: Iallreduce %d of %d in flight: %d, want %d", me, i, k, outs[i][0], want)
		}
	}
	return nil
}

// scenarioRunAhead checks every value of 300 rounds of small broadcasts
// and reductions to a root, the roots rotating, many times the ring's
// depth: a rank that runs ahead must not overwrite a word that a slower
// rank has yet to read. Every 50th round's root sleeps first, so that the
// others wait for its arrival long enough to sleep. A Barrier and an
// Allreduce now and then settle the calls left for later.
func scenarioRunAhead(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	var f failures
	word := func(round, rank int) int64 { return int64(round*1000 + rank) }
	for round := range 300 {
		root := round % n
		if me == root && round%50 == 49 {
			time.Sleep(20 * time.Millisecond)
		}
		buf := []int64{-1, -1}
		if me == root {
			buf = []int64{word(round, root), -word(round, root)}
		}
		if err := mpi.Bcast(w, buf, root); err != nil {
			return fmt.Errorf("round %d: Bcast from %d: %w", round, root, err)
		}
		if buf[0] != word(round, root) || buf[1] != -word(round, root) {
			f.add("rank %d: round %d: Bcast from %d gave %v", me, round, root, buf)
		}
		out := []int64{0, 0}
		if err := mpi.Reduce(w, []int64{word(round, me), 1}, out, mpi.Sum, (root+1)%n); err != nil {
			return fmt.Errorf("round %d: Reduce to %d: %w", round, (root+1)%n, err)
		}
		if me == (root+1)%n {
			want := int64(0)
			for r := range n {
				want += word(round, r)
			}
			if out[0] != want || out[1] != int64(n) {
				f.add("rank %d: round %d: Reduce gave %v, want [%d %d]", me, round, out, want, n)
			}
		}
		switch round % 97 {
		case 96:
			if err := mpi.Barrier(w); err != nil {
				return fmt.Errorf("round %d: Barrier: %w", round, err)
			}
		case 48:
			sum := []int64{0}
			if err := mpi.Allreduce(w, []int64{int64(me)}, sum, mpi.Sum); err != nil {
				return fmt.Errorf("round %d: Allreduce: %w", round, err)
			}
			if sum[0] != int64(n*(n-1)/2) {
				f.add("rank %d: round %d: Allreduce gave %d", me, round, sum[0])
			}
		}
	}
	return f.err()
}

// ---- placement ----

func init() {
	scenarios["coll-placed"] = func(w *mpi.Comm) error { return scenarioPlaced(w, false) }
	scenarios["coll-placed-modelled"] = func(w *mpi.Comm) error { return scenarioPlaced(w, true) }
}

// TestCollectivePlaced runs long reductions at 4 processes pinned
// (-bind-to core) and not: pinned on fewer than 4 CPUs, where ranks share
// them, the selection runs them hierarchical; otherwise never, nor under
// the Martini model.
func TestCollectivePlaced(t *testing.T) {
	t.Parallel()
	for _, bind := range []string{"core", "none"} {
		t.Run(bind, func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, 4, "coll-placed", "-bind-to", bind)
		})
	}
	t.Run("modelled", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 4, "coll-placed-modelled", "-bind-to", "core", "-profile", "martini")
	})
}

// scenarioPlaced reduces 64 KiB and 1 MiB to every root and checks the
// results, then that the statistics show the hierarchical algorithm
// where the ranks share CPUs (mpirun pins rank r to the r-th allowed CPU,
// modulo their number: with 4 ranks, on fewer than 4 CPUs; or all run on
// the one CPU they are allowed), unless the job is modelled, and not
// elsewhere.
func scenarioPlaced(w *mpi.Comm, modelled bool) error {
	before, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	n, me := w.Size(), w.Rank()
	for _, count := range []int{16 << 10, 256 << 10} {
		in := make([]int32, count)
		for i := range in {
			in[i] = int32(i + me)
		}
		out := make([]int32, count)
		for root := range n {
			if err := mpi.Reduce(w, in, out, mpi.Sum, root); err != nil {
				return err
			}
			for i := range out {
				if me == root && out[i] != int32(n*i+n*(n-1)/2) {
					return fmt.Errorf("Reduce of %d to %d: out[%d] = %d", count, root, i, out[i])
				}
			}
		}
	}
	after, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	ran := after.Collectives["reduce/hierarchical"] - before.Collectives["reduce/hierarchical"]
	// runtime.NumCPU counts the CPUs allowed when the process started,
	// before Init pinned it. A process allowed one CPU is pinned to it
	// whether mpirun pins or not.
	cpus := runtime.NumCPU()
	pinned := os.Getenv(launch.EnvBind) == launch.BindCore || cpus == 1
	shared := pinned && cpus < n && !modelled
	if want := map[bool]uint64{true: uint64(2 * n)}[shared]; ran != want {
		return fmt.Errorf("pinned %v: %d hierarchical Reduces, want %d: %v", shared, ran, want, after.Collectives)
	}
	return nil
}
