package collectives

// Allreduce algorithms.
const (
	// AlgRecursiveDoubling exchanges whole vectors with partners at
	// distance 1, 2, 4, … (the ranks beyond a power of two first fold into
	// a partner): log2 n steps, best for short vectors.
	AlgRecursiveDoubling = "recursive-doubling"
	// AlgRing is a ring reduce-scatter followed by a ring allgather: every
	// process sends about twice the vector, best for long vectors of a
	// commutative operation.
	AlgRing = "ring"
	// AlgReduceBcast reduces to rank 0 along a binomial tree and
	// broadcasts the result: the order-preserving choice for long vectors
	// of a non-commutative operation.
	AlgReduceBcast = "reduce-bcast"
	// AlgShared has every process publish its input, with its arguments,
	// to all the others and compute the result locally (through the
	// synchronisation network when there is one, else by dissemination):
	// one exchange for short vectors, and the argument check comes free.
	AlgShared = "shared"
)

// AlgRecursiveHalving (Allreduce): a recursive-halving reduce-scatter,
// then a recursive-doubling allgather of the pieces (Rabenseifner's
// allreduce), for a commutative operation on a power-of-two number of
// processes: each sends about twice its vector, as in the ring, in
// 2 log2 n steps rather than 2(n-1).
var allreduceAlgorithms = []string{AlgRecursiveDoubling, AlgRing, AlgReduceBcast, AlgShared, AlgRecursiveHalving}

// allreduceRecursiveDoubling combines the processes' vectors into every
// process's recv (send nil: in place). The combination keeps rank order:
// the partner of lower rank always contributes the left operand.
func allreduceRecursiveDoubling(c *call, r Reducer, send, recv []byte) error {
	n, rank := c.Size(), c.Rank()
	copyInput(recv, send, recv)
	pof2 := 1
	for pof2*2 <= n {
		pof2 *= 2
	}
	rem := n - pof2
	tmp := c.alloc(len(recv))
	// The first 2*rem ranks pair up: the even one hands its vector to the
	// odd one and waits for the result.
	newRank := rank - rem
	if rank < 2*rem {
		if rank%2 == 0 {
			if err := c.Send(rank+1, recv); err != nil {
				return err
			}
			return c.recv(rank+1, recv)
		}
		if err := c.recv(rank-1, tmp); err != nil {
			return err
		}
		r.Apply(tmp, recv)
		newRank = rank / 2
	}
	for mask := 1; mask < pof2; mask *= 2 {
		peer := newRank ^ mask
		if peer < rem {
			peer = peer*2 + 1
		} else {
			peer += rem
		}
		if err := c.sendrecv(peer, recv, peer, tmp); err != nil {
			return err
		}
		if peer < rank || r.Commutative {
			r.Apply(tmp, recv)
		} else {
			r.Apply(recv, tmp)
			copy(recv, tmp)
		}
	}
	if rank < 2*rem {
		return c.Send(rank-1, recv)
	}
	return nil
}

// allreduceRing combines a commutative operation's vectors by a ring
// reduce-scatter and a ring allgather.
func allreduceRing(c *call, r Reducer, send, recv []byte) error {
	n, rank := c.Size(), c.Rank()
	p := pieces{length: len(recv), n: n, unit: r.Unit}
	if send == nil || n == 1 {
		copyInput(recv, send, recv)
		if err := ringReduceScatter(c, r, recv, p); err != nil {
			return err
		}
	} else if err := ringReduceScatterFrom(c, r, send, recv, p); err != nil {
		return err
	}
	right, left := (rank+1)%n, (rank-1+n)%n
	for s := 0; s < n-1; s++ {
		out, in := (rank+1-s+n)%n, (rank-s+n)%n
		if err := c.sendrecv(right, p.piece(recv, out), left, p.piece(recv, in)); err != nil {
			return err
		}
	}
	return nil
}

// allreduceHalving is AlgRecursiveHalving's allreduce: after the
// reduce-scatter (halvingScatter, relative to rank 0) piece rank of recv
// holds every process's piece rank combined; in the exchange with the
// process at distance m = 1, 2, …, n/2 each process swaps the m pieces it
// holds for its partner's m, so that every process ends with the same
// bytes in every piece.
func allreduceHalving(c *call, r Reducer, send, recv []byte) error {
	n, rank := c.Size(), c.Rank()
	p := pieces{length: len(recv), n: n, unit: r.Unit}
	if err := halvingScatter(c, r, send, recv, p, 0); err != nil {
		return err
	}
	span := func(lo, hi int) []byte { return recv[p.off(lo):p.off(hi)] }
	for m := 1; m < n; m *= 2 {
		partner := rank ^ m
		mine, theirs := rank&^(m-1), partner&^(m-1)
		if err := c.sendrecv(partner, span(mine, mine+m), partner, span(theirs, theirs+m)); err != nil {
			return err
		}
	}
	return nil
}

// allreduceReduceBcast reduces to rank 0 and broadcasts from it.
func allreduceReduceBcast(c *call, r Reducer, send, recv []byte) error {
	in := send
	if c.Rank() != 0 && in == nil {
		in = c.alloc(len(recv))
		copy(in, recv)
	}
	if err := reduceBinomial(c, r, in, recv, 0); err != nil {
		return err
	}
	return bcastBinomial(c, recv, 0)
}
