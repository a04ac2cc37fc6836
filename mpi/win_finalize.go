package mpi

import (
	"errors"
	"fmt"
	"sync"
)

// openWins are the windows of this process not freed yet, so that
// Finalize can refuse to end the process while one of them is in an epoch
// that other processes may wait on (a passive-target lock that another
// process waits to take, a Post whose origins wait to start).
var openWins struct {
	sync.Mutex
	made int // windows made so far: the number of the next, less one
	wins map[*Win]struct{}
}

// register adds w, just made by the call op, to openWins and numbers it.
func (w *Win) register(op string) {
	openWins.Lock()
	defer openWins.Unlock()
	if openWins.wins == nil {
		openWins.wins = make(map[*Win]struct{})
	}
	openWins.made++
	w.id, w.madeBy = openWins.made, op
	openWins.wins[w] = struct{}{}
}

// unregister removes w, being freed, from openWins.
func (w *Win) unregister() {
	openWins.Lock()
	delete(openWins.wins, w)
	openWins.Unlock()
}

// String names the window: its number among the windows this process
// made (from 1), the call that made it, its element type and its
// processes.
func (w *Win) String() string {
	return fmt.Sprintf("window %d (%s of %v on %d processes)", w.id, w.madeBy, w.kind, w.c.size)
}

// busyWindows returns an error wrapping ErrRMASync for each window of s
// in an epoch that Free would refuse to end (a lock held, LockAll, an
// uncompleted Start or unwaited Post), or nil. Finalize calls it first:
// it must not wait in its fence for processes that wait for such a
// window (another process waiting in Lock for a lock this process holds
// would never reach Finalize), and fails instead, leaving the process as
// it was; a program that then exits ends the job.
func (s *runtimeState) busyWindows() error {
	openWins.Lock()
	defer openWins.Unlock()
	var errs []error
	for w := range openWins.wins {
		if w.c.rt != s {
			continue
		}
		w.mu.Lock()
		busy := w.sync.busy()
		w.mu.Unlock()
		if busy != "" {
			errs = append(errs, fmt.Errorf("%v: %s (end the epoch first): %w", w, busy, ErrRMASync))
		}
	}
	return errors.Join(errs...)
}
