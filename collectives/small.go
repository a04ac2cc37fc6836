package collectives

import "fmt"

// Small calls: a broadcast, or a reduction, whose data fits the data word
// of the synchronisation network (and whose communicator is small enough
// for every rank's word to travel in the barrier's messages) runs in one
// barrier: what the driver would do for it (AlgShared, its inputs inline),
// without the driver's generality.

// smallKey caches the encoded Key of the last small call, and the hash of
// all of it but the root, as long as the calls repeat but for their root.
type smallKey struct {
	key  Key    // without Op and Root
	op   string // the Reducer's Op
	rec  [keySize]byte
	base uint64 // baseHash(rec)
	mask uint64 // the hardware's key width
}

// smallBarrier publishes key k (its Op that of r) and the data word w in
// one barrier of the hardware, and checks that every rank passed the same
// key; the data words are then the hardware's Datum.
func (u *Runner) smallBarrier(k Key, r Reducer, w [DatumSize]byte) error {
	hw, n := u.HW, u.Net.Size()
	sk := &u.small
	root := k.Root
	if k.Root = 0; sk.mask == 0 || sk.key != k || sk.op != r.Op {
		sk.key, sk.op = k, r.Op
		k.Op = opID(r)
		k.put(sk.rec[:])
		sk.mask = 1<<hw.KeyBits() - 1
		sk.base = baseHash(sk.rec[:])
	}
	putRoot(sk.rec[:], root)
	hash := rootedHash(sk.base, keyRoot(sk.rec[:])) & sk.mask
	u.settleAll()
	if err := hw.Barrier(hash, w, sk.rec[:]); err != nil {
		return fmt.Errorf("%v: %w", k.Coll, err)
	}
	if hw.KeySum() != uint64(n)*hash&sk.mask {
		// Some rank's call differs: find out how, and say so.
		b := board{hw: hw, size: keySize, self: u.Net.Rank(), n: n, key: hash}
		if err := b.verify(sk.rec[:]); err != nil {
			return err
		}
	}
	u.Stats.addAt(k.Coll, statSharedNIC)
	return nil
}

// smallBcast runs a broadcast of buf from root in one barrier, and reports
// false, having done nothing, for a call the driver must take: a buffer
// longer than a data word, an invalid root, forced algorithms, or a
// broadcast that runs ahead of its check (FanOutAhead).
func (u *Runner) smallBcast(buf []byte, root, elem int) (done bool, err error) {
	hw, n := u.HW, u.Net.Size()
	if hw == nil || len(u.Force) != 0 || len(buf) > DatumSize || uint(root) >= uint(n) || n > hw.InlineRanks() {
		return false, nil
	}
	if _, ok := u.runAheadBarrier(CollBcast); ok {
		return false, nil
	}
	var w [DatumSize]byte
	self := u.Net.Rank() == root
	if self {
		copy(w[:], buf)
	}
	if err := u.smallBarrier(Key{Coll: CollBcast, Elem: elem, Root: root, Bytes: len(buf)}, Reducer{}, w); err != nil {
		return true, u.withEarlier(err)
	}
	if !self {
		w = hw.Datum(root)
		copy(buf, w[:])
	}
	return true, u.withEarlier(nil)
}

// smallReduction runs an allreduce (coll CollAllreduce), or a reduce to
// root (CollReduce), in one barrier. It reports false, having done
// nothing, for any other call, forced algorithms and invalid arguments
// included; the driver then takes the call.
func (u *Runner) smallReduction(coll Collective, send, recv []byte, r Reducer, root int) (done bool, err error) {
	input, length, ok := u.smallInput(coll, send, recv, r, root)
	if !ok {
		return false, nil
	}
	var w [DatumSize]byte
	copy(w[:], input)
	if err := u.smallBarrier(Key{Coll: coll, Elem: r.Elem, Kind: uint8(r.Kind), Root: root, Bytes: length}, r, w); err != nil {
		return true, u.withEarlier(err)
	}
	if coll == CollReduce && u.Net.Rank() != root {
		return true, u.withEarlier(nil)
	}
	// The words in rank order, as fold does with records.
	hw, n := u.HW, u.Net.Size()
	w = hw.Datum(n - 1)
	acc := recv[:length]
	copy(acc, w[:])
	for s := n - 2; s >= 0; s-- {
		u.word = hw.Datum(s)
		r.Apply(u.word[:length], acc)
	}
	return true, u.withEarlier(nil)
}

// smallInput returns the input and length of a reduction smallReduction
// can run, and whether it can: valid arguments, a vector of whole units
// that fits a data word, and offload without forced algorithms.
func (u *Runner) smallInput(coll Collective, send, recv []byte, r Reducer, root int) (input []byte, length int, ok bool) {
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
	if length > DatumSize || length&(unit-1) != 0 || n > hw.InlineRanks() ||
		(coll == CollAllreduce || rank == root) && len(recv) < length {
		return nil, 0, false
	}
	return input, length, true
}
