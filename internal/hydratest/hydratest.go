// Package hydratest helps tests run jobs under MPICH's mpiexec.hydra, a
// PMI launcher, and leaves none of a job's processes behind: Hydra's
// proxies and ranks lead sessions of their own, out of the reach of a
// process-group kill, so a job that a test gives up on is killed process
// by process, found in /proc below mpiexec.
package hydratest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Timeout bounds a job that Run starts. The tests' jobs take a fraction
// of a second: it is a guard against a hang, not a speed target.
const Timeout = 60 * time.Second

// Hydra returns the path of mpiexec.hydra. It skips t when Hydra is not
// installed, and under -short, since t starts jobs.
func Hydra(t testing.TB) string {
	t.Helper()
	hydra, err := exec.LookPath("mpiexec.hydra")
	if err != nil {
		t.Skip("mpiexec.hydra is not installed (Debian package mpich): the Hydra tests need it")
	}
	if testing.Short() {
		t.Skip("starts Hydra jobs")
	}
	return hydra
}

// Run runs hydra -n n prog args, with the environment of the test minus
// its PMI_, PMIX_ and MARTINI_ variables, plus env, and returns its output and
// how it ended (an *exec.ExitError for a non-zero exit). A job still
// running after Timeout is killed and reported. When Run returns, none of
// the job's processes runs.
func Run(hydra string, env []string, n int, prog string, args ...string) (stdout, stderr string, err error) {
	return RunFlags(hydra, nil, env, n, prog, args...)
}

// RunFlags is Run with Hydra's flags before -n: hydra flags -n n prog
// args.
func RunFlags(hydra string, flags, env []string, n int, prog string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := CmdFlags(ctx, hydra, flags, env, n, prog, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("Hydra job still running after %v: %w (killed)", Timeout, err)
	}
	return out.String(), errOut.String(), err
}

// Cmd returns the command hydra -n n prog args, with the environment Run
// gives it. Cancelling ctx kills its process group and every process of
// the job.
func Cmd(ctx context.Context, hydra string, env []string, n int, prog string, args ...string) *exec.Cmd {
	return CmdFlags(ctx, hydra, nil, env, n, prog, args...)
}

// CmdFlags is Cmd with Hydra's flags before -n.
func CmdFlags(ctx context.Context, hydra string, flags, env []string, n int, prog string, args ...string) *exec.Cmd {
	argv := append(append([]string(nil), flags...), "-n", strconv.Itoa(n), prog)
	cmd := exec.CommandContext(ctx, hydra, append(argv, args...)...)
	cmd.Env = append(jobEnv(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Find the proxies and ranks while mpiexec still is their ancestor.
	cmd.Cancel = func() error {
		KillTree(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// jobEnv is the process's environment without PMI_, PMIX_ and MARTINI_
// variables.
func jobEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PMI_") && !strings.HasPrefix(kv, "PMIX_") && !strings.HasPrefix(kv, "MARTINI_") {
			env = append(env, kv)
		}
	}
	return env
}

// KillTree stops pid and its descendants, so that none starts more, and
// then kills them.
func KillTree(pid int) {
	tree := []int{pid}
	for seen := 0; seen < len(tree); {
		for _, p := range tree[seen:] {
			syscall.Kill(p, syscall.SIGSTOP)
		}
		seen = len(tree)
		tree = append([]int{pid}, Descendants(pid)...)
	}
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// Descendants returns the processes below pid, from /proc.
func Descendants(pid int) []int {
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

// Alive reports whether process p runs: it exists and is neither a
// zombie nor dead.
func Alive(p int) bool {
	_, _, state, ok := procStat(fmt.Sprintf("/proc/%d/stat", p))
	return ok && state != "Z" && state != "X"
}

// TagVar is the variable by which Tagged finds a job's processes: a test
// passes TagVar=tag in the job's environment, a tag of its own.
const TagVar = "HYDRATEST_TAG"

// Tagged returns the running processes whose environment holds
// TagVar=tag: those of a job left behind once mpiexec has ended, which
// are no longer below it.
func Tagged(tag string) []int {
	want := []byte(TagVar + "=" + tag + "\x00")
	var found []int
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, path := range environs {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(append([]byte{0}, b...), append([]byte{0}, want...)) {
			continue
		}
		p, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err == nil && p != os.Getpid() && Alive(p) {
			found = append(found, p)
		}
	}
	return found
}

// NamespaceLauncher writes in dir, and returns the path of, a launcher
// for Hydra's ssh launcher (mpiexec.hydra -launcher ssh -launcher-exec
// PATH) that starts the proxy of each host inside a network namespace
// instead of over ssh: hosts maps the name or address that mpiexec is
// given (-hosts) to the namespace. Hydra runs it as "PATH [-x] HOST
// COMMAND", COMMAND quoted for a shell.
func NamespaceLauncher(dir string, hosts map[string]string) (string, error) {
	var script strings.Builder
	script.WriteString("#!/bin/sh\n# Hydra's ssh launcher: [OPTIONS] HOST COMMAND\n")
	script.WriteString("while [ $# -gt 0 ]; do case \"$1\" in -*) shift;; *) break;; esac; done\n")
	script.WriteString("host=$1; shift\ncase $host in\n")
	for h, ns := range hosts {
		fmt.Fprintf(&script, "'%s') ns='%s';;\n", h, ns)
	}
	script.WriteString("*) echo \"no namespace for host $host\" >&2; exit 1;;\nesac\n")
	script.WriteString("exec ip netns exec \"$ns\" sh -c \"$*\"\n")
	path := filepath.Join(dir, "hydra-netns-launcher")
	if err := os.WriteFile(path, []byte(script.String()), 0o755); err != nil {
		return "", fmt.Errorf("hydratest: %w", err)
	}
	return path, nil
}

// InNamespace makes cmd, a command of CmdFlags, run mpiexec inside the
// network namespace ns ("ip netns exec NS mpiexec.hydra ..."), as the
// job's first host.
func InNamespace(cmd *exec.Cmd, ns string) error {
	ip, err := exec.LookPath("ip")
	if err != nil {
		return fmt.Errorf("hydratest: %w", err)
	}
	cmd.Args = append([]string{ip, "netns", "exec", ns, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = ip
	return nil
}
