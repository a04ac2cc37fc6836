package collectives

import (
	"errors"
	"fmt"
)

// Net carries the messages of one collective operation between the ranks
// of a communicator. Messages from one rank to another are received in the
// order they were sent, and those of different operations never mix (the
// implementation gives every operation its own tag).
type Net interface {
	// Rank is the calling process's rank, Size the number of ranks.
	Rank() int
	Size() int
	// Send sends data to rank to and returns when data may be reused.
	Send(to int, data []byte) error
	// Recv receives the next message from rank from into buf and returns
	// the message's length, which may exceed len(buf): buf then holds its
	// beginning and the rest is dropped. An error means the transport
	// failed.
	Recv(from int, buf []byte) (int, error)
	// Sendrecv sends data to rank to while receiving from rank from, as
	// Send and Recv would, without deadlocking against a matching
	// Sendrecv.
	Sendrecv(to int, data []byte, from int, buf []byte) (int, error)
}

// OperandNet is implemented by a Net that can move a reduction's
// operands, messages their receiver combines at once, so that they land
// in the receiver's caches: RecvOperand is Recv, SendrecvOperand is
// Sendrecv (their received messages are operands), and SendOperand is
// Send (its message is one).
type OperandNet interface {
	RecvOperand(from int, buf []byte) (int, error)
	SendrecvOperand(to int, data []byte, from int, buf []byte) (int, error)
	SendOperand(to int, data []byte) error
}

// AheadSender is implemented by a Net that can send a message eagerly
// beyond its usual eager limit: SendAhead is Send, for a sender that
// should go on without waiting for its receiver (a broadcast's root and
// inner nodes).
type AheadSender interface {
	SendAhead(to int, data []byte) error
}

// ErrMismatch is wrapped by the errors of collective operations whose
// processes passed inconsistent arguments (counts, roots, operations).
var ErrMismatch = errors.New("collective arguments differ between processes")

// call is one collective operation in progress on a Net. A message of the
// wrong length is recorded, not returned: the algorithm goes on with its
// schedule so that no peer waits forever for a message this process would
// otherwise not send, and the operation ends with the mismatch.
type call struct {
	Net
	mismatch error
	arena    *[]byte          // scratch memory reused across calls, or nil
	xfer     *exchangeScratch // the transfers of an exchange, reused across calls, or nil
	used     int
	// ownDone: the process's own block is copied already (opCall.own).
	ownDone bool
}

// newCall returns the call of one operation on n. A Runner passes its own
// call as the Net of the exported algorithms, so that they carve their
// scratch memory and exchanges from its arena, reused across calls: a
// fresh buffer a call is memory to clear and pages to fault in, and a
// message sent from it is pinned anew.
func newCall(n Net) *call {
	if c, ok := n.(*call); ok {
		return c
	}
	return &call{Net: n}
}

// alloc returns n bytes of scratch memory for the rest of the call: carved
// from the arena when there is one (it grows as needed and is reused by
// the next call), else freshly allocated.
func (c *call) alloc(n int) []byte {
	if c.arena == nil {
		return make([]byte, n)
	}
	a := *c.arena
	if c.used+n > len(a) {
		a = make([]byte, max(2*len(a), n, 4096))
		*c.arena = a
		c.used = 0
	}
	b := a[c.used : c.used+n : c.used+n]
	c.used += n
	return b
}

// recv receives exactly len(buf) bytes from rank from.
func (c *call) recv(from int, buf []byte) error {
	got, err := c.Recv(from, buf)
	return c.received(from, len(buf), got, err)
}

// received is the result of a receive of want bytes from rank from that
// got got bytes or failed with err: err, or nil with a length mismatch
// recorded.
func (c *call) received(from, want, got int, err error) error {
	if err != nil {
		return err
	}
	c.checkLen(from, got, want)
	return nil
}

// recvOperand receives exactly len(buf) bytes from rank from, which the
// caller combines at once (OperandNet, else Recv).
func (c *call) recvOperand(from int, buf []byte) error {
	o, ok := c.Net.(OperandNet)
	if !ok {
		return c.recv(from, buf)
	}
	got, err := o.RecvOperand(from, buf)
	return c.received(from, len(buf), got, err)
}

// sendrecvOperand is sendrecv whose received data the caller combines at
// once (OperandNet).
func (c *call) sendrecvOperand(to int, data []byte, from int, buf []byte) error {
	o, ok := c.Net.(OperandNet)
	if !ok {
		return c.sendrecv(to, data, from, buf)
	}
	got, err := o.SendrecvOperand(to, data, from, buf)
	return c.received(from, len(buf), got, err)
}

// sendAhead sends data to rank to without waiting for it where the Net
// can (AheadSender, else Send).
func (c *call) sendAhead(to int, data []byte) error {
	if a, ok := c.Net.(AheadSender); ok {
		return a.SendAhead(to, data)
	}
	return c.Send(to, data)
}

// sendOperand sends data to rank to, which combines it at once
// (OperandNet, else Send).
func (c *call) sendOperand(to int, data []byte) error {
	if o, ok := c.Net.(OperandNet); ok {
		return o.SendOperand(to, data)
	}
	return c.Send(to, data)
}

// sendrecv sends data to rank to and receives exactly len(buf) bytes from
// rank from.
func (c *call) sendrecv(to int, data []byte, from int, buf []byte) error {
	got, err := c.Sendrecv(to, data, from, buf)
	return c.received(from, len(buf), got, err)
}

func (c *call) checkLen(from, got, want int) {
	if got != want && c.mismatch == nil {
		c.mismatch = fmt.Errorf("rank %d sent %d bytes where %d were expected: %w", from, got, want, ErrMismatch)
	}
}

// end returns the operation's result: err, or else the first mismatch.
func (c *call) end(err error) error {
	if err != nil {
		return err
	}
	return c.mismatch
}
