package collectives

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// interval is a non-commutative associative operation on int64s that
// detects both a wrong order and a missing operand: an element packs
// (first rank, last rank) of a run of ranks, and two runs combine only if
// adjacent, in order; anything else yields -1, which absorbs.
var interval = NewOp("interval", func(in, inout []int64) {
	for i := range inout {
		a, b := in[i], inout[i]
		if a < 0 || b < 0 || a&0xffffffff+1 != b>>32 {
			inout[i] = -1
			continue
		}
		inout[i] = a&^0xffffffff | b&0xffffffff
	}
}, false)

func runOf(lo, hi int) int64 { return int64(lo)<<32 | int64(hi) }

func asBytes[E any](s []E) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	var e E
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(e)))
}

// redCase is a reduction test: the reducer, rank r's input of cnt
// elements, and the combination of ranks lo..hi-1.
type redCase struct {
	name  string
	r     Reducer
	input func(r, cnt int) []byte
	comb  func(lo, hi, cnt int) []byte
}

func redCases(t *testing.T) []redCase {
	sum, err := ReducerFor[int32](Sum)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := ReducerFor[int64](interval)
	if err != nil {
		t.Fatal(err)
	}
	return []redCase{
		{"sum-int32", sum,
			func(r, cnt int) []byte {
				v := make([]int32, cnt)
				for i := range v {
					v[i] = int32(r*1000 + i + 1)
				}
				return asBytes(v)
			},
			func(lo, hi, cnt int) []byte {
				v := make([]int32, cnt)
				for r := lo; r < hi; r++ {
					for i := range v {
						v[i] += int32(r*1000 + i + 1)
					}
				}
				return asBytes(v)
			}},
		{"interval-int64", iv,
			func(r, cnt int) []byte {
				v := make([]int64, cnt)
				for i := range v {
					v[i] = runOf(r, r)
				}
				return asBytes(v)
			},
			func(lo, hi, cnt int) []byte {
				v := make([]int64, cnt)
				for i := range v {
					v[i] = runOf(lo, hi-1)
				}
				return asBytes(v)
			}},
	}
}

// inapplicable reports whether alg cannot run coll on n ranks with r.
func inapplicable(coll Collective, alg string, n int, commutative, hw, fits bool) bool {
	switch {
	case alg == AlgNIC:
		return !hw
	case alg == AlgShared:
		return !fits
	case alg == AlgRing || alg == AlgReduceScatterGather || alg == "recursive-halving" || alg == AlgHierarchical:
		if !commutative {
			return true
		}
	}
	if (alg == AlgRecursiveDoubling && coll == CollAllgather) || alg == "recursive-halving" {
		return !isPowerOfTwo(n)
	}
	return false
}

// runsAlgorithm reports whether a call of bytes runs an algorithm: one
// that moves none returns at once where the arguments are compared
// through the Hardware's barrier (Runner.Empty).
func runsAlgorithm(bytes int, hw bool) bool { return bytes > 0 || !hw }

// forEachSetup runs body for every size, with and without hardware and
// argument checks, and for every algorithm of coll (and the default "").
func forEachSetup(t *testing.T, coll Collective, body func(t *testing.T, n int, hw, check bool, alg string)) {
	for _, n := range testSizes {
		for _, hw := range []bool{false, true} {
			for _, check := range []bool{false, true} {
				for _, alg := range append([]string{""}, Algorithms(coll)...) {
					name := fmt.Sprintf("n%d/hw=%v/check=%v/%s", n, hw, check, alg)
					t.Run(name, func(t *testing.T) { body(t, n, hw, check, alg) })
				}
			}
		}
	}
}

func force(coll Collective, alg string) Selection {
	if alg == "" {
		return nil
	}
	return Selection{coll: alg}
}

// expectRun checks the errors of a run: all nil, or, if the algorithm does
// not apply, all ErrAlgorithm (or mismatches reporting another rank's).
func expectRun(t *testing.T, errs []error, bad bool) {
	t.Helper()
	for r, err := range errs {
		switch {
		case bad && !errors.Is(err, ErrAlgorithm) && !errors.Is(err, errNoHardware) && !errors.Is(err, ErrMismatch):
			t.Errorf("rank %d: want an inapplicable-algorithm error, got %v", r, err)
		case !bad && err != nil:
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestRunnerBarrier(t *testing.T) {
	forEachSetup(t, CollBarrier, func(t *testing.T, n int, hw, check bool, alg string) {
		errs := runRunners(t, n, hw, check, force(CollBarrier, alg), func(u *Runner) error {
			for range 3 {
				if err := u.Barrier(); err != nil {
					return err
				}
			}
			return nil
		})
		expectRun(t, errs, alg == AlgNIC && !hw)
	})
}

func TestRunnerBcast(t *testing.T) {
	forEachSetup(t, CollBcast, func(t *testing.T, n int, hw, check bool, alg string) {
		for _, size := range []int{0, 1, 77, 250, 70000} {
			for root := range n {
				want := make([]byte, size)
				for i := range want {
					want[i] = byte(i*7 + root + 1)
				}
				fits := size <= recordData(hw, n, CollBcast)
				bad := runsAlgorithm(size, hw) && inapplicable(CollBcast, alg, n, true, hw, fits)
				errs := runRunners(t, n, hw, check, force(CollBcast, alg), func(u *Runner) error {
					buf := make([]byte, size)
					if u.Net.Rank() == root {
						copy(buf, want)
					}
					if err := u.Bcast(buf, root, 1); err != nil {
						return err
					}
					if !bytes.Equal(buf, want) {
						return fmt.Errorf("size %d root %d: wrong data", size, root)
					}
					return nil
				})
				expectRun(t, errs, bad)
			}
		}
	})
}

func TestRunnerAllreduce(t *testing.T) {
	for _, rc := range redCases(t) {
		t.Run(rc.name, func(t *testing.T) {
			forEachSetup(t, CollAllreduce, func(t *testing.T, n int, hw, check bool, alg string) {
				for _, cnt := range []int{0, 1, 5, 33, 9000} {
					for _, inPlace := range []bool{false, true} {
						length := cnt * rc.r.Elem
						bad := runsAlgorithm(length, hw) && inapplicable(CollAllreduce, alg, n, rc.r.Commutative, hw, length <= recordData(hw, n, CollAllreduce))
						want := rc.comb(0, n, cnt)
						errs := runRunners(t, n, hw, check, force(CollAllreduce, alg), func(u *Runner) error {
							return checkAllreduce(u, rc, cnt, inPlace, want)
						})
						expectRun(t, errs, bad)
					}
				}
			})
		})
	}
}

// checkAllreduce runs an Allreduce of rc's inputs of cnt elements on u,
// in place or not, and checks that it gives want.
func checkAllreduce(u *Runner, rc redCase, cnt int, inPlace bool, want []byte) error {
	in, recv := rc.input(u.Net.Rank(), cnt), make([]byte, cnt*rc.r.Elem)
	if inPlace {
		copy(recv, in)
		in = nil
	}
	if err := u.Allreduce(in, recv, rc.r); err != nil {
		return err
	}
	if !bytes.Equal(recv, want) {
		return fmt.Errorf("allreduce of %d elements, in place %v: wrong result", cnt, inPlace)
	}
	return nil
}

// checkReduce runs a Reduce of rc's inputs of cnt elements to root on u,
// in place or not, and checks that the root gets want.
func checkReduce(u *Runner, rc redCase, cnt, root int, inPlace bool, want []byte) error {
	in := rc.input(u.Net.Rank(), cnt)
	var recv []byte
	if u.Net.Rank() == root {
		recv = make([]byte, cnt*rc.r.Elem)
		if inPlace {
			copy(recv, in)
			in = nil
		}
	}
	if err := u.Reduce(in, recv, rc.r, root); err != nil {
		return err
	}
	if u.Net.Rank() == root && !bytes.Equal(recv, want) {
		return fmt.Errorf("reduce of %d elements to %d, in place %v: wrong result", cnt, root, inPlace)
	}
	return nil
}

// recordData is the input an exchange record of coll carries on n ranks:
// the hardware's payload, or what messageRecords allows (TestSharedPays
// checks the bound).
func recordData(hw bool, n int, coll Collective) int {
	if hw {
		return memPayloadSize - keySize
	}
	return (&Runner{Net: &memNet{w: newMemWorld(n)}}).messageShareMax(coll)
}

func TestRunnerReduce(t *testing.T) {
	for _, rc := range redCases(t) {
		t.Run(rc.name, func(t *testing.T) {
			forEachSetup(t, CollReduce, func(t *testing.T, n int, hw, check bool, alg string) {
				for _, cnt := range []int{0, 3, 9000} {
					for root := range n {
						for _, inPlace := range []bool{false, true} {
							length := cnt * rc.r.Elem
							bad := runsAlgorithm(length, hw) && inapplicable(CollReduce, alg, n, rc.r.Commutative, hw, length <= recordData(hw, n, CollReduce))
							want := rc.comb(0, n, cnt)
							errs := runRunners(t, n, hw, check, force(CollReduce, alg), func(u *Runner) error {
								return checkReduce(u, rc, cnt, root, inPlace, want)
							})
							expectRun(t, errs, bad)
						}
					}
				}
			})
		})
	}
}

func TestRunnerScan(t *testing.T) {
	for _, rc := range redCases(t) {
		for _, exclusive := range []bool{false, true} {
			coll := CollScan
			if exclusive {
				coll = CollExscan
			}
			t.Run(rc.name+"/"+coll.String(), func(t *testing.T) {
				forEachSetup(t, coll, func(t *testing.T, n int, hw, check bool, alg string) {
					for _, cnt := range []int{1, 4, 100} {
						length := cnt * rc.r.Elem
						bad := inapplicable(coll, alg, n, rc.r.Commutative, hw, length <= recordData(hw, n, coll))
						errs := runRunners(t, n, hw, check, force(coll, alg), func(u *Runner) error {
							rank := u.Net.Rank()
							recv := make([]byte, length)
							if err := u.Scan(rc.input(rank, cnt), recv, rc.r, exclusive); err != nil {
								return err
							}
							var want []byte
							switch {
							case !exclusive:
								want = rc.comb(0, rank+1, cnt)
							case rank > 0:
								want = rc.comb(0, rank, cnt)
							default:
								want = make([]byte, length)
							}
							if !bytes.Equal(recv, want) {
								return fmt.Errorf("%d elements: wrong result at rank %d", cnt, rank)
							}
							return nil
						})
						expectRun(t, errs, bad)
					}
				})
			})
		}
	}
}

// TestRunnerMoves checks gather, scatter, allgather and alltoall, with
// every setup and every root, for several block sizes.
func TestRunnerMoves(t *testing.T) {
	for _, blk := range []int{0, 3, 40, 3000} {
		t.Run(fmt.Sprintf("blk%d", blk), func(t *testing.T) {
			for _, coll := range []Collective{CollGather, CollScatter, CollAllgather, CollAlltoall} {
				t.Run(coll.String(), func(t *testing.T) {
					forEachSetup(t, coll, func(t *testing.T, n int, hw, check bool, alg string) {
						share := blk
						if coll == CollScatter || coll == CollAlltoall {
							share = n * blk
						}
						bad := runsAlgorithm(blk, hw) && inapplicable(coll, alg, n, true, hw, share <= recordData(hw, n, coll))
						for root := range n {
							errs := runRunners(t, n, hw, check, force(coll, alg), func(u *Runner) error {
								return moveBlocks(u, coll, n, blk, root)
							})
							expectRun(t, errs, bad)
							if coll == CollAllgather || coll == CollAlltoall {
								break
							}
						}
					})
				})
			}
		})
	}
}

// moveBlockOf returns the block of blk bytes that from sends to.
func moveBlockOf(from, to, blk int) []byte {
	b := make([]byte, blk)
	for i := range b {
		b[i] = byte(from*31 + to*7 + i + 1)
	}
	return b
}

// moveBlocks runs coll on u with blocks of blk bytes and root, and checks
// the blocks this rank receives.
func moveBlocks(u *Runner, coll Collective, n, blk, root int) error {
	switch coll {
	case CollGather:
		return gatherMoved(u, n, blk, root)
	case CollScatter:
		return scatterMoved(u, n, blk, root)
	case CollAllgather:
		return allgatherMoved(u, n, blk)
	case CollAlltoall:
		return alltoallMoved(u, n, blk)
	}
	return nil
}

// gatherMoved gathers every rank's block at root, which checks them.
func gatherMoved(u *Runner, n, blk, root int) error {
	rank := u.Net.Rank()
	recv := make([]byte, n*blk)
	if err := u.Gather(moveBlockOf(rank, 0, blk), recv, root, 1); err != nil {
		return err
	}
	if rank == root {
		for r := range n {
			if !bytes.Equal(recv[r*blk:(r+1)*blk], moveBlockOf(r, 0, blk)) {
				return fmt.Errorf("block %d wrong", r)
			}
		}
	}
	return nil
}

// scatterMoved scatters root's blocks, and checks the one this rank gets.
func scatterMoved(u *Runner, n, blk, root int) error {
	rank := u.Net.Rank()
	var send []byte
	if rank == root {
		for r := range n {
			send = append(send, moveBlockOf(root, r, blk)...)
		}
	}
	recv := make([]byte, blk)
	if err := u.Scatter(send, recv, root, 1); err != nil {
		return err
	}
	if !bytes.Equal(recv, moveBlockOf(root, rank, blk)) {
		return fmt.Errorf("block wrong")
	}
	return nil
}

// allgatherMoved gathers every rank's block at every rank, and checks them.
func allgatherMoved(u *Runner, n, blk int) error {
	rank := u.Net.Rank()
	recv := make([]byte, n*blk)
	if err := u.Allgather(moveBlockOf(rank, 0, blk), recv, 1); err != nil {
		return err
	}
	for r := range n {
		if !bytes.Equal(recv[r*blk:(r+1)*blk], moveBlockOf(r, 0, blk)) {
			return fmt.Errorf("block %d wrong", r)
		}
	}
	return nil
}

// alltoallMoved sends a block from every rank to every rank, and checks
// the blocks this rank gets.
func alltoallMoved(u *Runner, n, blk int) error {
	rank := u.Net.Rank()
	var send []byte
	for r := range n {
		send = append(send, moveBlockOf(rank, r, blk)...)
	}
	recv := make([]byte, n*blk)
	if err := u.Alltoall(send, recv, 1); err != nil {
		return err
	}
	for r := range n {
		if !bytes.Equal(recv[r*blk:(r+1)*blk], moveBlockOf(r, rank, blk)) {
			return fmt.Errorf("block from %d wrong", r)
		}
	}
	return nil
}

func TestRunnerReduceScatterBlock(t *testing.T) {
	for _, rc := range redCases(t) {
		t.Run(rc.name, func(t *testing.T) {
			forEachSetup(t, CollReduceScatterBlock, func(t *testing.T, n int, hw, check bool, alg string) {
				for _, cnt := range []int{1, 2, 500} {
					blk := cnt * rc.r.Elem
					bad := inapplicable(CollReduceScatterBlock, alg, n, rc.r.Commutative, hw, n*blk <= recordData(hw, n, CollReduceScatterBlock))
					all := rc.comb(0, n, n*cnt)
					errs := runRunners(t, n, hw, check, force(CollReduceScatterBlock, alg), func(u *Runner) error {
						rank := u.Net.Rank()
						recv := make([]byte, blk)
						if err := u.ReduceScatterBlock(rc.input(rank, n*cnt), recv, rc.r); err != nil {
							return err
						}
						if want := all[rank*blk : (rank+1)*blk]; !bytes.Equal(recv, want) {
							return fmt.Errorf("%d elements: wrong block at rank %d", cnt, rank)
						}
						return nil
					})
					expectRun(t, errs, bad)
				}
			})
		})
	}
}

// TestRunnerMismatch: processes that disagree on counts, roots or the
// collective itself all fail with ErrMismatch when arguments are checked.
func TestRunnerMismatch(t *testing.T) {
	sum, _ := ReducerFor[int32](Sum)
	cases := slices.Concat(mismatchBcastCases(), mismatchReduceCases(sum), mismatchOtherCases())
	runMismatchCases(t, cases)
}

// mismatchCase is a call that processes make with arguments that differ.
type mismatchCase struct {
	name string
	f    func(u *Runner) error
}

// mismatchBcastCases are broadcasts whose roots, counts or records'
// lengths differ between processes.
func mismatchBcastCases() []mismatchCase {
	return []mismatchCase{
		{"bcast-root", func(u *Runner) error { return u.Bcast(make([]byte, 8), u.Net.Rank()%2, 1) }},
		{"bcast-count", func(u *Runner) error { return u.Bcast(make([]byte, 8+u.Net.Rank()), 0, 1) }},
		{"bcast-large-count", func(u *Runner) error { return u.Bcast(make([]byte, 100000+u.Net.Rank()), 0, 1) }},
		// Processes without the hardware exchange records as long as the
		// call needs (messageRecords): here of several lengths, growing
		// with the rank and shrinking, then records against the key alone
		// of a call whose data does not fit. Every process must read the
		// keys (rank 0's named in the error) whatever the lengths.
		{"bcast-record-lengths", func(u *Runner) error { return u.Bcast(make([]byte, 1000+2000*u.Net.Rank()), 0, 1) }},
		{"bcast-record-shrinking", func(u *Runner) error { return u.Bcast(make([]byte, 1000+(8-u.Net.Rank())*700), 0, 1) }},
		{"bcast-record-vs-key", func(u *Runner) error { return u.Bcast(make([]byte, 1000+40000*u.Net.Rank()), 0, 1) }},
	}
}

// mismatchReduceCases are reductions whose counts, operations, paths,
// roots or types differ between processes, or that meet a barrier.
func mismatchReduceCases(sum Reducer) []mismatchCase {
	return []mismatchCase{
		{"allreduce-count", func(u *Runner) error {
			b := make([]byte, 4*(1+u.Net.Rank()%2))
			return u.Allreduce(slices.Clone(b), b, sum)
		}},
		{"allreduce-op", func(u *Runner) error {
			r := sum
			if u.Net.Rank() == 1 {
				r, _ = ReducerFor[int32](Max)
			}
			return u.Allreduce(make([]byte, 8), make([]byte, 8), r)
		}},
		{"allreduce-word-vs-record", func(u *Runner) error {
			// 8 bytes take the small path, 16 the driver.
			b := make([]byte, 8*(1+u.Net.Rank()%2))
			return u.Allreduce(nil, b, sum)
		}},
		{"allreduce-vs-barrier", func(u *Runner) error {
			if u.Net.Rank() == 1 {
				return u.Barrier()
			}
			return u.Allreduce(nil, make([]byte, 4), sum)
		}},
		{"reduce-root", func(u *Runner) error { return u.Reduce(make([]byte, 8), make([]byte, 8), sum, u.Net.Rank()) }},
		{"allreduce-type", func(u *Runner) error {
			r := sum
			if u.Net.Rank() == 1 {
				r, _ = ReducerFor[float32](Sum) // same size, another type
			}
			return u.Allreduce(make([]byte, 8), make([]byte, 8), r)
		}},
	}
}

// mismatchOtherCases are gathers whose counts differ, a barrier met by a
// broadcast, and a root that does not exist on one process.
func mismatchOtherCases() []mismatchCase {
	return []mismatchCase{
		{"gather-count", func(u *Runner) error {
			return u.Gather(make([]byte, 4+4*(u.Net.Rank()%2)), make([]byte, 64), 0, 4)
		}},
		{"barrier-vs-bcast", func(u *Runner) error {
			if u.Net.Rank() == 1 {
				return u.Bcast(make([]byte, 4), 0, 1)
			}
			return u.Barrier()
		}},
		{"invalid-root", func(u *Runner) error {
			root := 0
			if u.Net.Rank() == 1 {
				root = 99
			}
			return u.Bcast(make([]byte, 4), root, 1)
		}},
		{"gatherv-counts", func(u *Runner) error {
			n := u.Net.Size()
			counts, displs := make([]int, n), make([]int, n)
			for i := range counts {
				counts[i], displs[i] = 4, 4*i
			}
			return u.Gatherv(make([]byte, 4+u.Net.Rank()%2), make([]byte, 4*n), counts, displs, 0, 1)
		}},
	}
}

// runMismatchCases runs every case on 2, 3, 5 and 8 processes, with and
// without hardware, checking arguments, and wants every rank to fail
// with a mismatch (naming rank 0's call where the records' lengths differ).
func runMismatchCases(t *testing.T, cases []mismatchCase) {
	t.Helper()
	// What every rank's error names, where the records' lengths differ:
	// rank 0's call, whose key every process must read.
	says := map[string]string{
		"bcast-record-lengths":   "called bcast of 1000 bytes",
		"bcast-record-shrinking": "called bcast of 6600 bytes",
		"bcast-record-vs-key":    "called bcast of 1000 bytes",
	}
	for _, tc := range cases {
		for _, n := range []int{2, 3, 5, 8} {
			for _, hw := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/n%d/hw=%v", tc.name, n, hw), func(t *testing.T) {
					errs := runRunners(t, n, hw, true, nil, tc.f)
					for r, err := range errs {
						if !errors.Is(err, ErrMismatch) && !errors.Is(err, ErrBuffer) {
							t.Errorf("rank %d: want a mismatch error, got %v", r, err)
						}
						if want := says[tc.name]; want != "" && !strings.Contains(fmt.Sprint(err), want) {
							t.Errorf("rank %d: %v does not say %q", r, err, want)
						}
					}
				})
			}
		}
	}
}

func TestSelectionParse(t *testing.T) {
	sel, err := ParseSelection("allreduce=ring, bcast=nic,barrier=binomial")
	if err != nil {
		t.Fatal(err)
	}
	if sel[CollAllreduce] != AlgRing || sel[CollBcast] != AlgNIC || sel[CollBarrier] != AlgBinomial {
		t.Fatalf("parsed %v", sel)
	}
	if s := sel.String(); s != "barrier=binomial,bcast=nic,allreduce=ring" {
		t.Errorf("String() = %q", s)
	}
	for _, bad := range []string{"allreduce", "frobnicate=ring", "allreduce=bogus"} {
		if _, err := ParseSelection(bad); err == nil {
			t.Errorf("ParseSelection(%q) accepted", bad)
		}
	}
}

// TestRunnerSoftwareCheckWithHardware: with offload present but the
// barrier (and so the argument exchange) forced to software, records have
// one size on every rank whatever each publishes.
func TestRunnerSoftwareCheckWithHardware(t *testing.T) {
	sum, _ := ReducerFor[int32](Sum)
	for _, alg := range []string{AlgDissemination, AlgBinomial} {
		for _, n := range []int{2, 3, 5} {
			errs := runRunners(t, n, true, true, Selection{CollBarrier: alg}, func(u *Runner) error {
				buf := make([]byte, 4)
				if u.Net.Rank() == 0 {
					buf[0] = 7
				}
				if err := u.Bcast(buf, 0, 1); err != nil {
					return err
				}
				if buf[0] != 7 {
					return fmt.Errorf("bcast: got %d", buf[0])
				}
				v := asBytes([]int32{1})
				out := make([]byte, 4)
				if err := u.Allreduce(v, out, sum); err != nil {
					return err
				}
				if got := *(*int32)(unsafe.Pointer(&out[0])); got != int32(n) {
					return fmt.Errorf("allreduce: got %d, want %d", got, n)
				}
				return u.Barrier()
			})
			for r, err := range errs {
				if err != nil {
					t.Errorf("barrier=%s n=%d rank %d: %v", alg, n, r, err)
				}
			}
		}
	}
}

// TestRunnerPartialElements: a buffer that divides into the ranks' blocks
// by bytes but not by elements (3 float64 among 2 ranks: blocks of 12
// bytes) is refused with ErrBuffer on every rank, never spliced.
func TestRunnerPartialElements(t *testing.T) {
	sum, err := ReducerFor[float64](Sum)
	if err != nil {
		t.Fatal(err)
	}
	const elem = 8
	calls := []struct {
		name      string
		rootsOnly bool // only the root's buffer is divided: needs the argument check
		run       func(u *Runner, buf []byte) error
	}{
		{"alltoall", false, func(u *Runner, buf []byte) error { return u.Alltoall(buf, make([]byte, len(buf)), elem) }},
		{"alltoall in place", false, func(u *Runner, buf []byte) error { return u.Alltoall(nil, buf, elem) }},
		{"allgather in place", false, func(u *Runner, buf []byte) error { return u.Allgather(nil, buf, elem) }},
		{"reduce_scatter_block in place", false, func(u *Runner, buf []byte) error { return u.ReduceScatterBlock(nil, buf, sum) }},
		{"gather in place at the root", true, func(u *Runner, buf []byte) error {
			if u.Net.Rank() == 0 {
				return u.Gather(nil, buf, 0, elem)
			}
			return u.Gather(make([]byte, elem), nil, 0, elem)
		}},
		{"scatter in place at the root", true, func(u *Runner, buf []byte) error {
			if u.Net.Rank() == 0 {
				return u.Scatter(buf, nil, 0, elem)
			}
			return u.Scatter(nil, make([]byte, elem), 0, elem)
		}},
	}
	for _, c := range calls {
		for _, n := range []int{2, 4} {
			for _, hw := range []bool{false, true} {
				for _, check := range []bool{false, true} {
					if c.rootsOnly && !check {
						continue
					}
					count := n * 3 / 2 // bytes divide by n, elements do not
					errs := runRunners(t, n, hw, check, nil, func(u *Runner) error {
						return c.run(u, make([]byte, count*elem))
					})
					for r, err := range errs {
						if !errors.Is(err, ErrBuffer) && !(c.rootsOnly && r != 0 && errors.Is(err, ErrMismatch)) {
							t.Errorf("%s, n=%d hw=%v check=%v: rank %d: %v, want ErrBuffer", c.name, n, hw, check, r, err)
						}
					}
				}
			}
		}
	}
}

// TestRunnerForcedNICWithoutHardware: a NIC algorithm forced on a
// communicator without the NIC's offload refuses that collective with
// ErrAlgorithm on every process and breaks no other collective (the
// argument check went by the forced barrier, and panicked at one process).
func TestRunnerForcedNICWithoutHardware(t *testing.T) {
	sum, err := ReducerFor[int64](Sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, forced := range []Collective{CollBarrier, CollBcast} {
		for _, n := range []int{1, 2, 3} {
			for _, check := range []bool{false, true} {
				errs := runRunners(t, n, false, check, Selection{forced: AlgNIC}, func(u *Runner) error {
					out := make([]byte, 8)
					if err := u.Allreduce(make([]byte, 8), out, sum); err != nil {
						return fmt.Errorf("allreduce: %w", err)
					}
					if err := u.Scatter(make([]byte, 8*n), make([]byte, 8), 0, 8); err != nil {
						return fmt.Errorf("scatter: %w", err)
					}
					var err error
					if forced == CollBarrier {
						err = u.Barrier()
					} else {
						err = u.Bcast(make([]byte, 8), 0, 8)
					}
					if !errors.Is(err, ErrAlgorithm) {
						return fmt.Errorf("forced %v: %v, want ErrAlgorithm", forced, err)
					}
					return u.Allreduce(make([]byte, 8), out, sum) // still in step
				})
				for r, err := range errs {
					if err != nil {
						t.Errorf("%v=nic, n=%d check=%v: rank %d: %v", forced, n, check, r, err)
					}
				}
			}
		}
	}
}
