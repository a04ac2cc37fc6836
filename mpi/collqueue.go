package mpi

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Nonblocking collectives through the communicator's own Runner.
//
// On an intracommunicator whose network has a barrier (c.runner.HW), the
// commonest nonblocking collectives (those collArgs describe, and their
// typed forms: the processes' calls of either form must meet) run as the
// blocking ones do, on c.runner, with the barrier's argument check and
// the algorithms that use it, rather than on a softRun's software
// algorithms, whose check is an exchange of messages. The barrier serves
// a communicator's calls one at a time, in the order the processes call
// them, which they share: so the calls queue, in the order they start, in
// c's collQueue, and each runs once every call before it has, under
// collMu, by whoever comes first: a Wait for it or for a later one, a
// blocking collective of c, which runs the queue before itself, or the
// pool's worker, given the queue by a Test that finds one not done, by
// the start of one while another is in flight, or by the queue's timer
// (queueKick), which keep them progressing while the caller does other
// work. Each takes its tag when it starts, as a softRun's does,
// so that the tags follow the calls' order whoever runs them.
//
// Where processes outnumber cores, and under the timing model, the
// nonblocking collectives keep the software algorithms
// (tuning.Waiting.QueueNonblocking), but for the broadcasts, scatters,
// reductions and gathers to a root where processes outnumber cores: on
// c.runner they run ahead of their check as the blocking ones do, the
// root of a broadcast or a scatter sending and returning, the others of
// a reduction or a gather, the broadcasts' and scatters' data in
// messages at every size (collectives.Runner.MessagesAhead;
// tuning.Waiting.QueueRooted).

// collQueue holds the nonblocking collectives of a communicator started
// and not yet run (Comm.queueable).
type collQueue struct {
	mu         sync.Mutex
	head, tail *collRequest
	n          atomic.Int32 // entries, read without mu
	// timer, armed while an entry may wait for it, hands the queue to the
	// pool (kick) queueKick after it was armed.
	timer *time.Timer
	armed bool
	// drain is the pool's job that runs the whole queue; kicked while it
	// is given and has not begun, so that a queue has one at a time.
	drain  queueDrain
	kicked atomic.Bool
}

// queueKick is how long a queued collective waits for a Wait or a Test
// before the pool's worker runs it. A Wait that comes sooner runs it on
// its caller's goroutine, sparing the worker's wake-up, which costs most
// where processes outnumber cores; a Test hands the queue to the worker at
// once (kick), as the caller then does other work, and so does the start
// of a collective while another is in flight.
const queueKick = 50 * time.Microsecond

// queueable reports whether the nonblocking collective a runs on
// c.runner in the queue's order (see above), rather than on a softRun.
// The choice rests on the kind of collective alone, which the processes'
// calls share, so that they all take the same path.
func (c *Comm) queueable(a *collArgs) bool {
	return a.kind > argsBody && c.runner.HW != nil && (c.rt.queueNonblocking || c.rt.queueRooted && a.rooted())
}

// enqueue starts the nonblocking collective op that a describes, of c,
// in c's queue, arming the queue's timer, and returns its collRequest.
func (c *Comm) enqueue(op string, a collArgs) *collRequest {
	cr := newCollRequest()
	cr.queued, cr.args, cr.op, cr.c = true, a, op, c
	q := &c.queue
	q.mu.Lock()
	cr.tag = c.nextTag()
	if q.tail == nil {
		q.head = cr
	} else {
		q.tail.next = cr
	}
	q.tail = cr
	q.n.Add(1)
	others := c.rt.queued.Add(1) > 1
	if !q.armed {
		q.armed = true
		if q.timer == nil {
			q.timer = time.AfterFunc(queueKick, c.timerKick)
		} else {
			q.timer.Reset(queueKick)
		}
	}
	q.mu.Unlock()
	c.requestStarted()
	c.rt.ep.StartBackground()
	if others {
		// Several in flight: a Wait for one may wait for the others to
		// progress, as the software path's would, from their start.
		c.kickQueue()
	}
	return cr
}

// kickQueue hands c's queue to the pool, whose worker runs all of it,
// unless it is given already and has not begun: a Test (every poll of
// one: two atomic loads where there is nothing to do), a start while
// others are in flight, the queue's timer (timerKick).
func (c *Comm) kickQueue() {
	q := &c.queue
	if q.n.Load() != 0 && !q.kicked.Load() && q.kicked.CompareAndSwap(false, true) {
		backgroundWorkers.Go(&q.drain)
	}
}

// timerKick is the queue's timer: it is disarmed, so that the next start
// arms it again, and kicks the queue.
func (c *Comm) timerKick() {
	q := &c.queue
	q.mu.Lock()
	q.armed = false
	q.mu.Unlock()
	c.kickQueue()
}

// queueDrain is a communicator's queue as a job of the pool (poolJob);
// initComm sets c.
type queueDrain struct{ c *Comm }

// claim gives the job to the worker that takes it: it is given once a
// kick.
func (d *queueDrain) claim() bool { return true }

// left is poolJob's: a queue's job is the communicator's for its life.
func (d *queueDrain) left() {}

// run runs the whole queue; a kick once it has begun gives the job again.
func (d *queueDrain) run() {
	c := d.c
	q := &c.queue
	q.kicked.Store(false) // a kick from now on gives the job again
	if q.n.Load() == 0 {
		return
	}
	c.collMu.Lock()
	defer c.collMu.Unlock() // a user's reduction may panic
	c.runPending(nil, true)
}

// pop takes the oldest collective of the queue, or nil.
func (q *collQueue) pop() *collRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	cr := q.head
	if cr != nil {
		q.head, cr.next = cr.next, nil
		if q.head == nil {
			q.tail = nil
		}
		q.n.Add(-1)
	}
	return cr
}

// runQueued runs c's queue up to target, which is then done, for a
// caller that waits for it.
func (c *Comm) runQueued(target *collRequest) {
	if target.done.Load() {
		return
	}
	c.collMu.Lock()
	defer c.collMu.Unlock() // a user's reduction may panic
	c.runPending(target, false)
}

// runPending runs c's queued collectives in order until target is done,
// or all of them if target is nil. The caller holds c.collMu. Each stops
// counting as the endpoint's background work (llc.Endpoint.StartBackground)
// before it runs where a caller waits for it, whose waits then spin and
// yield as a blocking call's do, and after it where a worker runs it.
func (c *Comm) runPending(target *collRequest, background bool) {
	ep := c.rt.ep
	for target == nil || !target.done.Load() {
		cr := c.queue.pop()
		if cr == nil {
			return
		}
		c.rt.queued.Add(-1)
		if !background {
			ep.EndBackground()
		}
		c.net.tag = cr.tag
		c.runner.MessagesAhead = c.rt.queueRooted
		err := cr.args.run(&c.runner)
		c.runner.MessagesAhead = false
		if err != nil {
			cr.err = fmt.Errorf("mpi: %s: %w", cr.op, err)
		}
		cr.args = collArgs{} // the buffers are the caller's again
		if background {
			ep.EndBackground()
		}
		cr.markDone(c)
	}
}

// lockColl takes c.collMu for a blocking collective, once the nonblocking
// ones started before it have run.
func (c *Comm) lockColl() {
	c.collMu.Lock()
	if c.queue.n.Load() != 0 {
		c.runPendingHeld()
	}
}

// runPendingHeld runs c's whole queue for lockColl, and gives c.collMu
// back if a user's reduction panics, as the blocking calls' deferred
// unlocks do.
func (c *Comm) runPendingHeld() {
	ran := false
	defer func() {
		if !ran {
			c.collMu.Unlock()
		}
	}()
	c.runPending(nil, false)
	ran = true
}
