// Package mpirun is the launcher behind the commands mpirun and mpiexec
// (go doc ./cmd/mpirun describes it): it parses the command line, builds
// the program when given a Go package, starts the ranks on this host or
// through agents on others, forwards their input and output, and judges
// how the job ended.
package mpirun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Main runs the launcher with the process's command line, standard
// streams and signals, and returns its exit status. The commands mpirun
// and mpiexec are this function; the hidden subcommand "agent" runs a
// host's agent of a job across hosts (see the command's documentation).
func Main() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if len(os.Args) == 2 && os.Args[1] == agentCommand {
		return runAgent(os.Stdin, os.Stdout, os.Stderr, sigs)
	}
	return run(os.Args[1:], stdinOf(os.Stdin), os.Stdout, os.Stderr, sigs)
}

// run is mpirun with command line args, standard input stdin (nil: none),
// output to stdout and stderr, and the signals it is to handle arriving on
// sigs (nil: none). It returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	opts, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errVersion):
		fmt.Fprintln(stdout, versionLine())
		return 0
	case err != nil:
		return 2
	}
	out := newOutput(stdout, stderr, opts.tagOutput)
	if out.files = opts.outputFiles; out.files != nil {
		defer out.files.close(out)
	}
	t, err := resolveProgram(opts.program)
	if err != nil {
		out.logf("%v", err)
		return exitFailure
	}

	ctx, sig, stop := watchSignals(sigs)
	defer stop()
	var deadline time.Time // -timeout bounds the build and the job together
	if opts.timeout > 0 {
		deadline = time.Now().Add(opts.timeout)
	}
	path := t.path
	if t.needsBuild() {
		// The executable and the build's temporary files live in a
		// directory of mpirun's own, removed however mpirun ends (but
		// by SIGKILL).
		dir, err := os.MkdirTemp("", "mpirun-")
		if err != nil {
			out.logf("build %v: %v", t, err)
			return exitFailure
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "prog")
		if code := buildProgram(ctx, sig, deadline, t, dir, path, opts, out); code != 0 {
			return code
		}
	}
	lib, code := useLibmpich(ctx, sig, deadline, path, opts, out)
	if lib != "" {
		defer os.RemoveAll(lib)
	}
	if code != 0 {
		return code
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the ranks may run in another directory (-wdir)
	}
	return runJob(ctx, sig, deadline, opts, path, stdin, out)
}

// buildProgram builds t into path, its temporary files in dir, and returns
// 0, or mpirun's exit status when the build failed, was interrupted by a
// signal (ctx is cancelled and sig tells which) or did not end by deadline.
func buildProgram(ctx context.Context, sig func() os.Signal, deadline time.Time, t target, dir, path string, opts *options, out *output) int {
	return runBuild(ctx, sig, deadline, opts, out, func(bctx context.Context) error {
		return build(bctx, t, dir, path, out.stderr, opts.verbose)
	})
}

// runBuild runs build under the job's deadline and returns mpirun's exit
// status for it: 0, a signal's or the timeout's status when one stopped
// it, or a failure with its error logged.
func runBuild(ctx context.Context, sig func() os.Signal, deadline time.Time, opts *options, out *output, build func(context.Context) error) int {
	bctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	err := build(bctx)
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		out.logf("received %s while building; stopped", signalName(sig()))
		return 128 + signalNumber(sig())
	case bctx.Err() != nil:
		out.logf("the build did not end within %s %v; stopped", opts.timeoutBy, opts.timeout)
		return exitTimeout
	}
	out.logf("%v", err)
	return exitFailure
}

// watchSignals returns a context that is cancelled when the first signal
// arrives on sigs, and a function reporting that signal.
func watchSignals(sigs <-chan os.Signal) (ctx context.Context, sig func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu  sync.Mutex
		got os.Signal
	)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			mu.Lock()
			got = s
			mu.Unlock()
			cancel()
		case <-done:
		}
	}()
	sig = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, sig, func() { close(done); cancel() }
}
