package llc

// schedQueue is the schedule queue between the protocol engine and the
// translator: commands leave in the order they were emitted, so that a
// completion flag is never issued before the data it covers. It is a ring
// of Command values that grows when full and never shrinks, so steady-state
// traffic does not allocate.
type schedQueue struct {
	buf        []Command
	head, tail int // tail-head commands are queued
}

// init sizes the queue; n must be a power of two.
func (q *schedQueue) init(n int) { q.buf = make([]Command, n) }

func (q *schedQueue) len() int { return q.tail - q.head }

// alloc returns a zeroed slot at the tail of the queue, to be filled in
// place; it is issued in order like a pushed command.
func (q *schedQueue) alloc() *Command {
	if q.tail-q.head == len(q.buf) {
		q.grow()
	}
	c := &q.buf[q.tail&(len(q.buf)-1)]
	*c = Command{}
	q.tail++
	return c
}

func (q *schedQueue) grow() {
	nb := make([]Command, 2*len(q.buf))
	for i := q.head; i < q.tail; i++ {
		nb[i-q.head] = q.buf[i&(len(q.buf)-1)]
	}
	q.buf, q.tail, q.head = nb, q.tail-q.head, 0
}

func (q *schedQueue) push(c *Command) {
	if q.tail-q.head == len(q.buf) {
		q.grow()
	}
	q.buf[q.tail&(len(q.buf)-1)] = *c
	q.tail++
}

// Next returns the next command to issue, or nil when the queue is empty.
// The pointer is valid until the next push.
func (q *schedQueue) Next() *Command {
	if q.head == q.tail {
		return nil
	}
	c := &q.buf[q.head&(len(q.buf)-1)]
	q.head++
	if q.head == q.tail {
		q.head, q.tail = 0, 0
	}
	return c
}
