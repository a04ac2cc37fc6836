package mpi

import "sync/atomic"

// maxIdleWorkers bounds the goroutines that wait for the next nonblocking
// operation's body: a program that once had many operations in flight
// does not keep all their goroutines.
const maxIdleWorkers = 32

// workerPool runs the bodies of nonblocking operations on goroutines kept
// between operations. A fresh goroutine per operation started on a small
// stack and grew it, copying its frames, in every operation: a kept one
// has grown its stack once.
type workerPool struct {
	jobs chan func()
	idle atomic.Int32
}

// backgroundWorkers is the process's pool: one process is one rank, and
// its operations' bodies share nothing but the goroutines.
var backgroundWorkers = workerPool{jobs: make(chan func())}

// Go runs f on an idle worker, or on a new one when none waits. A worker
// counts as idle (idle) from when it commits to taking the next job, a
// moment before it waits for it: Go claims one by taking it off the count,
// then hands it the job, so a job never finds the count idle and still
// starts a goroutine of its own.
func (p *workerPool) Go(f func()) {
	for {
		n := p.idle.Load()
		if n <= 0 {
			go p.work(f)
			return
		}
		if p.idle.CompareAndSwap(n, n-1) {
			p.jobs <- f
			return
		}
	}
}

// work runs f, then the jobs handed to it, until more than
// maxIdleWorkers would wait. It joins the count only when it stays, so
// that every job Go claims has a worker to take it.
func (p *workerPool) work(f func()) {
	for {
		f()
		for {
			n := p.idle.Load()
			if n >= maxIdleWorkers {
				return
			}
			if p.idle.CompareAndSwap(n, n+1) {
				break
			}
		}
		f = <-p.jobs
	}
}
