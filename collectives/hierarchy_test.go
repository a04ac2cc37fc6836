package collectives

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// placements are ways of pinning n ranks to processors: as mpirun does on
// 2 and 3 CPUs (r mod CPUs), in blocks, all on one, and each alone.
func placements(n int) map[string][]int {
	p := map[string][]int{}
	for name, f := range map[string]func(r int) int{
		"mod2": func(r int) int { return r % 2 }, "mod3": func(r int) int { return r % 3 },
		"blocks": func(r int) int { return r / 2 }, "one": func(int) int { return 7 },
		"alone": func(r int) int { return r },
	} {
		p[name] = make([]int, n)
		for r := range n {
			p[name][r] = f(r)
		}
	}
	return p
}

// runPlaced runs f on n Runners whose ranks are pinned as processors
// says, with the algorithm of coll forced to alg ("" chooses).
func runPlaced(t *testing.T, n int, processors []int, coll Collective, alg string, f func(u *Runner) error) []error {
	t.Helper()
	return runPlacedCheck(t, n, processors, false, coll, alg, f)
}

// runPlacedCheck is runPlaced comparing the arguments first if check.
func runPlacedCheck(t *testing.T, n int, processors []int, check bool, coll Collective, alg string, f func(u *Runner) error) []error {
	t.Helper()
	w := newMemWorld(n)
	errs := runGoroutines(t, n, func(r int) error {
		u := &Runner{Net: &memNet{w: w, rank: r}, Check: check, Force: force(coll, alg), Stats: &Stats{}, Processors: processors}
		return f(u)
	}, w.kill)
	w.checkDelivered(t, fmt.Sprintf("%v on %v", coll, processors))
	return errs
}

// Every placement gives the flat algorithms' results, for every root, in
// place or not, for lengths that do not divide evenly.
func TestHierarchicalResults(t *testing.T) {
	sum := redCases(t)[0]
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8} {
		for name, procs := range placements(n) {
			for _, cnt := range []int{0, 1, 33, 20001} {
				t.Run(fmt.Sprintf("n%d/%s/%d", n, name, cnt), func(t *testing.T) {
					checkHierarchical(t, n, procs, sum, cnt)
				})
			}
		}
	}
}

func checkHierarchical(t *testing.T, n int, procs []int, rc redCase, cnt int) {
	want := rc.comb(0, n, cnt)
	for _, inPlace := range []bool{false, true} {
		errs := runPlaced(t, n, procs, CollAllreduce, AlgHierarchical, func(u *Runner) error {
			return checkAllreduce(u, rc, cnt, inPlace, want)
		})
		expectRun(t, errs, false)
		for root := range n {
			errs := runPlaced(t, n, procs, CollReduce, AlgHierarchical, func(u *Runner) error {
				return checkReduce(u, rc, cnt, root, inPlace, want)
			})
			expectRun(t, errs, false)
			errs = runPlaced(t, n, procs, CollBcast, AlgHierarchical, func(u *Runner) error {
				buf := make([]byte, len(want))
				if u.Net.Rank() == root {
					copy(buf, want)
				}
				if err := u.Bcast(buf, root, 1); err != nil {
					return err
				}
				if !bytes.Equal(buf, want) {
					return fmt.Errorf("bcast from %d: wrong data", root)
				}
				return nil
			})
			expectRun(t, errs, false)
		}
	}
}

// A rank passing a longer vector fails the call: on every rank when the
// arguments are compared first, and without the comparison on the ranks
// of its processor, whose level finds it; a non-commutative operation is
// refused.
func TestHierarchicalErrors(t *testing.T) {
	procs := placements(4)["mod2"]
	sum := redCases(t)[0].r
	for _, check := range []bool{false, true} {
		errs := runPlacedCheck(t, 4, procs, check, CollAllreduce, AlgHierarchical, func(u *Runner) error {
			length := 4000
			if u.Net.Rank() == 2 { // shares rank 0's processor, which leads it
				length += 4
			}
			return u.Allreduce(make([]byte, length), make([]byte, length), sum)
		})
		for r, err := range errs {
			if (check || r%2 == 0) && !errors.Is(err, ErrMismatch) {
				t.Errorf("check %v: rank %d: %v, want ErrMismatch", check, r, err)
			}
		}
		if !check && !strings.Contains(fmt.Sprint(errs[0]), "among ranks [0 2]") {
			t.Errorf("rank 0: %v, want the level's ranks named", errs[0])
		}
	}
	iv := redCases(t)[1].r
	errs := runPlaced(t, 4, procs, CollReduce, AlgHierarchical, func(u *Runner) error {
		return u.Reduce(make([]byte, 80), make([]byte, 80), iv, 0)
	})
	expectRun(t, errs, true)
}

// The selection runs the long calls hierarchical where ranks share
// processors, and only there.
func TestHierarchicalSelection(t *testing.T) {
	sum := redCases(t)[0].r
	for _, tc := range []struct {
		early  bool // Tuning.EarlyHierarchy
		n      int
		procs  []int
		coll   Collective
		length int
		want   bool
	}{
		{false, 4, placements(4)["mod2"], CollReduce, 64 << 10, true},
		{false, 4, placements(4)["mod2"], CollReduce, 32 << 10, false},
		{false, 4, placements(4)["alone"], CollReduce, 1 << 20, false},
		{false, 4, nil, CollReduce, 1 << 20, false},
		{false, 4, placements(4)["mod2"], CollAllreduce, 512 << 10, true},
		{false, 4, placements(4)["mod2"], CollAllreduce, 256 << 10, false},
		{false, 3, placements(3)["mod2"], CollAllreduce, 1 << 20, false}, // unbalanced
		{false, 4, placements(4)["mod2"], CollBcast, 1 << 20, true},
		{false, 8, placements(8)["mod2"], CollBcast, 1 << 20, false}, // four a processor
		{true, 4, placements(4)["mod2"], CollReduce, 16 << 10, true},
		{true, 4, placements(4)["mod2"], CollReduce, 16<<10 - 4, false},
		{true, 3, placements(3)["mod2"], CollReduce, 32 << 10, false}, // unbalanced
		{true, 3, placements(3)["mod2"], CollReduce, 64 << 10, true},
		{true, 4, placements(4)["mod2"], CollAllreduce, 16 << 10, true},
		{true, 4, placements(4)["mod2"], CollAllreduce, 256 << 10, true},
		{true, 4, placements(4)["alone"], CollAllreduce, 256 << 10, false},
		{true, 3, placements(3)["mod2"], CollAllreduce, 1 << 20, false},
		{true, 4, placements(4)["mod2"], CollBcast, 512 << 10, false},
	} {
		errs := runPlaced(t, tc.n, tc.procs, tc.coll, "", func(u *Runner) error {
			u.Tuning.EarlyHierarchy = tc.early
			buf := make([]byte, tc.length)
			switch tc.coll {
			case CollReduce:
				return u.Reduce(buf, make([]byte, tc.length), sum, 0)
			case CollAllreduce:
				return u.Allreduce(buf, make([]byte, tc.length), sum)
			}
			return u.Bcast(buf, 0, 1)
		})
		expectRun(t, errs, false)
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, Processors: tc.procs, Tuning: Tuning{EarlyHierarchy: tc.early}}
		if got := u.choose(tc.coll, tc.length, true, false) == AlgHierarchical; got != tc.want {
			t.Errorf("%v of %d bytes on %v (early %v): hierarchical %v, want %v",
				tc.coll, tc.length, tc.procs, tc.early, got, tc.want)
		}
	}
}
