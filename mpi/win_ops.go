package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// winPlace is where bytes of a target's window lie (from span): n bytes
// at an offset in a region of the target's memory, whose size is limit,
// and, for an access of a dynamic window across adjacent attachments, the
// places of the bytes after them (rest, nil otherwise).
type winPlace struct {
	region     llc.RegionID
	off, limit uint64
	n          uint64
	rest       []winPlace
}

// pieces returns the number of places of at: 1 and those of rest.
func (at *winPlace) pieces() int { return 1 + len(at.rest) }

// piece returns place i of at (0: at itself, without rest).
func (at *winPlace) piece(i int) winPlace {
	if i == 0 {
		return winPlace{region: at.region, off: at.off, limit: at.limit, n: at.n}
	}
	return at.rest[i-1]
}

// sub returns the places of the n bytes from byte from of at, which
// holds them.
func (at *winPlace) sub(from, n uint64) winPlace {
	var out winPlace
	found := false
	for i := range at.pieces() {
		p := at.piece(i)
		if from >= p.n {
			from -= p.n
			continue
		}
		q := winPlace{region: p.region, off: p.off + from, limit: p.limit, n: min(p.n-from, n)}
		if found {
			out.rest = append(out.rest, q)
		} else {
			out, found = q, true
		}
		n -= q.n
		from = 0
		if n == 0 {
			break
		}
	}
	return out
}

// partOp returns an operation of kind, from newOp, on the bytes delta
// bytes past at in target's window.
func (w *Win) partOp(kind llc.RMAKind, target int, at winPlace, delta uint64) *llc.RMAOp {
	op := w.newOp() // zero: its fields set one by one (see newSendOp)
	op.Kind, op.Peer, op.Region, op.Off, op.Limit = kind, w.targets[target].peer, at.region, at.off+delta, at.limit
	return op
}

// Put writes origin into target's window from displacement disp, in the
// window's displacement units (MPI_Put): a remote write, complete at the
// target after the next Fence, Flush, Unlock or Complete; origin must not
// change until then. An access outside the target's window is an error
// wrapping ErrRMARange, reported at once.
func Put[T Type](w *Win, origin []T, target, disp int) error {
	return transfer(w, "Put", llc.RMAPut, asBytes(origin), target, disp)
}

// Get reads target's window from displacement disp into result
// (MPI_Get): a remote read, complete (result filled) after the next
// Fence, Flush, Unlock or Complete.
func Get[T Type](w *Win, result []T, target, disp int) error {
	return transfer(w, "Get", llc.RMAGet, asBytes(result), target, disp)
}

// transfer starts a put or get of b.
func transfer(w *Win, name string, kind llc.RMAKind, b []byte, target, disp int) error {
	skip, err := w.start(name, target)
	if err != nil || skip {
		return err
	}
	if d := w.directTo(target); d != nil {
		if mem, ok := d.at(disp, len(b), w.elem); ok {
			d.move(kind, mem, b)
			return nil
		}
	}
	return w.move(name, kind, b, target, disp, nil)
}

// move starts a put or get of b on target, a rank of the window in an
// epoch that allows it, and adds it to q unless q is nil: one operation
// for each place the bytes lie in.
func (w *Win) move(name string, kind llc.RMAKind, b []byte, target, disp int, q *rmaRequest) error {
	at, err := w.span(target, disp, len(b))
	if err != nil {
		return fmt.Errorf("mpi: %s at rank %d: %w", name, target, err)
	}
	if len(b) == 0 {
		return nil
	}
	if d := w.directTo(target); d != nil {
		d.move(kind, d.bytes(at), b)
		return nil
	}
	if at.rest == nil { // one place, as in every window but dynamic ones
		op := w.partOp(kind, target, at, 0)
		op.Data = b
		err = w.issue(target, op, q)
	} else {
		err = w.onPieces(kind, target, at, b, func(op *llc.RMAOp) error { return w.issue(target, op, q) })
	}
	if err != nil {
		return fmt.Errorf("mpi: %s at rank %d: %w", name, target, err)
	}
	return nil
}
