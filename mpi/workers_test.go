package mpi

import (
	"sync"
	"testing"
	"time"
)

// TestWorkerPool: every job runs; workers left idle wait for the next
// job, at most maxIdleWorkers of them, and a job given while one waits
// runs on it rather than on a new goroutine.
func TestWorkerPool(t *testing.T) {
	p := workerPool{jobs: make(chan func())}
	const jobs = 3 * maxIdleWorkers
	release := make(chan struct{})
	var ran sync.WaitGroup
	ran.Add(jobs)
	for range jobs {
		p.Go(func() { <-release; ran.Done() })
	}
	close(release)
	ran.Wait()
	waitIdle := func(want int32) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); p.idle.Load() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d idle workers, want %d", p.idle.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitIdle(maxIdleWorkers)
	done := make(chan struct{})
	p.Go(func() { close(done) })
	<-done
	waitIdle(maxIdleWorkers)
	hold := make(chan struct{})
	p.Go(func() { <-hold })
	waitIdle(maxIdleWorkers - 1)
	close(hold)
	waitIdle(maxIdleWorkers)
}
