package collectives

import "unsafe"

// Reduce algorithms: AlgBinomial, and for long vectors of a commutative
// operation AlgReduceScatterGather and, on a power-of-two number of
// processes, AlgRecursiveHalving.
const (
	// AlgReduceScatterGather reduces by a reduce-scatter around a ring
	// followed by a gather of the pieces to the root (Rabenseifner's
	// reduce): every process sends and combines about the vector once.
	AlgReduceScatterGather = "reduce-scatter-gather"
	// AlgRecursiveHalving reduces by a recursive-halving reduce-scatter
	// followed by a binomial gather of the pieces to the root
	// (reduceHalving): Rabenseifner's reduce in log2 n steps each way,
	// for a power-of-two number of processes.
	AlgRecursiveHalving = "recursive-halving"
)

var reduceAlgorithms = []string{AlgBinomial, AlgReduceScatterGather, AlgRecursiveHalving}

// reduceBinomial combines the processes' send vectors along a binomial
// tree into recv at root (recv is only used at root; send nil means the
// root's input is in recv). For a non-commutative operation the tree is
// rooted at rank 0, so that every combination joins adjacent rank ranges
// in order, and rank 0 sends the result to root.
func reduceBinomial(c *call, r Reducer, send, recv []byte, root int) error {
	n, rank := c.Size(), c.Rank()
	length := reductionLength(send, recv)
	top := binomialTop(r.Commutative, root)
	// acc holds the combination of the ranks [rel, rel+mask); tmp
	// receives a child's, of the ranks just above. Until the first child's
	// arrives, acc is the input itself: a leaf sends it as it is, without
	// a copy whose lines the parent would then read from this core. The
	// first child's goes straight into the memory that will hold the
	// combination, which the input then joins: the input is not copied.
	acc := reduceInput(send, recv, length)
	keeps := rank == top && rank == root                   // the combination ends in recv
	writable := keeps && (send == nil || same(send, recv)) // acc may be written
	var tmp []byte
	rel := (rank - top + n) % n
	for mask := 1; mask < n; mask *= 2 {
		if rel&mask != 0 {
			if err := c.sendOperand((rel-mask+top)%n, acc); err != nil {
				return err
			}
			break
		}
		if rel+mask >= n {
			continue
		}
		child := (rel + mask + top) % n
		if !writable {
			dst := reduceDestination(c, recv, keeps, length)
			if err := c.recvOperand(child, dst); err != nil {
				return err
			}
			r.Apply(acc, dst) // the input holds the lower ranks
			acc, writable = dst, true
			continue
		}
		if tmp == nil {
			tmp = c.alloc(length)
		}
		if err := c.recvOperand(child, tmp); err != nil {
			return err
		}
		if r.Commutative {
			r.Apply(tmp, acc)
		} else {
			acc, tmp = combineInOrder(r.Apply, acc, tmp)
		}
	}
	switch {
	case top == root:
		if rank == root && !same(acc, recv) {
			copy(recv, acc)
		}
	case rank == top:
		return c.Send(root, acc)
	case rank == root:
		return c.recv(top, recv)
	}
	return nil
}

// reductionLength is the length of the vectors of a reduction of send
// into recv: send's, or recv's where send is nil (in place).
func reductionLength(send, recv []byte) int {
	if send == nil {
		return len(recv)
	}
	return len(send)
}

// binomialTop is the rank at which reduceBinomial's tree combines the
// operands: root, or rank 0 for an operation that is not commutative, so
// that every combination joins adjacent rank ranges in order.
func binomialTop(commutative bool, root int) int {
	if !commutative {
		return 0
	}
	return root
}

// combineInOrder combines a child's operand tmp (higher ranks) into acc
// (lower ranks) by apply (a Reducer's Apply) for an operation that is not
// commutative: acc ∘ tmp, computed in tmp, so it returns the two swapped,
// the combination first.
func combineInOrder(apply func(in, inout []byte), acc, tmp []byte) (combined, spare []byte) {
	apply(acc, tmp)
	return tmp, acc
}

// reduceInput is the rank's input to a reduction of length bytes: send,
// or recv when send is nil (in place).
func reduceInput(send, recv []byte, length int) []byte {
	if send == nil {
		return recv[:length]
	}
	return send
}

// reduceDestination returns the memory that will hold a rank's
// combination of length bytes: recv itself when the rank keeps the result
// (intoRecv) and recv is long enough, else scratch memory.
func reduceDestination(c *call, recv []byte, intoRecv bool, length int) []byte {
	if intoRecv && len(recv) >= length {
		return recv[:length]
	}
	return c.alloc(length)
}

// reduceScatterGather reduces a commutative operation by a ring
// reduce-scatter (ringReduceScatter) and a gather of the pieces to root.
func reduceScatterGather(c *call, r Reducer, send, recv []byte, root int) error {
	n, rank := c.Size(), c.Rank()
	length := len(send)
	if send == nil {
		length = len(recv)
	}
	acc := recv
	if rank != root {
		acc = c.alloc(length)
	}
	p := pieces{length: length, n: n, unit: r.Unit}
	if err := reduceScatterInto(c, r, send, recv, acc, p); err != nil {
		return err
	}
	// After the ring, rank holds piece (rank+1)%n of the result.
	mine := (rank + 1) % n
	if rank != root {
		return c.Send(root, p.piece(acc, mine))
	}
	for src := 0; src < n; src++ {
		if src == root {
			continue
		}
		if err := c.recv(src, p.piece(recv, (src+1)%n)); err != nil {
			return err
		}
	}
	return nil
}

// reduceScatterInto runs the ring reduce-scatter of a reduction whose
// input is send (nil: in place, in recv) into acc: from send directly,
// without copying it, when it is not acc's memory.
func reduceScatterInto(c *call, r Reducer, send, recv, acc []byte, p pieces) error {
	if send == nil || same(send, acc) || c.Size() == 1 {
		copyInput(acc, send, recv)
		return ringReduceScatter(c, r, acc, p)
	}
	return ringReduceScatterFrom(c, r, send, acc, p)
}

// ringReduceScatterFrom is ringReduceScatter reading the process's vector
// from send, so that it is never copied as a whole: each piece is received
// straight into acc and combined there with the process's own piece, and
// the first piece sent comes from send. The operation is commutative.
func ringReduceScatterFrom(c *call, r Reducer, send, acc []byte, p pieces) error {
	n, rank := c.Size(), c.Rank()
	right, left := (rank+1)%n, (rank-1+n)%n
	out := send
	for s := 0; s < n-1; s++ {
		o, in := (rank-s+n)%n, (rank-s-1+n)%n
		dst := p.piece(acc, in)
		if err := c.sendrecvOperand(right, p.piece(out, o), left, dst); err != nil {
			return err
		}
		r.Apply(p.piece(send, in), dst)
		out = acc
	}
	return nil
}

// ringReduceScatter combines the processes' vectors acc (of a commutative
// operation) around a ring: in n-1 steps, every process sends one piece to
// its right neighbour and adds the piece from its left one, after which
// piece (rank+1)%n of acc holds the full combination.
func ringReduceScatter(c *call, r Reducer, acc []byte, p pieces) error {
	n, rank := c.Size(), c.Rank()
	right, left := (rank+1)%n, (rank-1+n)%n
	tmp := c.alloc(p.off(1) + p.unit) // the largest piece
	for s := 0; s < n-1; s++ {
		out, in := (rank-s+n)%n, (rank-s-1+n)%n
		dst := p.piece(acc, in)
		t := tmp[:len(dst)]
		if err := c.sendrecvOperand(right, p.piece(acc, out), left, t); err != nil {
			return err
		}
		r.Apply(t, dst)
	}
	return nil
}

// copyInput copies a process's input, send or, in place (send nil), recv,
// into acc unless acc already is it.
func copyInput(acc, send, recv []byte) {
	in := send
	if in == nil {
		in = recv
	}
	if !same(acc, in) {
		copy(acc, in)
	}
}

// same reports whether a and b start at the same byte.
func same(a, b []byte) bool {
	return len(a) != 0 && len(b) != 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}
