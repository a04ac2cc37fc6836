package mpi

import "sync"

// maxIdleWorkers bounds the goroutines that wait for the next nonblocking
// operation's body: a program that once had many operations in flight
// does not keep all their goroutines.
const maxIdleWorkers = 32

// A poolJob is a body of work that whoever claims it first runs: a
// worker of the pool, or a caller that would otherwise wait for it (a
// Wait on an operation no worker has begun yet).
type poolJob interface {
	// claim reports whether the caller is the one to run the job; it
	// returns true once.
	claim() bool
	// run runs the job; only its claimer calls it.
	run()
	// left says that the pool holds the job no more: a worker took it
	// from the queue (and ran it or found it claimed), or its claimer
	// withdrew it (withdraw). The pool touches it no more, but a worker
	// that claimed it runs it.
	left()
}

// workerPool runs the bodies of nonblocking operations on goroutines kept
// between operations. A fresh goroutine per operation started on a small
// stack and grew it, copying its frames, in every operation: a kept one
// has grown its stack once.
//
// Jobs wait in a queue; a worker that is free (not running a body) takes
// them in order and runs those nobody has claimed. A job whose caller
// claims it first (collRequest.wait) leaves its worker free for the next
// one, so a caller that waits at once costs the pool a look at the queue
// rather than a goroutine per operation.
type workerPool struct {
	mu     sync.Mutex
	queue  []poolJob // jobs given, from queue[head] on not yet taken
	head   int
	free   int       // workers awake that will look at the queue before running a body or sleeping
	asleep int       // workers waiting on wake
	live   int       // workers started and not ended
	wake   sync.Cond // signalled to move a worker from asleep to free
}

// keptQueue bounds the queue's array that a drained queue keeps for the
// next jobs: a burst of operations does not keep a larger one.
const keptQueue = 1024

// newWorkerPool returns an empty pool.
func newWorkerPool() *workerPool {
	p := new(workerPool)
	p.wake.L = &p.mu
	return p
}

// backgroundWorkers is the process's pool: one process is one rank, and
// its operations' bodies share nothing but the goroutines.
var backgroundWorkers = newWorkerPool()

// Go gives j to the pool. Every job given has a free worker to look at
// it: if none is free, Go wakes one that sleeps or starts a new one.
func (p *workerPool) Go(j poolJob) {
	p.mu.Lock()
	p.queue = append(p.queue, j)
	p.ensureFree()
	p.mu.Unlock()
}

// ensureFree makes sure that a free worker will look at the queue,
// waking or starting one if none is free. The caller holds p.mu.
func (p *workerPool) ensureFree() {
	if p.free > 0 {
		return
	}
	p.free++
	if p.asleep > 0 {
		p.asleep--
		p.wake.Signal()
		return
	}
	p.live++
	go p.work()
}

// take returns the oldest job nobody has claimed, claimed by the caller,
// or nil when the queue has none. The caller holds p.mu.
func (p *workerPool) take() poolJob {
	for p.head < len(p.queue) {
		j := p.queue[p.head]
		p.queue[p.head] = nil
		p.head++
		if j == nil {
			continue // withdrawn
		}
		claimed := j.claim()
		j.left()
		if claimed {
			return j
		}
	}
	p.head = 0
	if cap(p.queue) > keptQueue {
		p.queue = nil
	} else {
		p.queue = p.queue[:0]
	}
	return nil
}

// withdraw takes j, which its caller has claimed, out of the queue if it
// is still there, so that the pool lets go of it now rather than when a
// worker comes to it (poolJob.left).
func (p *workerPool) withdraw(j poolJob) {
	p.mu.Lock()
	for i := len(p.queue) - 1; i >= p.head; i-- {
		if p.queue[i] == j {
			p.queue[i] = nil
			j.left()
			break
		}
	}
	p.mu.Unlock()
}

// queued reports whether jobs wait in the queue. The caller holds p.mu.
func (p *workerPool) queued() bool { return p.head < len(p.queue) }

// work is a worker: free from the start, it runs the queue's jobs, then
// sleeps until woken, or ends when maxIdleWorkers others sleep already.
// Before it runs a body (which may wait for long) it leaves another
// worker free to look at the jobs still queued, so that no job waits
// behind another's body.
func (p *workerPool) work() {
	p.mu.Lock()
	for {
		j := p.take()
		if j == nil {
			p.free--
			if p.asleep >= maxIdleWorkers {
				p.live--
				p.mu.Unlock()
				return
			}
			p.asleep++
			p.wake.Wait() // the waker counts this worker free again
			continue
		}
		p.free--
		if p.queued() {
			p.ensureFree()
		}
		p.mu.Unlock()
		j.run()
		p.mu.Lock()
		p.free++
	}
}
