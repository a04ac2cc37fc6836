package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
	"golang.org/x/sys/unix"
)

// Timing of the job's end.
const (
	// termGrace is how long ranks get between SIGTERM and SIGKILL.
	termGrace = 300 * time.Millisecond
	// reapTimeout bounds the wait for killed ranks to be reaped.
	reapTimeout = 5 * time.Second
	// drainTimeout bounds the wait for a rank's output after it exited
	// (its descendants may keep the pipes open).
	drainTimeout = 2 * time.Second
)

// Exit codes of mpirun for failures that are not a rank's own status.
const (
	exitFailure = 1   // a rank failed without a status of its own to report
	exitTimeout = 124 // -timeout expired (as timeout(1))
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
type cause int

const (
	causeExit     cause = iota + 1 // non-zero exit status
	causeNoFinal                   // exit without MPI Finalize
	causeCrash                     // panic or signal
	causeAbort                     // MPI Abort
	causeLauncher                  // mpirun itself: start failure, signal, timeout
)

// failGrace is how long mpirun collects failures after the first before it
// names one and kills the remaining ranks.
const failGrace = 100 * time.Millisecond

// job supervises the ranks of one run.
type job struct {
	opts *options
	path string // the executable
	out  *output
	seg  *nicemu.Segment
	srv  *datastore.Server

	ranks []*rank
	wg    sync.WaitGroup // one per started rank, done once it is reaped

	mu     sync.Mutex
	first  *failure      // the failure to report
	frozen bool          // first is final: later failures are effects
	failed chan struct{} // closed when first is set
}

// rank is one process of the job.
type rank struct {
	id      int
	cmd     *exec.Cmd
	pid     int
	drained chan struct{} // closed when its stdout and stderr are at EOF
	pipes   []*os.File    // read ends of stdout and stderr

	mu        sync.Mutex
	panicLine string // first "panic:" or "fatal error:" line of its stderr
}

// runJob runs the job described by opts with the executable path, and
// returns mpirun's exit status. ctx is cancelled when mpirun is signalled;
// sig then reports the signal. The job is killed at deadline, unless it
// is zero.
func runJob(ctx context.Context, sig func() os.Signal, deadline time.Time, opts *options, path string, out *output) int {
	pgid := launch.RandomPGID()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: opts.np, PGID: pgid, Profile: opts.profile})
	if err != nil {
		out.logf("%v", err)
		return exitFailure
	}
	defer seg.Close()
	j := &job{
		opts:   opts,
		path:   path,
		out:    out,
		seg:    seg,
		srv:    datastore.NewServer(opts.np),
		failed: make(chan struct{}),
	}
	defer j.srv.Close()
	j.srv.OnAbort = j.abort
	if opts.verbose {
		out.logf("job %s: %d ranks of %s, segment of %d bytes", launch.FormatPGID(pgid), opts.np, path, seg.Size())
	}

	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	for i := range opts.np {
		if ctx.Err() != nil || j.hasFailed() {
			break
		}
		if err := j.start(i); err != nil {
			j.fail(fmt.Sprintf("rank %d: cannot start %s: %v", i, path, err), exitFailure, causeLauncher)
		}
	}
	all := make(chan struct{})
	go func() {
		j.wg.Wait()
		close(all)
	}()

	select {
	case <-all:
	case <-j.failed:
	case <-ctx.Done():
		s := sig()
		j.fail(fmt.Sprintf("received %s; killing all ranks", signalName(s)), 128+signalNumber(s), causeLauncher)
	case <-timeout:
		j.fail(fmt.Sprintf("job did not end within -timeout %v; killing all ranks", opts.timeout), exitTimeout, causeLauncher)
	}
	if j.hasFailed() {
		select { // let the failures that come together arrive
		case <-all:
		case <-time.After(failGrace):
		}
		j.mu.Lock()
		j.frozen = true
		j.mu.Unlock()
		j.killAll(all)
	}
	select {
	case <-all:
	case <-time.After(reapTimeout):
		out.logf("some ranks could not be reaped after SIGKILL; giving up")
	}

	j.mu.Lock()
	f := j.first
	j.mu.Unlock()
	if f == nil {
		return 0
	}
	out.logf("%s", f.msg)
	return f.code
}

// start starts rank i.
func (j *job) start(i int) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("data-store socket: %w", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "datastore-server")
	theirs := os.NewFile(uintptr(fds[1]), "datastore-rank")
	defer theirs.Close()
	conn, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return fmt.Errorf("data-store socket: %w", err)
	}

	outR, outW, err := os.Pipe()
	if err != nil {
		conn.Close()
		return fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		conn.Close()
		outR.Close()
		outW.Close()
		return fmt.Errorf("stderr pipe: %w", err)
	}

	cmd := exec.Command(j.path, j.opts.args...)
	cmd.Env = append(settingsEnv(j.opts.settings),
		launch.EnvRank+"="+strconv.Itoa(i),
		launch.EnvSize+"="+strconv.Itoa(j.opts.np),
		launch.EnvPGID+"="+launch.FormatPGID(j.seg.PGID()),
		launch.EnvSegmentFD+"="+strconv.Itoa(launch.SegmentFD),
		launch.EnvStoreFD+"="+strconv.Itoa(launch.StoreFD),
	)
	cmd.Stdout = outW
	cmd.Stderr = errW
	cmd.ExtraFiles = []*os.File{j.seg.File(), theirs} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	r := &rank{id: i, cmd: cmd, drained: make(chan struct{}), pipes: []*os.File{outR, errR}}
	// Hold j.mu so that an Abort arriving before the pid is known waits.
	j.mu.Lock()
	err = cmd.Start()
	if err == nil {
		r.pid = cmd.Process.Pid
		j.ranks = append(j.ranks, r)
	}
	j.mu.Unlock()
	outW.Close()
	errW.Close()
	if err != nil {
		conn.Close()
		outR.Close()
		errR.Close()
		return err
	}
	if j.opts.verbose {
		j.out.logf("rank %d: pid %d", i, r.pid)
	}

	go func() {
		if err := j.srv.Serve(i, conn); err != nil && j.opts.verbose && !errors.Is(err, datastore.ErrServerClosed) {
			j.out.logf("rank %d: %v", i, err)
		}
	}()
	var fwd sync.WaitGroup
	fwd.Add(2)
	go func() {
		defer fwd.Done()
		j.out.forward(outR, j.out.stdout, i, nil)
	}()
	go func() {
		defer fwd.Done()
		j.out.forward(errR, j.out.stderr, i, r.inspectStderr)
	}()
	go func() {
		fwd.Wait()
		close(r.drained)
	}()
	j.wg.Add(1)
	go j.wait(r)
	return nil
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

// wait reaps rank r and records whether it failed.
func (j *job) wait(r *rank) {
	defer j.wg.Done()
	r.cmd.Wait()
	select {
	case <-r.drained:
	case <-time.After(drainTimeout):
		// A descendant keeps the pipes open; stop forwarding its output.
		for _, p := range r.pipes {
			p.Close()
		}
		<-r.drained
	}
	for _, p := range r.pipes {
		p.Close()
	}
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
		switch state := j.seg.ProcState(r.id); state {
		case nicemu.ProcAttached, nicemu.ProcInitialized:
			j.fail(fmt.Sprintf("rank %d (pid %d) exited without calling MPI Finalize (its NIC was %s)", r.id, r.pid, state), exitFailure, causeNoFinal)
		}
	}
}

// abort is called by the data store when a rank calls MPI Abort.
func (j *job) abort(a datastore.AbortRequest) {
	j.mu.Lock()
	pid := 0
	for _, r := range j.ranks {
		if r.id == a.Rank {
			pid = r.pid
		}
	}
	j.mu.Unlock()
	code := a.Code & 0xff
	if code == 0 {
		code = exitFailure
	}
	msg := fmt.Sprintf("rank %d (pid %d) called MPI Abort with error code %d", a.Rank, pid, a.Code)
	if a.Msg != "" {
		msg += ": " + a.Msg
	}
	j.fail(msg, code, causeAbort)
}

// fail records a failure of the job. The first one starts the end of the
// job; until the report is frozen, a later one with a more telling cause
// replaces it.
func (j *job) fail(msg string, code int, c cause) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.frozen:
	case j.first == nil:
		j.first = &failure{msg: msg, code: code, prio: c}
		close(j.failed)
	case c > j.first.prio:
		j.first = &failure{msg: msg, code: code, prio: c}
	}
}

func (j *job) hasFailed() bool {
	select {
	case <-j.failed:
		return true
	default:
		return false
	}
}

// killAll ends every rank: SIGTERM to their process groups, then SIGKILL
// to those still there after termGrace. all is closed once every rank has
// been reaped.
func (j *job) killAll(all <-chan struct{}) {
	j.signalAll(unix.SIGTERM)
	select {
	case <-all:
		return
	case <-time.After(termGrace):
	}
	j.signalAll(unix.SIGKILL)
}

func (j *job) signalAll(s unix.Signal) {
	j.mu.Lock()
	ranks := append([]*rank(nil), j.ranks...)
	j.mu.Unlock()
	for _, r := range ranks {
		// The rank leads its own process group, which takes its
		// descendants down too. A group that is gone is not an error.
		if err := unix.Kill(-r.pid, s); err != nil && !errors.Is(err, unix.ESRCH) {
			j.out.logf("rank %d (pid %d): %s: %v", r.id, r.pid, unix.SignalName(s), err)
		}
	}
}

func signalName(s os.Signal) string {
	if us, ok := s.(syscall.Signal); ok {
		if name := unix.SignalName(us); name != "" {
			return fmt.Sprintf("%s (signal %d)", name, int(us))
		}
		return fmt.Sprintf("signal %d", int(us))
	}
	return s.String()
}

func signalNumber(s os.Signal) int {
	if us, ok := s.(syscall.Signal); ok {
		return int(us)
	}
	return int(syscall.SIGTERM)
}
