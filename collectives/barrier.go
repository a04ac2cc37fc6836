package collectives

import (
	"bytes"
)

// The barrier algorithms. A barrier is an agreement that carries no data:
// the same exchanges also carry every process's Key when the arguments are
// checked (see publish), so checking costs a barrier nothing.
const (
	// AlgNIC uses the network's offload: the synchronisation network's
	// barrier controller, or multicast.
	AlgNIC = "nic"
	// AlgDissemination: ceil(log2 n) rounds, in round k every process
	// sends to rank+2^k and receives from rank-2^k (Bruck's allgather when
	// records are carried).
	AlgDissemination = "dissemination"
	// AlgBinomial: a binomial tree, gathering to rank 0 and then
	// broadcasting from it.
	AlgBinomial = "binomial"
)

var barrierAlgorithms = []string{AlgDissemination, AlgBinomial, AlgNIC}

// board holds what every process published in an exchange of records.
type board struct {
	hw      Hardware
	recs    []byte
	size    int
	self, n int
	rotated bool   // record i is rank (self+i)%n's, not rank i's
	key     uint64 // the key this process added to the hardware's sum
	inline  bool   // the inputs travelled as the hardware's data words
	tmp     []byte // DatumSize bytes to unpack a data word into
}

// record returns what rank r published, all of it: its key is last, at a
// length the caller does not know before (a rank whose call differs may
// have published more or less).
func (b *board) record(r int) []byte {
	if b.hw != nil {
		if p := b.hw.Payload(r, 0, 0); p != nil {
			return p
		}
		return b.ranAhead(r)
	}
	i := r
	if b.rotated {
		// (r - self) mod n, both in [0, n)
		if i -= b.self; i < 0 {
			i += b.n
		}
	}
	return b.recs[i*b.size : (i+1)*b.size]
}

// ranAhead returns the record rank r arrived with at this barrier's
// generation without a payload (a call that ran ahead of its check; see
// RunAhead), where the hardware keeps it (ranAheadRecord); else nil.
func (b *board) ranAhead(r int) []byte {
	rb, ok := b.hw.(RunAheadBarrier)
	if !ok {
		return nil
	}
	return ranAheadRecord(rb, r, rb.Generation(), uint64(1)<<b.hw.KeyBits()-1)
}

// data returns n bytes at offset off of what rank r published besides its
// key: its input, from its record or from its data word.
func (b *board) data(r, off, n int) []byte {
	if b.inline {
		copy(b.tmp, b.hw.Datum(r)[:])
		return b.tmp[off : off+n]
	}
	if b.hw != nil {
		return b.hw.Payload(r, off, n)[off : off+n]
	}
	return b.record(r)[keySize+off : keySize+off+n]
}

// keyOf returns the encoded Key of a record published through this board:
// the record's last keySize bytes on the hardware, where the input comes
// first (see keyedRecord), its first elsewhere.
func (b *board) keyOf(rec []byte) []byte {
	switch {
	case len(rec) < keySize:
		return rec
	case b.hw != nil:
		return rec[len(rec)-keySize:]
	}
	return rec[:keySize]
}

// keyedRecord returns a record of keySize+len(input) bytes from c's arena
// holding key and input as board.data and board.keyOf read them back: on
// the hardware the input first, so that a reader of a small input reads
// the payload's first line alone (the key is read only when the sum of
// keys shows a difference); elsewhere the key first.
func keyedRecord(c *call, hw bool, key Key, input []byte, size int) (rec, keyPart []byte) {
	rec = c.alloc(size)
	if hw {
		keyPart = rec[size-keySize:]
		copy(rec, input)
	} else {
		keyPart = rec[:keySize]
		copy(rec[keySize:], input)
	}
	key.put(keyPart)
	return rec, keyPart
}

// verify checks that every process published the key this one did, mine
// (see verify for what differs legitimately between processes).
func (b *board) verify(mine []byte) error {
	if b.hw != nil && len(mine) >= keySize && b.hw.KeySum() == uint64(b.n)*b.key&(1<<b.hw.KeyBits()-1) {
		return nil // every rank passed this key
	}
	keyOf := func(r int) Key { return getKey(b.keyOf(b.record(r))) }
	if getKey(b.keyOf(mine)).Counts != 0 {
		// The keys differ legitimately (in Own); compare them in full.
		return verify(b.n, keyOf)
	}
	own := b.keyOf(mine)
	for r := range b.n {
		if !bytes.Equal(b.keyOf(b.record(r)), own) {
			return verify(b.n, keyOf)
		}
	}
	return nil
}

// publish gives every process's rec to every process, by method (AlgNIC,
// AlgDissemination or AlgBinomial); it is also a barrier. With AlgNIC,
// key (the hash of rec's Key, masked to the hardware's key width) goes to
// the hardware's sum and datum travels as its data word.
//
// The records are of equal lengths where the processes' calls agree.
// longest, if not 0, is the longest record any process may publish, in a
// dissemination: a message of records longer or shorter than this
// process's is laid out again, so that each of them starts, key first,
// where this process's records do (relayout). Without it, every record
// must have one length.
//
// What every process published is left in *b.
func publish(c *call, hw Hardware, method string, rec []byte, key uint64, datum *[DatumSize]byte, longest int, b *board, own ownCopy) error {
	n, self, size := c.Size(), c.Rank(), len(rec)
	*b = board{size: size, self: self, n: n}
	switch method {
	case AlgNIC:
		if hw == nil {
			return errNoHardware
		}
		b.hw, b.key = hw, key
		if sb, ok := hw.(SplitBarrier); ok && own.dst != nil {
			if err := sb.Arrive(key, datum, rec); err != nil {
				return err
			}
			own.do()
			c.ownDone = true
			return sb.WaitReleased()
		}
		return hw.Barrier(key, datum, rec)
	case AlgBinomial:
		b.recs = c.alloc(n * size)
		copy(b.recs[self*size:], rec)
		if err := gatherBlocks(c, b.recs, size); err != nil {
			return err
		}
		return bcastBinomial(c, b.recs, 0)
	}
	// Dissemination, as Bruck's allgather: after the round with distance
	// d, a process holds the records of ranks self..self+2d-1.
	b.rotated = true
	// Room past the records for the longest message a round may bring.
	room := max(longest, size)
	buf := c.alloc(n*size + n/2*(room-size))
	b.recs = buf[:n*size]
	copy(b.recs, rec)
	for d := 1; d < n; d *= 2 {
		cnt := min(d, n-d)
		to, from := (self-d+n)%n, (self+d)%n
		in := buf[d*size : d*size+cnt*room]
		got, err := c.Sendrecv(to, b.recs[:cnt*size], from, in)
		if err != nil {
			return err
		}
		if got != cnt*size {
			c.checkLen(from, got, cnt*size)
			relayout(in, min(got, len(in)), cnt, size)
		}
	}
	return nil
}

// relayout moves the cnt records that a message of got bytes brought to
// the start of buf, which its sender laid out at got/cnt bytes each, to
// places size bytes apart: the first size bytes of each, or all of it and
// zeros, so that each record's key comes first in its place.
func relayout(buf []byte, got, cnt, size int) {
	l := got / cnt
	if l >= size {
		for i := range cnt { // to the left: each source lies past its place
			copy(buf[i*size:(i+1)*size], buf[i*l:])
		}
		return
	}
	for i := cnt - 1; i >= 0; i-- { // to the right: each source lies before its place
		copy(buf[i*size:i*size+l], buf[i*l:(i+1)*l])
		clear(buf[i*size+l : (i+1)*size])
	}
}

// gatherBlocks gathers to rank 0, along a binomial tree, the blocks of
// size bytes that every rank r holds at buf[r*size:]; a process forwards
// the contiguous blocks of its subtree.
func gatherBlocks(c *call, buf []byte, size int) error {
	n, r := c.Size(), c.Rank()
	for mask := 1; mask < n; mask *= 2 {
		if r&mask != 0 {
			return c.Send(r-mask, buf[r*size:min(r+mask, n)*size])
		}
		if child := r + mask; child < n {
			if err := c.recv(child, buf[child*size:min(child+mask, n)*size]); err != nil {
				return err
			}
		}
	}
	return nil
}
