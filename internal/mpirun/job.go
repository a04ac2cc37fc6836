package mpirun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
	// stdin is mpirun's standard input, for the rank of -stdin (nil: none).
	stdin io.Reader
	out   *output
	srv   *datastore.Server
	// seg is the segment of a job on this host; nil across hosts, and for
	// a job whose ranks open no NIC (-transport tcp).
	seg *martini.Job
	// pgid is the job key.
	pgid uint64
	// placement is the ranks' launch.EnvCPUs variable, chosen once for
	// them all (launch.PlacementEnv).
	placement string
	// hosts are the agents of a job across hosts; nil on this host.
	hosts *hostsJob
	// procs are the ranks on this host, or the agents' launch commands.
	procs procSet

	ranks []*rank
	// wg has one per started rank on this host, or per started agent,
	// done once it is reaped.
	wg sync.WaitGroup

	mu     sync.Mutex
	first  *failure      // the failure to report
	mpi    bool          // a rank was seen to begin MPI Init
	frozen bool          // first is final: later failures are effects
	failed chan struct{} // closed when first is set
}

// runJob runs the job described by opts with the executable path, and
// returns mpirun's exit status. ctx is cancelled when mpirun is signalled;
// sig then reports the signal. The job is killed at deadline, unless it
// is zero.
func runJob(ctx context.Context, sig func() os.Signal, deadline time.Time, opts *options, path string, stdin io.Reader, out *output) int {
	j := &job{
		opts:   opts,
		path:   path,
		stdin:  stdin,
		out:    out,
		srv:    datastore.NewServer(opts.np),
		failed: make(chan struct{}),
	}
	j.procs.logf = out.logf
	defer j.srv.Close()
	j.srv.OnAbort = j.abort

	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	if opts.hosts != nil {
		h, err := j.startHosts()
		if err != nil {
			out.logf("%v", err)
			return exitFailure
		}
		defer h.close()
	} else {
		if err := j.startLocal(ctx); err != nil {
			out.logf("%v", err)
			return exitFailure
		}
		if j.seg != nil {
			defer j.seg.Close()
		}
	}
	return j.supervise(ctx, sig, timeout)
}

// supervise waits until every rank has ended, or the job fails, mpirun
// is signalled (ctx is cancelled, sig tells the signal) or timeout fires;
// then it kills what is left and returns mpirun's exit status.
func (j *job) supervise(ctx context.Context, sig func() os.Signal, timeout <-chan time.Time) int {
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
		j.fail(fmt.Sprintf("job did not end within %s %v; killing all ranks", j.opts.timeoutBy, j.opts.timeout), exitTimeout, causeLauncher)
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
		j.out.logf("some ranks could not be reaped after SIGKILL; giving up")
	}

	f := j.outcome()
	if f == nil {
		return 0
	}
	j.out.logf("%s", f.msg)
	return f.code
}

// killAll ends every rank; all is closed once every one has been reaped.
func (j *job) killAll(all <-chan struct{}) {
	if j.hosts != nil {
		j.hosts.stop(all)
		return
	}
	j.procs.killAll(all)
}

// startLocal creates the job's segment on this host, unless its ranks
// open no NIC (-transport tcp), and starts the ranks (unless mpirun is
// signalled, which cancels ctx, or the job fails meanwhile). The caller
// closes the segment (j.seg).
func (j *job) startLocal(ctx context.Context) error {
	j.pgid = launch.RandomPGID()
	if j.opts.opensNIC() {
		seg, err := martini.CreateJob(martini.JobConfig{Procs: j.opts.np, PGID: j.pgid, Profile: j.opts.profile, Clock: j.opts.clock, HostSpeed: j.opts.hostSpeed,
			Compute: j.opts.compute, OpRate: j.opts.opRate})
		if err != nil {
			return err
		}
		j.seg = seg
		if j.opts.verbose {
			j.out.logf("job %s: %d ranks of %s, segment of %d bytes", launch.FormatPGID(j.pgid), j.opts.np, j.path, seg.Size())
		}
	}
	j.placement = launch.PlacementEnv(j.opts.np, j.opts.settings.Bind)
	if cpus, _ := strings.CutPrefix(j.placement, launch.EnvCPUs+"="); cpus != "" && j.opts.verbose {
		j.out.logf("ranks pin themselves to CPUs %s, in rank order", cpus)
	}
	for i := range j.opts.np {
		if ctx.Err() != nil || j.hasFailed() {
			break
		}
		if err := j.start(i); err != nil {
			j.fail(fmt.Sprintf("rank %d: cannot start %s: %v", i, j.path, err), exitFailure, causeLauncher)
		}
	}
	return nil
}

// opensNIC reports whether the job's ranks open the Martini NIC, and so
// need a segment: not when -transport tcp has every pair talk over TCP.
func (o *options) opensNIC() bool { return o.settings.Transport != launch.TransportTCP }

// rankFiles returns the environment variables and the files (from fd 3)
// by which a rank of this host inherits the segment, if any, and its
// end of the data-store socket store.
func (j *job) rankFiles(store *os.File) ([]string, []*os.File) {
	if j.seg == nil {
		return []string{launch.EnvStoreFD + "=" + strconv.Itoa(launch.SegmentFD)}, []*os.File{store} // fd 3
	}
	return []string{launch.EnvSegmentFD + "=" + strconv.Itoa(launch.SegmentFD), launch.EnvStoreFD + "=" + strconv.Itoa(launch.StoreFD)},
		[]*os.File{j.seg.File(), store} // fds 3 and 4
}

// start starts rank i on this host.
func (j *job) start(i int) error {
	conn, store, err := storeSocket()
	if err != nil {
		return err
	}
	cmd := j.rankCommand(i, store)
	if i == j.opts.stdinRank && j.stdin != nil {
		in, err := forwardStdin(j.stdin)
		if err != nil {
			conn.Close()
			store.Close()
			return err
		}
		defer in.Close() // the rank has its own copy once started
		cmd.Stdin = in
	}
	p, err := newProc(fmt.Sprintf("rank %d", i), cmd, syscall.SIGKILL)
	if err != nil {
		conn.Close()
		store.Close()
		return err
	}

	r := &rank{id: i}
	err = j.startRank(p, r)
	store.Close()
	if err != nil {
		conn.Close()
		return err
	}
	if j.opts.verbose {
		j.out.logf("rank %d: pid %d", i, r.pid)
	}
	j.superviseRank(i, conn, p, r)
	return nil
}

// rankCommand returns the command of rank i: the program with its
// arguments and working directory, and the environment and inherited
// files (the segment, if any, and store, its end of the data-store
// socket) by which the rank learns its place in the job.
func (j *job) rankCommand(i int, store *os.File) *exec.Cmd {
	cmd := exec.Command(j.path, j.opts.args...)
	cmd.Dir = j.opts.wdir
	vars, files := j.rankFiles(store)
	cmd.Env = append(append(append(settingsEnv(j.opts.settings), j.opts.exports...),
		launch.EnvRank+"="+strconv.Itoa(i),
		launch.EnvSize+"="+strconv.Itoa(j.opts.np),
		launch.EnvPGID+"="+launch.FormatPGID(j.pgid),
		j.placement,
	), vars...)
	cmd.ExtraFiles = files
	return cmd
}

// startRank starts p, the process of rank r, and adds both to the job.
// It holds j.mu meanwhile, so that an Abort arriving before the pid is
// known waits.
func (j *job) startRank(p *process, r *rank) error {
	j.mu.Lock()
	err := p.start()
	if err == nil {
		r.pid = p.pid
		j.ranks = append(j.ranks, r)
		j.procs.add(p)
	}
	j.mu.Unlock()
	return err
}

// superviseRank follows rank i once started as p: it serves the data
// store on conn, forwards the rank's output and, once the rank has been
// reaped, judges how it ended, each in goroutines of their own.
func (j *job) superviseRank(i int, conn *os.File, p *process, r *rank) {
	go func() {
		if err := j.srv.Serve(i, conn); err != nil && j.opts.verbose && !errors.Is(err, datastore.ErrServerClosed) {
			j.out.logf("rank %d: %v", i, err)
		}
	}()
	p.read(func(out io.Reader) {
		j.out.forward(out, streamStdout, i, nil)
	}, func(errs io.Reader) {
		j.out.forward(errs, streamStderr, i, r.inspectStderr)
	})
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		ws := p.wait(&j.procs)
		j.judge(r, ws, j.rankState(i))
	}()
}

// storeSocket returns both ends of a rank's data-store socket: mpirun's,
// non-blocking so that the runtime's poller serves it, and the rank's.
func storeSocket() (conn, store *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("data-store socket: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("data-store socket: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "datastore-server"), os.NewFile(uintptr(fds[1]), "datastore-rank"), nil
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
