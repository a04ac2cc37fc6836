package main

import (
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
	mpi    bool          // a rank was seen attached to the NIC
	frozen bool          // first is final: later failures are effects
	failed chan struct{} // closed when first is set
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

	f := j.outcome()
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

// signalAll sends s to the process groups of the ranks that have not ended.
// (Those that have ended have no descendants left, and their pids may be
// reused once they are reaped.)
func (j *job) signalAll(s unix.Signal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.ranks {
		if r.ended {
			continue
		}
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
