package collectives

import (
	"fmt"
	"unsafe"
)

// Small calls: a broadcast, a reduction, a gather, a scatter, an allgather
// or an alltoall whose data fits the data word of the synchronisation
// network (and whose communicator is small enough for every rank's word
// to travel in the barrier's messages), or the barrier's payload where
// the driver would take AlgShared, runs in one barrier: what the driver
// would do for it (AlgShared), without the driver's generality.
//
// Where the calls run ahead of their check (a RunAheadBarrier, with
// FanOutAhead), the broadcasts, scatters, reductions and gathers to a
// root of a data word need no barrier: every process arrives with its
// key and data word in the barrier's ring, and only those that need a
// word wait, for its arrival alone. A broadcast's or a scatter's root
// arrives and returns, and the others wait for the root; a reduction's
// or a gather's root waits for every process, and the others arrive and
// return. The comparison of the keys is settled later, as for
// RunAhead's other calls, except where a process waits anyway: a
// process whose key differs from the root's fails at once, and a
// reduction's or a gather's root compares every key.

// smallKey caches the encoded Key of the last small call, and the hash of
// all of it but the root, as long as the calls repeat but for their root
// (smallHash).
type smallKey struct {
	key  Key    // without Op and Root
	op   string // the Reducer's Op
	rec  [keySize]byte
	base uint64 // baseHash(rec)
	mask uint64 // the hardware's key width
	// parts is partsOf, the Hardware it was found for, as a PartsBarrier
	// (nil if it is not one).
	partsOf Hardware
	parts   PartsBarrier
}

// keyedBarrier publishes the key of a small call of coll, encoded in
// u.small.rec with hash its hash (smallHash's), and the data word w in
// one barrier of the hardware, and checks that every rank passed the same
// key; the data words are then the hardware's Datum. With input (not
// nil) it publishes input followed by the key, as the driver's record
// does (keyedRecord): the inputs are then the hardware's Payloads, and
// the key follows each.
func (u *Runner) keyedBarrier(coll Collective, hash uint64, w *[DatumSize]byte, input []byte) error {
	hw, n := u.HW, u.Net.Size()
	sk := &u.small
	rec := sk.rec[:]
	u.settleAll()
	if err := u.arriveShared(hash, w, input, rec); err != nil {
		return fmt.Errorf("%v: %w", coll, err)
	}
	if hw.KeySum() != uint64(n)*hash&sk.mask {
		// Some rank's call differs: find out how, and say so (the
		// hardware's records end with the key, as rec does).
		b := board{hw: hw, size: len(input) + len(rec), self: u.Net.Rank(), n: n, key: hash}
		if err := b.verify(rec); err != nil {
			return err
		}
	}
	u.Stats.addAt(coll, statSharedNIC)
	return nil
}

// arriveShared passes the hardware's barrier with input, if not nil,
// followed by key, the encoded Key, as its payload (key alone otherwise):
// in two parts where the hardware takes them (PartsBarrier), else joined
// in the driver's scratch memory.
func (u *Runner) arriveShared(hash uint64, w *[DatumSize]byte, input, key []byte) error {
	if input == nil {
		return u.HW.Barrier(hash, w, key)
	}
	if pb := u.partsBarrier(); pb != nil {
		return pb.BarrierParts(hash, w, input, key)
	}
	scratch := call{arena: &u.arena} // the driver's calls' scratch memory, unused between them
	rec := scratch.alloc(len(input) + keySize)
	copy(rec[copy(rec, input):], key)
	return u.HW.Barrier(hash, w, rec)
}

// partsBarrier returns u.HW as a PartsBarrier, or nil, found once for
// each Hardware: an interface's assertion costs the runtime's lookup.
func (u *Runner) partsBarrier() PartsBarrier {
	sk := &u.small
	if sk.partsOf != u.HW {
		sk.partsOf = u.HW
		sk.parts, _ = u.HW.(PartsBarrier)
	}
	return sk.parts
}

// smallBcast runs a broadcast of buf from root in one barrier, or through
// the barrier's ring where it runs ahead of its check, and reports false,
// having done nothing, for a call the driver must take: a buffer longer
// than a data word where the driver would not take AlgShared, an invalid
// root, or forced algorithms.
func (u *Runner) smallBcast(buf []byte, root, elem int) (done bool, err error) {
	hw, n := u.HW, u.Net.Size()
	if hw == nil || len(u.Force) != 0 || uint(root) >= uint(n) {
		return false, nil
	}
	if u.MessagesAhead {
		if _, ok := u.aheadBarrier(); ok {
			return false, nil // the driver runs it ahead by messages (runAheadBarrier)
		}
	}
	self := u.Net.Rank() == root
	if len(buf) <= DatumSize {
		if rb, ok := u.wordBcastBarrier(); ok {
			return true, u.withEarlier(u.bcastAhead(rb, CollBcast, buf, len(buf), root, elem))
		}
	}
	hash := u.smallHash(CollBcast, elem, len(buf), root, nil)
	if len(buf) > DatumSize || n > hw.InlineRanks() {
		// The root's buffer travels as its payload, as the driver's
		// record (the others publish their key alone).
		if !u.payloadShared(CollBcast, len(buf)) {
			return false, nil
		}
		var input []byte
		if self {
			input = buf
		}
		err := u.keyedBarrier(CollBcast, hash, nil, input)
		if err == nil && !self {
			copy(buf, hw.Payload(root, 0, len(buf)))
		}
		return true, u.withEarlier(err)
	}
	var w *[DatumSize]byte // the root's alone
	if self {
		w = u.wordOf(buf)
	}
	if err := u.keyedBarrier(CollBcast, hash, w, nil); err != nil {
		return true, u.withEarlier(err)
	}
	if !self {
		putWord(buf, hw.Datum(root))
	}
	return true, u.withEarlier(nil)
}

// smallShared runs the one barrier of a call whose input, the same
// number of bytes at every rank, fits a data word, as the driver runs it
// (AlgShared, the inputs inline): the data words are then the Hardware's
// Datum (inline). A longer input, or a group whose words do not all travel
// with the barrier, runs likewise where the driver would take AlgShared,
// the inputs then the Hardware's Payloads. It reports false, having done
// nothing, where the driver must take the call: no Hardware, forced
// algorithms, inputs AlgShared does not take.
//
// The call's key is coll's of bytes (the same at every rank) of elements
// of elem bytes, to or from root (0 for a call without one).
func (u *Runner) smallShared(coll Collective, elem, bytes, root int, input []byte) (done, inline bool, err error) {
	hw := u.HW
	if hw == nil || len(u.Force) != 0 {
		return false, false, nil
	}
	if len(input) > DatumSize || u.Net.Size() > hw.InlineRanks() {
		if !u.payloadShared(coll, len(input)) {
			return false, false, nil
		}
		return true, false, u.keyedBarrier(coll, u.smallHash(coll, elem, bytes, root, nil), nil, input)
	}
	return true, true, u.keyedBarrier(coll, u.smallHash(coll, elem, bytes, root, nil), u.wordOf(input), nil)
}

// smallMove runs an allgather or an alltoall (coll) of blk bytes a pair
// of ranks in one barrier (smallShared), for valid arguments: input is
// this rank's whole input, and recv gets, from every rank r, the blk bytes
// at off of r's. An allgather's off is 0, an alltoall's this rank's block.
func (u *Runner) smallMove(coll Collective, input, recv []byte, blk, elem, off int) (done bool, err error) {
	done, inline, err := u.smallShared(coll, elem, blk, 0, input)
	if !done {
		return false, nil
	}
	if err == nil {
		u.collectBlocks(recv, blk, off, inline, input[off:off+blk])
	}
	return true, u.withEarlier(err)
}

// smallGather runs a gather of blk bytes a rank to root in one barrier
// (smallShared), or through the barrier's ring where it runs ahead
// (gatherAhead), for valid arguments: own is this rank's block, and the
// root's recv gets rank r's at recv[r*blk:] (own may be the root's block
// of recv: in place).
func (u *Runner) smallGather(own, recv []byte, blk, elem, root int) (done bool, err error) {
	if hw := u.HW; hw != nil && len(u.Force) == 0 && blk <= DatumSize && u.Net.Size() <= hw.InlineRanks() {
		if rb, ok := u.aheadBarrier(); ok {
			return true, u.withEarlier(u.gatherAhead(rb, own, recv, blk, elem, root))
		}
	}
	done, inline, err := u.smallShared(CollGather, elem, blk, root, own)
	if !done {
		return false, nil
	}
	if err == nil && u.Net.Rank() == root {
		u.collectBlocks(recv, blk, 0, inline, own)
	}
	return true, u.withEarlier(err)
}

// collectBlocks copies into recv[r*blk:] the blk bytes at off of what
// every other rank r published at the last barrier: its data word
// (inline) or its payload. This rank's block is own, the bytes it
// published there, copied from where they are (unless they are in place
// already) rather than read back through the Hardware.
func (u *Runner) collectBlocks(recv []byte, blk, off int, inline bool, own []byte) {
	if blk == 0 {
		return
	}
	self := u.Net.Rank()
	for r := range u.Net.Size() {
		dst := recv[r*blk : (r+1)*blk]
		switch {
		case r == self:
			if &own[0] != &dst[0] {
				copyBlock(dst, own)
			}
		case inline:
			copyBlock(dst, u.HW.Datum(r)[off:off+blk])
		default:
			copyBlock(dst, u.HW.Payload(r, off, blk)[off:off+blk])
		}
	}
}

// smallScatter runs a scatter of blk bytes a rank from root in one
// barrier, for valid arguments, where the driver would take AlgShared:
// the root publishes its send (the n blocks) as its data word, where
// they fit one and the group's words travel with the barrier, else as
// its payload; the others publish their key alone and copy their block
// from the root's. Where the call runs ahead, the blocks that fit a data
// word go through the barrier's ring (scatterAhead), the others to the
// driver. recv is nil at the root in place. It reports false, having
// done nothing, where the driver must take the call.
func (u *Runner) smallScatter(send, recv []byte, blk, elem, root int) (done bool, err error) {
	hw, n, self := u.HW, u.Net.Size(), u.Net.Rank()
	if hw == nil || len(u.Force) != 0 {
		return false, nil
	}
	inline := n*blk <= DatumSize && n <= hw.InlineRanks()
	if rb, ok := u.runAheadBarrier(CollScatter); ok {
		if !inline || u.MessagesAhead {
			return false, nil // the driver runs it ahead
		}
		return true, u.withEarlier(u.scatterAhead(rb, send, recv, blk, elem, root))
	}
	if !inline && !u.payloadShared(CollScatter, n*blk) {
		return false, nil
	}
	var w *[DatumSize]byte
	var input []byte
	if self == root {
		if inline {
			w = u.wordOf(send[:n*blk])
		} else {
			input = send[:n*blk]
		}
	}
	err = u.keyedBarrier(CollScatter, u.smallHash(CollScatter, elem, blk, root, nil), w, input)
	switch {
	case err != nil, recv == nil:
	case self == root:
		copyBlock(recv[:blk], send[root*blk:])
	case inline:
		copyBlock(recv[:blk], hw.Datum(root)[self*blk:])
	default:
		copyBlock(recv[:blk], hw.Payload(root, self*blk, blk)[self*blk:])
	}
	return true, u.withEarlier(err)
}

// copyBlock copies the first len(dst) bytes of src into dst, an 8-byte
// block, the commonest small one, without memmove's call.
func copyBlock(dst, src []byte) {
	if len(dst) == 8 {
		*(*[8]byte)(dst) = [8]byte(src[:8])
		return
	}
	copy(dst, src)
}

// smallReduction runs an allreduce (coll CollAllreduce), or a reduce to
// root (CollReduce), in one barrier. It reports false, having done
// nothing, for any other call, forced algorithms and invalid arguments
// included; the driver then takes the call.
//
// A vector longer than a data word (or a group whose words do not all
// travel with the barrier) runs the same way where the driver would take
// AlgShared: the vectors travel as the barrier's payloads, with the key
// after each, as the driver's records do.
func (u *Runner) smallReduction(coll Collective, send, recv []byte, r *Reducer, root int) (done bool, err error) {
	input, length, ok := u.smallInput(coll, send, recv, r, root)
	if !ok {
		return false, nil
	}
	if length > DatumSize || u.Net.Size() > u.HW.InlineRanks() {
		return u.payloadReduction(coll, input, recv, r, root, length)
	}
	w := u.wordOf(input)
	if rb, ok := u.aheadBarrier(); ok && coll == CollReduce {
		return true, u.withEarlier(u.reduceAhead(rb, r, root, length, w, recv[:min(len(recv), length)]))
	}
	if err := u.keyedBarrier(coll, u.reductionHash(coll, r, length, root), w, nil); err != nil {
		return true, u.withEarlier(err)
	}
	if coll == CollReduce && u.Net.Rank() != root {
		return true, u.withEarlier(nil)
	}
	u.foldWords(r, recv[:length], dataWords{hw: u.HW})
	return true, u.withEarlier(nil)
}

// payloadReduction is smallReduction of a vector longer than a data word,
// or in a group whose words do not all travel with the barrier: the
// vectors travel as the barrier's payloads, where the driver would take
// AlgShared. A reduce's root keeps its own vector off the board (it
// publishes its key alone) and folds it from where it is, unless it is in
// place where another rank's vector lands first: nobody else reads it,
// and its writing was so many lines to take back from the ranks that read
// the root's payload before (docs/decisions.md, payloadReduction).
func (u *Runner) payloadReduction(coll Collective, input, recv []byte, r *Reducer, root, length int) (done bool, err error) {
	if !u.payloadShared(coll, length) {
		return false, nil
	}
	n, self := u.Net.Size(), u.Net.Rank()
	// The own vector can be read where it is while the fold writes recv:
	// it is not recv (a non-root's recv of a reduce is empty), or the
	// fold copies it there first (the last rank's).
	ownReadable := self == n-1 || len(input) == 0 || len(recv) == 0 || &input[0] != &recv[0]
	own := coll == CollReduce && self == root && ownReadable
	pub := input
	if own {
		pub = nil // the key alone
	}
	err = u.keyedBarrier(coll, u.reductionHash(coll, r, length, root), nil, pub)
	switch {
	case err != nil:
	case own, coll == CollAllreduce && length > 0 && ownReadable:
		// This rank's vector from where it is, not read back through
		// the Hardware.
		b := board{hw: u.HW, n: n}
		foldOwn(&b, *r, recv[:length], input[:length], self)
	case coll == CollAllreduce || self == root:
		b := board{hw: u.HW, n: n}
		fold(&b, *r, recv[:length], 0, n, 0)
	}
	return true, u.withEarlier(err)
}

// foldOwn is fold of every rank's vector for the rank self, whose own
// vector is own instead of its record on b (own may be acc itself only
// where self is the last rank).
func foldOwn(b *board, r Reducer, acc, own []byte, self int) {
	operand := func(s int) []byte {
		if s == self {
			return own
		}
		return b.data(s, 0, len(acc))
	}
	copy(acc, operand(b.n-1))
	for s := b.n - 2; s >= 0; s-- {
		r.Apply(operand(s), acc)
	}
}

// reductionHash is smallHash for a small reduction (coll of length bytes
// with r, to root).
func (u *Runner) reductionHash(coll Collective, r *Reducer, length, root int) uint64 {
	return u.smallHash(coll, r.Elem, length, root, r)
}

// smallHash encodes the Key of a small call in u.small.rec and returns its
// hash, masked to the hardware's key width: coll of bytes (the same at
// every rank) of elements of elem bytes, to or from root, with r (nil for
// none; the key's Kind and Op are r's). While the calls repeat but for
// their root, it compares the cached key field by field, without building
// a Key, and re-encodes the root alone. The cache holds only keys it
// encoded, so the fields it does not take (Bad, Own, Counts) are zero on
// both sides.
func (u *Runner) smallHash(coll Collective, elem, bytes, root int, r *Reducer) uint64 {
	sk := &u.small
	c := &sk.key
	op, kind := "", uint8(0)
	if r != nil {
		op, kind = r.Op, uint8(r.Kind)
	}
	if sk.mask == 0 || c.Coll != coll || c.Bytes != bytes || c.Elem != elem || c.Kind != kind || !sameString(sk.op, op) {
		key := Key{Coll: coll, Elem: elem, Kind: kind, Bytes: bytes}
		sk.key, sk.op = key, op
		if r != nil {
			key.Op = opID(*r)
		}
		key.put(sk.rec[:])
		sk.mask = 1<<u.HW.KeyBits() - 1
		sk.base = baseHash(sk.rec[:])
	}
	putRoot(sk.rec[:], root)
	return rootedHash(sk.base, keyRoot(sk.rec[:])) & sk.mask
}

// sameString is a == b, without comparing the bytes of two strings that
// share them (an operation's name, the same on every call).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// wordOf puts b, a data word at most, at the start of u.out, the data
// word this rank passes, and returns u.out: the common sizes without a
// call to the runtime's copy. The bytes after b's are left as they were:
// a rank reads no more of another's data word than its own call's length.
func (u *Runner) wordOf(b []byte) *[DatumSize]byte {
	w := &u.out
	switch len(b) {
	case 8:
		*(*[8]byte)(w[:]) = [8]byte(b)
	case 16:
		*(*[16]byte)(w[:]) = [16]byte(b)
	case 40:
		*(*[40]byte)(w[:]) = [40]byte(b)
	case DatumSize:
		*w = [DatumSize]byte(b)
	default:
		copy(w[:], b)
	}
	return w
}

// putWord copies the first len(b) bytes of w, a data word at most, into b
// (wordOf's inverse).
func putWord(b []byte, w *[DatumSize]byte) {
	switch len(b) {
	case 8:
		*(*[8]byte)(b) = [8]byte(w[:8])
	case 16:
		*(*[16]byte)(b) = [16]byte(w[:16])
	case 40:
		*(*[40]byte)(b) = [40]byte(w[:40])
	case DatumSize:
		*(*[DatumSize]byte)(b) = *w
	default:
		copy(b, w[:])
	}
}

// payloadShared reports whether the driver would run coll, whose inputs
// are length bytes (valid arguments), AlgShared through the hardware's
// barrier with the inputs as payloads: they fit with the key, and shared
// inputs pay (sharedPays, which also leaves the calls that run ahead to
// the driver). The exchange's method is the NIC's: with the Hardware,
// records never travel by messages, whatever the method.
func (u *Runner) payloadShared(coll Collective, length int) bool {
	return length <= u.HW.PayloadSize()-keySize && u.sharedPays(coll, length, AlgNIC)
}

// dataWords is where foldWords finds the processes' data words: the
// Hardware after a barrier (ring nil), or generation gen of a run-ahead
// ring. A struct, not an interface: foldWords's calls then go straight to
// the Hardware's Datum, with no conversion from one interface to another.
type dataWords struct {
	hw   Hardware
	ring RunAheadBarrier
	gen  uint64
}

// of returns rank s's data word, which the caller must not write.
func (w *dataWords) of(s int) *[DatumSize]byte {
	if w.ring != nil {
		return w.ring.DatumAt(s, w.gen)
	}
	return w.hw.Datum(s)
}

// foldWords combines the processes' data words, src's for rank s, into
// acc with r, in rank order as fold does with records. Each word but the
// first is copied into u.word before r reads it: a user's operation may
// write its input, which must not reach the Hardware's words.
func (u *Runner) foldWords(r *Reducer, acc []byte, src dataWords) {
	n, in := u.Net.Size(), u.word[:len(acc)]
	putWord(acc, src.of(n-1))
	for s := n - 2; s >= 0; s-- {
		putWord(in, src.of(s))
		r.Apply(in, acc)
	}
}

// bcastAhead broadcasts buf, a data word at most of elements of elem
// bytes, from root through rb's ring (see above), as a call of coll of
// bytes (the key's count): a broadcast's is len(buf); a scatter
// broadcasts its root's blocks, bytes a block (scatterAhead).
func (u *Runner) bcastAhead(rb RunAheadBarrier, coll Collective, buf []byte, bytes, root, elem int) error {
	p := u.RunAhead
	hash := u.smallHash(coll, elem, bytes, root, nil)
	var w *[DatumSize]byte // the root's alone
	self := u.Net.Rank() == root
	if self {
		w = u.wordOf(buf)
	}
	s, err := u.arriveAhead(rb, u.small.rec, hash, w)
	if err != nil {
		return fmt.Errorf("%v: %w", coll, err)
	}
	if !self {
		if err := rb.WaitArrivedAt(root, s.gen); err != nil {
			return fmt.Errorf("%v (waiting for root %d): %w", coll, root, err)
		}
		if rb.KeyAt(root, s.gen) != hash {
			// The root's call differs from this one: its word is no
			// data of this call. Compare every key now.
			if err := p.check(s, true); err != nil {
				return err
			}
		}
		putWord(buf, rb.DatumAt(root, s.gen))
	}
	p.n++ // settled by a later call
	u.Stats.addAt(coll, statSharedNIC)
	return nil
}

// scatterAhead scatters root's send, n blocks of blk bytes that together
// fit a data word, through rb's ring: the root broadcasts them as its
// word (bcastAhead) and returns, and the others, which wait for the
// root's arrival alone, take their block from the word. recv is nil at
// the root in place.
func (u *Runner) scatterAhead(rb RunAheadBarrier, send, recv []byte, blk, elem, root int) error {
	n, self := u.Net.Size(), u.Net.Rank()
	word := u.word[:n*blk] // the root's blocks, where they arrive
	if self == root {
		word = send[:n*blk]
	}
	if err := u.bcastAhead(rb, CollScatter, word, blk, root, elem); err != nil {
		return err
	}
	if recv != nil {
		copyBlock(recv[:blk], word[self*blk:])
	}
	return nil
}

// gatherAhead gathers the processes' blocks of blk bytes, a data word at
// most, at root through rb's ring, as reduceAhead reduces: every process
// publishes its block as its word, and all but the root return; the root
// waits for every arrival, compares every key and copies every word's
// block into recv.
func (u *Runner) gatherAhead(rb RunAheadBarrier, own, recv []byte, blk, elem, root int) error {
	p, coll := u.RunAhead, CollGather
	hash := u.smallHash(coll, elem, blk, root, nil)
	s, err := u.arriveAhead(rb, u.small.rec, hash, u.wordOf(own))
	if err != nil {
		return fmt.Errorf("%v: %w", coll, err)
	}
	u.Stats.addAt(coll, statSharedNIC)
	if u.Net.Rank() != root {
		p.n++ // settled by a later call
		return nil
	}
	if err := p.check(s, true); err != nil {
		return err
	}
	for r := range u.Net.Size() {
		copyBlock(recv[r*blk:(r+1)*blk], rb.DatumAt(r, s.gen)[:blk])
	}
	return nil
}

// reduceAhead combines the processes' data words w, of length bytes, with
// r into acc at root through rb's ring (see above).
func (u *Runner) reduceAhead(rb RunAheadBarrier, r *Reducer, root, length int, w *[DatumSize]byte, acc []byte) error {
	p, coll := u.RunAhead, CollReduce
	hash := u.reductionHash(coll, r, length, root)
	s, err := u.arriveAhead(rb, u.small.rec, hash, w)
	if err != nil {
		return fmt.Errorf("%v: %w", coll, err)
	}
	u.Stats.addAt(coll, statSharedNIC)
	if u.Net.Rank() != root {
		p.n++ // settled by a later call
		return nil
	}
	if err := p.check(s, true); err != nil {
		return err
	}
	u.foldWords(r, acc, dataWords{ring: rb, gen: s.gen})
	return nil
}

// smallInput returns the input and length of a reduction smallReduction
// can run, and whether it can: valid arguments, a vector of whole units,
// and offload without forced algorithms.
func (u *Runner) smallInput(coll Collective, send, recv []byte, r *Reducer, root int) (input []byte, length int, ok bool) {
	hw, unit := u.HW, r.Unit
	if hw == nil || len(u.Force) != 0 || r.Apply == nil || unit <= 0 || unit&(unit-1) != 0 {
		return nil, 0, false
	}
	n, rank := u.Net.Size(), u.Net.Rank()
	input, length = send, len(send)
	switch {
	case coll == CollAllreduce && send != nil && len(send) != len(recv):
		return nil, 0, false
	case coll == CollAllreduce:
		length = len(recv)
	case uint(root) >= uint(n) || send == nil && rank != root:
		return nil, 0, false
	}
	if send == nil {
		input, length = recv, len(recv)
	}
	// (Units are powers of two: length&(unit-1) is length%unit.)
	if length&(unit-1) != 0 || (coll == CollAllreduce || rank == root) && len(recv) < length {
		return nil, 0, false
	}
	return input, length, true
}
