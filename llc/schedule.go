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

func (q *schedQueue) init(n int) { q.buf = make([]Command, n) }

func (q *schedQueue) len() int { return q.tail - q.head }

func (q *schedQueue) push(c *Command) {
	if q.tail-q.head == len(q.buf) {
		nb := make([]Command, 2*len(q.buf))
		for i := q.head; i < q.tail; i++ {
			nb[i-q.head] = q.buf[i%len(q.buf)]
		}
		q.buf, q.tail, q.head = nb, q.tail-q.head, 0
	}
	q.buf[q.tail%len(q.buf)] = *c
	q.tail++
}

// Next returns the next command to issue, or nil when the queue is empty.
// The pointer is valid until the next push.
func (q *schedQueue) Next() *Command {
	if q.head == q.tail {
		return nil
	}
	c := &q.buf[q.head%len(q.buf)]
	q.head++
	if q.head == q.tail {
		q.head, q.tail = 0, 0
	}
	return c
}
