package collectives

import "fmt"

// allgatherAlgorithms are Allgather's algorithms. Each is called with recv
// exactly size blocks and own the rank's block: send, or its place in
// recv when in place. An algorithm sends the rank's block from own and
// puts it in its place itself (placeOwn), after the first exchange: a
// peer reading the block while the rank writes those lines of recv would
// move every line between the cores twice.
var allgatherAlgorithms = map[string]func(c *call, own, recv []byte) error{
	"ring":               allgatherRing,
	"recursive-doubling": allgatherRecursiveDoubling,
	"bruck":              allgatherBruck,
	"linear":             allgatherLinear,
}

// Allgather collects the blocks of send of every rank into recv on every
// rank: rank i's block lands at recv[i*len(send):]. recv must hold at
// least size*len(send) bytes (the rest is left alone). A nil send means in
// place: the rank's block is already at its place in recv, and the block
// size is len(recv)/size.
//
// Algorithms: "ring" (size-1 steps, each passing one block to the right
// neighbour), "recursive-doubling" (log2(size) exchanges of doubling
// size; power-of-two sizes only, otherwise ErrAlgorithm), "bruck"
// (ceil(log2(size)) exchanges, any size) and "linear" (the block straight
// to every rank, up to exchangeWindow steps of the pairwise schedule in
// flight at once when the Net is an Exchanger).
func Allgather(n Net, alg string, send, recv []byte) error {
	f, err := lookupAlgorithm("allgather", allgatherAlgorithms, alg)
	if err != nil {
		return err
	}
	size, rank := n.Size(), n.Rank()
	if alg == "recursive-doubling" && !isPowerOfTwo(size) {
		return fmt.Errorf("allgather: recursive-doubling needs a power-of-two size, not %d: %w", size, ErrAlgorithm)
	}
	blk := len(send)
	if send == nil {
		if len(recv)%size != 0 {
			return fmt.Errorf("allgather: in place, the receive buffer of %d bytes is no multiple of %d ranks: %w", len(recv), size, ErrBuffer)
		}
		blk = len(recv) / size
	}
	if len(recv) < size*blk {
		return fmt.Errorf("allgather: the receive buffer holds %d bytes, not %d ranks × %d: %w", len(recv), size, blk, ErrBuffer)
	}
	recv = recv[:size*blk]
	own := send
	if send == nil {
		own = recv[rank*blk : (rank+1)*blk]
	}
	return f(newCall(n), own, recv)
}

// placeOwn copies the rank's block own into its place in recv, unless it
// is there already (in place).
func placeOwn(own, recv []byte, rank int) {
	dst := recv[rank*len(own) : (rank+1)*len(own)]
	if len(own) > 0 && &own[0] != &dst[0] {
		copy(dst, own)
	}
}

// allgatherRing: in step s, each rank sends block rank-s to its right
// neighbour and receives block rank-s-1 from its left one.
// The rank's own block is only sent in the first step, from own; it is
// placed at the end.
func allgatherRing(c *call, own, recv []byte) error {
	size, rank := c.Size(), c.Rank()
	blk := len(recv) / size
	right, left := (rank+1)%size, (rank-1+size)%size
	for s := range size - 1 {
		out, in := (rank-s+size)%size, (rank-s-1+size)%size
		data := recv[out*blk : (out+1)*blk]
		if s == 0 {
			data = own
		}
		if err := c.passrecv(right, data, left, recv[in*blk:(in+1)*blk]); err != nil {
			return c.end(err)
		}
	}
	placeOwn(own, recv, rank)
	return c.end(nil)
}

// allgatherLinear sends the rank's block to every other rank and receives
// theirs, several steps of the pairwise schedule in flight at once
// (exchangeSteps): no block waits for another rank to pass it on.
func allgatherLinear(c *call, own, recv []byte) error {
	blk := len(own)
	err := c.exchangeSteps(func(int) []byte { return own },
		func(i int) []byte { return recv[i*blk : (i+1)*blk] })
	placeOwn(own, recv, c.Rank())
	return c.end(err)
}

// allgatherRecursiveDoubling: before the exchange with rank^m, each rank
// holds the m blocks of its aligned group of m ranks, and it swaps them
// for those of the partner's group.
// The first exchange sends own; the block is placed before the second,
// which sends it from recv with its neighbours'.
func allgatherRecursiveDoubling(c *call, own, recv []byte) error {
	size, rank := c.Size(), c.Rank()
	blk := len(recv) / size
	for m := 1; m < size; m <<= 1 {
		peer := rank ^ m
		mine, theirs := rank&^(m-1), peer&^(m-1)
		data := recv[mine*blk : (mine+m)*blk]
		if m == 1 {
			data = own
		}
		if err := c.passrecv(peer, data, peer, recv[theirs*blk:(theirs+m)*blk]); err != nil {
			return c.end(err)
		}
		if m == 1 {
			placeOwn(own, recv, rank)
		}
	}
	if size == 1 {
		placeOwn(own, recv, rank)
	}
	return c.end(nil)
}

// allgatherBruck: tmp[j] is the block of rank+j. Before the exchange of
// distance p, each rank holds tmp[0:p]; it sends the first min(p, size-p)
// of them to rank-p and receives tmp[p:] from rank+p.
func allgatherBruck(c *call, own, recv []byte) error {
	size, rank := c.Size(), c.Rank()
	blk := len(recv) / size
	tmp := c.alloc(len(recv))
	copy(tmp, own)
	for p := 1; p < size; p <<= 1 {
		k := min(p, size-p)
		if err := c.passrecv((rank-p+size)%size, tmp[:k*blk], (rank+p)%size, tmp[p*blk:(p+k)*blk]); err != nil {
			return c.end(err)
		}
	}
	copy(recv[rank*blk:], tmp[:(size-rank)*blk])
	copy(recv[:rank*blk], tmp[(size-rank)*blk:])
	return c.end(nil)
}

// allgathervAlgorithms are Allgatherv's algorithms. Each is called with
// the rank's own block already in place in recv.
var allgathervAlgorithms = map[string]func(c *call, recv []byte, counts, displs []int) error{
	"ring":   allgathervRing,
	"linear": allgathervLinear,
}

// Allgatherv is Allgather with a block of its own size per rank: rank i's
// send (counts[i] bytes) lands at recv[displs[i]:] on every rank. counts
// and displs (len size, in bytes) are significant on every rank and must
// be the same on all. A nil send means in place: the rank's block is
// already at recv[displs[rank]:].
//
// Algorithms: "ring" and "linear" (as Allgather's).
func Allgatherv(n Net, alg string, send, recv []byte, counts, displs []int) error {
	f, err := lookupAlgorithm("allgatherv", allgathervAlgorithms, alg)
	if err != nil {
		return err
	}
	rank := n.Rank()
	if err := checkVector("allgatherv", "receive", n.Size(), counts, displs, len(recv)); err != nil {
		return err
	}
	c := newCall(n)
	if send != nil {
		c.checkLen(rank, len(send), counts[rank])
		copy(recv[displs[rank]:displs[rank]+counts[rank]], send)
	}
	return f(c, recv, counts, displs)
}

func allgathervRing(c *call, recv []byte, counts, displs []int) error {
	size, rank := c.Size(), c.Rank()
	right, left := (rank+1)%size, (rank-1+size)%size
	block := func(i int) []byte { return recv[displs[i] : displs[i]+counts[i]] }
	for s := range size - 1 {
		if err := c.passrecv(right, block((rank-s+size)%size), left, block((rank-s-1+size)%size)); err != nil {
			return c.end(err)
		}
	}
	return c.end(nil)
}

// allgathervLinear is allgatherLinear with a block of its own size per
// rank.
func allgathervLinear(c *call, recv []byte, counts, displs []int) error {
	block := func(i int) []byte { return recv[displs[i] : displs[i]+counts[i]] }
	own := block(c.Rank())
	return c.end(c.exchangeSteps(func(int) []byte { return own }, block))
}
