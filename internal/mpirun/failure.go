package mpirun

import (
	"fmt"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
)

// failure is how a job failed.
type failure struct {
	msg  string // printed as "mpirun: " + msg
	code int    // mpirun's exit status
	prio cause  // how likely it is the root cause
}

// cause ranks failures that arrive together: when a rank dies, the others
// often fail because of it (their Finalize loses a peer and they exit 1)
// and may be reaped first, so mpirun names the most telling failure seen
// within failGrace of the first.
//
// A rank that leaves the job with status 0 without MPI Finalize (before MPI
// Init, or after it) did so of its own accord, and the ranks that waited
// for it fail afterwards, whatever they then do: panic, Abort, exit. When
// its departure broke the data store (it was gone before anyone else), it
// is the failure reported, however late it is reaped (see outcome).
type cause int

const (
	causeExit     cause = iota + 1 // non-zero exit status
	causeDeparted                  // exit with status 0 without MPI Finalize
	causeCrash                     // panic or signal
	causeAbort                     // MPI Abort
	causeLauncher                  // mpirun itself: start failure, signal, timeout
)

// failGrace is how long mpirun collects failures after the first before it
// names one and kills the remaining ranks.
const failGrace = 100 * time.Millisecond

// fail records a failure of the job. The first one starts the end of the
// job; until the report is frozen, a later one with a more telling cause
// replaces it.
func (j *job) fail(msg string, code int, c cause) {
	j.mu.Lock()
	defer j.mu.Unlock()
	f := &failure{msg: msg, code: code, prio: c}
	switch {
	case j.frozen:
	case j.first == nil:
		j.first = f
		close(j.failed)
	case c > j.first.prio:
		j.first = f
	}
}

// depart records that rank r exited with status 0 in state. A rank that
// began MPI Init without finalizing has failed. One that never began may
// be no MPI program at all (mpirun -np 2 hostname): it has failed only if
// another rank uses MPI, which may not show yet (see outcome).
func (j *job) depart(r *rank, state launch.RankState) {
	var msg string
	switch state {
	case launch.RankStarted, launch.RankInitialized:
		msg = fmt.Sprintf("%v exited without calling MPI Finalize (MPI was %s)", r, state)
	case launch.RankNotStarted:
		msg = fmt.Sprintf("%v exited with status 0 before calling MPI Init", r)
	default:
		return
	}
	j.mu.Lock()
	r.departure = &failure{msg: msg, code: exitFailure, prio: causeDeparted}
	failed := state != launch.RankNotStarted || j.usesMPI()
	j.mu.Unlock()
	if failed {
		j.fail(msg, exitFailure, causeDeparted)
	}
}

// usesMPI reports whether a rank of the job has begun MPI Init; j.mu
// must be held.
func (j *job) usesMPI() bool {
	for i := 0; !j.mpi && i < j.opts.np; i++ {
		j.mpi = j.rankState(i) != launch.RankNotStarted
	}
	return j.mpi
}

// rankState returns how far rank i got with MPI, as it recorded in the
// data store (launch.Job.SetState), on this host or another.
func (j *job) rankState(i int) launch.RankState {
	return launch.ParseRankState(j.srv.Value(launch.StateKey(i)))
}

// outcome returns the failure to report once the ranks are gone, or nil
// if the job succeeded. A departure that broke the data store comes
// first: the failures of the ranks waiting for the one that left follow
// from it, even when they were reaped before it. Only when mpirun itself
// ended the job (a signal, -timeout) may the departure have answered its
// SIGTERM.
func (j *job) outcome() *failure {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.first != nil && j.first.prio == causeLauncher {
		return j.first
	}
	if q, ok := j.srv.LostRank(); ok && q < len(j.ranks) && j.ranks[q].departure != nil && j.usesMPI() {
		return j.ranks[q].departure
	}
	return j.first
}

func (j *job) hasFailed() bool {
	select {
	case <-j.failed:
		return true
	default:
		return false
	}
}

// abort is called by the data store when a rank calls MPI Abort.
func (j *job) abort(a datastore.AbortRequest) {
	j.mu.Lock()
	who := fmt.Sprintf("rank %d", a.Rank)
	if a.Rank >= 0 && a.Rank < len(j.ranks) {
		who = j.ranks[a.Rank].String()
	}
	j.mu.Unlock()
	code := a.Code & 0xff
	if code == 0 {
		code = exitFailure
	}
	msg := fmt.Sprintf("%s called MPI Abort with error code %d", who, a.Code)
	if a.Msg != "" {
		msg += ": " + a.Msg
	}
	j.fail(msg, code, causeAbort)
}
