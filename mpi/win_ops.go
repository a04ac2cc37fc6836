package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/llc"
)

// dataOp returns the operation of kind on the bytes b at displacement
// disp (in the window's displacement units) of target's window, or an
// error wrapping ErrRMARange if they are not all within it.
func (w *Win) dataOp(kind llc.RMAKind, target, disp int, b []byte) (*llc.RMAOp, error) {
	off, err := w.span(target, disp, len(b))
	if err != nil {
		return nil, err
	}
	op := w.partOp(kind, target, off)
	op.Data = b
	return op, nil
}

// partOp returns an operation of kind, from newOp, on the bytes at off
// (from span) of target's part of the window.
func (w *Win) partOp(kind llc.RMAKind, target int, off uint64) *llc.RMAOp {
	t := &w.targets[target]
	op := w.newOp()
	*op = llc.RMAOp{Kind: kind, Peer: t.peer, Region: t.region, Off: t.base + off, Limit: t.base + t.size}
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
	return w.move(name, kind, b, target, disp, nil)
}

// move starts a put or get of b on target, a rank of the window in an
// epoch that allows it, and adds it to q unless q is nil.
func (w *Win) move(name string, kind llc.RMAKind, b []byte, target, disp int, q *rmaRequest) error {
	op, err := w.dataOp(kind, target, disp, b)
	if err != nil {
		return fmt.Errorf("mpi: %s at rank %d: %w", name, target, err)
	}
	if len(b) == 0 {
		w.recycle(op)
		return nil
	}
	if err := w.issue(target, op, q); err != nil {
		return fmt.Errorf("mpi: %s at rank %d: %w", name, target, err)
	}
	return nil
}
