package mpi

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rhinet-go/martini/llc"
)

// BsendOverhead is the space of the attached buffer that each buffered
// message takes besides its data (MPI_BSEND_OVERHEAD): size a buffer for
// n messages of b bytes as n*(b+BsendOverhead).
const BsendOverhead = 64

// bufferState is the process's attached buffer (MPI has one per process)
// and the buffered messages that occupy it.
type bufferState struct {
	mu   sync.Mutex
	rt   *runtimeState // the runtime it was attached in; stale after Finalize
	buf  []byte
	used []bsendSlot // by offset
	errs []error     // of buffered sends that failed, for BufferDetach
}

// bsendSlot is one buffered message: buf[off : off+n] holds its
// bookkeeping space and its data.
type bsendSlot struct {
	off, n int
	c      *Comm
	dest   int
	op     *llc.SendOp
}

var attached bufferState

// BufferAttach gives the process buf for buffered sends
// (MPI_Buffer_attach): Bsend and Ibsend copy their messages into it until
// they have left, and fail with ErrBuffer when a message does not fit
// beside those still there. A process has one buffer at a time; attaching
// another before BufferDetach is an error wrapping ErrBuffer.
func BufferAttach(buf []byte) error {
	s := current.Load()
	if s == nil {
		return fmt.Errorf("mpi: BufferAttach: %w", ErrNotInitialized)
	}
	b := &attached
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rt == s && b.buf != nil {
		return fmt.Errorf("mpi: BufferAttach: a buffer of %d bytes is already attached: %w", len(b.buf), ErrBuffer)
	}
	if len(buf) == 0 {
		return fmt.Errorf("mpi: BufferAttach: an empty buffer: %w", ErrBuffer)
	}
	b.rt, b.buf, b.used, b.errs = s, buf, nil, nil
	return nil
}

// BufferDetach waits until every buffered message has left the attached
// buffer, detaches it and returns it (MPI_Buffer_detach), with the errors
// of buffered sends that failed since it was attached, joined. Without an
// attached buffer it is an error wrapping ErrBuffer.
func BufferDetach() ([]byte, error) {
	s := current.Load()
	if s == nil {
		return nil, fmt.Errorf("mpi: BufferDetach: %w", ErrNotInitialized)
	}
	b := &attached
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rt != s || b.buf == nil {
		return nil, fmt.Errorf("mpi: BufferDetach: no buffer attached: %w", ErrBuffer)
	}
	s.ep.WaitFunc(func() bool {
		for _, sl := range b.used {
			if !sl.op.Done() {
				return false
			}
		}
		return true
	})
	b.reap()
	buf, err := b.buf, errors.Join(b.errs...)
	b.rt, b.buf, b.used, b.errs = nil, nil, nil, nil
	if err != nil {
		return buf, fmt.Errorf("mpi: BufferDetach: buffered sends failed: %w", err)
	}
	return buf, nil
}

// Bsend copies buf into the attached buffer and sends it from there to
// rank dest of c with tag (MPI_Bsend): it returns at once, and buf may be
// reused. Without an attached buffer, or when the message and
// BsendOverhead do not fit beside the buffered messages that have not
// left yet, it fails with an error wrapping ErrBuffer and sends nothing.
// A buffered send that fails later is reported by BufferDetach.
func Bsend[T Type](c *Comm, buf []T, dest, tag int) error {
	if err := c.checkDest("Bsend", dest, tag); err != nil {
		return err
	}
	if dest == ProcNull {
		return nil
	}
	return attached.send(c, "Bsend", asBytes(buf), dest, tag)
}

// Ibsend is the nonblocking buffered send (MPI_Ibsend): it copies buf into
// the attached buffer as Bsend does, so its Request is complete at once.
func Ibsend[T Type](c *Comm, buf []T, dest, tag int) (*Request, error) {
	if err := c.checkDest("Ibsend", dest, tag); err != nil {
		return nil, err
	}
	if dest != ProcNull {
		if err := attached.send(c, "Ibsend", asBytes(buf), dest, tag); err != nil {
			return nil, err
		}
	}
	return &Request{c: c, peer: dest, name: "Ibsend", null: true}, nil
}

// send copies data into the buffer and starts sending it.
func (b *bufferState) send(c *Comm, name string, data []byte, dest, tag int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rt != c.rt || b.buf == nil {
		return fmt.Errorf("mpi: %s to rank %d: no buffer attached (BufferAttach): %w", name, dest, ErrBuffer)
	}
	b.reap()
	n := len(data) + BsendOverhead
	at, ok := b.fit(n)
	if !ok {
		return fmt.Errorf("mpi: %s to rank %d: %d bytes and %d of overhead do not fit in the attached buffer of %d bytes, %d of them held by %d buffered messages: %w",
			name, dest, len(data), BsendOverhead, len(b.buf), b.held(), len(b.used), ErrBuffer)
	}
	copied := b.buf[at+BsendOverhead : at+n : at+n]
	copy(copied, data)
	op := &llc.SendOp{Peer: c.toWorld(dest), Tag: int32(tag), Ctx: c.ctx, Data: copied}
	b.used = append(b.used, bsendSlot{off: at, n: n, c: c, dest: dest, op: op})
	slices.SortFunc(b.used, func(x, y bsendSlot) int { return x.off - y.off })
	c.requestStarted()
	c.rt.ep.Send(op)
	return nil
}

// fit returns the first offset at which n bytes are free.
func (b *bufferState) fit(n int) (int, bool) {
	at := 0
	for _, sl := range b.used {
		if sl.off-at >= n {
			return at, true
		}
		at = sl.off + sl.n
	}
	return at, len(b.buf)-at >= n
}

// held returns the bytes the buffered messages occupy.
func (b *bufferState) held() int {
	n := 0
	for _, sl := range b.used {
		n += sl.n
	}
	return n
}

// reap frees the space of the buffered messages that have left.
func (b *bufferState) reap() {
	if len(b.used) == 0 {
		return
	}
	done := make([]bool, len(b.used))
	ops := make([]llc.Completion, len(b.used))
	for i, sl := range b.used {
		ops[i] = sl.op
	}
	b.rt.ep.Completed(ops, done)
	kept := b.used[:0]
	for i, sl := range b.used {
		if !done[i] {
			kept = append(kept, sl)
			continue
		}
		if err := sl.op.Err(); err != nil {
			b.errs = append(b.errs, wrap("buffered send", sl.dest, err))
		}
		sl.c.requestFinished()
	}
	clear(b.used[len(kept):])
	b.used = kept
}
