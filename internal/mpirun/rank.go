package mpirun

import (
	"bytes"
	"fmt"
	"sync"
	"syscall"

	"github.com/rhinet-go/martini/llc/launch"
)

// rank is mpirun's view of a rank of the job: on this host a process it
// started (see job.startLocal), or in a job across hosts a process that
// the agent of its host started and reports on (see hostAgent).
type rank struct {
	id   int
	host string // its host in a job across hosts, "" on this host only
	pid  int    // 0 until it started (under job.mu)
	// departure is set when it exited with status 0 without MPI Finalize
	// (under job.mu).
	departure *failure

	mu        sync.Mutex
	panicLine string // first "panic:" or "fatal error:" line of its stderr
}

// String names the rank in mpirun's messages: "rank 3 (pid 1234)", with
// its host in a job across hosts: "rank 3 (pid 1234 on b)".
// A rank whose pid its agent has not reported yet has none: "rank 3 (on b)".
func (r *rank) String() string {
	switch {
	case r.host == "":
		return fmt.Sprintf("rank %d (pid %d)", r.id, r.pid)
	case r.pid == 0:
		return fmt.Sprintf("rank %d (on %s)", r.id, r.host)
	}
	return fmt.Sprintf("rank %d (pid %d on %s)", r.id, r.pid, r.host)
}

var (
	panicPrefix = []byte("panic: ")
	fatalPrefix = []byte("fatal error: ")
)

// inspectStderr remembers the first line that shows a Go panic or fatal
// runtime error.
func (r *rank) inspectStderr(line []byte) {
	if !bytes.HasPrefix(line, panicPrefix) && !bytes.HasPrefix(line, fatalPrefix) {
		return
	}
	r.mu.Lock()
	if r.panicLine == "" {
		r.panicLine = string(line)
	}
	r.mu.Unlock()
}

// judge records how rank r ended, if that is a failure: with wait status
// ws, having recorded state (launch.RankState).
func (j *job) judge(r *rank, ws syscall.WaitStatus, state launch.RankState) {
	if j.opts.verbose {
		j.out.logf("%v: %s", r, describeStatus(ws))
	}
	switch {
	case ws.Signaled():
		s := ws.Signal()
		j.fail(fmt.Sprintf("%v was killed by %s", r, signalName(s)), 128+int(s), causeCrash)
	case ws.ExitStatus() != 0:
		code := ws.ExitStatus()
		r.mu.Lock()
		p := r.panicLine
		r.mu.Unlock()
		if p != "" {
			j.fail(fmt.Sprintf("%v panicked (exit status %d): %s", r, code, p), code, causeCrash)
		} else {
			j.fail(fmt.Sprintf("%v exited with status %d", r, code), code, causeExit)
		}
	default:
		j.depart(r, state)
	}
}

// describeStatus says how a process with wait status ws ended.
func describeStatus(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}
