package llc

// schedQueue is the schedule queue between the protocol engine and the
// translator: commands leave in the order they were emitted, so that a
// completion flag is never issued before the data it covers. Ready hands
// out its first commands as a batch (a view of its storage) and Advance
// drops them; commands emitted meanwhile follow them. Its storage grows
// when full and never shrinks, so steady-state traffic does not allocate.
type schedQueue struct {
	buf   []Command // buf[:n] are queued, oldest first
	n     int
	batch int // the first batch of them were handed out and not yet dropped
}

// init sizes the queue.
func (q *schedQueue) init(n int) { q.buf = make([]Command, n) }

func (q *schedQueue) len() int { return q.n }

// alloc returns a zeroed slot at the tail of the queue, to be filled in
// place; it is issued in order like a pushed command.
func (q *schedQueue) alloc() *Command {
	if q.n == len(q.buf) {
		q.grow()
	}
	c := &q.buf[q.n]
	*c = Command{}
	q.n++
	return c
}

// grow doubles the storage. A batch handed out keeps viewing the old
// storage, whose commands do not change.
func (q *schedQueue) grow() {
	nb := make([]Command, 2*len(q.buf))
	copy(nb, q.buf[:q.n])
	q.buf = nb
}

func (q *schedQueue) push(c *Command) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.n] = *c
	q.n++
}

// take hands out the oldest commands, at most limit of them, as the
// batch.
func (q *schedQueue) take(limit int) []Command {
	k := min(q.n, limit)
	q.batch = k
	return q.buf[:k:k]
}

// drop removes the batch handed out by take.
func (q *schedQueue) drop() {
	if q.batch == q.n {
		q.n = 0
	} else if q.batch > 0 {
		q.n = copy(q.buf, q.buf[q.batch:q.n])
	}
	q.batch = 0
}
