package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// rank is one process of the job. It leads a process group of its own,
// which its descendants share unless they leave it.
type rank struct {
	id      int
	cmd     *exec.Cmd
	pid     int
	drained chan struct{} // closed when its stdout and stderr are at EOF
	pipes   []*os.File    // read ends of stdout and stderr
	ended   bool          // it exited and is about to be reaped (under job.mu)
	// departure is set when it exited with status 0 without MPI Finalize
	// (under job.mu).
	departure *failure

	mu        sync.Mutex
	panicLine string // first "panic:" or "fatal error:" line of its stderr
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

// wait waits for rank r to end, ends its descendants, and records whether
// the rank failed.
func (j *job) wait(r *rank) {
	defer j.wg.Done()
	if err := r.endDescendants(); err != nil {
		j.out.logf("rank %d (pid %d): %v", r.id, r.pid, err)
	}
	// Once reaped, its pid may name another process: signalAll must
	// leave it alone from now on.
	j.mu.Lock()
	r.ended = true
	j.mu.Unlock()
	r.cmd.Wait()
	select {
	case <-r.drained:
	case <-time.After(drainTimeout):
		// A descendant that left the rank's process group keeps the
		// pipes open; stop forwarding its output.
		for _, p := range r.pipes {
			p.Close()
		}
		<-r.drained
	}
	for _, p := range r.pipes {
		p.Close()
	}
	j.judge(r)
}

// endDescendants waits until the rank has ended and kills what is left of
// its process group: the descendants it left running, which would hold its
// output open and survive the job. The rank is not reaped yet: as a zombie
// it keeps its process group's ID from being reused meanwhile.
func (r *rank) endDescendants() error {
	var info unix.Siginfo
	var err error = unix.EINTR
	for errors.Is(err, unix.EINTR) {
		err = unix.Waitid(unix.P_PID, r.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	}
	if err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	if err := unix.Kill(-r.pid, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("killing the processes it left: %w", err)
	}
	return nil
}

// judge records how the reaped rank r ended, if that is a failure.
func (j *job) judge(r *rank) {
	st := r.cmd.ProcessState
	if j.opts.verbose {
		j.out.logf("rank %d (pid %d): %v", r.id, r.pid, st)
	}
	ws, _ := st.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		s := ws.Signal()
		j.fail(fmt.Sprintf("rank %d (pid %d) was killed by %s", r.id, r.pid, signalName(s)), 128+int(s), causeCrash)
	case ws.ExitStatus() != 0:
		code := ws.ExitStatus()
		r.mu.Lock()
		p := r.panicLine
		r.mu.Unlock()
		if p != "" {
			j.fail(fmt.Sprintf("rank %d (pid %d) panicked (exit status %d): %s", r.id, r.pid, code, p), code, causeCrash)
		} else {
			j.fail(fmt.Sprintf("rank %d (pid %d) exited with status %d", r.id, r.pid, code), code, causeExit)
		}
	default:
		j.depart(r, j.seg.State(r.id))
	}
}
