package mpirun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// process is a process that mpirun or an agent supervises: a rank, or the
// launch command of a host's agent. It leads a process group of its own,
// which its descendants share unless they leave it, and its stdout and
// stderr are pipes read by its supervisor.
type process struct {
	name    string // in messages: "rank 3", "the agent of host b"
	cmd     *exec.Cmd
	pid     int
	pipes   [2]*os.File   // the read ends of its stdout and stderr
	child   []*os.File    // the ends it inherits, closed once it started
	drained chan struct{} // closed when its output has been read (see read)
	ended   bool          // it exited and is about to be reaped (under procSet.mu)
}

// newProc prepares cmd to run as a process named name: its stdout and stderr
// on pipes, leading a process group of its own, and sent deathSig when
// the thread that started it ends (with mpirun, or the agent).
func newProc(name string, cmd *exec.Cmd, deathSig syscall.Signal) (*process, error) {
	p := &process{name: name, cmd: cmd, drained: make(chan struct{})}
	for i, what := range []string{"stdout", "stderr"} {
		r, w, err := os.Pipe()
		if err != nil {
			p.closeAll()
			return nil, fmt.Errorf("%s pipe: %w", what, err)
		}
		p.pipes[i] = r
		p.child = append(p.child, w)
	}
	cmd.Stdout, cmd.Stderr = p.child[0], p.child[1]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
	return p, nil
}

// start starts the process. The ends of the pipes it inherits are closed
// however that went, and the supervisor's ends too if it did not start.
func (p *process) start() error {
	err := p.cmd.Start()
	closeFiles(p.child)
	p.child = nil
	if err != nil {
		p.closeAll()
		return err
	}
	p.pid = p.cmd.Process.Pid
	return nil
}

func (p *process) closeAll() {
	closeFiles(p.child)
	closeFiles(p.pipes[:])
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// read runs stdout and stderr on the read ends of the pipes, each in a
// goroutine of its own, and closes p.drained once both have returned.
// Each is to read its pipe until it ends.
func (p *process) read(stdout, stderr func(io.Reader)) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		stdout(p.pipes[0])
	}()
	go func() {
		defer wg.Done()
		stderr(p.pipes[1])
	}()
	go func() {
		wg.Wait()
		close(p.drained)
	}()
}

// wait waits for the process to end, kills what is left of its process
// group (the descendants it left running), reaps it, waits for its output
// to be read (see drainTimeout) and returns its wait status. set learns
// that it ended before it is reaped, and logs what went wrong.
func (p *process) wait(set *procSet) syscall.WaitStatus {
	if err := p.endDescendants(); err != nil {
		set.logf("%s (pid %d): %v", p.name, p.pid, err)
	}
	// Once reaped, its pid may name another process: the set must leave
	// it alone from now on.
	set.mu.Lock()
	p.ended = true
	set.mu.Unlock()
	p.cmd.Wait()
	select {
	case <-p.drained:
	case <-time.After(drainTimeout):
		// A descendant that left the process group keeps the pipes
		// open; stop reading its output.
		closeFiles(p.pipes[:])
		<-p.drained
	}
	closeFiles(p.pipes[:])
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws
}

// endDescendants waits until the process has ended and kills what is
// left of its process group. The process is not reaped yet: as a zombie
// it keeps its process group's ID from being reused meanwhile.
func (p *process) endDescendants() error {
	var info unix.Siginfo
	var err error = unix.EINTR
	for errors.Is(err, unix.EINTR) {
		err = unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	}
	if err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	if err := unix.Kill(-p.pid, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("killing the processes it left: %w", err)
	}
	return nil
}

// procSet is the processes that are ended together: the ranks of a job
// on this host, or the agents of a job across hosts.
type procSet struct {
	logf func(format string, a ...any) // reports what went wrong

	mu    sync.Mutex
	procs []*process
}

// add adds p, which has started.
func (s *procSet) add(p *process) {
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
}

// killAll ends every process: SIGTERM to their process groups, then
// SIGKILL to those still there after termGrace. all is closed once every
// process has been reaped.
func (s *procSet) killAll(all <-chan struct{}) {
	s.signal(unix.SIGTERM)
	select {
	case <-all:
		return
	case <-time.After(termGrace):
	}
	s.signal(unix.SIGKILL)
}

// signal sends sig to the process groups of the processes that have not
// ended. (Those that have ended have no descendants left, and their pids
// may be reused once they are reaped.)
func (s *procSet) signal(sig unix.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if p.ended {
			continue
		}
		// The process leads its own process group, which takes its
		// descendants down too. A group that is gone is not an error.
		if err := unix.Kill(-p.pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
			s.logf("%s (pid %d): %s: %v", p.name, p.pid, unix.SignalName(sig), err)
		}
	}
}
