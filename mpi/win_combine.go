package mpi

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// Accumulates done by the target. Where the network that reaches a
// target serves combinations (llc.Caps.Combine: TCP), an accumulate that
// would take the target's accumulate lock, read, combine and write back
// (Win.locked: four round trips, each served by the target's progress)
// is one llc.RMACombine a piece instead: the target applies it under the
// same lock, which the processes that map its memory take by their
// processors' atomics, and answers with the bytes before when they are
// wanted. So is one of 8-byte elements in the network's memory, which
// took a fetch-and-add or a compare-and-swap loop an element (Win.nativeAcc):
// the target combines each element atomically, as those atomics do.
// MPICH's network modules do accumulates so. The operation is
// named by a code of the combiners' family of this package: the
// operation's number and the element kind. User operations, which the
// target cannot apply, still take the lock from the origin; while a
// goroutine holds it so, the process's combinations to the window wait
// (Win.combining), since one sent meanwhile would wait at the target for
// the lock, and the holder's reads and writes behind it on the
// connection.

// combineFamily is the family (llc.RegisterCombiner) of the codes of
// accumulates, and combineCAS the operation number of a compare-and-swap
// in them, its operand the compared bytes then the new ones.
const (
	combineFamily = 1
	combineCAS    = 0xff
)

func init() { llc.RegisterCombiner(combineFamily, combineAt) }

// combineCode returns the code of op on elements of kind k, or false for
// an operation that only the process that made it can apply.
func combineCode(op Op, k reflect.Kind) (uint32, bool) {
	n, ok := op.Number()
	return combineFamily<<24 | uint32(n)<<8 | uint32(k), ok
}

// combineAt applies the accumulate of code to cur, bytes of this
// process's window, with operand: the Combiner of this package's family.
func combineAt(code uint32, cur, operand []byte) error {
	op, k := uint8(code>>8), reflect.Kind(uint8(code))
	if op == combineCAS {
		if len(operand) != 2*len(cur) {
			return fmt.Errorf("a compare-and-swap of %d bytes with %d bytes of operand: %w", len(cur), len(operand), ErrCount)
		}
		if bytes.Equal(cur, operand[:len(cur)]) {
			copy(cur, operand[len(cur):])
		}
		return nil
	}
	r, err := collectives.AccumulatorOf(op, k)
	switch {
	case err != nil:
		return err
	case len(cur)%r.Unit != 0:
		return fmt.Errorf("%s on %d bytes of %v: %w", r.Op, len(cur), k, ErrCount)
	case op == accNoOp && len(operand) != 0, op != accNoOp && len(operand) != len(cur):
		return fmt.Errorf("%s on %d bytes of %v with %d bytes of operand: %w", r.Op, len(cur), k, len(operand), ErrCount)
	}
	r.Apply(operand, cur)
	return nil
}

// accNoOp is NoOp's number.
var accNoOp, _ = NoOp.Number()

// combines reports whether target's accumulates are combinations the
// target applies: its network serves them, it is another process, and
// the window's part and control words there are the same process's.
func (w *Win) combines(target int) bool {
	t := &w.targets[target]
	return t.combine && t.peer == w.c.toWorld(target)
}

// combineAcc is Win.locked, or with words Win.nativeAcc, for
// accumulates the target applies: it combines in (nil for NoOp) into
// the bytes at at of target's window with code, a piece of at most
// llc.MaxCombine bytes (a multiple of unit) a combination, under the
// target's accumulate lock, or with words word by word, each 8-byte element
// atomically as the network's atomics change it, and copies the bytes
// before into out unless it is nil. Without out, or with q, the
// combinations are issued and not waited for (the flush, or q's
// request, completes them). It reports false, having done nothing, where
// a unit lies across two attachments of a dynamic window, which no one
// combination reaches.
func (w *Win) combineAcc(target int, at winPlace, in, out []byte, code uint32, unit int, words bool, q *rmaRequest) (bool, error) {
	for i := range at.pieces() {
		if at.piece(i).n%uint64(unit) != 0 {
			return false, nil
		}
	}
	w.combining.RLock() // not while this process holds the target's lock (Win.locked)
	defer w.combining.RUnlock()
	piece := llc.MaxCombine / unit * unit
	n := max(len(in), len(out))
	for pos := 0; pos < n; pos += piece {
		part := at.sub(uint64(pos), uint64(min(piece, n-pos)))
		off := pos
		for i := range part.pieces() {
			p := part.piece(i)
			op := w.combineOp(target, p, code, !words)
			if in != nil {
				op.Data = in[off : off+int(p.n)]
			}
			if out != nil {
				op.Fetch = out[off : off+int(p.n)]
			}
			off += int(p.n)
			if err := w.runCombine(target, op, q); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// combineOp returns a combination of code on the bytes at p of target's
// window: under target's accumulate lock if locked, else word by word.
func (w *Win) combineOp(target int, p winPlace, code uint32, locked bool) *llc.RMAOp {
	op := w.partOp(llc.RMACombine, target, p, 0)
	op.Code = code
	if locked {
		op.LockRegion, op.LockOff = w.targets[target].ctl, 8*ctlAcc
	}
	return op
}

// runCombine issues op, a combination on target: waited for when it
// fetches outside a request, else left to the flush or to q.
func (w *Win) runCombine(target int, op *llc.RMAOp, q *rmaRequest) error {
	if op.Fetch != nil && q == nil {
		_, err := w.run(op)
		return err
	}
	return w.issue(target, op, q)
}

// compareSwapAt is CompareAndSwap's combination on target: the element
// at at replaced by val if it equals cmp, the element before into out.
func (w *Win) compareSwapAt(target int, at winPlace, cmp, val, out []byte) error {
	op := w.combineOp(target, at, combineFamily<<24|combineCAS<<8, true)
	operand := make([]byte, 0, 2*len(cmp))
	op.Data, op.Fetch = append(append(operand, cmp...), val...), out
	w.combining.RLock()
	defer w.combining.RUnlock()
	return w.runCombine(target, op, nil)
}
