package collectives

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// pairQueues holds the messages in flight of an in-process test network:
// an unbounded queue per ordered pair of ranks, and a kill switch that
// makes every wait return errMemDead.
type pairQueues[M any] struct {
	mu    sync.Mutex
	cond  *sync.Cond
	queue [][][]M // queue[from][to]
	dead  bool
}

var errMemDead = errors.New("memnet: test timed out")

func newPairQueues[M any](size int) *pairQueues[M] {
	q := &pairQueues[M]{queue: make([][][]M, size)}
	q.cond = sync.NewCond(&q.mu)
	for i := range q.queue {
		q.queue[i] = make([][]M, size)
	}
	return q
}

func (q *pairQueues[M]) size() int { return len(q.queue) }

// put appends m to the queue from → to.
func (q *pairQueues[M]) put(from, to int, m M) error {
	if to < 0 || to >= q.size() {
		return fmt.Errorf("memnet: send to rank %d of %d", to, q.size())
	}
	q.mu.Lock()
	q.queue[from][to] = append(q.queue[from][to], m)
	q.cond.Broadcast()
	q.mu.Unlock()
	return nil
}

// take waits for the first message from → to and removes it; then is
// called on it with the lock held.
func (q *pairQueues[M]) take(from, to int, then func(m M)) error {
	if from < 0 || from >= q.size() {
		return fmt.Errorf("memnet: receive from rank %d of %d", from, q.size())
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue[from][to]) == 0 {
		if q.dead {
			return errMemDead
		}
		q.cond.Wait()
	}
	m := q.queue[from][to][0]
	q.queue[from][to] = q.queue[from][to][1:]
	then(m)
	q.cond.Broadcast()
	return nil
}

// kill makes every wait return errMemDead.
func (q *pairQueues[M]) kill() {
	q.mu.Lock()
	q.dead = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// checkDelivered fails the test for every message never received.
func (q *pairQueues[M]) checkDelivered(t *testing.T, what string) {
	t.Helper()
	for from := range q.queue {
		for to, l := range q.queue[from] {
			if len(l) != 0 {
				t.Errorf("%s: %d message(s) from %d to %d never received", what, len(l), from, to)
			}
		}
	}
}

// memWorld is an in-process network for testing algorithms: one goroutine
// per rank, an unbounded queue of copied messages per ordered pair.
type memWorld = pairQueues[[]byte]

func newMemWorld(size int) *memWorld { return newPairQueues[[]byte](size) }

// memNet is rank's view of a memWorld; it implements Net.
type memNet struct {
	w    *memWorld
	rank int
}

func (n *memNet) Rank() int { return n.rank }
func (n *memNet) Size() int { return n.w.size() }

func (n *memNet) Send(to int, data []byte) error {
	return n.w.put(n.rank, to, append([]byte(nil), data...))
}

func (n *memNet) Recv(from int, buf []byte) (int, error) {
	length := 0
	err := n.w.take(from, n.rank, func(m []byte) {
		copy(buf, m)
		length = len(m)
	})
	return length, err
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
		w.kill()
		if kill != nil {
			kill()
		}
	})
	w.checkDelivered(t, fmt.Sprintf("%d ranks", size))
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
