package llc

import "runtime"

// One goroutine of a process polls; the others that wait park.
//
// A process may have many goroutines waiting at once: one per nonblocking
// collective in flight (each runs its algorithm's steps as blocking
// point-to-point), besides the caller's Waitany. If each ran its own
// backoff, the one holding the processor would spin, yield the core with a
// system call that keeps the processor, or sleep in a futex that keeps it
// until the runtime's monitor takes it back (up to 10 ms when it has been
// idle), while the others, whose steps' data had come, could not run to
// send the next steps that other processes waited for. With processes
// outnumbering cores every step of every collective then waited for such
// turns. Instead the first waiter polls for all (its progress serves every
// operation of the engine), looks after each round at the parked waiters'
// operations, wakes those that are done and gives them the processor at
// once; when its own operation is done it hands the polling to a parked
// waiter.

// parked is a goroutine waiting in Endpoint.wait while another polls.
type parked struct {
	op   Completion
	wake chan struct{} // receives once: op is done, or the polling is handed over
	poll bool          // woken to poll, not because op is done
}

// park waits, with ep.mu held and released meanwhile, until another
// goroutine's polling finds op done (park returns true, op.Done having
// said so once: it is not asked again) or hands the polling over (false:
// the caller polls now).
func (ep *Endpoint) park(op Completion) bool {
	w := ep.freeParked.get()
	if w.wake == nil {
		w.wake = make(chan struct{}, 1)
	}
	w.op, w.poll = op, false
	ep.parked = append(ep.parked, w)
	ep.mu.Unlock()
	<-w.wake
	ep.mu.Lock()
	done := !w.poll
	w.op = nil
	ep.freeParked.put(w)
	return done
}

// wakeDone wakes the parked waiters whose operations are done and reports
// how many it woke. The caller holds ep.mu.
func (ep *Endpoint) wakeDone() int {
	woken := 0
	kept := ep.parked[:0]
	for _, w := range ep.parked {
		if w.op.Done() {
			w.wake <- struct{}{}
			woken++
			continue
		}
		kept = append(kept, w)
	}
	clear(ep.parked[len(kept):])
	ep.parked = kept
	return woken
}

// handOff ends the caller's polling: the parked waiters whose operations
// are done are woken, and the longest parked of the others polls next.
// The caller holds ep.mu.
func (ep *Endpoint) handOff() {
	if len(ep.parked) > 0 {
		ep.wakeDone()
	}
	if len(ep.parked) == 0 {
		ep.polling = false
		return
	}
	w := ep.parked[0]
	n := copy(ep.parked, ep.parked[1:])
	ep.parked[n] = nil
	ep.parked = ep.parked[:n]
	w.poll = true
	w.wake <- struct{}{}
}

// letRun gives the processor to the goroutines wakeDone woke, when there
// are any: with one processor for the process's goroutines, they would
// otherwise wait for the poller's next yield or sleep.
func letRun(woken int) {
	if woken > 0 {
		runtime.Gosched()
	}
}
