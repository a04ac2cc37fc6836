package collectives

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// memWorld is an in-process network for testing algorithms: one goroutine
// per rank, an unbounded queue of copied messages per ordered pair.
type memWorld struct {
	mu    sync.Mutex
	cond  *sync.Cond
	queue [][][][]byte // queue[from][to]
	dead  bool
}

var errMemDead = errors.New("memnet: test timed out")

func newMemWorld(size int) *memWorld {
	w := &memWorld{queue: make([][][][]byte, size)}
	w.cond = sync.NewCond(&w.mu)
	for i := range w.queue {
		w.queue[i] = make([][][]byte, size)
	}
	return w
}

// memNet is rank's view of a memWorld; it implements Net.
type memNet struct {
	w    *memWorld
	rank int
}

func (n *memNet) Rank() int { return n.rank }
func (n *memNet) Size() int { return len(n.w.queue) }

func (n *memNet) Send(to int, data []byte) error {
	if to < 0 || to >= n.Size() {
		return fmt.Errorf("memnet: send to rank %d of %d", to, n.Size())
	}
	w := n.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue[n.rank][to] = append(w.queue[n.rank][to], append([]byte(nil), data...))
	w.cond.Broadcast()
	return nil
}

func (n *memNet) Recv(from int, buf []byte) (int, error) {
	if from < 0 || from >= n.Size() {
		return 0, fmt.Errorf("memnet: receive from rank %d of %d", from, n.Size())
	}
	w := n.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue[from][n.rank]) == 0 {
		if w.dead {
			return 0, errMemDead
		}
		w.cond.Wait()
	}
	m := w.queue[from][n.rank][0]
	w.queue[from][n.rank] = w.queue[from][n.rank][1:]
	copy(buf, m)
	return len(m), nil
}

func (n *memNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	if err := n.Send(to, data); err != nil {
		return 0, err
	}
	return n.Recv(from, buf)
}

// runRanks runs f on size ranks of a fresh memWorld and returns every
// rank's error. A run that does not finish within 10 s fails the test
// (an algorithm that hangs), and so does a message left undelivered.
func runRanks(t *testing.T, size int, f func(n Net) error) []error {
	t.Helper()
	return runRanksKill(t, size, f, nil)
}

// runRanksKill is runRanks calling kill, if not nil, on a timeout, to
// release whatever else the ranks may wait for.
func runRanksKill(t *testing.T, size int, f func(n Net) error, kill func()) []error {
	t.Helper()
	w := newMemWorld(size)
	errs := runGoroutines(t, size, func(r int) error { return f(&memNet{w: w, rank: r}) }, func() {
		w.mu.Lock()
		w.dead = true
		w.cond.Broadcast()
		w.mu.Unlock()
		if kill != nil {
			kill()
		}
	})
	for from := range w.queue {
		for to, q := range w.queue[from] {
			if len(q) != 0 {
				t.Errorf("%d ranks: %d message(s) from %d to %d never received", size, len(q), from, to)
			}
		}
	}
	return errs
}

// runGoroutines runs f for ranks 0..size-1, each in a goroutine, and
// returns their errors. If they have not all returned after 10 s, it calls
// kill, which must make them return, and fails the test (an algorithm that
// hangs).
func runGoroutines(t *testing.T, size int, f func(rank int) error, kill func()) []error {
	t.Helper()
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		kill()
		<-done
		t.Fatalf("%d ranks: the operation did not finish (errors: %v)", size, errs)
	}
	return errs
}

// testSizes are the communicator sizes every algorithm is tested at.
var testSizes = []int{1, 2, 3, 4, 5, 7, 8}
