package collectives

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// scriptedRing is a RunAheadBarrier whose generations are scripted: what
// each member passed, and which generations are released; WaitReleasedAt
// releases a generation not yet released (the others arrive) and records
// that it had to wait.
type scriptedRing struct {
	gen      uint64
	keys     map[uint64][]uint64
	recs     map[uint64][][keySize]byte
	released map[uint64]bool
	waited   []uint64
	readings int // calls of LastReleased
}

func (s *scriptedRing) ArriveRecord(key uint64, rec [keySize]byte) (uint64, error) {
	s.gen++
	return s.gen, nil
}
func (s *scriptedRing) Generation() uint64 { return s.gen }
func (s *scriptedRing) LastReleased() uint64 {
	s.readings++
	var g uint64
	for s.released[g+1] {
		g++
	}
	return g
}
func (s *scriptedRing) KeyAt(r int, gen uint64) uint64 { return s.keys[gen][r] }
func (s *scriptedRing) RecordAt(r int, gen uint64) [keySize]byte {
	return s.recs[gen][r]
}
func (s *scriptedRing) RingDepth() int { return 8 }
func (s *scriptedRing) WaitReleasedAt(gen uint64) error {
	if !s.released[gen] {
		s.waited = append(s.waited, gen)
		s.released[gen] = true
	}
	return nil
}

// script makes generation gen's arguments: every member's key k but
// member odd's, which is other (same Key: pass k).
func (s *scriptedRing) script(gen uint64, n, odd int, k, other Key) uint64 {
	s.keys[gen], s.recs[gen] = make([]uint64, n), make([][keySize]byte, n)
	var mine [keySize]byte
	for r := range n {
		key := k
		if r == odd {
			key = other
		}
		key.put(s.recs[gen][r][:])
		s.keys[gen][r] = keyHash(s.recs[gen][r][:])
	}
	k.put(mine[:])
	return keyHash(mine[:])
}

// TestRunAheadSettle scripts a rank that ran three broadcasts ahead: the
// settling of a generation waits for its release and compares its keys,
// a difference is kept and reported once, by the next call, joined with
// that call's own result, and generations past the limit stay unsettled.
func TestRunAheadSettle(t *testing.T) {
	const n = 3
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{}, released: map[uint64]bool{}}
	p := &RunAhead{hw: s, size: n, mask: 1<<64 - 1}
	bcast := Key{Coll: CollBcast, Elem: 4, Bytes: 16}
	rootOne := bcast
	rootOne.Root = 1
	for gen, other := range map[uint64]Key{1: bcast, 2: rootOne, 3: bcast} {
		h := s.script(gen, n, n-1, bcast, other)
		u := unsettled{gen: gen, hash: h}
		bcast.put(u.rec[:])
		p.pending[gen-1] = u
	}
	p.n, s.gen, s.released[1] = 3, 3, true

	p.settle(2)
	if !slices.Equal(s.waited, []uint64{2}) {
		t.Errorf("settling up to generation 2 waited for %v, want [2] (1 was released)", s.waited)
	}
	if p.n != 1 || p.pending[0].gen != 3 {
		t.Fatalf("after settling up to 2: %d unsettled, first of generation %d; want generation 3 alone", p.n, p.pending[0].gen)
	}
	u := &Runner{RunAhead: p}
	err := u.withEarlier(nil)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "an earlier collective call") ||
		!strings.Contains(err.Error(), "root 1") {
		t.Errorf("the next call's result: %v; want the earlier difference in roots", err)
	}
	if err := u.withEarlier(nil); err != nil {
		t.Errorf("a difference reported twice: %v", err)
	}

	// The last generation differs too: reported with the call's own error.
	s.script(3, n, 0, bcast, Key{Coll: CollBcast, Elem: 4, Bytes: 20})
	u.settleAll()
	own := errors.New("the call's own failure")
	err = u.withEarlier(own)
	if !errors.Is(err, ErrMismatch) || !errors.Is(err, own) || !strings.Contains(err.Error(), "20 bytes") {
		t.Errorf("with the call's own error: %v; want both", err)
	}
	if p.n != 0 {
		t.Errorf("%d calls unsettled after settleAll", p.n)
	}
}

// TestRunAheadOneReading checks that one reading of the arrivals settles
// every call it finds released: settling the oldest of five released
// calls reads once and waits for none, settling up to the last reading
// reads no more, and a call is checked again only when the reading is
// older than it.
func TestRunAheadOneReading(t *testing.T) {
	const n = 2
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{}, released: map[uint64]bool{}}
	p := &RunAhead{hw: s, size: n, mask: 1<<64 - 1}
	bcast := Key{Coll: CollBcast, Elem: 1, Bytes: 8}
	for gen := uint64(1); gen <= 6; gen++ {
		u := unsettled{gen: gen, hash: s.script(gen, n, 0, bcast, bcast)}
		bcast.put(u.rec[:])
		p.pending[gen-1] = u
		s.released[gen] = gen <= 5
	}
	p.n, s.gen = 6, 6

	p.settle(1)
	if s.readings != 1 || len(s.waited) != 0 || p.released != 5 || p.n != 5 {
		t.Fatalf("settling generation 1: %d readings, waited for %v, known released %d, %d unsettled; want 1, none, 5, 5",
			s.readings, s.waited, p.released, p.n)
	}
	p.settle(p.released)
	if s.readings != 1 || p.n != 1 || p.pending[0].gen != 6 {
		t.Fatalf("settling up to the reading: %d readings, %d unsettled; want 1 reading, generation 6 unsettled", s.readings, p.n)
	}
	s.released[6] = true
	if !p.releasedBy(6) || s.readings != 2 {
		t.Errorf("generation 6 after its release: released %v after %d readings; want true after 2", p.releasedBy(6), s.readings)
	}
	if err := p.hw.WaitReleasedAt(6); err != nil || len(s.waited) != 0 {
		t.Errorf("waited for %v", s.waited)
	}
	p.settle(6)
	if p.n != 0 || p.earlier != nil {
		t.Errorf("%d unsettled, difference %v", p.n, p.earlier)
	}
}

// TestRunAheadOnlyFanOut checks which calls run ahead: a Runner's
// broadcasts and scatters with FanOutAhead and a RunAheadBarrier, nothing
// else.
func TestRunAheadOnlyFanOut(t *testing.T) {
	hw := &ringHW{memHW: &memHW{h: newMemHardware(1)}, scriptedRing: &scriptedRing{}}
	u := &Runner{HW: hw, RunAhead: new(RunAhead), FanOutAhead: true}
	for _, c := range []Collective{CollBcast, CollScatter} {
		if _, ok := u.runAheadBarrier(c); !ok {
			t.Errorf("%v does not run ahead", c)
		}
	}
	for _, c := range []Collective{CollReduce, CollGather, CollScatterv, CollAllgather, CollAlltoall, CollBarrier} {
		if _, ok := u.runAheadBarrier(c); ok {
			t.Errorf("%v runs ahead", c)
		}
	}
	u.FanOutAhead = false
	if _, ok := u.runAheadBarrier(CollBcast); ok {
		t.Error("a broadcast runs ahead without FanOutAhead")
	}
	u.FanOutAhead, u.HW = true, hw.memHW
	if _, ok := u.runAheadBarrier(CollBcast); ok {
		t.Error("a broadcast runs ahead on a Hardware without the ring")
	}
}

// ringHW is a Hardware with a RunAheadBarrier.
type ringHW struct {
	*memHW
	*scriptedRing
}
