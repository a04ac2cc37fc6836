package collectives

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// testReducer is a Reducer and a generator of its operands.
type testReducer struct {
	name string
	r    Reducer
	// gen returns units units of operand, a function of the seeds.
	gen func(units int, seeds ...int) []byte
}

func rngFor(seeds ...int) *rand.Rand {
	var s uint64 = 0x2545f4914f6cdd1d
	for _, x := range seeds {
		s = s*1000003 + uint64(x)
	}
	return rand.New(rand.NewPCG(s, 17))
}

// values returns a generator of operands of type T, each element made by
// f; elements per unit is 1, or 2 for the Loc operations.
func values[T Type](perUnit int, f func(rng *rand.Rand, i int) T) func(int, ...int) []byte {
	return func(units int, seeds ...int) []byte {
		b := make([]byte, units*perUnit*int(reflect.TypeFor[T]().Size()))
		rng := rngFor(seeds...)
		for i := range view[T](b) {
			view[T](b)[i] = f(rng, i)
		}
		return b
	}
}

func mustReducer[T Type](op Op) Reducer {
	r, err := ReducerFor[T](op)
	if err != nil {
		panic(err)
	}
	return r
}

// affine composes maps x ↦ a·x + b of 32-bit integers, a in the high
// half of an element, b in the low: inout becomes "in, then inout", an
// associative operation that is not commutative.
var affine = NewOp("affine", func(in, inout []uint64) {
	for i := range inout {
		a1, b1 := uint32(in[i]>>32), uint32(in[i])
		a2, b2 := uint32(inout[i]>>32), uint32(inout[i])
		inout[i] = uint64(a2*a1)<<32 | uint64(a2*b1+b2)
	}
}, false)

// firstNonZero keeps the first non-zero operand in rank order: associative,
// not commutative.
var firstNonZero = NewOp("first non-zero", func(in, inout []int16) {
	for i := range inout {
		if in[i] != 0 {
			inout[i] = in[i]
		}
	}
}, false)

var testReducers = []testReducer{
	{"Sum int32", mustReducer[int32](Sum), values(1, func(rng *rand.Rand, _ int) int32 { return int32(rng.Uint32()) })},
	{"Sum float64", mustReducer[float64](Sum), values(1, func(rng *rand.Rand, _ int) float64 { return float64(rng.IntN(2001) - 1000) })},
	{"Max float64", mustReducer[float64](Max), values(1, func(rng *rand.Rand, _ int) float64 { return rng.NormFloat64() })},
	{"BXor uint8", mustReducer[uint8](BXor), values(1, func(rng *rand.Rand, _ int) uint8 { return uint8(rng.Uint32()) })},
	{"MinLoc int32", mustReducer[int32](MinLoc), values(2, func(rng *rand.Rand, i int) int32 {
		if i%2 == 0 {
			return int32(rng.IntN(4)) // many ties: the smallest index wins
		}
		return int32(rng.IntN(1000))
	})},
	{"MaxLoc float64", mustReducer[float64](MaxLoc), values(2, func(rng *rand.Rand, i int) float64 { return float64(rng.IntN(5)) })},
	{"affine uint64", mustReducer[uint64](affine), values(1, func(rng *rand.Rand, _ int) uint64 { return rng.Uint64() })},
	{"first non-zero int16", mustReducer[int16](firstNonZero), values(1, func(rng *rand.Rand, _ int) int16 {
		if rng.IntN(3) != 0 {
			return 0
		}
		return int16(rng.Uint32())
	})},
}

// naiveFold reduces operands in order with r, naively.
func naiveFold(r Reducer, operands ...[]byte) []byte {
	acc := append([]byte{}, operands[0]...)
	for _, x := range operands[1:] {
		next := append([]byte{}, x...)
		r.Apply(acc, next)
		acc = next
	}
	return acc
}

func TestNonCommutativeOps(t *testing.T) {
	// The test operations must be caught by a wrong order.
	for _, tr := range testReducers[len(testReducers)-2:] {
		a, b := tr.gen(64, 1), tr.gen(64, 2)
		if string(naiveFold(tr.r, a, b)) == string(naiveFold(tr.r, b, a)) {
			t.Errorf("%s commutes on the test data", tr.name)
		}
		c := tr.gen(64, 3)
		if string(naiveFold(tr.r, naiveFold(tr.r, a, b), c)) != string(naiveFold(tr.r, a, naiveFold(tr.r, b, c))) {
			t.Errorf("%s is not associative", tr.name)
		}
	}
}

// applies reports whether alg applies to r on size ranks.
func reduceScatterApplies(alg string, r Reducer, size int) bool {
	switch alg {
	case "ring":
		return r.Commutative
	case "recursive-halving":
		return r.Commutative && isPowerOfTwo(size)
	}
	return true
}

func TestReduceScatterBlock(t *testing.T) {
	for _, alg := range knownAlgorithms(reduceScatterBlockAlgorithms) {
		for _, tr := range testReducers {
			for _, size := range testSizes {
				if !reduceScatterApplies(alg, tr.r, size) {
					continue
				}
				for _, units := range blockSizes {
					blk := units * tr.r.Unit
					operands := make([][]byte, size)
					for r := range size {
						operands[r] = tr.gen(units*size, r, size, units)
					}
					total := naiveFold(tr.r, operands...)
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("reduce-scatter-block %s, %s, %d ranks, %d units, in place %v", alg, tr.name, size, units, inPlace)
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							want := total[rank*blk : (rank+1)*blk]
							send := append([]byte{}, operands[rank]...)
							if inPlace {
								recv := send
								err := ReduceScatterBlock(n, alg, nil, recv, tr.r)
								return recv[:blk], want, err
							}
							recv := junk(blk)
							err := ReduceScatterBlock(n, alg, send, recv, tr.r)
							// send is left alone.
							return concat(recv, send), concat(want, operands[rank]), err
						})
					}
				}
			}
		}
	}
}

// reduceScatterCounts returns counts of size blocks, in bytes, of units of
// unit bytes: small, some empty, or with seed 3 larger.
func reduceScatterCounts(size, seed, unit int) []int {
	counts := make([]int, size)
	for i := range counts {
		switch {
		case seed == 3:
			counts[i] = (i*37 + 101) % 300
		case (i+seed)%3 != 1:
			counts[i] = (i*7 + seed*3) % 11
		}
		counts[i] *= unit
	}
	return counts
}

func TestReduceScatter(t *testing.T) {
	for _, alg := range knownAlgorithms(reduceScatterAlgorithms) {
		for _, tr := range testReducers {
			for _, size := range testSizes {
				if !reduceScatterApplies(alg, tr.r, size) {
					continue
				}
				for seed := range 4 {
					counts := reduceScatterCounts(size, seed, tr.r.Unit)
					sum := 0
					for _, c := range counts {
						sum += c
					}
					operands := make([][]byte, size)
					for r := range size {
						operands[r] = tr.gen(sum/tr.r.Unit, r, seed)
					}
					total := naiveFold(tr.r, operands...)
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("reduce-scatter %s, %s, %d ranks, counts %v, in place %v", alg, tr.name, size, counts, inPlace)
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							off := 0
							for _, c := range counts[:rank] {
								off += c
							}
							want := total[off : off+counts[rank]]
							send := append([]byte{}, operands[rank]...)
							if inPlace {
								recv := send
								err := ReduceScatter(n, alg, nil, recv, counts, tr.r)
								return recv[:counts[rank]], want, err
							}
							// A longer receive buffer, whose tail is left alone.
							recv := junk(counts[rank] + 2)
							err := ReduceScatter(n, alg, send, recv, counts, tr.r)
							return concat(recv, send), concat(want, junk(2), operands[rank]), err
						})
					}
				}
			}
		}
	}
}

func TestReduceScatterNotApplicable(t *testing.T) {
	nc := testReducers[len(testReducers)-1].r
	sum := testReducers[0].r
	for _, size := range testSizes {
		for _, alg := range knownAlgorithms(reduceScatterBlockAlgorithms) {
			for _, r := range []Reducer{nc, sum} {
				if reduceScatterApplies(alg, r, size) {
					continue
				}
				local(t, fmt.Sprintf("reduce-scatter-block %s, %s, %d ranks", alg, r.Op, size), size, ErrAlgorithm, func(n Net) error {
					return ReduceScatterBlock(n, alg, make([]byte, 2*size), make([]byte, 2), r)
				})
			}
		}
		local(t, fmt.Sprintf("reduce-scatter ring, %s, %d ranks", nc.Op, size), size, ErrAlgorithm, func(n Net) error {
			return ReduceScatter(n, "ring", make([]byte, 2*size), make([]byte, 2), reduceScatterCounts(size, 3, 0), nc)
		})
	}
}

func TestReduceScatterBuffers(t *testing.T) {
	sum := mustReducer[int32](Sum)
	minloc := mustReducer[int32](MinLoc)
	for _, alg := range knownAlgorithms(reduceScatterBlockAlgorithms) {
		local(t, "reduce-scatter-block, send buffer of the wrong size", 4, ErrBuffer, func(n Net) error {
			return ReduceScatterBlock(n, alg, make([]byte, 20), make([]byte, 4), sum)
		})
		local(t, "reduce-scatter-block, block of half a unit", 4, ErrBuffer, func(n Net) error {
			return ReduceScatterBlock(n, alg, make([]byte, 16), make([]byte, 4), minloc)
		})
		local(t, "reduce-scatter-block in place, no multiple", 4, ErrBuffer, func(n Net) error {
			return ReduceScatterBlock(n, alg, nil, make([]byte, 20), sum)
		})
		local(t, "reduce-scatter-block, no Apply", 4, ErrOp, func(n Net) error {
			return ReduceScatterBlock(n, alg, make([]byte, 16), make([]byte, 4), Reducer{Unit: 4})
		})
	}
	for _, alg := range knownAlgorithms(reduceScatterAlgorithms) {
		local(t, "reduce-scatter, count of half a unit", 2, ErrBuffer, func(n Net) error {
			return ReduceScatter(n, alg, make([]byte, 16), make([]byte, 8), []int{12, 4}, minloc)
		})
		local(t, "reduce-scatter, too few counts", 2, ErrBuffer, func(n Net) error {
			return ReduceScatter(n, alg, make([]byte, 16), make([]byte, 8), []int{16}, sum)
		})
		local(t, "reduce-scatter, send buffer of the wrong size", 2, ErrBuffer, func(n Net) error {
			return ReduceScatter(n, alg, make([]byte, 20), make([]byte, 8), []int{8, 8}, sum)
		})
		local(t, "reduce-scatter, receive buffer too short", 2, ErrBuffer, func(n Net) error {
			return ReduceScatter(n, alg, make([]byte, 16), make([]byte, 4), []int{8, 8}, sum)
		})
		local(t, "reduce-scatter in place, receive buffer too short", 2, ErrBuffer, func(n Net) error {
			return ReduceScatter(n, alg, nil, make([]byte, 12), []int{8, 8}, sum)
		})
	}
}

func TestReduceScatterMismatch(t *testing.T) {
	sum := mustReducer[int32](Sum)
	all := func(int) bool { return true }
	for _, alg := range knownAlgorithms(reduceScatterBlockAlgorithms) {
		for _, size := range []int{2, 3, 4, 5, 8} {
			if !reduceScatterApplies(alg, sum, size) {
				continue
			}
			for _, bad := range []int{0, size - 1} {
				what := fmt.Sprintf("reduce-scatter-block %s, %d ranks, rank %d has blocks of 3 elements, not 2", alg, size, bad)
				mismatch(t, what, size, all, func(n Net) error {
					blk := 8
					if n.Rank() == bad {
						blk = 12
					}
					return ReduceScatterBlock(n, alg, make([]byte, size*blk), make([]byte, blk), sum)
				})
			}
		}
	}
	for _, alg := range knownAlgorithms(reduceScatterAlgorithms) {
		for _, size := range []int{2, 3, 5, 8} {
			for _, bad := range []int{0, size - 1} {
				what := fmt.Sprintf("reduce-scatter %s, %d ranks, rank %d counts one element more for rank 1", alg, size, bad)
				// The ring passes block 1 only on its way to rank 1, the
				// only result it is part of; the tree reduces and
				// scatters everything through rank 0.
				must := all
				if alg == "ring" {
					must = func(r int) bool { return r == 1 }
				}
				mismatch(t, what, size, must, func(n Net) error {
					counts := reduceScatterCounts(size, 0, 4)
					if n.Rank() == bad {
						counts[1] += 4
					}
					sum := 0
					for _, c := range counts {
						sum += c
					}
					return ReduceScatter(n, alg, make([]byte, sum), make([]byte, counts[n.Rank()]), counts, mustReducer[int32](Sum))
				})
			}
		}
	}
}
