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
	payloads map[uint64][][]byte // by generation and member, if scripted
	released map[uint64]bool
	waited   []uint64
	readings int // calls of LastReleased
	datums   map[uint64][][DatumSize]byte
	arrived  []int // the members WaitArrivedAt waited for
	arrivals [][DatumSize]byte
	// keyReads and windowReads count the calls of KeyAt and KeyWindowAt.
	keyReads, windowReads int
}

func (s *scriptedRing) ArriveRecord(key uint64, rec [keySize]byte, datum *[DatumSize]byte) (uint64, error) {
	s.gen++
	w := noDatum
	if datum != nil {
		w = *datum
	}
	s.arrivals = append(s.arrivals, w)
	return s.gen, nil
}
func (s *scriptedRing) WaitArrivedAt(r int, gen uint64) error {
	s.arrived = append(s.arrived, r)
	return nil
}
func (s *scriptedRing) DatumAt(r int, gen uint64) *[DatumSize]byte { return &s.datums[gen][r] }
func (s *scriptedRing) Generation() uint64                         { return s.gen }
func (s *scriptedRing) LastReleased() uint64 {
	s.readings++
	var g uint64
	for s.released[g+1] {
		g++
	}
	return g
}
func (s *scriptedRing) KeyAt(r int, gen uint64) uint64 {
	s.keyReads++
	return s.keys[gen][r]
}

// KeyWindowAt hashes the keys scripted for the window's generations as
// the NIC does (a generation not scripted counts as keys 0).
func (s *scriptedRing) KeyWindowAt(r int, gen uint64) uint64 {
	s.windowReads++
	var w uint64
	for g := max(1, int(gen)-s.KeyWindow()+1); g <= int(gen); g++ {
		w *= 0x9e3779b97f4a7c15
		if k := s.keys[uint64(g)]; k != nil {
			w += k[r]
		}
	}
	return w
}
func (s *scriptedRing) KeyWindow() int { return s.RingDepth() / 2 }
func (s *scriptedRing) RecordAt(r int, gen uint64) [keySize]byte {
	return s.recs[gen][r]
}
func (s *scriptedRing) PayloadAt(r int, gen uint64) []byte {
	if p := s.payloads[gen]; p != nil {
		return p[r]
	}
	return nil
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

// scriptWords makes the next generation's arguments, as script does,
// and the members' data words.
func (s *scriptedRing) scriptWords(n int, k Key, odd int, other Key, words ...string) {
	gen := s.gen + 1
	s.script(gen, n, odd, k, other)
	s.datums[gen] = make([][DatumSize]byte, n)
	for r, w := range words {
		copy(s.datums[gen][r][:], w)
	}
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

// TestSmallCallsAhead scripts the small broadcasts and reductions that
// run ahead through the ring, at rank 1 of 3: a broadcast's root arrives
// with its word and returns; another rank waits for the root's arrival
// alone, takes its word and leaves the check for later, unless the
// root's key differs, which fails at once; a reduction's other ranks
// arrive with their word and return, and its root waits for the release,
// compares every key and combines the words in rank order.
func TestSmallCallsAhead(t *testing.T) {
	a := newAheadRing()
	checkBcastsAhead(t, a)
	sum, err := ReducerFor[int8](Sum)
	if err != nil {
		t.Fatal(err)
	}
	checkReductionAheadNotRoot(t, a, &sum)
	checkReductionAheadRoot(t, a, &sum)
}

// aheadRing is rank 1 of 3 running ahead through a scripted ring.
type aheadRing struct {
	s *scriptedRing
	u *Runner
}

// aheadRanks is the number of ranks of an aheadRing.
const aheadRanks = 3

// newAheadRing makes rank 1's Runner, checking arguments, on a scripted
// ring.
func newAheadRing() *aheadRing {
	const n = aheadRanks
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{},
		released: map[uint64]bool{}, datums: map[uint64][][DatumSize]byte{}}
	hw := &ringHW{memHW: &memHW{h: newMemHardware(n), rank: 1}, scriptedRing: s}
	u := &Runner{Net: &memNet{w: newMemWorld(n), rank: 1}, HW: hw, RunAhead: new(RunAhead), FanOutAhead: true, Check: true}
	return &aheadRing{s: s, u: u}
}

// script makes the next generation: every rank's Key k (its Op that of
// r) but rank odd's, which is other, and the ranks' words.
func (a *aheadRing) script(k Key, r Reducer, odd int, other Key, words ...string) {
	k.Op, other.Op = opID(r), opID(r)
	a.s.scriptWords(aheadRanks, k, odd, other, words...)
}

// aheadBcast is the key of a broadcast of 5 bytes from root.
func aheadBcast(root int) Key { return Key{Coll: CollBcast, Elem: 1, Root: root, Bytes: 5} }

// aheadReduce is the key of a reduction of 2 bytes by sum to root.
func aheadReduce(sum *Reducer, root int) Key {
	return Key{Coll: CollReduce, Elem: 1, Kind: uint8(sum.Kind), Root: root, Bytes: 2}
}

// checkBcastsAhead: as the root, rank 1 publishes its word and waits for
// no one; from another root it takes the root's word and leaves the
// check for later, unless the root's key differs, which fails at once.
func checkBcastsAhead(t *testing.T, a *aheadRing) {
	t.Helper()
	s, u := a.s, a.u
	// Rank 1 the root: it publishes its word and waits for no one.
	a.script(aheadBcast(1), Reducer{}, -1, Key{}, "", "mine!", "")
	buf := []byte("mine!")
	if ok, err := u.smallBcast(buf, 1, 1); !ok || err != nil || len(s.arrived) != 0 || string(s.arrivals[0][:5]) != "mine!" {
		t.Fatalf("as the root: done %v, %v, waited for %v, published %q", ok, err, s.arrived, s.arrivals)
	}
	// From root 2: the root's word, the check left for later.
	a.script(aheadBcast(2), Reducer{}, -1, Key{}, "", "", "hello")
	if ok, err := u.smallBcast(buf, 2, 1); !ok || err != nil || string(buf) != "hello" || !slices.Equal(s.arrived, []int{2}) {
		t.Fatalf("from root 2: done %v, %v, buffer %q, waited for %v; want hello from 2", ok, err, buf, s.arrived)
	}
	if u.RunAhead.n != 2 || len(s.waited) != 0 {
		t.Errorf("%d calls left for later, waited for releases %v; want 2, none", u.RunAhead.n, s.waited)
	}
	// Root 0 broadcasts 6 bytes where this rank says 5: it fails at once.
	other := aheadBcast(0)
	other.Bytes = 6
	a.script(aheadBcast(0), Reducer{}, 0, other, "garbage", "", "")
	copy(buf, "keep!")
	if ok, err := u.smallBcast(buf, 0, 1); !ok || !errors.Is(err, ErrMismatch) || string(buf) != "keep!" {
		t.Fatalf("from a root whose call differs: done %v, %v, buffer %q; want ErrMismatch, the buffer kept", ok, err, buf)
	}
}

// checkReductionAheadNotRoot: rank 1 not the root: it publishes its word
// and returns.
func checkReductionAheadNotRoot(t *testing.T, a *aheadRing, sum *Reducer) {
	t.Helper()
	s, u := a.s, a.u
	s.arrived, s.waited = nil, nil
	pending := u.RunAhead.n
	a.script(aheadReduce(sum, 0), *sum, -1, Key{}, "\x01\x02", "\x10\x20", "\x03\x04")
	if ok, err := u.smallReduction(CollReduce, []byte{0x10, 0x20}, nil, sum, 0); !ok || err != nil ||
		string(s.arrivals[len(s.arrivals)-1][:2]) != "\x10\x20" || len(s.waited) != 0 || u.RunAhead.n != pending+1 {
		t.Fatalf("a reduction to root 0: done %v, %v, waited for %v, %d calls left for later (was %d)", ok, err, s.waited, u.RunAhead.n, pending)
	}
}

// checkReductionAheadRoot: rank 1 the root: every key compared, every
// word combined, and a difference fails at once.
func checkReductionAheadRoot(t *testing.T, a *aheadRing, sum *Reducer) {
	t.Helper()
	s, u := a.s, a.u
	a.script(aheadReduce(sum, 1), *sum, -1, Key{}, "\x01\x02", "\x10\x20", "\x03\x04")
	out := make([]byte, 2)
	if ok, err := u.smallReduction(CollReduce, []byte{0x10, 0x20}, out, sum, 1); !ok || err != nil || !slices.Equal(out, []byte{0x14, 0x26}) {
		t.Fatalf("as the root: done %v, %v, sum %x; want 1426", ok, err, out)
	}
	if !slices.Contains(s.waited, s.gen) || u.RunAhead.n > 0 && u.RunAhead.pending[u.RunAhead.n-1].gen == s.gen {
		t.Errorf("the root waited for releases %v (want generation %d) and left its call for later: %v", s.waited, s.gen,
			u.RunAhead.n > 0 && u.RunAhead.pending[u.RunAhead.n-1].gen == s.gen)
	}
	// As the root, a difference fails at once.
	odd := aheadReduce(sum, 1)
	odd.Bytes = 4
	a.script(aheadReduce(sum, 1), *sum, 2, odd, "", "", "")
	if ok, err := u.smallReduction(CollReduce, []byte{0x10, 0x20}, out, sum, 1); !ok || !errors.Is(err, ErrMismatch) {
		t.Fatalf("as the root of differing calls: done %v, %v; want ErrMismatch", ok, err)
	}
}

// Small scatters and gathers run ahead through the ring as broadcasts
// and reductions to a root do: a scatter's root publishes every block as
// its word and waits for no one, the others wait for the root alone; a
// gather's others publish their block and return, its root waits for
// the release, compares every key and collects every block; a
// difference fails at once where the call waits anyway.
func TestSmallScatterGatherAhead(t *testing.T) {
	const n = 3
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{},
		released: map[uint64]bool{}, datums: map[uint64][][DatumSize]byte{}}
	hw := &ringHW{memHW: &memHW{h: newMemHardware(n), rank: 1}, scriptedRing: s}
	u := &Runner{Net: &memNet{w: newMemWorld(n), rank: 1}, HW: hw, RunAhead: new(RunAhead), FanOutAhead: true, Check: true}
	// script makes the next generation: every rank's Key k but rank
	// odd's, which is other, and the ranks' words.
	script := func(k Key, odd int, other Key, words ...string) { s.scriptWords(n, k, odd, other, words...) }
	key := func(c Collective, root int) Key { return Key{Coll: c, Elem: 1, Root: root, Bytes: 2} }

	// The scatter's root: its blocks are its word, and it waits for no one.
	script(key(CollScatter, 1), -1, Key{}, "", "aabbcc", "")
	recv := make([]byte, 2)
	if ok, err := u.smallScatter([]byte("aabbcc"), recv, 2, 1, 1); !ok || err != nil || len(s.arrived) != 0 ||
		string(s.arrivals[len(s.arrivals)-1][:6]) != "aabbcc" || string(recv) != "bb" {
		t.Fatalf("the scatter's root: done %v, %v, waited for %v, published %q, kept %q", ok, err, s.arrived, s.arrivals, recv)
	}
	// From root 2: block 1 of the root's word, after the root's arrival alone.
	script(key(CollScatter, 2), -1, Key{}, "", "", "xxyyzz")
	if ok, err := u.smallScatter(nil, recv, 2, 1, 2); !ok || err != nil || string(recv) != "yy" || !slices.Equal(s.arrived, []int{2}) {
		t.Fatalf("a scatter from root 2: done %v, %v, block %q, waited for %v; want yy from 2", ok, err, recv, s.arrived)
	}
	// Root 0 scatters blocks of 3 bytes where this rank says 2: it fails at once.
	other := key(CollScatter, 0)
	other.Bytes = 3
	script(key(CollScatter, 0), 0, other, "garbage", "", "")
	copy(recv, "ok")
	if ok, err := u.smallScatter(nil, recv, 2, 1, 0); !ok || !errors.Is(err, ErrMismatch) || string(recv) != "ok" {
		t.Fatalf("a scatter from a root whose call differs: done %v, %v, block %q; want ErrMismatch, the block kept", ok, err, recv)
	}

	// The gather's others: publish the block and return.
	s.arrived, s.waited = nil, nil
	pending := u.RunAhead.n
	script(key(CollGather, 0), -1, Key{}, "", "", "")
	if ok, err := u.smallGather([]byte("me"), nil, 2, 1, 0); !ok || err != nil ||
		string(s.arrivals[len(s.arrivals)-1][:2]) != "me" || len(s.waited) != 0 || u.RunAhead.n != pending+1 {
		t.Fatalf("a gather to root 0: done %v, %v, waited for %v, %d calls left for later (was %d)", ok, err, s.waited, u.RunAhead.n, pending)
	}
	// The gather's root: every key compared, every block collected.
	script(key(CollGather, 1), -1, Key{}, "p0", "p1", "p2")
	all := make([]byte, 6)
	if ok, err := u.smallGather([]byte("p1"), all, 2, 1, 1); !ok || err != nil || string(all) != "p0p1p2" || !slices.Contains(s.waited, s.gen) {
		t.Fatalf("the gather's root: done %v, %v, gathered %q, waited for releases %v; want p0p1p2 after generation %d", ok, err, all, s.waited, s.gen)
	}
	// As the root, a difference fails at once.
	odd := key(CollGather, 1)
	odd.Bytes = 4
	script(key(CollGather, 1), 2, odd, "", "", "")
	if ok, err := u.smallGather([]byte("p1"), all, 2, 1, 1); !ok || !errors.Is(err, ErrMismatch) {
		t.Fatalf("the root of differing gathers: done %v, %v; want ErrMismatch", ok, err)
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

// TestWordBcastAhead checks that with WordBcastAhead alone a broadcast of
// a data word runs ahead through the ring (the root publishes its word
// and waits for no one), while a reduction to a root of a data word keeps
// its keyed barrier, as do the broadcasts and scatters of longer data.
func TestWordBcastAhead(t *testing.T) {
	const n = 3
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{},
		released: map[uint64]bool{}, datums: map[uint64][][DatumSize]byte{}}
	hw := &ringHW{memHW: &memHW{h: newMemHardware(n), rank: 1}, scriptedRing: s}
	u := &Runner{Net: &memNet{w: newMemWorld(n), rank: 1}, HW: hw, RunAhead: new(RunAhead), WordBcastAhead: true, Check: true}
	if ok, err := u.smallBcast([]byte("mine!"), 1, 1); !ok || err != nil || len(s.arrivals) != 1 || u.RunAhead.n != 1 {
		t.Fatalf("a broadcast of a data word: done %v, %v, %d arrivals in the ring, %d calls left for later; want 1, 1",
			ok, err, len(s.arrivals), u.RunAhead.n)
	}
	for _, c := range []Collective{CollBcast, CollScatter} {
		if _, ok := u.runAheadBarrier(c); ok {
			t.Errorf("%v of more than a data word runs ahead with WordBcastAhead alone", c)
		}
	}
	if _, ok := u.aheadBarrier(); ok {
		t.Error("the reductions to a root run ahead with WordBcastAhead alone")
	}
	u.WordBcastAhead = false
	if _, ok := u.wordBcastBarrier(); ok {
		t.Error("a broadcast of a data word runs ahead with neither WordBcastAhead nor FanOutAhead")
	}
}

// TestMessagesAhead checks that with MessagesAhead a broadcast or a
// scatter of a data word that runs ahead leaves the ring to the driver,
// which sends it by messages, and that without it the word goes through
// the ring.
func TestMessagesAhead(t *testing.T) {
	const n = 3
	s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{},
		released: map[uint64]bool{}, datums: map[uint64][][DatumSize]byte{}}
	hw := &ringHW{memHW: &memHW{h: newMemHardware(n), rank: 1}, scriptedRing: s}
	u := &Runner{Net: &memNet{w: newMemWorld(n), rank: 1}, HW: hw, RunAhead: new(RunAhead), FanOutAhead: true,
		MessagesAhead: true, Check: true}
	if ok, err := u.smallBcast([]byte("mine!"), 1, 1); ok || err != nil || len(s.arrivals) != 0 {
		t.Fatalf("with MessagesAhead: done %v, %v, %d arrivals in the ring; want the driver's, none", ok, err, len(s.arrivals))
	}
	if ok, err := u.smallScatter([]byte("abcdef"), make([]byte, 2), 2, 1, 1); ok || err != nil || len(s.arrivals) != 0 {
		t.Fatalf("a scatter with MessagesAhead: done %v, %v, %d arrivals in the ring; want the driver's, none", ok, err, len(s.arrivals))
	}
	u.MessagesAhead = false
	if ok, err := u.smallBcast([]byte("mine!"), 1, 1); !ok || err != nil || len(s.arrivals) != 1 {
		t.Fatalf("without MessagesAhead: done %v, %v, %d arrivals in the ring; want 1", ok, err, len(s.arrivals))
	}
}

// ringHW is a Hardware with a RunAheadBarrier.
type ringHW struct {
	*memHW
	*scriptedRing
}

// TestRunAheadSettleWindows checks that calls are settled a key window at
// a time where the members' windows agree, reading no key, and one by
// one where they do not: a difference is still found, and the first in
// order is the one reported, though a later window differs too.
func TestRunAheadSettleWindows(t *testing.T) {
	const n, calls = 3, 10 // the scripted ring's window: 4 generations
	bcast := Key{Coll: CollBcast, Elem: 1, Bytes: 8}
	run := func(odd map[uint64]Key) (*scriptedRing, error) {
		s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{}, released: map[uint64]bool{}}
		p := &RunAhead{hw: s, size: n, mask: 1<<64 - 1}
		for gen := uint64(1); gen <= calls; gen++ {
			other, ok := odd[gen]
			if !ok {
				other = bcast
			}
			u := unsettled{gen: gen, hash: s.script(gen, n, 1, bcast, other)}
			bcast.put(u.rec[:])
			p.pending[gen-1] = u
			s.released[gen] = true
		}
		p.n, s.gen = calls, calls
		p.settle(calls)
		if p.n != 0 {
			t.Errorf("%d calls left unsettled", p.n)
		}
		return s, (&Runner{RunAhead: p}).withEarlier(nil)
	}

	s, err := run(nil)
	if err != nil || s.keyReads != 0 || s.windowReads != 3*n {
		t.Errorf("10 calls alike: %v, %d keys and %d windows read; want no error, 0 and 9 (windows at 4, 8 and 10)",
			err, s.keyReads, s.windowReads)
	}

	rootTwo, bytes16 := bcast, bcast
	rootTwo.Root, bytes16.Bytes = 2, 16
	s, err = run(map[uint64]Key{3: rootTwo, 6: bytes16})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "root 2") {
		t.Errorf("differences at 3 and 6: %v; want the first, in roots", err)
	}
	// The windows at 4 and 8 differ at member 1 (2 read each), the one at
	// 10 agrees (3). The keys: generations 1 to 8 one by one, and each
	// member's again at the two differences, to find its record.
	if s.keyReads != 8*n+2*n || s.windowReads != 7 {
		t.Errorf("differences at 3 and 6: %d keys and %d windows read; want 30 (generations 1 to 8 one by one, and the records' at 3 and 6) and 7",
			s.keyReads, s.windowReads)
	}
}

// TestRunAheadNamesCheckedCalls: where a member met calls that ran ahead
// with a call checked at the barrier (a Barrier, arriving with a
// payload), the difference names that call from the end of its payload,
// not from the record the ring held before; where the slot no longer
// holds the payload, it says so.
func TestRunAheadNamesCheckedCalls(t *testing.T) {
	const n = 3
	bcast := Key{Coll: CollBcast, Elem: 1, Bytes: 8}
	stale := Key{Coll: CollAllreduce, Elem: 8, Bytes: 8}
	for _, kept := range []bool{true, false} {
		s := &scriptedRing{keys: map[uint64][]uint64{}, recs: map[uint64][][keySize]byte{}, released: map[uint64]bool{1: true},
			payloads: map[uint64][][]byte{}}
		hash := s.script(1, n, 1, bcast, stale) // member 1's record: an older call's
		s.keys[1][1] = keyHash(barrierKey[:])   // its key: a Barrier's
		if kept {
			s.payloads[1] = make([][]byte, n)
			s.payloads[1][1] = append([]byte("input before the key"), barrierKey[:]...)
		}
		p := &RunAhead{hw: s, size: n, mask: 1<<64 - 1}
		u := unsettled{gen: 1, hash: hash}
		bcast.put(u.rec[:])
		err := p.check(&u, false)
		want := "rank 1 called barrier"
		if !kept {
			want = "rank 1's call is no longer recorded"
		}
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "allreduce") {
			t.Errorf("payload kept %v: %v; want ErrMismatch naming %q", kept, err, want)
		}
	}
}
