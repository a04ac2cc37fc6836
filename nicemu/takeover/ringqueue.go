package takeover

import "fmt"

// RingQueue is a ReceiveQueue for one process: a ring of Size bytes at
// virtual address Base in its memory, in which messages are stored back to
// back in arrival order. A message that does not fit before the end of the
// ring starts again at Base (the tail is skipped). Positions are monotonic
// byte counts; a position p is at address Base + p mod Size.
//
// Received is the receive pointer (how far valid messages reach, advanced
// by Publish); Released is the release pointer (how far the host has
// consumed, advanced by ReleaseTo). The thesis keeps one in NIC registers
// and the other in host memory (l.1983); here both are plain fields.
type RingQueue struct {
	// Owner is the process the ring belongs to.
	Owner PID
	// Base and Size place the ring in Owner's memory.
	Base uint64
	Size int
	// Reserved is the end of the last reserved message (tail skips
	// included), Received the end of the last published one, Released
	// the host's release pointer.
	Reserved uint64
	Received uint64
	Released uint64
}

// Reserve implements ReceiveQueue.
func (q *RingQueue) Reserve(owner PID, n int) (uint64, error) {
	if owner != q.Owner || n < 0 || n > q.Size || q.Size <= 0 {
		return 0, fmt.Errorf("takeover: ring of PID %d (%d bytes): message of %d bytes for PID %d: %w",
			q.Owner, q.Size, n, owner, ErrNoQueue)
	}
	size := uint64(q.Size)
	pos := q.Reserved % size
	skip := uint64(0)
	if pos+uint64(n) > size {
		skip = size - pos
	}
	free := size - (q.Reserved - q.Released)
	if skip+uint64(n) > free {
		return 0, ErrQueueFull
	}
	q.Reserved += skip + uint64(n)
	return q.Base + (pos+skip)%size, nil
}

// Publish implements ReceiveQueue. A message published after a reserved
// slot that was never published (its packet was dropped after the
// reservation) moves the receive pointer past that slot too.
func (q *RingQueue) Publish(owner PID, va uint64, n int) error {
	size := uint64(q.Size)
	if owner != q.Owner || q.Size <= 0 || va < q.Base || va >= q.Base+size || n < 0 {
		return fmt.Errorf("takeover: ring of PID %d: publish %d bytes at %#x for PID %d: %w", q.Owner, n, va, owner, ErrNoQueue)
	}
	start := q.Received + (va-q.Base+size-q.Received%size)%size
	end := start + uint64(n)
	if end > q.Reserved {
		return fmt.Errorf("takeover: ring of PID %d: publish %d bytes at %#x: not reserved: %w", q.Owner, n, va, ErrNoQueue)
	}
	q.Received = end
	return nil
}

// ReleaseTo is the host's side: it has consumed everything before
// position pos, which may be reused.
func (q *RingQueue) ReleaseTo(pos uint64) error {
	if pos < q.Released || pos > q.Received {
		return fmt.Errorf("takeover: ring of PID %d: release to %d outside [%d, %d]", q.Owner, pos, q.Released, q.Received)
	}
	q.Released = pos
	return nil
}
