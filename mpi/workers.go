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

// Go runs f on an idle worker, or on a new one when none waits.
func (p *workerPool) Go(f func()) {
	select {
	case p.jobs <- f:
	default:
		go p.work(f)
	}
}

// work runs f, then the jobs handed to it, until more than
// maxIdleWorkers would wait.
func (p *workerPool) work(f func()) {
	for {
		f()
		if p.idle.Add(1) > maxIdleWorkers {
			p.idle.Add(-1)
			return
		}
		f = <-p.jobs
		p.idle.Add(-1)
	}
}
