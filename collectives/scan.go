package collectives

import "fmt"

// A scan algorithm is called with in, the rank's operand, and out, where
// the prefix goes (the same slice when in place: the algorithm reads in
// before it writes out). exclusive says whether the rank's own operand is
// left out of its prefix; rank 0's out is then left alone.
type scanAlg = func(c *call, r Reducer, in, out []byte, exclusive bool) error

// scanAlgorithms are the algorithms of Scan and Exscan.
var scanAlgorithms = map[string]scanAlg{
	"linear":             scanLinear,
	"recursive-doubling": scanRecursiveDoubling,
}

// Scan leaves in rank i's recv the element-wise reduction with r of the
// send buffers of ranks 0 to i, combined in rank order. recv must hold at
// least len(send) bytes, a multiple of r.Unit (the rest of recv is left
// alone). A nil send means in place: the operand is taken from recv.
//
// Algorithms: "linear" (a chain: rank i receives the prefix of rank i-1,
// combines its operand and passes the result on to rank i+1) and
// "recursive-doubling" (ceil(log2(size)) exchanges of partial reductions
// with rank^2^k; any size, any operation).
func Scan(n Net, alg string, send, recv []byte, r Reducer) error {
	return scan(n, "scan", alg, send, recv, r, false)
}

// Exscan is Scan leaving out the rank's own operand: rank i's recv gets
// the reduction of the send buffers of ranks 0 to i-1. Rank 0's recv is
// left unchanged (MPI leaves it undefined). A nil send means in place, as
// for Scan. The algorithms are Scan's.
func Exscan(n Net, alg string, send, recv []byte, r Reducer) error {
	return scan(n, "exscan", alg, send, recv, r, true)
}

func scan(n Net, op, alg string, send, recv []byte, r Reducer, exclusive bool) error {
	f, err := lookupAlgorithm(op, scanAlgorithms, alg)
	if err != nil {
		return err
	}
	if err := checkReducer(op, r); err != nil {
		return err
	}
	if send == nil {
		send = recv
	}
	if len(recv) < len(send) {
		return fmt.Errorf("%s: the receive buffer holds %d bytes, the send buffer %d: %w", op, len(recv), len(send), ErrBuffer)
	}
	if len(send)%r.Unit != 0 {
		return fmt.Errorf("%s: %d bytes are not made of units of %d: %w", op, len(send), r.Unit, ErrBuffer)
	}
	return f(newCall(n), r, send, recv[:len(send)], exclusive)
}

func scanLinear(c *call, r Reducer, in, out []byte, exclusive bool) error {
	size, rank := c.Size(), c.Rank()
	last := rank == size-1
	if rank == 0 {
		if !exclusive {
			copy(out, in)
		}
		if last {
			return c.end(nil)
		}
		return c.end(c.pass(1, in))
	}
	prefix := c.alloc(len(in))
	if err := c.recv(rank-1, prefix); err != nil {
		return c.end(err)
	}
	if !exclusive {
		copy(out, in)
		r.Apply(prefix, out)
		if last {
			return c.end(nil)
		}
		return c.end(c.pass(rank+1, out))
	}
	var err error
	if !last {
		next := c.copyOf(in)
		r.Apply(prefix, next)
		err = c.pass(rank+1, next)
	}
	copy(out, prefix)
	return c.end(err)
}

// scanRecursiveDoubling: before the exchange with rank^m, partial is the
// reduction of the operands of the rank's aligned group of m ranks (those
// that exist) and out the prefix from the group's first rank. The partial
// of a lower partner goes on the left of both; that of a higher one on the
// right of partial only.
func scanRecursiveDoubling(c *call, r Reducer, in, out []byte, exclusive bool) error {
	size, rank := c.Size(), c.Rank()
	partial := c.copyOf(in)
	tmp := c.alloc(len(in))
	have := !exclusive // whether out holds a prefix yet
	if have {
		copy(out, in)
	}
	for m := 1; m < size; m <<= 1 {
		peer := rank ^ m
		if peer >= size {
			continue
		}
		if err := c.passrecv(peer, partial, peer, tmp); err != nil {
			return c.end(err)
		}
		if peer < rank {
			if have {
				r.Apply(tmp, out)
			} else {
				copy(out, tmp)
				have = true
			}
			r.Apply(tmp, partial)
		} else {
			r.Apply(partial, tmp)
			partial, tmp = tmp, partial
		}
	}
	return c.end(nil)
}
