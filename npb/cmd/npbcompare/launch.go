package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/npb"
)

// refMpirunDefault is the reference's launcher unless REF_MPIRUN names
// another (a command and its arguments, split at blanks).
const refMpirunDefault = "mpirun.openmpi"

// stopGrace is how long a launcher has, after SIGTERM on cancellation,
// to end its job before it is killed.
const stopGrace = 10 * time.Second

// launchers are the two sides' commands.
type launchers struct {
	refMpirun []string // the system MPI's mpirun and its arguments
	refDir    string   // the NPB3.4-MPI tree holding bin/BENCH.CLASS.x
	goMpirun  string   // this module's mpirun, built
	goNPB     string   // this module's npb command, built
}

// findRefMpirun returns the reference's launcher: REF_MPIRUN, or
// mpirun.openmpi, with --allow-run-as-root for root.
func findRefMpirun() ([]string, error) {
	args := strings.Fields(os.Getenv("REF_MPIRUN"))
	if len(args) == 0 {
		args = []string{refMpirunDefault}
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return nil, fmt.Errorf("the reference's mpirun %s: %w (install Open MPI: apt-get install openmpi-bin, or set REF_MPIRUN)", args[0], err)
	}
	args[0] = path
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	return args, nil
}

// refVersion is the first line of the reference launcher's --version.
func refVersion(ctx context.Context, mpirun []string) string {
	out, err := exec.CommandContext(ctx, mpirun[0], "--version").Output()
	if err != nil {
		return filepath.Base(mpirun[0]) + " (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// buildGo builds this module's mpirun and npb command into dir.
func buildGo(ctx context.Context, dir string) (mpirun, npbCmd string, err error) {
	if mpirun, err = mpirunbuild.Build(ctx, dir); err != nil {
		return "", "", err
	}
	npbCmd = filepath.Join(dir, "npb")
	var out bytes.Buffer
	err = mpirunbuild.GoBuild(ctx, mpirunbuild.Spec{Pkg: "github.com/rhinet-go/martini/npb/cmd/npb", Out: npbCmd, Work: dir, Stdout: &out, Stderr: &out, PGO: true})
	if err != nil {
		return "", "", fmt.Errorf("building the npb command (run inside the martini module): %w\n%s", err, out.Bytes())
	}
	return mpirun, npbCmd, nil
}

// command returns the command line of side's run of p.
func (l launchers) command(side string, p pair, bind string) []string {
	np := strconv.Itoa(p.NP)
	if side == bench.SideNPB {
		if bind == "core" { // Open MPI refuses to pin more ranks than cores without it
			bind = "core:overload-allowed"
		}
		return append(append([]string(nil), l.refMpirun...),
			"--oversubscribe", "--bind-to", bind, "-np", np, refBinary(l.refDir, p))
	}
	return []string{l.goMpirun, "-np", np, "-bind-to", bind, l.goNPB, "-class", p.Class, "-results", "", strings.ToLower(p.Benchmark)}
}

// runSide runs side's benchmark of p once and returns what its report
// said and the CPU time of the launcher and of the processes it waited
// for (its rusage: the ranks, which both launchers start and reap
// themselves on one host). A run that does not verify is an error naming
// it, with its output.
func (l launchers) runSide(ctx context.Context, side string, p pair, bind string, i int) (bench.NPBRun, error) {
	argv := l.command(side, p, bind)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Both launchers end their jobs on SIGTERM; SIGKILL would orphan the
	// ranks.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopGrace
	err := cmd.Run()
	what := fmt.Sprintf("%s run %d of %s class %s on %s", sideName(side), i, p.Benchmark, p.Class, processes(p.NP))
	if ctx.Err() != nil {
		return bench.NPBRun{}, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	run := bench.NPBRun{Benchmark: p.Benchmark, Class: p.Class, NP: p.NP, Side: side, Run: i, Bind: bind,
		CPUSeconds: cpuSeconds(cmd.ProcessState)}
	rep, perr := npb.ParseReport(out.Bytes())
	if perr == nil {
		perr = checkReport(rep, p.Benchmark, p.Class, p.NP)
	}
	switch {
	case perr != nil && err != nil:
		return run, fmt.Errorf("%s failed: %w (%s)\n%s", what, err, strings.Join(argv, " "), tail(out.String()))
	case perr != nil:
		return run, fmt.Errorf("%s: %w (%s)\n%s", what, perr, strings.Join(argv, " "), tail(out.String()))
	case !rep.Verified:
		return run, fmt.Errorf("%s %w (%s)\n%s", what, errUnverified, strings.Join(argv, " "), tail(out.String()))
	case err != nil:
		return run, fmt.Errorf("%s verified but failed: %w (%s)\n%s", what, err, strings.Join(argv, " "), tail(out.String()))
	}
	run.Seconds, run.Mops, run.Verified = rep.Seconds, rep.Mops, true
	return run, nil
}

// errUnverified marks the error of a run that did not verify.
var errUnverified = errors.New("did not verify")

// cpuSeconds is the user and system time of a finished process and of
// the processes it waited for (wait4's rusage).
func cpuSeconds(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// sideName names a side in messages.
func sideName(side string) string {
	if side == bench.SideNPB {
		return "NPB3.4-MPI"
	}
	return "Go"
}

// tail returns the last lines of a run's output, for an error.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 40 {
		lines = append([]string{"..."}, lines[len(lines)-40:]...)
	}
	return strings.Join(lines, "\n")
}
