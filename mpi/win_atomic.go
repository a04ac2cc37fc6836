package mpi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// The accumulate operations of one-sided communication (MPI_REPLACE and
// MPI_NO_OP): Replace stores the origin's elements, NoOp leaves the target
// as it is (GetAccumulate and FetchAndOp with it read atomically). The
// collective reductions refuse them.
var (
	Replace = collectives.Replace
	NoOp    = collectives.NoOp
)

// Accumulate combines origin into target's window from displacement disp
// with op, element by element: target[i] = origin[i] op target[i]
// (MPI_Accumulate). Accumulates of the same element are atomic with
// respect to each other. T must be the window's element type, unless the
// window is of bytes: that one, like MPI's untyped windows, takes
// accumulates of any type, disp then counting bytes. Like Put, it is
// complete at the target after the next synchronization.
func Accumulate[T Type](w *Win, origin []T, target, disp int, op Op) error {
	return accumulate(w, "Accumulate", origin, nil, target, disp, op, nil)
}

// GetAccumulate is Accumulate that also returns the elements before the
// operation in result, of origin's length (MPI_Get_accumulate); with NoOp
// it reads len(result) elements atomically and origin is not used. It
// returns once result is filled.
func GetAccumulate[T Type](w *Win, origin, result []T, target, disp int, op Op) error {
	if result == nil {
		result = []T{}
	}
	return accumulate(w, "GetAccumulate", origin, result, target, disp, op, nil)
}

// FetchAndOp combines value into the element at displacement disp of
// target's window with op and returns the element before
// (MPI_Fetch_and_op).
func FetchAndOp[T Type](w *Win, value T, target, disp int, op Op) (T, error) {
	var old [1]T
	err := accumulate(w, "FetchAndOp", []T{value}, old[:], target, disp, op, nil)
	return old[0], err
}

// CompareAndSwap replaces the element at displacement disp of target's
// window by value if it equals compare (bitwise), and returns the element
// before (MPI_Compare_and_swap).
func CompareAndSwap[T Type](w *Win, compare, value T, target, disp int) (T, error) {
	var old [1]T
	skip, err := w.start("CompareAndSwap", target)
	if err == nil && !skip {
		err = w.checkAccumulate("CompareAndSwap", reflect.TypeFor[T]().Kind())
	}
	if err != nil || skip {
		return old[0], err
	}
	cmp, val, out := asBytes([]T{compare}), asBytes([]T{value}), asBytes(old[:])
	w.ep.Progress() // a caller that spins on CompareAndSwap serves others
	at, err := w.span(target, disp, len(out))
	if err == nil {
		if d := w.directTo(target); d != nil && w.native {
			binary.LittleEndian.PutUint64(out, d.compareSwap(at, word(cmp), word(val)))
		} else if w.native {
			op := w.partOp(llc.RMACompareSwap, target, at, 0)
			op.Compare, op.Operand = word(cmp), word(val)
			var res uint64
			res, err = w.run(op)
			binary.LittleEndian.PutUint64(out, res)
		} else if w.directTo(target) == nil && w.combines(target) && at.rest == nil {
			err = w.compareSwapAt(target, at, cmp, val, out)
		} else {
			err = w.locked(target, at, len(out), len(out), func(cur []byte, _ int) bool {
				copy(out, cur)
				if bytes.Equal(cur, cmp) {
					copy(cur, val)
					return true
				}
				return false
			})
		}
	}
	if err != nil {
		return old[0], fmt.Errorf("mpi: CompareAndSwap at rank %d: %w", target, err)
	}
	return old[0], nil
}

// checkType checks that the elements of a call are of the window's
// element type.
func (w *Win) checkType(op string, k reflect.Kind) error {
	if k != w.kind {
		return fmt.Errorf("mpi: %s of %v elements on a window of %v: %w", op, k, w.kind, ErrWin)
	}
	return nil
}

// checkAccumulate checks that the accumulates of a call are of the
// window's element type, or that the window is of bytes, which takes
// accumulates of any type (as MPI's untyped windows do).
func (w *Win) checkAccumulate(op string, k reflect.Kind) error {
	if w.kind == reflect.Uint8 {
		return nil
	}
	return w.checkType(op, k)
}

// span checks that n bytes at displacement disp are within target's
// window and returns where they lie. The displacement is compared with
// the window's elements before it is multiplied by the element size, so
// that a displacement whose byte offset wraps around 64 bits is refused,
// not taken for the element it wraps onto. A dynamic window's
// displacement is an address, looked up among the target's attachments.
func (w *Win) span(target, disp, n int) (winPlace, error) {
	if w.dyn != nil {
		return w.resolve(target, disp, n)
	}
	t := &w.targets[target]
	size := t.size
	if disp < 0 || n < 0 || uint64(disp) > size/uint64(w.elem) {
		return winPlace{}, fmt.Errorf("%d bytes at displacement %d of a window of %d bytes: %w", n, disp, size, ErrRMARange)
	}
	off := uint64(disp) * uint64(w.elem)
	if uint64(n) > size-off {
		return winPlace{}, fmt.Errorf("%d bytes at displacement %d of a window of %d bytes: %w", n, disp, size, ErrRMARange)
	}
	return winPlace{region: t.region, off: t.base + off, limit: t.base + size, n: uint64(n)}, nil
}

func word(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// accumulate is Accumulate (result nil) and GetAccumulate; with q, their
// request-based forms, which need a passive-target epoch and leave the
// operations that complete later in q.
func accumulate[T Type](w *Win, name string, origin, result []T, target, disp int, op Op, q *rmaRequest) error {
	skip, err := w.startEpoch(name, target, q != nil)
	if err == nil && !skip {
		err = w.checkAccumulate(name, reflect.TypeFor[T]().Kind())
	}
	if err != nil || skip {
		return err
	}
	r, err := collectives.AccumulatorRef[T](op)
	if err != nil {
		return fmt.Errorf("mpi: %s: %w", name, err)
	}
	noop := op.Is(NoOp)
	n := len(origin)
	switch {
	case noop && result == nil:
		return nil // nothing to change, nothing to return
	case noop:
		n = len(result)
	case result != nil && len(result) != n:
		return fmt.Errorf("mpi: %s: %d origin elements, %d result elements: %w", name, n, len(result), ErrCount)
	case r.Unit != r.Elem && n%(r.Unit/r.Elem) != 0: // pairs (MinLoc, MaxLoc); no division otherwise
		return fmt.Errorf("mpi: %s: %d elements: %w (%s takes pairs)", name, n, ErrCount, op)
	}
	in, out := asBytes(origin), asBytes(result)
	d := w.directTo(target)
	if d == nil || out != nil {
		// A caller that spins on an accumulate serves others (a load
		// and a store wait for nobody: an Accumulate's need not).
		w.ep.Progress()
	}
	at, err := w.span(target, disp, n*r.Elem)
	if err == nil && n > 0 {
		done := false
		words := w.native && r.Unit == r.Elem // the network's atomics, word by word
		switch code, ok := combineCode(op, r.Kind); {
		case ok && d == nil && w.combines(target):
			if noop {
				in = nil
			}
			done, err = w.combineAcc(target, at, in, out, code, r.Unit, words, q)
		case words:
			err, done = w.nativeAcc(target, at, in, out, r, op.Is(Sum) && integer(r.Kind), noop, q), true
		}
		if !done {
			err = w.locked(target, at, n*r.Elem, accPiece/r.Unit*r.Unit, accumulateIn(in, out, r, noop))
		}
	}
	if err != nil {
		return fmt.Errorf("mpi: %s at rank %d: %w", name, target, err)
	}
	return nil
}

// accumulateIn returns the function of Win.locked that combines in into
// the target's bytes with r (unless noop) and copies them before into
// out unless it is nil.
func accumulateIn(in, out []byte, r *collectives.Reducer, noop bool) func(cur []byte, pos int) bool {
	return func(cur []byte, pos int) bool {
		if out != nil {
			copy(out[pos:], cur)
		}
		if noop {
			return false
		}
		r.Apply(in[pos:pos+len(cur)], cur)
		return true
	}
}

// accPiece is the most bytes an accumulate that reads, combines and
// writes back (Win.locked) moves at a time (docs/decisions.md).
const accPiece = 16 << 10

// scratches are the buffers of the accumulates that read, combine and
// write back (scratch).
var scratches sync.Pool

// scratch returns a buffer of n bytes from scratches, to give back with
// scratches.Put once done.
func scratch(n int) *[]byte {
	b, _ := scratches.Get().(*[]byte)
	if b == nil {
		b = new([]byte)
	}
	if cap(*b) < n {
		*b = make([]byte, n)
	}
	*b = (*b)[:n]
	return b
}

// integer reports whether k is an 8-byte integer kind (fetch-and-add adds
// it).
func integer(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// nativeAcc accumulates the 8-byte elements in into target's window at
// at with the network's atomics, and returns the previous elements in
// out unless it is nil: fetch-and-add for integer sums (not waited for
// unless out is wanted; with q, a request's, never: q fills out once they
// are done), fetch-and-add of 0 to read (noop), a compare-and-swap loop
// otherwise. On a mapped target they are the processor's (atomicAcc).
func (w *Win) nativeAcc(target int, at winPlace, in, out []byte, r *collectives.Reducer, add, noop bool, q *rmaRequest) error {
	if d := w.directTo(target); d != nil {
		d.atomicAcc(at, in, out, r, add, noop)
		return nil
	}
	for i := 0; i < max(len(in), len(out)); i += 8 {
		op := w.partOp(llc.RMAFetchAdd, target, at, uint64(i))
		if add && !noop {
			op.Operand = word(in[i:])
		}
		if add && !noop && (q != nil || out == nil) {
			// Not waited for: the flush, or q's request, completes it.
			if err := w.issue(target, op, q); err != nil {
				return err
			}
			if out != nil {
				q.fetched(op, out[i:i+8])
			}
			continue
		}
		var err error
		if add || noop {
			err = w.do(op)
		} else {
			err = w.casLoop(op, in[i:i+8], r)
		}
		if err == nil && out != nil {
			binary.LittleEndian.PutUint64(out[i:], op.Result)
		}
		w.recycle(op)
		if err != nil {
			return err
		}
	}
	return nil
}

// casLoop combines the element in into the word of op (a fetch-and-add
// made a compare-and-swap here) with r: it guesses the word, swaps in the
// combination if the guess was right, else guesses what the swap found.
// op.Result is the word before.
func (w *Win) casLoop(op *llc.RMAOp, in []byte, r *collectives.Reducer) error {
	op.Kind = llc.RMACompareSwap
	var cur [8]byte
	for guess := uint64(0); ; {
		binary.LittleEndian.PutUint64(cur[:], guess)
		r.Apply(in, cur[:])
		op.Compare, op.Operand = guess, word(cur[:])
		if err := w.do(op); err != nil || op.Result == guess {
			return err
		}
		guess = op.Result
	}
}

// locked runs f on the n bytes at at of target's window under the
// target's accumulate lock, a piece of at most piece bytes (a multiple of
// the elements') at a time: it reads each piece into a scratch buffer,
// calls f with the piece and its offset in the n bytes, and writes the
// piece back if f reports a change. Pieces that fit the caches keep the
// read, the combination and the write of each in them: the target's
// memory is then read and written once, as a combination in place does.
// On a mapped target f runs once, in place (lockedDirect).
func (w *Win) locked(target int, at winPlace, n, piece int, f func(cur []byte, pos int) bool) error {
	if d := w.directTo(target); d != nil {
		w.lockedDirect(d, at, f)
		return nil
	}
	if w.combines(target) {
		// A combination of another goroutine, sent while this one holds
		// the lock, would wait for it at the target, and this one's
		// reads and writes behind it on the connection.
		w.combining.Lock()
		defer w.combining.Unlock()
	}
	ticket, err := w.accLock(target)
	if err != nil {
		return fmt.Errorf("taking the accumulate lock: %w", err)
	}
	scr := scratch(min(n, piece))
	defer scratches.Put(scr)
	buf := *scr
	for pos := 0; pos < n && err == nil; pos += len(buf) {
		cur := buf[:min(len(buf), n-pos)]
		part := at.sub(uint64(pos), uint64(len(cur)))
		err = w.onPieces(llc.RMAGet, target, part, cur, w.runOp)
		if err == nil && f(cur, pos) {
			err = w.onPieces(llc.RMAPut, target, part, cur, w.runOp)
		}
	}
	// The release follows the writes to the same process: it takes effect
	// after them.
	if _, rerr := w.run(w.ctlOp(target, llc.RMAFetchAdd, ctlAcc, 0, llc.TicketRelease(ticket))); err == nil && rerr != nil {
		err = fmt.Errorf("releasing the accumulate lock: %w", rerr)
	}
	return err
}

// onPieces calls do with an operation of kind on the bytes of buf at each
// place of at (a dynamic window's access may span several attachments),
// in order, and stops at its first error.
func (w *Win) onPieces(kind llc.RMAKind, target int, at winPlace, buf []byte, do func(*llc.RMAOp) error) error {
	pos := uint64(0)
	for i := range at.pieces() {
		p := at.piece(i)
		op := w.partOp(kind, target, p, 0)
		op.Data = buf[pos : pos+p.n]
		pos += p.n
		if err := do(op); err != nil {
			return err
		}
	}
	return nil
}

// runOp runs op and waits for it (run without its result).
func (w *Win) runOp(op *llc.RMAOp) error {
	_, err := w.run(op)
	return err
}

// accLock takes target's accumulate lock, a ticket lock (llc.TicketDraw),
// and returns the ticket that holds it: one fetch-and-add draws the
// ticket and reads the one served, so that a lock nobody holds takes one
// operation; else it reads the word until its ticket is served.
func (w *Win) accLock(target int) (uint32, error) {
	word, err := w.run(w.ctlOp(target, llc.RMAFetchAdd, ctlAcc, 0, llc.TicketDraw))
	if err != nil {
		return 0, err
	}
	ticket := llc.TicketOf(word)
	for tries := 0; !llc.TicketServed(word, ticket); tries++ {
		w.backoff(tries)
		if word, err = w.run(w.ctlOp(target, llc.RMAFetchAdd, ctlAcc, 0, 0)); err != nil {
			return 0, err
		}
	}
	return ticket, nil
}
