package collectives

import "fmt"

// The Runner's data-movement collectives. Their algorithms are the
// package's Net-level functions (Gather, Allgather, …); the Runner adds
// the argument check, the choice of algorithm and AlgShared.

func sizeErr(coll Collective, what string, have, want int) error {
	return fmt.Errorf("%v: the %s holds %d bytes, not %d: %w", coll, what, have, want, ErrBuffer)
}

// blocks splits a buffer of total bytes into n blocks of whole elements
// of elem bytes, for the collectives whose block size is a division (in
// place, or Alltoall's send buffer). A buffer that does not split so is
// an ErrBuffer error naming what: a block of part of an element would
// splice the bytes of neighbouring elements.
func blocks(coll Collective, what string, total, n, elem int) (blk int, err error) {
	unit := n * max(elem, 1)
	if total%unit != 0 {
		return total / n, fmt.Errorf("%v: the %s of %d bytes does not split into %d blocks of whole %d-byte elements: %w",
			coll, what, total, n, elem, ErrBuffer)
	}
	return total / n, nil
}

// Gather collects every process's send (blocks of equal size) into recv
// at root, rank i's at recv[i*len(send):]. At the root, send nil means in
// place (its block already in recv, the block size len(recv)/size);
// elsewhere it is an empty block.
func (u *Runner) Gather(send, recv []byte, root, elem int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	if gatherEmpty(send, recv, root, rank, n) && u.skipsEmpty() {
		return u.skip(CollGather, elem, root, nil)
	}
	blk, own := len(send), send
	var split error
	if send == nil && rank == root {
		blk, split = blocks(CollGather, "root's receive buffer (in place)", len(recv), n, elem)
		own = recv[root*blk : (root+1)*blk]
	}
	invalid := badRoot(CollGather, root, n)
	switch {
	case invalid != nil:
	case split != nil:
		invalid = split
	case rank == root && len(recv) < n*blk:
		invalid = sizeErr(CollGather, "root's receive buffer", len(recv), n*blk)
	default:
		if done, err := u.smallGather(own, recv, blk, elem, root); done {
			return err
		}
	}
	o := opCall{key: Key{Coll: CollGather, Elem: elem, Root: root, Bytes: blk},
		input: own, shareLen: blk, bytes: blk, invalid: invalid}
	if rank == root && send != nil && invalid == nil {
		o.own = ownCopy{recv[root*blk : (root+1)*blk], send}
	}
	return u.do(&o, func(c *call, alg string) error {
		return Gather(c, alg, send, recv, root)
	}, func(b *board) {
		if rank == root {
			for r := range n {
				copy(recv[r*blk:(r+1)*blk], b.data(r, 0, blk))
			}
		}
	})
}

// Gatherv collects every process's send into recv at root, rank i's
// counts[i] bytes at recv[displs[i]:] (counts, displs and recv matter at
// the root only; send nil there means in place).
func (u *Runner) Gatherv(send, recv []byte, counts, displs []int, root, elem int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	o := opCall{key: Key{Coll: CollGatherv, Elem: elem, Root: root, Bytes: -1, Own: len(send)},
		shareLen: -1, invalid: badRoot(CollGatherv, root, n)}
	if o.invalid == nil && rank == root {
		o.invalid = checkVector("gatherv", "receive", n, counts, displs, len(recv))
		if o.invalid == nil {
			o.key.Counts = countsHash(counts)
			if send == nil {
				o.key.Own = counts[root]
			}
		}
	}
	return u.do(&o, func(c *call, alg string) error {
		return Gatherv(c, alg, send, recv, counts, displs, root)
	}, nil)
}

// Scatter sends block i of root's send (blocks of len(recv) bytes) to
// rank i's recv. At the root, recv nil means in place (its block stays
// in send, the block size len(send)/size).
func (u *Runner) Scatter(send, recv []byte, root, elem int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	if gatherEmpty(recv, send, root, rank, n) && u.skipsEmpty() {
		return u.skip(CollScatter, elem, root, nil)
	}
	blk := len(recv)
	var split error
	if recv == nil && rank == root {
		blk, split = blocks(CollScatter, "root's send buffer (in place)", len(send), n, elem)
	}
	invalid := badRoot(CollScatter, root, n)
	switch {
	case invalid != nil:
	case split != nil:
		invalid = split
	case rank == root && len(send) < n*blk:
		invalid = sizeErr(CollScatter, "root's send buffer", len(send), n*blk)
	default:
		if done, err := u.smallScatter(send, recv, blk, elem, root); done {
			return err
		}
	}
	o := opCall{key: Key{Coll: CollScatter, Elem: elem, Root: root, Bytes: blk},
		shareLen: n * blk, bytes: blk, invalid: invalid}
	if invalid == nil && rank == root {
		o.input = send[:n*blk]
	}
	return u.do(&o, func(c *call, alg string) error {
		return Scatter(c, alg, send, recv, root)
	}, func(b *board) {
		if recv != nil {
			copy(recv, b.data(root, rank*blk, blk))
		}
	})
}

// Scatterv sends root's send[displs[i]:][:counts[i]] to rank i's recv
// (counts, displs and send matter at the root only; recv nil there means
// in place).
func (u *Runner) Scatterv(send []byte, counts, displs []int, recv []byte, root, elem int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	o := opCall{key: Key{Coll: CollScatterv, Elem: elem, Root: root, Bytes: -1, Own: len(recv)},
		shareLen: -1, invalid: badRoot(CollScatterv, root, n)}
	if o.invalid == nil && rank == root {
		o.invalid = checkVector("scatterv", "send", n, counts, displs, len(send))
		if o.invalid == nil {
			o.key.Counts = countsHash(counts)
			if recv == nil {
				o.key.Own = counts[root]
			}
		}
	}
	return u.do(&o, func(c *call, alg string) error {
		return Scatterv(c, alg, send, counts, displs, recv, root)
	}, nil)
}

// Allgather collects every process's send into every process's recv, rank
// i's at recv[i*len(send):]. send nil means in place (the block size is
// len(recv)/size and the own block is in place).
func (u *Runner) Allgather(send, recv []byte, elem int) error {
	if blocksEmpty(send, recv) && u.skipsEmpty() {
		return u.skip(CollAllgather, elem, 0, nil)
	}
	n, rank := u.Net.Size(), u.Net.Rank()
	blk, own := len(send), send
	var split error
	if send == nil {
		blk, split = blocks(CollAllgather, "receive buffer (in place)", len(recv), n, elem)
		own = recv[rank*blk : (rank+1)*blk]
	}
	invalid := split
	if split == nil && len(recv) < n*blk {
		invalid = sizeErr(CollAllgather, "receive buffer", len(recv), n*blk)
	}
	if invalid == nil {
		if done, err := u.smallMove(CollAllgather, own, recv, blk, elem, 0); done {
			return err
		}
	}
	o := opCall{key: Key{Coll: CollAllgather, Elem: elem, Bytes: blk}, input: own, shareLen: blk, bytes: blk, invalid: invalid}
	return u.do(&o, func(c *call, alg string) error {
		return Allgather(c, alg, send, recv)
	}, func(b *board) {
		for r := range n {
			copy(recv[r*blk:(r+1)*blk], b.data(r, 0, blk))
		}
	})
}

// Allgatherv collects every process's send into every process's recv,
// rank i's counts[i] bytes at recv[displs[i]:]. send nil means in place.
func (u *Runner) Allgatherv(send, recv []byte, counts, displs []int, elem int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	o := opCall{key: Key{Coll: CollAllgatherv, Elem: elem, Bytes: -1, Own: len(send)}, shareLen: -1}
	o.invalid = checkVector("allgatherv", "receive", n, counts, displs, len(recv))
	if o.invalid == nil {
		o.key.Counts = countsHash(counts)
		if send == nil {
			o.key.Own = counts[rank]
		}
	}
	return u.do(&o, func(c *call, alg string) error {
		return Allgatherv(c, alg, send, recv, counts, displs)
	}, nil)
}

// Alltoall sends block j of every process's send (len(send)/size bytes)
// to rank j, which receives rank i's at recv[i*blk:]. send nil means in
// place (the blocks are taken from recv).
func (u *Runner) Alltoall(send, recv []byte, elem int) error {
	if blocksEmpty(send, recv) && u.skipsEmpty() {
		return u.skip(CollAlltoall, elem, 0, nil)
	}
	n, rank := u.Net.Size(), u.Net.Rank()
	in, what := send, "send buffer"
	if send == nil {
		in, what = recv, "receive buffer (in place)"
	}
	blk, invalid := blocks(CollAlltoall, what, len(in), n, elem)
	switch {
	case invalid != nil:
	case len(recv) < n*blk:
		invalid = sizeErr(CollAlltoall, "receive buffer", len(recv), n*blk)
	default:
		if done, err := u.smallMove(CollAlltoall, in[:n*blk], recv, blk, elem, rank*blk); done {
			return err
		}
	}
	o := opCall{key: Key{Coll: CollAlltoall, Elem: elem, Bytes: blk}, input: in, shareLen: n * blk, bytes: blk, invalid: invalid}
	return u.do(&o, func(c *call, alg string) error {
		return Alltoall(c, alg, send, recv)
	}, func(b *board) {
		for r := range n {
			copy(recv[r*blk:(r+1)*blk], b.data(r, rank*blk, blk))
		}
	})
}

// Alltoallv sends send[sdispls[j]:][:scounts[j]] to rank j, which
// receives it at recv[rdispls[i]:][:rcounts[i]] for sender i.
func (u *Runner) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int, elem int) error {
	n := u.Net.Size()
	o := opCall{key: Key{Coll: CollAlltoallv, Elem: elem, Bytes: -1}, shareLen: -1}
	o.invalid = checkVector("alltoallv", "send", n, scounts, sdispls, len(send))
	if o.invalid == nil {
		o.invalid = checkVector("alltoallv", "receive", n, rcounts, rdispls, len(recv))
	}
	return u.do(&o, func(c *call, alg string) error {
		return Alltoallv(c, alg, send, scounts, sdispls, recv, rcounts, rdispls)
	}, nil)
}

// ReduceScatterBlock combines the processes' send vectors (size blocks of
// len(recv) bytes) with r and leaves block i of the result in rank i's
// recv. send nil means in place: recv holds the whole input, and the
// result goes to its first block.
func (u *Runner) ReduceScatterBlock(send, recv []byte, r Reducer) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	in, blk := send, len(recv)
	var split error
	if send == nil {
		in = recv
		blk, split = blocks(CollReduceScatterBlock, "receive buffer (in place)", len(recv), n, max(r.Unit, r.Elem))
	}
	o := u.reduction(CollReduceScatterBlock, r, in, blk, 0)
	o.shareLen, o.bytes = n*blk, blk
	if o.invalid == nil && split != nil {
		o.invalid = split
	}
	if o.invalid == nil && len(in) != n*blk {
		o.invalid = sizeErr(CollReduceScatterBlock, "input", len(in), n*blk)
	}
	return u.do(&o, func(c *call, alg string) error {
		return ReduceScatterBlock(c, alg, send, recv, r)
	}, func(b *board) {
		fold(b, r, recv[:blk], 0, n, rank*blk)
	})
}

// ReduceScatter combines the processes' send vectors (sum(counts) bytes)
// with r and leaves the counts[i] bytes of the result after those of ranks
// below i in rank i's recv. counts must be the same on all processes.
// send nil means in place (recv holds the whole input).
func (u *Runner) ReduceScatter(send, recv []byte, counts []int, r Reducer) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	total := 0
	for _, c := range counts {
		total += c
	}
	o := u.reduction(CollReduceScatter, r, send, total, 0)
	o.shareLen = -1
	if o.invalid == nil && len(counts) != n {
		o.invalid = fmt.Errorf("reduce_scatter: %d counts for %d ranks: %w", len(counts), n, ErrBuffer)
	}
	if o.invalid == nil {
		o.key.Own, o.key.Counts = counts[rank], countsHash(counts)
	}
	return u.do(&o, func(c *call, alg string) error {
		return ReduceScatter(c, alg, send, recv, counts, r)
	}, nil)
}
