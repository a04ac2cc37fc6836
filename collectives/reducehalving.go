package collectives

// reduceHalving reduces a commutative operation on a power-of-two number
// of processes (Rabenseifner's reduce with recursive halving): in the
// exchange with the process at relative distance m = n/2, n/4, …, 1 from
// root, each process keeps the half of its range of pieces that holds its
// own, sends the other half and combines the partner's copy of its half;
// then the pieces go back to root along a binomial tree, every subtree's
// pieces contiguous and in one message. Against the ring reduce-scatter
// and gather (reduceScatterGather) it sends as much, but in log2 n steps
// rather than n-1, and root receives log2 n messages rather than n-1.
func reduceHalving(c *call, r Reducer, send, recv []byte, root int) error {
	n, rank := c.Size(), c.Rank()
	length := len(send)
	if send == nil {
		length = len(recv)
	}
	rel := (rank - root + n) % n
	acc := recv
	if rank != root {
		acc = c.alloc(length)
	}
	p := pieces{length: length, n: n, unit: r.Unit}
	if err := halvingScatter(c, r, send, acc, p, root); err != nil {
		return err
	}
	// span returns the bytes of the pieces [lo, hi) of acc.
	span := func(lo, hi int) []byte { return acc[p.off(lo):p.off(hi)] }
	for m := 1; m < n; m *= 2 {
		if rel&m != 0 {
			return c.Send((rel-m+root)%n, span(rel, rel+m))
		}
		if err := c.recv((rel+m+root)%n, span(rel+m, rel+2*m)); err != nil {
			return err
		}
	}
	return nil
}

// halvingScatter is the recursive-halving reduce-scatter of reduceHalving
// from the process's input, send (nil: in place, in acc), into acc, whose
// piece rel (the rank relative to root) then holds the combination of all
// the processes' pieces rel. The input is never copied as a whole: the
// first exchange reads send directly (see halvingExchanges).
func halvingScatter(c *call, r Reducer, send, acc []byte, p pieces, root int) error {
	in := send
	if in == nil || c.Size() == 1 {
		copyInput(acc, send, acc)
		in = acc
	}
	return halvingExchanges(c, r, in, acc, p.off, root)
}

// halvingExchanges runs the exchanges of a recursive-halving
// reduce-scatter of a commutative operation on a power-of-two number of
// processes, placed relative to root. Block i of a vector spans
// [off(i), off(i+1)). Each process is at first responsible for every
// block; in the exchange with the process at relative distance m = n/2,
// n/4, …, 1 it keeps the half of its range that holds its own block,
// sends the other half and combines the partner's copy of its half into
// work. in is the process's vector: the first exchange reads it and
// receives straight into work when in is not work's memory, later ones
// receive into scratch memory. Afterwards the process's own block of work
// (rel, the rank relative to root) holds every process's block combined.
func halvingExchanges(c *call, r Reducer, in, work []byte, off func(int) int, root int) error {
	n := c.Size()
	rel := (c.Rank() - root + n) % n
	var tmp []byte
	lo, hi := 0, n
	for m := n / 2; m >= 1; m /= 2 {
		keepLo, keepHi, sendLo, sendHi := lo, lo+m, lo+m, hi
		if rel&m != 0 {
			keepLo, keepHi, sendLo, sendHi = lo+m, hi, lo, lo+m
		}
		keep := work[off(keepLo):off(keepHi)]
		buf := keep
		if same(in, work) {
			if tmp == nil { // the largest half kept: the lower or the upper
				tmp = c.alloc(max(off(n/2), off(n)-off(n/2)))
			}
			buf = tmp[:len(keep)]
		}
		partner := ((rel ^ m) + root) % n
		if err := c.passrecv(partner, in[off(sendLo):off(sendHi)], partner, buf); err != nil {
			return err
		}
		if same(buf, keep) {
			r.Apply(in[off(keepLo):off(keepHi)], keep)
		} else {
			r.Apply(buf, keep)
		}
		in, lo, hi = work, keepLo, keepHi
	}
	return nil
}
