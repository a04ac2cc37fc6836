package llc

// Ready is one batch of the engine's output: what the driver does next.
// It is the engine's own, and views the engine's storage: valid until
// Advance.
type Ready struct {
	// Commands are the IR commands to issue, in order. Each one's
	// completion, and anything else the network reports meanwhile, goes
	// back in through Step; what that emits comes in a later batch.
	Commands []Command
	// Work is the host work done since the last batch (EagerPM and
	// EagerQueue), for a transport that charges it (HostCharger) to charge
	// before issuing the commands. Where work is counted, a batch holds at
	// most one command, so that the work charged before each command is
	// the work done before it.
	Work WorkCounts
	// Err is the fatal error that stopped the engine, if any: every
	// operation then completes with it. The first batch after the failure
	// reports it even without commands (HasReady).
	Err error
}

// HasReady reports whether Ready has something to do: commands to issue,
// host work to charge, or a failure not reported yet.
func (e *Engine) HasReady() bool {
	return e.sched.n != 0 || e.notice
}

// Ready returns the engine's next batch of output, which it keeps (a batch
// built and copied on every call would cost a message's path loads that
// wait for the stores just made). Calling it again before Advance hands
// out the batch again, grown by what was emitted since.
func (e *Engine) Ready() *Ready {
	rd := &e.ready
	rd.Commands, rd.Err = e.sched.take(e.batchLimit), e.err
	e.notice = false
	if e.countsWork {
		rd.Work = e.work
		e.readyWork = e.work
	}
	return rd
}

// Advance acknowledges the last batch of Ready: its commands were issued
// and its work charged.
func (e *Engine) Advance() {
	e.sched.drop()
	if e.countsWork {
		for k := range e.work {
			e.work[k] -= e.readyWork[k]
		}
		e.readyWork = WorkCounts{}
	}
}

// addWork counts n units of host work w, for the next batch to report.
func (e *Engine) addWork(w HostWork, n int) {
	e.work[w] += n
	if e.countsWork {
		e.notice = true
	}
}

// State is a snapshot of the engine, for the driver's waits and the
// statistics.
type State struct {
	// Err is the fatal error that stopped the engine, if any.
	Err error
	// Idle reports that the engine has no operation in flight that it is
	// responsible for advancing (used by Finalize): no command queued, no
	// send waiting, no rendezvous, no one-sided operation; in EagerPM
	// mode, also no start-up connection.
	Idle bool
	// Retrying reports that the engine's next Poll issues a request of its
	// own accord, with nothing new arrived: it retries a connection whose
	// slot another process held. In virtual time the process then does
	// not wait for data: it acts at its clock.
	Retrying bool
	// Stats are the engine's counters.
	Stats Counters
	// Unreceived are the messages waiting in the unexpected queue whose
	// senders wait for a receive to match them (rendezvous and
	// synchronous eager messages), in arrival order; valid until the next
	// State.
	Unreceived []Unreceived
}

// State returns a snapshot of the engine.
func (e *Engine) State() State {
	e.unrecv = e.unreceived(e.unrecv[:0])
	return State{Err: e.err, Idle: e.idle(), Retrying: e.retrying(), Stats: e.stats, Unreceived: e.unrecv}
}
