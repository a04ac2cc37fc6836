package collectives

import "fmt"

// A reduce-scatter algorithm is called with in, the rank's whole input,
// and off, the offsets of the ranks' blocks in it (block i is
// in[off[i]:off[i+1]], a multiple of r.Unit bytes); it leaves the
// reduction of the rank's block in out. out may overlap in (in place): the
// algorithm works on a copy of in and writes out last.
type reduceScatterAlg = func(c *call, r Reducer, in []byte, off []int, out []byte) error

// reduceScatterBlockAlgorithms are ReduceScatterBlock's algorithms.
var reduceScatterBlockAlgorithms = map[string]reduceScatterAlg{
	"ring":              reduceScatterRing,
	"recursive-halving": reduceScatterHalving,
	"reduce-scatter":    reduceScatterTree,
}

// reduceScatterAlgorithms are ReduceScatter's algorithms.
var reduceScatterAlgorithms = map[string]reduceScatterAlg{
	"ring":            reduceScatterRing,
	"reduce-scatterv": reduceScatterTree,
}

// checkReduceScatterAlg reports an algorithm that does not apply to r or
// to the communicator's size.
func checkReduceScatterAlg(op, alg string, size int, r Reducer) error {
	if err := checkReducer(op, r); err != nil {
		return err
	}
	if (alg == "ring" || alg == "recursive-halving") && !r.Commutative {
		return fmt.Errorf("%s: %s needs a commutative operation, not %s: %w", op, alg, r.Op, ErrAlgorithm)
	}
	if alg == "recursive-halving" && !isPowerOfTwo(size) {
		return fmt.Errorf("%s: recursive-halving needs a power-of-two size, not %d: %w", op, size, ErrAlgorithm)
	}
	return nil
}

// ReduceScatterBlock reduces the send buffers of all ranks element-wise
// with r, in rank order, and leaves block i of the result in rank i's
// recv: send holds size*len(recv) bytes, and len(recv) must be a multiple
// of r.Unit. A nil send means in place: recv then holds the rank's whole
// input, size blocks of len(recv)/size bytes, and the rank's block of the
// result is written to its beginning, recv[:len(recv)/size] (the rest of
// recv is left undefined).
//
// Algorithms: "ring" (size-1 steps passing one partial block to the right
// neighbour; commutative operations only), "recursive-halving" (log2(size)
// exchanges of halving size; commutative operations and power-of-two
// sizes only) and "reduce-scatter" (a binomial reduction to rank 0 that
// keeps rank order, then a binomial scatter; any operation, any size).
// An algorithm that does not apply fails with ErrAlgorithm.
func ReduceScatterBlock(n Net, alg string, send, recv []byte, r Reducer) error {
	const op = "reduce-scatter-block"
	f, err := lookupAlgorithm(op, reduceScatterBlockAlgorithms, alg)
	if err != nil {
		return err
	}
	size := n.Size()
	if err := checkReduceScatterAlg(op, alg, size, r); err != nil {
		return err
	}
	blk := len(recv)
	if send == nil {
		if len(recv)%size != 0 {
			return fmt.Errorf("%s: in place, the receive buffer of %d bytes is no multiple of %d ranks: %w", op, len(recv), size, ErrBuffer)
		}
		blk = len(recv) / size
		send = recv
	} else if len(send) != size*blk {
		return fmt.Errorf("%s: the send buffer holds %d bytes, not %d ranks × %d: %w", op, len(send), size, blk, ErrBuffer)
	}
	if blk%r.Unit != 0 {
		return fmt.Errorf("%s: blocks of %d bytes are not made of units of %d: %w", op, blk, r.Unit, ErrBuffer)
	}
	off := make([]int, size+1)
	for i := range off {
		off[i] = i * blk
	}
	return f(newCall(n), r, send, off, recv[:blk])
}

// ReduceScatter reduces the send buffers of all ranks element-wise with
// r, in rank order, and scatters the result: rank i receives the counts[i]
// bytes of it that follow the blocks of ranks 0 to i-1, in recv[:counts[i]].
// counts (size entries, multiples of r.Unit) must be the same on all ranks;
// send holds their sum. A nil send means in place: recv then holds the
// rank's whole input, and the rank's block of the result is written to
// its beginning (the rest of recv is left undefined).
//
// Algorithms: "ring" (commutative operations only; ErrAlgorithm otherwise)
// and "reduce-scatterv" (a binomial reduction to rank 0 that keeps rank
// order, then a binomial scatter; any operation).
func ReduceScatter(n Net, alg string, send, recv []byte, counts []int, r Reducer) error {
	const op = "reduce-scatter"
	f, err := lookupAlgorithm(op, reduceScatterAlgorithms, alg)
	if err != nil {
		return err
	}
	size, rank := n.Size(), n.Rank()
	if err := checkReduceScatterAlg(op, alg, size, r); err != nil {
		return err
	}
	if len(counts) != size {
		return fmt.Errorf("%s: %d counts for %d ranks: %w", op, len(counts), size, ErrBuffer)
	}
	off := make([]int, size+1)
	for i, cnt := range counts {
		if cnt < 0 || cnt%r.Unit != 0 {
			return fmt.Errorf("%s: count %d of rank %d is not a multiple of the unit, %d bytes: %w", op, cnt, i, r.Unit, ErrBuffer)
		}
		off[i+1] = off[i] + cnt
	}
	total := off[size]
	if send == nil {
		if len(recv) < total {
			return fmt.Errorf("%s: in place, the receive buffer holds %d bytes, not %d: %w", op, len(recv), total, ErrBuffer)
		}
		send = recv[:total]
	} else {
		if len(send) != total {
			return fmt.Errorf("%s: the send buffer holds %d bytes, the counts add up to %d: %w", op, len(send), total, ErrBuffer)
		}
		if len(recv) < counts[rank] {
			return fmt.Errorf("%s: the receive buffer holds %d bytes, not %d: %w", op, len(recv), counts[rank], ErrBuffer)
		}
	}
	return f(newCall(n), r, send, off, recv[:counts[rank]])
}

// reduceScatterRing: in step s, each rank sends its partial block
// rank-s-1 to its right neighbour, and combines into its block rank-s-2
// the partial received from its left one. After size-1 steps, block rank
// holds the contributions of all ranks (in ring order, not rank order).
func reduceScatterRing(c *call, r Reducer, in []byte, off []int, out []byte) error {
	size, rank := c.Size(), c.Rank()
	work := c.copyOf(in)
	block := func(i int) []byte { return work[off[i]:off[i+1]] }
	longest := 0
	for i := range size {
		longest = max(longest, off[i+1]-off[i])
	}
	tmp := c.alloc(longest)
	right, left := (rank+1)%size, (rank-1+size)%size
	for s := range size - 1 {
		give, take := (rank-s-1+2*size)%size, (rank-s-2+2*size)%size
		buf := tmp[:off[take+1]-off[take]]
		if err := c.passrecv(right, block(give), left, buf); err != nil {
			return c.end(err)
		}
		r.Apply(buf, block(take))
	}
	copy(out, block(rank))
	return c.end(nil)
}

// reduceScatterHalving: each rank is responsible for the blocks of a
// range of ranks, at first all of them, and halves the range down to its
// own block in exchanges with rank^m (halvingExchanges, rooted at 0).
func reduceScatterHalving(c *call, r Reducer, in []byte, off []int, out []byte) error {
	rank := c.Rank()
	work := c.copyOf(in)
	if err := halvingExchanges(c, r, work, work, func(i int) int { return off[i] }, 0); err != nil {
		return c.end(err)
	}
	copy(out, work[off[rank]:off[rank+1]])
	return c.end(nil)
}

// reduceScatterTree reduces the whole vector to rank 0 along the binomial
// tree of gatherBinomial (root 0), where every rank's partial covers the
// contiguous ranks of its subtree, so partials combine in rank order; then
// it scatters the blocks back along the same tree, each rank receiving
// its subtree's blocks, contiguous in the vector, in one message.
func reduceScatterTree(c *call, r Reducer, in []byte, off []int, out []byte) error {
	size, rank := c.Size(), c.Rank()
	acc, tmp := c.copyOf(in), c.alloc(len(in))
	sub := size
	if rank != 0 {
		sub = min(lowBit(rank), size-rank)
	}
	for m := 1; m < sub; m <<= 1 {
		if err := c.recv(rank+m, tmp); err != nil {
			return c.end(err)
		}
		r.Apply(acc, tmp) // tmp = ours (ranks below rank+m) ∘ the child's
		acc, tmp = tmp, acc
	}
	if rank != 0 {
		parent := rank - lowBit(rank)
		if err := c.pass(parent, acc); err != nil {
			return c.end(err)
		}
		if err := c.recv(parent, acc[off[rank]:off[rank+sub]]); err != nil {
			return c.end(err)
		}
	}
	m := 1
	for 2*m < sub {
		m <<= 1
	}
	for ; m >= 1 && m < sub; m >>= 1 {
		if err := c.pass(rank+m, acc[off[rank+m]:off[min(rank+2*m, rank+sub)]]); err != nil {
			return c.end(err)
		}
	}
	copy(out, acc[off[rank]:off[rank+1]])
	return c.end(nil)
}
