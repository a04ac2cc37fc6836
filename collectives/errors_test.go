package collectives

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// syncWorld is an in-process network whose sends are synchronous: Send
// returns only once the receiver has taken the message, as a rendezvous
// transport's large messages do. An algorithm that relies on buffered
// sends deadlocks on it. Messages are not copied when sent: the receiver
// reads the sender's buffer.
type syncWorld = pairQueues[*syncMsg]

type syncMsg struct {
	data  []byte
	taken bool
}

type syncNet struct {
	w    *syncWorld
	rank int
}

func (n *syncNet) Rank() int { return n.rank }
func (n *syncNet) Size() int { return n.w.size() }

func (n *syncNet) post(to int, data []byte) (*syncMsg, error) {
	m := &syncMsg{data: data}
	return m, n.w.put(n.rank, to, m)
}

func (n *syncNet) wait(m *syncMsg) error {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	for !m.taken {
		if n.w.dead {
			return errMemDead
		}
		n.w.cond.Wait()
	}
	return nil
}

func (n *syncNet) Send(to int, data []byte) error {
	m, err := n.post(to, data)
	if err != nil {
		return err
	}
	return n.wait(m)
}

func (n *syncNet) Recv(from int, buf []byte) (int, error) {
	length := 0
	err := n.w.take(from, n.rank, func(m *syncMsg) {
		copy(buf, m.data)
		length, m.taken = len(m.data), true
	})
	return length, err
}

func (n *syncNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	m, err := n.post(to, data)
	if err != nil {
		return 0, err
	}
	got, err := n.Recv(from, buf)
	if err != nil {
		return got, err
	}
	return got, n.wait(m)
}

// runSyncRanks is runRanks on a syncWorld.
func runSyncRanks(t *testing.T, size int, f func(n Net) error) []error {
	t.Helper()
	w := newPairQueues[*syncMsg](size)
	errs := runGoroutines(t, size, func(r int) error { return f(&syncNet{w: w, rank: r}) }, w.kill)
	w.checkDelivered(t, fmt.Sprintf("%d ranks, synchronous sends", size))
	return errs
}

// testNets are the networks every case runs on: buffered and
// synchronous sends, and buffered with exchanges (Exchanger), with the
// caller's own copy during them (CopyingExchanger) too.
var testNets = []struct {
	name string
	run  func(t *testing.T, size int, f func(n Net) error) []error
}{
	{"buffered", func(t *testing.T, size int, f func(n Net) error) []error { t.Helper(); return runRanks(t, size, f) }},
	{"synchronous", runSyncRanks},
	{"exchanging", runExchangeRanks},
	{"exchanging with copies", runCopyingExchangeRanks},
}

// exercise runs f on size ranks of each test network. f returns what the
// rank got and what it should have got (a nil want is not checked); every
// rank must succeed.
func exercise(t *testing.T, what string, size int, f func(n Net) (got, want []byte, err error)) {
	t.Helper()
	for _, net := range testNets {
		got, want := make([][]byte, size), make([][]byte, size)
		errs := net.run(t, size, func(n Net) error {
			g, w, err := f(n)
			got[n.Rank()], want[n.Rank()] = g, w
			return err
		})
		for r := range size {
			switch {
			case errs[r] != nil:
				t.Errorf("%s, %s: rank %d: %v", what, net.name, r, errs[r])
			case want[r] != nil && !bytes.Equal(got[r], want[r]):
				t.Errorf("%s, %s: rank %d: %s", what, net.name, r, diff(got[r], want[r]))
			}
		}
	}
}

// mismatch runs f, in which ranks pass inconsistent arguments, on size
// ranks of each test network: every rank must return (runRanks fails the
// test otherwise), any error must wrap ErrMismatch, and the ranks for
// which must reports true must have failed.
func mismatch(t *testing.T, what string, size int, must func(rank int) bool, f func(n Net) error) {
	t.Helper()
	for _, net := range testNets {
		errs := net.run(t, size, f)
		for r, err := range errs {
			switch {
			case err != nil && !errors.Is(err, ErrMismatch):
				t.Errorf("%s, %s: rank %d: %v, not a mismatch", what, net.name, r, err)
			case err == nil && must(r):
				t.Errorf("%s, %s: rank %d reports no mismatch", what, net.name, r)
			}
		}
	}
}

func diff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d bytes, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at byte %d of %d: got %#x, want %#x", i, len(got), got[i], want[i])
		}
	}
	return "equal"
}

// data returns n pseudo-random bytes, a function of the seeds.
func data(n int, seeds ...int) []byte {
	var s uint64 = 0x9e3779b97f4a7c15
	for _, x := range seeds {
		s = s*1000003 + uint64(x)
	}
	rng := rand.New(rand.NewPCG(s, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// junk returns n bytes of a pattern no algorithm produces by chance.
func junk(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xee
	}
	return b
}

// concat joins the blocks.
func concat(blocks ...[]byte) []byte {
	out := []byte{}
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

// sizesFor returns testSizes, or for a power-of-two algorithm those that
// are powers of two.
func sizesFor(pow2 bool) []int {
	if !pow2 {
		return testSizes
	}
	var out []int
	for _, s := range testSizes {
		if isPowerOfTwo(s) {
			out = append(out, s)
		}
	}
	return out
}

// blockSizes are the block sizes, in bytes or units, cases are run with.
var blockSizes = []int{0, 1, 7, 64, 1000}

// local runs f on size ranks that must all fail at once, before any
// message, with an error wrapping target.
func local(t *testing.T, what string, size int, target error, f func(n Net) error) {
	t.Helper()
	for r, err := range runRanks(t, size, f) {
		if !errors.Is(err, target) {
			t.Errorf("%s: rank %d: %v, want an error wrapping %v", what, r, err, target)
		}
	}
}

func TestUnknownAlgorithm(t *testing.T) {
	sum, _ := ReducerFor[int32](Sum)
	calls := map[string]func(n Net) error{
		"gather":       func(n Net) error { return Gather(n, "nope", nil, nil, 0) },
		"gatherv":      func(n Net) error { return Gatherv(n, "nope", nil, nil, nil, nil, 0) },
		"scatter":      func(n Net) error { return Scatter(n, "nope", nil, nil, 0) },
		"scatterv":     func(n Net) error { return Scatterv(n, "nope", nil, nil, nil, nil, 0) },
		"allgather":    func(n Net) error { return Allgather(n, "nope", nil, nil) },
		"allgatherv":   func(n Net) error { return Allgatherv(n, "nope", nil, nil, nil, nil) },
		"alltoall":     func(n Net) error { return Alltoall(n, "nope", nil, nil) },
		"alltoallv":    func(n Net) error { return Alltoallv(n, "nope", nil, nil, nil, nil, nil, nil) },
		"reduce-block": func(n Net) error { return ReduceScatterBlock(n, "nope", nil, nil, sum) },
		"reduce":       func(n Net) error { return ReduceScatter(n, "nope", nil, nil, nil, sum) },
		"scan":         func(n Net) error { return Scan(n, "nope", nil, nil, sum) },
		"exscan":       func(n Net) error { return Exscan(n, "nope", nil, nil, sum) },
	}
	known := map[string]string{
		"gather":       "binomial, linear",
		"gatherv":      "linear",
		"scatter":      "binomial, linear",
		"scatterv":     "linear",
		"allgather":    "bruck, linear, recursive-doubling, ring",
		"allgatherv":   "linear, ring",
		"alltoall":     "bruck, linear, pairwise",
		"alltoallv":    "linear, pairwise",
		"reduce-block": "recursive-halving, reduce-scatter, ring",
		"reduce":       "reduce-scatterv, ring",
		"scan":         "linear, recursive-doubling",
		"exscan":       "linear, recursive-doubling",
	}
	for name, f := range calls {
		local(t, name, 3, ErrAlgorithm, f)
		err := f(&memNet{w: newMemWorld(3)})
		if !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "(known: "+known[name]+")") {
			t.Errorf("%s: %v does not list %s", name, err, known[name])
		}
	}
}

func TestBadRoot(t *testing.T) {
	for _, root := range []int{-1, 3} {
		for name, f := range map[string]func(n Net) error{
			"gather":   func(n Net) error { return Gather(n, "linear", nil, nil, root) },
			"gatherv":  func(n Net) error { return Gatherv(n, "linear", nil, nil, nil, nil, root) },
			"scatter":  func(n Net) error { return Scatter(n, "binomial", nil, nil, root) },
			"scatterv": func(n Net) error { return Scatterv(n, "linear", nil, nil, nil, nil, root) },
		} {
			for r, err := range runRanks(t, 3, f) {
				if !errors.Is(err, ErrBuffer) || !strings.Contains(err.Error(), "root") {
					t.Errorf("%s, root %d: rank %d: %v", name, root, r, err)
				}
			}
		}
	}
}
