package collectives

import (
	"errors"
	"fmt"
)

// Running ahead of the argument check.
//
// An overlapped call (see SplitBarrier) still waits at its end for the
// barrier's release, to compare the processes' keys: when ranks outnumber
// cores, a process whose data has moved then waits for processes that
// have not yet run to arrive, and every small broadcast costs a barrier.
// With a RunAheadBarrier, a Runner's overlapped broadcasts and scatters
// (FanOutAhead) arrive with their key and their encoded Key in a ring of
// the last generations instead, move their data and return: the
// comparison is settled later, by a later call through the same Hardware,
// once the release is there. A process may so run up to RingDepth/2
// generations ahead of the slowest: before it arrives at
// generation g it settles every call of its own up to g-RingDepth/2,
// which means that every process has arrived at g-RingDepth/2 and so has
// settled, and finished reading, generation g-RingDepth, whose place in
// the ring g takes. Calls that read the barrier's double-buffered
// payloads or data words (the checks done first, AlgShared, Barrier, the
// small allreduces) settle everything first, so that the barrier's rule
// for them (arrive at g+1 only after g is released) holds as before.
//
// A difference still interrupts the waits of the call it concerns, as
// with an overlapped check; a call whose data moved before the release
// showed it returns without error, and the difference is reported by a
// later call through the Hardware, the one that settles it. That call
// runs all the same, so that the processes' calls stay in step, and
// returns the difference with its own result.
//
// The broadcasts and the reductions to a root of a data word run ahead
// too, with their words in the ring instead of messages (see small.go).

// RunAheadBarrier is implemented by a Hardware whose barrier keeps each
// member's key, record and data word of its last RingDepth generations:
// ArriveRecord enters the barrier (without waiting) and returns the
// generation it entered; Generation is the last one entered by any
// arrival; LastReleased is the newest generation released (every
// member's arrival at it or later), and WaitReleasedAt waits for a
// generation's release; WaitArrivedAt waits for member r's arrival at a
// generation alone; KeyAt, RecordAt and DatumAt return what member r
// passed for a generation (DatumAt a pointer the caller must not write
// through; ArriveRecord's nil datum passes none), once it has arrived
// there and while the ring holds it (RecordAt's record is that of an
// ArriveRecord; after another arrival, whatever the ring held before);
// PayloadAt returns the payload of a member's arrival by Barrier at a
// generation while its slot holds it, else nil; KeyWindowAt returns, as
// KeyAt, a hash of the keys member r passed for the KeyWindow
// generations up to one, in order, which is the same for two members
// that passed the same keys, and differs where one key differs.
type RunAheadBarrier interface {
	ArriveRecord(key uint64, rec [keySize]byte, datum *[DatumSize]byte) (uint64, error)
	Generation() uint64
	LastReleased() uint64
	WaitReleasedAt(gen uint64) error
	WaitArrivedAt(r int, gen uint64) error
	KeyAt(r int, gen uint64) uint64
	RecordAt(r int, gen uint64) [keySize]byte
	PayloadAt(r int, gen uint64) []byte
	DatumAt(r int, gen uint64) *[DatumSize]byte
	KeyWindowAt(r int, gen uint64) uint64
	KeyWindow() int
	RingDepth() int
}

// RunAhead holds the unsettled comparisons of one Hardware's calls: the
// Runners of a communicator that share a Hardware must share one. Set in
// Runner.RunAhead, it lets the Runner's broadcasts and scatters run ahead
// of their check where Runner.FanOutAhead is set, and its calls that move
// no data return at once where Runner.SkipEmpty is (empty.go), and makes
// every call settle the comparisons left before it.
type RunAhead struct {
	pending [maxRunAhead]unsettled
	n       int
	empty   emptyRun // the calls that returned at once, not yet compared
	hw      RunAheadBarrier
	size    int
	mask    uint64
	cur     *unsettled  // the call in progress
	earlier error       // a difference settled, not yet reported
	stop    func() bool // differs, made once (a method value allocates)
	// released is the newest generation known to be released: reading
	// the members' arrivals (LastReleased) costs a line moved from every
	// other member's cache, and one reading settles every call up to it.
	released uint64
}

// maxRunAhead bounds the calls left unsettled: at least any ring's half.
const maxRunAhead = 16

// unsettled is one call's comparison left for later.
type unsettled struct {
	gen  uint64
	hash uint64
	rec  [keySize]byte
}

// runAheadBarrier returns u's RunAheadBarrier, if u's calls to coll run
// ahead with their data in messages: broadcasts and scatters.
func (u *Runner) runAheadBarrier(coll Collective) (RunAheadBarrier, bool) {
	if coll != CollBcast && coll != CollScatter {
		return nil, false
	}
	return u.aheadBarrier()
}

// aheadBarrier returns u's RunAheadBarrier, if u's calls may run ahead of
// their check at all: those of runAheadBarrier, and the small broadcasts
// and reductions to a root, whose data words travel in its ring (see
// smallBcast and smallReduction).
func (u *Runner) aheadBarrier() (rb RunAheadBarrier, ok bool) {
	if u.RunAhead != nil && u.FanOutAhead { // short enough to inline: most calls stop here
		rb, ok = u.ringBarrier()
	}
	return rb, ok
}

// wordBcastBarrier is aheadBarrier for a broadcast of a data word, which
// also runs ahead where WordBcastAhead alone is set.
func (u *Runner) wordBcastBarrier() (rb RunAheadBarrier, ok bool) {
	if u.RunAhead != nil && (u.FanOutAhead || u.WordBcastAhead) {
		rb, ok = u.ringBarrier()
	}
	return rb, ok
}

// ringBarrier returns u's Hardware as a RunAheadBarrier whose ring is deep
// enough to run ahead, if it is one. (Not inlined: aheadBarrier is.)
//
//go:noinline
func (u *Runner) ringBarrier() (RunAheadBarrier, bool) {
	rb, ok := u.HW.(RunAheadBarrier)
	return rb, ok && rb.RingDepth() >= 2 && rb.RingDepth()/2 <= maxRunAhead
}

// settleAll settles every comparison a call left for later; a difference
// waits in the RunAhead for withEarlier.
func (u *Runner) settleAll() {
	if p := u.RunAhead; p != nil && p.n|p.empty.n != 0 {
		u.settleAllNow(p)
	}
}

// settleAllNow is settleAll where there is something to settle: the
// calls that ran ahead, then the run of calls that moved no data, which
// arrives before the call that arrives now.
func (u *Runner) settleAllNow(p *RunAhead) {
	if p.n > 0 {
		p.settle(^uint64(0))
	}
	u.flushEmpty(p)
}

// Settle settles the argument checks that calls through u's Hardware left
// for later and returns the first difference they show that no call has
// reported yet (nil if none): a process that ends its use of the
// Hardware calls it, so that no difference goes unreported.
func (u *Runner) Settle() error {
	u.settleAll()
	return u.withEarlier(nil)
}

// withEarlier returns err of the call that ends, joined with the first
// difference that settling found in an earlier call: the call itself ran,
// so that the processes' calls stay in step.
func (u *Runner) withEarlier(err error) error {
	if p := u.RunAhead; p == nil || p.earlier == nil {
		return err // short enough to inline: most calls stop here
	}
	return u.joinEarlier(err)
}

// joinEarlier is withEarlier once settling has found a difference.
func (u *Runner) joinEarlier(err error) error {
	p := u.RunAhead
	early := fmt.Errorf("an earlier collective call: %w", p.earlier)
	p.earlier = nil
	if err == nil {
		return early
	}
	return errors.Join(early, err)
}

// settle settles the unsettled comparisons of generations up to last, in
// order, and keeps the first difference or failure in p.earlier. The
// calls one key window covers are settled at once where every member's
// window agrees (a word a member, where comparing the calls' keys one by
// one reads a word a member and a call); otherwise, and for a call alone,
// one by one.
func (p *RunAhead) settle(last uint64) {
	k := 0
	for k < p.n && p.pending[k].gen <= last {
		end := p.windowEnd(k, last)
		if end > k+1 && p.windowAgrees(p.pending[end-1].gen) {
			k = end
			continue
		}
		for ; k < end; k++ {
			if err := p.check(&p.pending[k], !p.releasedBy(p.pending[k].gen)); err != nil && p.earlier == nil {
				p.earlier = err
			}
		}
	}
	p.n = copy(p.pending[:], p.pending[k:p.n])
}

// windowEnd returns the end of the unsettled calls from p.pending[k] on,
// of generations up to last, that the key window at the last of them
// covers: those of generations below pending[k]'s plus KeyWindow.
func (p *RunAhead) windowEnd(k int, last uint64) int {
	below := p.pending[k].gen + uint64(p.hw.KeyWindow())
	end := k + 1
	for end < p.n && p.pending[end].gen <= last && p.pending[end].gen < below {
		end++
	}
	return end
}

// windowAgrees reports whether every member's key window at generation
// gen is the same, once gen is released (waiting for it if need be):
// then every member passed the same keys for the KeyWindow generations up
// to gen. A failed wait reports false, so that the calls' own checks
// report the failure.
func (p *RunAhead) windowAgrees(gen uint64) bool {
	if !p.releasedBy(gen) {
		if p.hw.WaitReleasedAt(gen) != nil {
			return false
		}
		p.released = max(p.released, gen)
	}
	w := p.hw.KeyWindowAt(0, gen)
	for r := 1; r < p.size; r++ {
		if p.hw.KeyWindowAt(r, gen) != w {
			return false
		}
	}
	return true
}

// releasedBy reports whether generation gen is released, reading the
// members' arrivals only if the last reading is older than gen.
func (p *RunAhead) releasedBy(gen uint64) bool {
	if gen > p.released {
		p.released = max(p.released, p.hw.LastReleased())
	}
	return gen <= p.released
}

// check compares the keys of call s's generation, waiting for its
// release if wait is set (otherwise it must be released).
func (p *RunAhead) check(s *unsettled, wait bool) error {
	if wait {
		if err := p.hw.WaitReleasedAt(s.gen); err != nil {
			return fmt.Errorf("%v (settling its argument check): %w", getKey(s.rec[:]).Coll, err)
		}
		p.released = max(p.released, s.gen)
	}
	if p.agree(s) {
		return nil
	}
	recs := make([][]byte, p.size) // (a difference: allocated once)
	for r := range recs {
		if recs[r] = p.recordAt(r, s.gen); recs[r] == nil {
			return fmt.Errorf("%w: at %v; rank %d's call is no longer recorded", ErrMismatch, getKey(s.rec[:]), r)
		}
	}
	err := verify(p.size, func(r int) Key { return getKey(recs[r]) })
	if err == nil {
		// The keys differ but the records agree: a rank entered the
		// barrier by another call (a Barrier where the others broadcast).
		err = fmt.Errorf("%w: the ranks' calls differ at %v", ErrMismatch, getKey(s.rec[:]))
	}
	return err
}

// recordAt returns the encoded Key of member r's call at generation gen:
// its record, where its key is that record's (it arrived with it, as a
// call that ran ahead), else the end of the payload it arrived with (a
// call checked at the barrier: the collectives end their payloads with
// the Key), while the slot holds it; nil if neither.
func (p *RunAhead) recordAt(r int, gen uint64) []byte {
	if rec := ranAheadRecord(p.hw, r, gen, p.mask); rec != nil {
		return rec
	}
	if pl := p.hw.PayloadAt(r, gen); len(pl) >= keySize {
		return pl[len(pl)-keySize:]
	}
	return nil
}

// ranAheadRecord returns the record member r arrived with at generation
// gen of rb, where r's key (masked by mask) is that record's: r arrived
// with it, as a call that ran ahead. After an arrival with a payload the
// ring holds an older call's record, and it returns nil.
func ranAheadRecord(rb RunAheadBarrier, r int, gen, mask uint64) []byte {
	rec := rb.RecordAt(r, gen)
	if keyHash(rec[:])&mask != rb.KeyAt(r, gen)&mask {
		return nil
	}
	return rec[:]
}

// agree reports whether every member passed s's key for its generation.
func (p *RunAhead) agree(s *unsettled) bool {
	var sum uint64
	for r := range p.size {
		sum += p.hw.KeyAt(r, s.gen)
	}
	return sum&p.mask == uint64(p.size)*s.hash&p.mask
}

// differs reports whether the call in progress is released with keys that
// differ: the interrupt condition of its waits.
func (p *RunAhead) differs() bool {
	return p.releasedBy(p.cur.gen) && !p.agree(p.cur)
}

// arriveAhead enters rb's barrier with a call's encoded Key rec, its
// hash and a data word, after settling the calls that must be settled
// first (and every call the reading of the arrivals finds released). It
// returns the call's comparison, p.pending[p.n], which the caller leaves
// for later by counting it (p.n++) or settles itself.
func (u *Runner) arriveAhead(rb RunAheadBarrier, rec [keySize]byte, hash uint64, datum *[DatumSize]byte) (*unsettled, error) {
	p := u.RunAhead
	if p.empty.n != 0 {
		u.settleAllNow(p) // the run of calls that moved no data arrives first, at the keyed barrier
	}
	p.hw, p.size, p.mask = rb, u.Net.Size(), 1<<u.HW.KeyBits()-1
	if p.stop == nil {
		p.stop = p.differs
	}
	next := rb.Generation() + 1
	if lag := uint64(rb.RingDepth() / 2); next > lag && p.n > 0 && p.pending[0].gen <= next-lag {
		// Those that must be settled, and every one released by then
		// (one reading of the arrivals), at once.
		p.releasedBy(next - lag)
		p.settle(max(next-lag, p.released))
	}
	s := &p.pending[p.n]
	s.rec, s.hash = rec, hash
	gen, err := rb.ArriveRecord(hash, rec, datum)
	if err != nil {
		return nil, err
	}
	s.gen = gen
	return s, nil
}

// runAhead runs call o with its check left for later (see RunAhead).
func (u *Runner) runAhead(c *call, o *opCall, alg string, rb RunAheadBarrier, in Interruptible, data func(c *call, alg string) error) error {
	p := u.RunAhead
	var rec [keySize]byte
	o.key.put(rec[:])
	s, err := u.arriveAhead(rb, rec, u.recordHash(rec[:]), nil)
	if err != nil {
		return fmt.Errorf("%v: %w", o.key.Coll, err)
	}
	p.cur = s
	in.Interrupt(p.stop)
	err = c.end(data(c, alg))
	in.Interrupt(nil)
	p.cur = nil
	u.Stats.add(o.key.Coll, alg)
	if err != nil {
		// A difference explains any failure of the data.
		if verr := p.check(s, true); verr != nil {
			return verr
		}
		return fmt.Errorf("%v (%s): %w", o.key.Coll, alg, err)
	}
	if s.gen <= p.released {
		return p.check(s, false)
	}
	// Settled by a later call, with the calls around it: the release of
	// a call just entered is rarely there yet, and looking for it would
	// cost a reading of the arrivals a call.
	p.n++
	return nil
}
