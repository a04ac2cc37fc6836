package collectives

import "fmt"

// gatherAlgorithms are Gather's algorithms. Each is called on every rank
// with own, the rank's block, and at the root recv, exactly size blocks
// of len(own) bytes (own may be recv's block of the root: in place).
var gatherAlgorithms = map[string]func(c *call, own, recv []byte, root int) error{
	"linear":   gatherLinear,
	"binomial": gatherBinomial,
}

// Gather collects the blocks of send of every rank into recv at the root:
// rank i's block lands at recv[i*len(send):]. recv is significant at the
// root only, where it must hold at least size*len(send) bytes (the rest is
// left alone). At the root, a nil send means in place: the root's block
// is already at its place in recv, and the block size is len(recv)/size.
//
// Algorithms: "linear" (the root receives from every rank, the blocks in
// flight together or in turn) and
// "binomial" (a binomial tree rooted at root; inner ranks forward their
// subtree's blocks in one message).
func Gather(n Net, alg string, send, recv []byte, root int) error {
	f, err := lookupAlgorithm("gather", gatherAlgorithms, alg)
	if err != nil {
		return err
	}
	if err := checkRoot("gather", n, root); err != nil {
		return err
	}
	size, own := n.Size(), send
	if n.Rank() == root {
		if send == nil {
			if len(recv)%size != 0 {
				return fmt.Errorf("gather: in place, the receive buffer of %d bytes is no multiple of %d ranks: %w", len(recv), size, ErrBuffer)
			}
			blk := len(recv) / size
			own = recv[root*blk : (root+1)*blk]
		}
		if len(recv) < size*len(own) {
			return fmt.Errorf("gather: the receive buffer holds %d bytes, not %d ranks × %d: %w", len(recv), size, len(own), ErrBuffer)
		}
		recv = recv[:size*len(own)]
	} else {
		recv = nil
	}
	return f(newCall(n), own, recv, root)
}

// gatherLinear: the root receives every rank's block, together or one
// after the other (linearTogether).
func gatherLinear(c *call, own, recv []byte, root int) error {
	if c.Rank() != root {
		return c.end(c.pass(root, own))
	}
	blk := len(own)
	if !c.ownDone {
		copy(recv[root*blk:(root+1)*blk], own)
	}
	return c.end(c.recvEach(func(i int) []byte { return recv[i*blk : (i+1)*blk] }, linearTogether(c.Size(), blk)))
}

// lowBit returns the lowest set bit of v > 0.
func lowBit(v int) int { return v & -v }

// gatherBinomial: in ranks relative to the root, rank v ≠ 0 has parent
// v - lowBit(v) and children v + m for the powers of two m < lowBit(v)
// (every power of two for v = 0) with v + m < size; the subtree of v is
// the ranks [v, v + min(lowBit(v), size - v)), whose blocks are contiguous.
func gatherBinomial(c *call, own, recv []byte, root int) error {
	size, blk := c.Size(), len(own)
	v := (c.Rank() - root + size) % size
	sub := size
	if v != 0 {
		sub = min(lowBit(v), size-v)
	}
	if v != 0 && sub == 1 {
		return c.end(c.pass((v-lowBit(v)+root)%size, own))
	}
	var tmp []byte
	if v == 0 && root == 0 {
		tmp = recv
	} else {
		tmp = c.alloc(sub * blk)
	}
	copy(tmp[:blk], own)
	for m := 1; m < sub; m <<= 1 {
		if err := c.recv((v+m+root)%size, tmp[m*blk:min(2*m, sub)*blk]); err != nil {
			return c.end(err)
		}
	}
	if v != 0 {
		return c.end(c.pass((v-lowBit(v)+root)%size, tmp))
	}
	if root != 0 {
		// tmp holds the blocks of ranks root, root+1, …, size-1, 0, …, root-1.
		copy(recv[root*blk:], tmp[:(size-root)*blk])
		copy(recv[:root*blk], tmp[(size-root)*blk:])
	}
	return c.end(nil)
}

// gathervAlgorithms are Gatherv's algorithms; counts and displs are
// significant at the root only, and own is nil there when in place.
var gathervAlgorithms = map[string]func(c *call, own, recv []byte, counts, displs []int, root int) error{
	"linear": gathervLinear,
}

// Gatherv is Gather with a block of its own size per rank: at the root,
// rank i's send (counts[i] bytes) lands at recv[displs[i]:]. counts and
// displs (len size, in bytes) and recv are significant at the root only.
// At the root, a nil send means in place: the root's block is already at
// recv[displs[root]:]. A rank whose send differs in length from the
// root's counts makes the operation fail with ErrMismatch.
//
// Algorithm: "linear".
func Gatherv(n Net, alg string, send, recv []byte, counts, displs []int, root int) error {
	f, err := lookupAlgorithm("gatherv", gathervAlgorithms, alg)
	if err != nil {
		return err
	}
	if err := checkRoot("gatherv", n, root); err != nil {
		return err
	}
	if n.Rank() == root {
		if err := checkVector("gatherv", "receive", n.Size(), counts, displs, len(recv)); err != nil {
			return err
		}
	} else {
		recv, counts, displs = nil, nil, nil
	}
	return f(newCall(n), send, recv, counts, displs, root)
}

// gathervLinear is gatherLinear with a block of its own size per rank.
func gathervLinear(c *call, own, recv []byte, counts, displs []int, root int) error {
	if c.Rank() != root {
		return c.end(c.pass(root, own))
	}
	block := func(i int) []byte { return recv[displs[i] : displs[i]+counts[i]] }
	if own != nil {
		c.checkLen(root, len(own), counts[root])
		copy(block(root), own)
	}
	return c.end(c.recvEach(block, linearTogether(c.Size(), len(recv)/c.Size())))
}
