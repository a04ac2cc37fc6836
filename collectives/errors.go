package collectives

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrBuffer is wrapped by the errors of collective operations called with
// a buffer, count or displacement that cannot hold what the operation
// needs, or a root that is no rank. It is detected locally, before any
// message is exchanged.
var ErrBuffer = errors.New("invalid buffer")

// ErrAlgorithm is wrapped by the errors of collective operations asked for
// an algorithm they do not know, or one that does not apply to the call
// (a power-of-two algorithm on another size, an algorithm for commutative
// operations with a non-commutative one). It is detected locally, and every
// process of a correct program detects it alike, so none is left waiting.
var ErrAlgorithm = errors.New("algorithm unknown or not applicable")

// knownAlgorithms returns the names of an algorithm table, sorted.
func knownAlgorithms[F any](m map[string]F) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// lookupAlgorithm returns the algorithm named alg of the collective
// operation op, or an error listing the known ones.
func lookupAlgorithm[F any](op string, m map[string]F, alg string) (F, error) {
	f, ok := m[alg]
	if !ok {
		return f, fmt.Errorf("%s: unknown algorithm %q (known: %s): %w",
			op, alg, strings.Join(knownAlgorithms(m), ", "), ErrAlgorithm)
	}
	return f, nil
}

// checkRoot reports a root outside the communicator.
func checkRoot(op string, n Net, root int) error {
	if root < 0 || root >= n.Size() {
		return fmt.Errorf("%s: root %d is not a rank of a communicator of %d: %w", op, root, n.Size(), ErrBuffer)
	}
	return nil
}

// checkReducer reports a Reducer that cannot be applied.
func checkReducer(op string, r Reducer) error {
	if !usableReducer(&r) {
		return fmt.Errorf("%s: %w: the Reducer has no Apply or no Unit", op, ErrOp)
	}
	return nil
}

// checkVector reports counts and displacements (in bytes) that do not
// describe size blocks inside a buffer of length buflen.
func checkVector(op, what string, size int, counts, displs []int, buflen int) error {
	if len(counts) != size || len(displs) != size {
		return fmt.Errorf("%s: %d %s counts and %d displacements for %d ranks: %w",
			op, len(counts), what, len(displs), size, ErrBuffer)
	}
	for i := range size {
		if counts[i] < 0 || displs[i] < 0 || displs[i] > buflen || counts[i] > buflen-displs[i] {
			return fmt.Errorf("%s: %s block %d (%d bytes at %d) is outside the buffer of %d bytes: %w",
				op, what, i, counts[i], displs[i], buflen, ErrBuffer)
		}
	}
	return nil
}

// isPowerOfTwo reports whether n is a power of two.
func isPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// taint returns data, or, once the operation has met a mismatch, a message
// of another length: the ranks that receive it, whose results depend on
// the mismatched data, fail with the mismatch too. The tainted message is
// 3 bytes long (5 instead of 3), a length few receivers expect by chance,
// unlike the lengths a block of one byte or one element more or less
// gives.
func (c *call) taint(data []byte) []byte {
	if c.mismatch == nil {
		return data
	}
	if len(data) == 3 {
		return taintedMessage[:5]
	}
	return taintedMessage[:3]
}

// taintedMessage holds the contents of tainted messages; it is only read.
var taintedMessage [5]byte

// copyOf returns a copy of b in scratch memory.
func (c *call) copyOf(b []byte) []byte {
	d := c.alloc(len(b))
	copy(d, b)
	return d
}

// pass sends data to rank to, tainted after a mismatch.
func (c *call) pass(to int, data []byte) error { return c.Send(to, c.taint(data)) }

// passrecv is sendrecv sending data tainted after a mismatch.
func (c *call) passrecv(to int, data []byte, from int, buf []byte) error {
	return c.sendrecv(to, c.taint(data), from, buf)
}
