package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
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
	seg  *martini.Job
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
	seg, err := martini.CreateJob(martini.JobConfig{Procs: opts.np, PGID: pgid, Profile: opts.profile})
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
	f, err := openRankFiles()
	if err != nil {
		return err
	}
	cmd := exec.Command(j.path, j.opts.args...)
	cmd.Env = append(settingsEnv(j.opts.settings),
		launch.EnvRank+"="+strconv.Itoa(i),
		launch.EnvSize+"="+strconv.Itoa(j.opts.np),
		launch.EnvPGID+"="+launch.FormatPGID(j.seg.PGID()),
		launch.EnvSegmentFD+"="+strconv.Itoa(launch.SegmentFD),
		launch.EnvStoreFD+"="+strconv.Itoa(launch.StoreFD),
	)
	cmd.Stdout = f.outW
	cmd.Stderr = f.errW
	cmd.ExtraFiles = []*os.File{j.seg.File(), f.store} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	r := &rank{id: i, cmd: cmd, drained: make(chan struct{}), pipes: []*os.File{f.outR, f.errR}}
	// Hold j.mu so that an Abort arriving before the pid is known waits.
	j.mu.Lock()
	err = cmd.Start()
	if err == nil {
		r.pid = cmd.Process.Pid
		j.ranks = append(j.ranks, r)
	}
	j.mu.Unlock()
	f.closeRankEnds()
	if err != nil {
		f.closeOwnEnds()
		return err
	}
	if j.opts.verbose {
		j.out.logf("rank %d: pid %d", i, r.pid)
	}

	go func() {
		if err := j.srv.Serve(i, f.conn); err != nil && j.opts.verbose && !errors.Is(err, datastore.ErrServerClosed) {
			j.out.logf("rank %d: %v", i, err)
		}
	}()
	j.forward(r)
	j.wg.Add(1)
	go j.wait(r)
	return nil
}

// forward forwards the output of rank r until its pipes are at EOF, and
// then closes r.drained.
func (j *job) forward(r *rank) {
	var fwd sync.WaitGroup
	fwd.Add(2)
	go func() {
		defer fwd.Done()
		j.out.forward(r.pipes[0], j.out.stdout, r.id, nil)
	}()
	go func() {
		defer fwd.Done()
		j.out.forward(r.pipes[1], j.out.stderr, r.id, r.inspectStderr)
	}()
	go func() {
		fwd.Wait()
		close(r.drained)
	}()
}

// rankFiles are the files of a rank being started: both ends of its
// data-store socket and of its stdout and stderr pipes.
type rankFiles struct {
	conn, store            *os.File // mpirun's end of the socket, the rank's
	outR, outW, errR, errW *os.File
}

func openRankFiles() (*rankFiles, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("data-store socket: %w", err)
	}
	// mpirun's end is non-blocking, so that the runtime's poller serves it.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("data-store socket: %w", err)
	}
	f := &rankFiles{conn: os.NewFile(uintptr(fds[0]), "datastore-server"), store: os.NewFile(uintptr(fds[1]), "datastore-rank")}
	if f.outR, f.outW, err = os.Pipe(); err != nil {
		f.closeRankEnds()
		f.closeOwnEnds()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if f.errR, f.errW, err = os.Pipe(); err != nil {
		f.closeRankEnds()
		f.closeOwnEnds()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	return f, nil
}

// closeRankEnds closes the ends the rank inherits, once it has started (or
// failed to).
func (f *rankFiles) closeRankEnds() {
	for _, e := range []*os.File{f.store, f.outW, f.errW} {
		if e != nil {
			e.Close()
		}
	}
}

// closeOwnEnds closes mpirun's ends, when the rank could not start.
func (f *rankFiles) closeOwnEnds() {
	for _, e := range []*os.File{f.conn, f.outR, f.errR} {
		if e != nil {
			e.Close()
		}
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
