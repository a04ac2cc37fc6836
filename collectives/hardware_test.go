package collectives

import (
	"sync"
	"testing"
)

// memHardware is an in-process Hardware for tests: a barrier with
// double-buffered payload slots and a multicast queue per ordered pair.
type memHardware struct {
	mu       sync.Mutex
	cond     *sync.Cond
	n        int
	gen      int
	arrived  int
	payloads [2][][]byte
	sum      int // sum of the keys of the current generation
	sums     [2]uint64
	data     [2][][DatumSize]byte // by generation parity and rank
	mcast    [][][][]byte         // mcast[root][dest]
	dead     bool
}

func newMemHardware(n int) *memHardware {
	h := &memHardware{n: n, mcast: make([][][][]byte, n)}
	h.cond = sync.NewCond(&h.mu)
	for i := range h.payloads {
		h.payloads[i] = make([][]byte, n)
		h.data[i] = make([][DatumSize]byte, n)
	}
	for i := range h.mcast {
		h.mcast[i] = make([][][]byte, n)
	}
	return h
}

// memHW is one rank's view of a memHardware.
type memHW struct {
	h    *memHardware
	rank int
	gen  int
}

const memPayloadSize = 512

func (m *memHW) PayloadSize() int   { return memPayloadSize }
func (m *memHW) MulticastSize() int { return 100 } // small, to test pieces

func (m *memHW) KeyBits() int { return 64 }

func (m *memHW) KeySum() uint64 {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	return m.h.sums[m.gen&1]
}

func (m *memHW) InlineRanks() int { return 3 }

func (m *memHW) Datum(r int) *[DatumSize]byte {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	return &m.h.data[m.gen&1][r]
}

// noDatum is what memHW's Datum returns of a rank that passed none: not
// zeros, so that a caller that reads it fails its test.
var noDatum = func() (w [DatumSize]byte) {
	for i := range w {
		w[i] = 0xa5
	}
	return w
}()

func (m *memHW) Barrier(key uint64, datum *[DatumSize]byte, p []byte) error {
	return m.waitGen(m.arrive(key, datum, p))
}

// arrive is Barrier's arrival: it publishes p, datum and key in the
// current generation and returns it.
func (m *memHW) arrive(key uint64, datum *[DatumSize]byte, p []byte) int {
	if len(p) > memPayloadSize {
		panic("payload too large")
	}
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.gen
	h.payloads[g&1][m.rank] = append([]byte(nil), p...)
	if datum != nil {
		h.data[g&1][m.rank] = *datum
	} else {
		h.data[g&1][m.rank] = noDatum
	}
	h.arrived++
	h.sum += int(key)
	if h.arrived == h.n {
		h.sums[g&1] = uint64(h.sum)
		h.sum = 0
		h.arrived = 0
		h.gen++
		h.cond.Broadcast()
	}
	return g
}

// waitGen is Barrier's wait for the release of generation g.
func (m *memHW) waitGen(g int) error {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.gen == g && !h.dead {
		h.cond.Wait()
	}
	m.gen = g
	if h.dead {
		return errMemDead
	}
	return nil
}

// splitHW is a memHW that is also a SplitBarrier; waiting, if set, runs
// at the start of every WaitReleased.
type splitHW struct {
	*memHW
	g       int // the generation Arrive entered
	waiting func()
}

func (s *splitHW) Arrive(key uint64, datum *[DatumSize]byte, p []byte) error {
	s.g = s.arrive(key, datum, p)
	return nil
}

func (s *splitHW) Released() bool {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.gen != s.g
}

func (s *splitHW) WaitReleased() error {
	if s.waiting != nil {
		s.waiting()
	}
	return s.waitGen(s.g)
}

// Payload returns rank r's payload up to off+n where n is not 0, with
// poison (noDatum's bytes) before off: a caller that reads outside the
// part it said fails.
func (m *memHW) Payload(r, off, n int) []byte {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	p := m.h.payloads[m.gen&1][r]
	if n == 0 {
		return p
	}
	end := min(off+n, len(p))
	q := make([]byte, end)
	for i := range min(off, end) {
		q[i] = noDatum[0]
	}
	if off < end {
		copy(q[off:], p[off:end])
	}
	return q
}

func (m *memHW) Multicast(data []byte) error {
	if len(data) > m.MulticastSize() {
		panic("multicast too large")
	}
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for d := range h.n {
		if d != m.rank {
			h.mcast[m.rank][d] = append(h.mcast[m.rank][d], append([]byte(nil), data...))
		}
	}
	h.cond.Broadcast()
	return nil
}

func (m *memHW) Deliver(root int, buf []byte) (int, error) {
	h := m.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.mcast[root][m.rank]) == 0 {
		if h.dead {
			return 0, errMemDead
		}
		h.cond.Wait()
	}
	msg := h.mcast[root][m.rank][0]
	h.mcast[root][m.rank] = h.mcast[root][m.rank][1:]
	copy(buf, msg)
	return len(msg), nil
}

// runRunners runs f with a Runner on size ranks of a memnet, with
// hardware or not; a run that does not finish fails the test.
func runRunners(t *testing.T, size int, hw, check bool, force Selection, f func(u *Runner) error) []error {
	t.Helper()
	var h *memHardware
	if hw {
		h = newMemHardware(size)
	}
	errs := runRanksKill(t, size, func(n Net) error {
		u := &Runner{Net: n, Check: check, Force: force, Stats: &Stats{}}
		if h != nil {
			// Calls that move no data return at once (Empty).
			u.HW, u.RunAhead, u.SkipEmpty = &memHW{h: h, rank: n.Rank()}, new(RunAhead), true
		}
		return f(u)
	}, func() {
		if h != nil {
			h.mu.Lock()
			h.dead = true
			h.cond.Broadcast()
			h.mu.Unlock()
		}
	})
	if h != nil {
		for r := range h.mcast {
			for d, q := range h.mcast[r] {
				if len(q) != 0 {
					t.Errorf("%d multicast(s) from %d to %d never delivered", len(q), r, d)
				}
			}
		}
	}
	return errs
}
