package collectives

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// chooseFacts are the inputs of a choice besides the collective, its
// size and its operation: what the Runner is told and what the host has.
type chooseFacts struct {
	hw, multicast, linear, early, avx2 bool
	procs                              string // how ranks share processors: "none", "mod2", "mod3"
}

func (f chooseFacts) String() string {
	return fmt.Sprintf("hw=%v multicast=%v linear=%v early=%v avx2=%v procs=%s", f.hw, f.multicast, f.linear, f.early, f.avx2, f.procs)
}

// chooseSizes are the sizes of the grid: every power of two up to 16 MiB
// and its neighbours, where the thresholds lie.
func chooseSizes() []int {
	sizes := []int{0, 1}
	for k := 1; k <= 24; k++ {
		sizes = append(sizes, 1<<k-1, 1<<k, 1<<k+1)
	}
	return sizes
}

// chooseRunner is a Runner of n ranks with facts f.
func chooseRunner(n int, f chooseFacts) *Runner {
	u := &Runner{Net: &memNet{w: newMemWorld(n)}, BcastMulticast: f.multicast, LinearExchanges: f.linear}
	if f.hw {
		u.HW = &memHW{}
	}
	switch f.procs {
	case "mod2", "mod3":
		m := 2
		if f.procs == "mod3" {
			m = 3
		}
		u.Processors = make([]int, n)
		for r := range n {
			u.Processors[r] = r % m
		}
	}
	setHierarchyEarly(u, f.early)
	return u
}

// chooseGrid calls fn with every row of the grid: the collective, the
// communicator's size, whether the operation commutes, the facts, and
// the choices at chooseSizes as runs ("size=alg" where the choice
// changes).
func chooseGrid(fn func(key, runs string)) {
	defer func(old bool) { vecsumAVX2 = old }(vecsumAVX2)
	sizes := chooseSizes()
	for c := CollBarrier; c < numCollectives; c++ {
		for _, n := range []int{1, 2, 3, 4, 5, 6, 8, 9, 16} {
			for _, commutative := range []bool{true, false} {
				for bits := range 32 {
					for _, procs := range []string{"none", "mod2", "mod3"} {
						f := chooseFacts{hw: bits&1 != 0, multicast: bits&2 != 0, linear: bits&4 != 0, early: bits&8 != 0, avx2: bits&16 != 0, procs: procs}
						vecsumAVX2 = f.avx2
						u := chooseRunner(n, f)
						var runs []string
						last := "-"
						for _, b := range sizes {
							if alg := u.choose(c, b, commutative, false); alg != last {
								runs, last = append(runs, fmt.Sprintf("%d=%s", b, alg)), alg
							}
						}
						fn(fmt.Sprintf("%s n=%d commutative=%v %v", c, n, commutative, f), strings.Join(runs, " "))
					}
				}
			}
		}
	}
}

// chooseDigest is the SHA-256 of the whole grid's choices: a change of
// the selection records it anew (TestChooseRecord prints it) with the
// measurements that decided it.
const chooseDigest = "4e9b786b9a1dfe7b69fbe7c8cddaad88a643ea3d1d60ce56cb723c6ae3a007b2"

// TestChoosePinned: the selection chooses, over a grid of collectives,
// sizes, communicator sizes, operations and facts, what it chose when the
// grid was recorded (testdata/choose.golden holds the rows whose choices
// depend on the facts, the digest the whole grid).
func TestChoosePinned(t *testing.T) {
	h := sha256.New()
	got := map[string]string{}
	chooseGrid(func(key, runs string) {
		fmt.Fprintf(h, "%s: %s\n", key, runs)
		got[key] = runs
	})
	if d := hex.EncodeToString(h.Sum(nil)); d != chooseDigest {
		t.Errorf("the grid's choices changed: digest %s, want %s", d, chooseDigest)
	}
	f, err := os.Open("testdata/choose.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		key, want, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			t.Fatalf("testdata/choose.golden: line %q", sc.Text())
		}
		rows++
		if got[key] != want {
			t.Errorf("%s: %s, want %s", key, got[key], want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows == 0 {
		t.Error("testdata/choose.golden has no rows")
	}
	// Forced algorithms and AlgShared come first.
	u := chooseRunner(4, chooseFacts{procs: "mod2"})
	if alg := u.choose(CollAllreduce, 1<<20, true, true); alg != AlgShared {
		t.Errorf("shared inputs: %s", alg)
	}
	u.Force = Selection{CollAllreduce: AlgRing}
	if alg := u.choose(CollAllreduce, 8, true, true); alg != AlgRing {
		t.Errorf("forced: %s", alg)
	}
}

// TestChooseRecord writes testdata/choose.golden and prints the digest
// (CHOOSE_RECORD=1): the rows of the grid at 2, 4 and 8 ranks without
// facts, and at the Runner's defaults in mpi (hardware, multicast and
// linear exchanges, AVX2 sums) with and without the early hierarchy and
// shared processors.
func TestChooseRecord(t *testing.T) {
	if os.Getenv("CHOOSE_RECORD") == "" {
		t.Skip("CHOOSE_RECORD not set")
	}
	h := sha256.New()
	var b strings.Builder
	chooseGrid(func(key, runs string) {
		fmt.Fprintf(h, "%s: %s\n", key, runs)
		if recorded(key) {
			fmt.Fprintf(&b, "%s: %s\n", key, runs)
		}
	})
	if err := os.WriteFile("testdata/choose.golden", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("digest %s", hex.EncodeToString(h.Sum(nil)))
}

// setHierarchyEarly sets whether u's reductions take AlgHierarchical
// early (the host's fact).
func setHierarchyEarly(u *Runner, early bool) { u.Tuning.EarlyHierarchy = early }

// recorded says whether the row of key goes into testdata/choose.golden.
func recorded(key string) bool {
	if !strings.Contains(key, " n=2 ") && !strings.Contains(key, " n=4 ") && !strings.Contains(key, " n=8 ") {
		return false
	}
	return strings.HasSuffix(key, "hw=false multicast=false linear=false early=false avx2=false procs=none") ||
		strings.Contains(key, "hw=true multicast=true linear=true") && strings.Contains(key, "avx2=true") && !strings.HasSuffix(key, "mod3")
}
