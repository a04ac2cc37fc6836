package mpi

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// funcJob is a poolJob that runs f.
type funcJob struct {
	f       func()
	claimed atomic.Bool
	runs    atomic.Int32
	lefts   atomic.Int32
}

func (j *funcJob) claim() bool { return j.claimed.CompareAndSwap(false, true) }
func (j *funcJob) run()        { j.runs.Add(1); j.f() }
func (j *funcJob) left()       { j.lefts.Add(1) }

// sleeping returns how many of p's workers sleep.
func (p *workerPool) sleeping() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asleep
}

// idle reports whether every worker of p that has not ended sleeps.
func (p *workerPool) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live == p.asleep && p.free == 0
}

// TestWorkerPool: every job runs, each on a worker of its own while the
// others' bodies wait; workers left idle sleep until the next job, at
// most maxIdleWorkers of them, and a job given while one sleeps runs on
// it rather than on a new goroutine; a job its caller claimed first is
// not run again, and leaves its worker free for the next; the pool lets
// go of every job once (poolJob.left), a worker's or one its claimer
// withdrew.
func TestWorkerPool(t *testing.T) {
	p := newWorkerPool()
	poolRunsAllAtOnce(t, p)
	poolKeepsSleepers(t, p)
	poolSkipsClaimed(t, p)
}

// poolRunsAllAtOnce gives p 3*maxIdleWorkers jobs that block until
// released, and checks that all start without waiting for one another.
func poolRunsAllAtOnce(t *testing.T, p *workerPool) {
	const jobs = 3 * maxIdleWorkers
	release := make(chan struct{})
	var started, ran sync.WaitGroup
	started.Add(jobs)
	ran.Add(jobs)
	for range jobs {
		p.Go(&funcJob{f: func() { started.Done(); <-release; ran.Done() }})
	}
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatal("jobs wait behind other jobs' bodies")
	}
	close(release)
	ran.Wait()
}

// waitPoolSleeping waits until want workers of p sleep, for ten seconds
// at most.
func waitPoolSleeping(t *testing.T, p *workerPool, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); p.sleeping() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers asleep, want %d", p.sleeping(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitPoolIdle waits until every live worker of p sleeps, for ten
// seconds at most. A worker that has run its body but not yet looked at
// the queue again would take the next job before a sleeping one woke:
// the checks begin once every live worker sleeps.
func waitPoolIdle(t *testing.T, p *workerPool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !p.idle(); {
		if time.Now().After(deadline) {
			t.Fatal("workers still awake with no job")
		}
		time.Sleep(time.Millisecond)
	}
}

// poolKeepsSleepers checks that maxIdleWorkers workers stay asleep after
// the burst, that a job runs on one of them, and that a job that blocks
// keeps one awake until it ends.
func poolKeepsSleepers(t *testing.T, p *workerPool) {
	waitPoolSleeping(t, p, maxIdleWorkers)
	waitPoolIdle(t, p)
	done := make(chan struct{})
	p.Go(&funcJob{f: func() { close(done) }})
	<-done
	waitPoolSleeping(t, p, maxIdleWorkers)
	waitPoolIdle(t, p)
	hold := make(chan struct{})
	p.Go(&funcJob{f: func() { <-hold }})
	waitPoolSleeping(t, p, maxIdleWorkers-1)
	close(hold)
	waitPoolSleeping(t, p, maxIdleWorkers)
}

// poolSkipsClaimed gives p jobs their callers claimed before any worker
// looked: the workers skip them and run the one after; half of them
// their callers also withdraw. Every job runs once and is let go once.
func poolSkipsClaimed(t *testing.T, p *workerPool) {
	var stolen [6]*funcJob
	for i := range stolen {
		stolen[i] = &funcJob{f: func() {}}
		p.Go(stolen[i])
		if !stolen[i].claim() {
			continue // a worker took it first
		}
		if i%2 == 1 {
			p.withdraw(stolen[i])
		}
		stolen[i].run()
	}
	next := &funcJob{f: func() {}}
	ran1 := make(chan struct{})
	next.f = func() { close(ran1) }
	p.Go(next)
	<-ran1
	waitPoolSleeping(t, p, maxIdleWorkers)
	for i, j := range append(stolen[:], next) {
		if n := j.runs.Load(); n != 1 {
			t.Errorf("job %d ran %d times, want once", i, n)
		}
		if n := j.lefts.Load(); n != 1 {
			t.Errorf("the pool let go of job %d %d times, want once", i, n)
		}
	}
}
