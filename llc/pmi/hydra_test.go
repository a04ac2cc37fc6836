package pmi

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
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// hydraTimeout bounds a Hydra job of the tests; the jobs take a fraction
// of a second. It is a guard against a hang, not a speed target.
const hydraTimeout = 60 * time.Second

// TestHydra runs testdata/kvs under MPICH's mpiexec.hydra with both
// protocols: jobs of 3 and of 1 process that put, collect, get, fence
// (checking that the fence waits for every process) and close; and jobs in which a process aborts while the others wait in a
// fence, which Hydra must end with a non-zero exit.
func TestHydra(t *testing.T) {
	hydra, err := exec.LookPath("mpiexec.hydra")
	if err != nil {
		t.Skip("mpiexec.hydra is not installed (Debian package mpich): the Hydra tests need it")
	}
	if testing.Short() {
		t.Skip("builds a program and starts Hydra jobs")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kvs")
	var out bytes.Buffer
	if err := mpirunbuild.GoBuild(context.Background(), mpirunbuild.Spec{
		Pkg: "./testdata/kvs", Out: bin, Work: dir, Stdout: &out, Stderr: &out,
	}); err != nil {
		t.Fatalf("%v\n%s", err, out.Bytes())
	}
	for _, version := range []int{1, 2} {
		for _, n := range []int{3, 1} {
			t.Run(fmt.Sprintf("pmi-%d/n=%d", version, n), func(t *testing.T) {
				stdout, stderr, err := runHydra(t, hydra, version, n, bin, "-mark", t.TempDir())
				if err != nil {
					t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
				}
				for r := range n {
					line := fmt.Sprintf("rank %d of %d: pmi-%d ok\n", r, n, version)
					if !strings.Contains(stdout, line) {
						t.Errorf("no line %q in the output:\n%s\nstderr:\n%s", line, stdout, stderr)
					}
				}
			})
		}
		t.Run(fmt.Sprintf("pmi-%d/abort", version), func(t *testing.T) {
			stdout, stderr, err := runHydra(t, hydra, version, 3, bin, "-abort", "1")
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
				t.Fatalf("job with an Abort: %v, want a non-zero exit\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			// PMI-1 carries the code, and Hydra exits with it.
			if version == 1 && exit.ExitCode() != 7 {
				t.Errorf("exit code %d, want the Abort's 7\nstderr:\n%s", exit.ExitCode(), stderr)
			}
			if strings.Contains(stderr, "fence returned") {
				t.Errorf("a process left its fence instead of being ended:\n%s", stderr)
			}
		})
	}
}

// runHydra runs mpiexec.hydra -n n bin args with MARTINI_PMI=version and
// returns its output and how it ended. Whatever happens, none of the
// job's processes is left when it returns.
func runHydra(t *testing.T, hydra string, version, n int, bin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hydraTimeout)
	defer cancel()
	cmd := hydraCmd(ctx, hydra, version, n, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("Hydra job still running after %v: %w (killed)", hydraTimeout, err)
	}
	return stdout.String(), stderr.String(), err
}

// hydraCmd returns the command mpiexec.hydra -n n prog args, with
// MARTINI_PMI=version. Cancelling ctx kills its process group and every
// process of the job.
func hydraCmd(ctx context.Context, hydra string, version, n int, prog string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, hydra, append([]string{"-n", strconv.Itoa(n), prog}, args...)...)
	cmd.Env = append(jobEnv(), EnvVersion+"="+strconv.Itoa(version))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Hydra's proxies and ranks lead sessions of their own, out of the
	// group: find them while mpiexec still is their ancestor.
	cmd.Cancel = func() error {
		killTree(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// jobEnv is the test's environment without PMI and MARTINI variables.
func jobEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PMI_") && !strings.HasPrefix(kv, "MARTINI_") {
			env = append(env, kv)
		}
	}
	return env
}

// killTree stops pid and its descendants, so that none starts more, and
// then kills them.
func killTree(pid int) {
	tree := []int{pid}
	for seen := 0; seen < len(tree); {
		for _, p := range tree[seen:] {
			syscall.Kill(p, syscall.SIGSTOP)
		}
		seen = len(tree)
		tree = append([]int{pid}, descendants(pid)...)
	}
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants returns the processes below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		p, parent, _, ok := procStat(path)
		if ok {
			children[parent] = append(children[parent], p)
		}
	}
	var tree []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			tree = append(tree, c)
			walk(c)
		}
	}
	walk(pid)
	return tree
}

// procStat reads a /proc/PID/stat file: pid (comm) state ppid ...
func procStat(path string) (pid, ppid int, state string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return 0, 0, "", false
	}
	rest := strings.Fields(s[end+1:])
	pid, err1 := strconv.Atoi(strings.TrimSpace(s[:open]))
	if len(rest) < 2 || err1 != nil {
		return 0, 0, "", false
	}
	ppid, err = strconv.Atoi(rest[1])
	return pid, ppid, rest[0], err == nil
}

// alive reports whether process p runs: it exists and is not a zombie.
func alive(p int) bool {
	_, _, state, ok := procStat(fmt.Sprintf("/proc/%d/stat", p))
	return ok && state != "Z"
}

// A Hydra job whose test gives up is ended whole: its ranks, Hydra's
// proxy and mpiexec.
func TestHydraKilled(t *testing.T) {
	hydra, err := exec.LookPath("mpiexec.hydra")
	if err != nil {
		t.Skip("mpiexec.hydra is not installed (Debian package mpich): the Hydra tests need it")
	}
	if testing.Short() {
		t.Skip("starts a Hydra job")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := hydraCmd(ctx, hydra, 1, 2, sleep, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until both ranks run: the proxy and its two sleeps.
	var tree []int
	for len(tree) < 3 {
		select {
		case err := <-done:
			t.Fatalf("Hydra ended (%v) before its ranks ran", err)
		case <-time.After(10 * time.Millisecond):
		}
		tree = descendants(cmd.Process.Pid)
	}
	cancel()
	<-done
	// A killed process that is not this one's child dies on its own time:
	// give it a while (a guard, not a speed target).
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range append(tree, cmd.Process.Pid) {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(p) {
			t.Errorf("process %d of the job still runs", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}
