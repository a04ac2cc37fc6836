// Package slurmtest starts a private one-node Slurm cluster for a test:
// munged on its own socket and key, slurmctld and slurmd on free ports
// with their own slurm.conf (passed as SLURM_CONF), and their state,
// spool and logs in a directory of their own. The cluster is stopped and
// its directory removed when the test ends, on every path.
package slurmtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds the wait for a started cluster to run a job.
const startTimeout = 30 * time.Second

// Cluster is a running private Slurm cluster of one node.
type Cluster struct {
	// Dir holds the cluster's configuration, state, spool, logs, pid
	// files and munge socket.
	Dir string
	// Conf is the path of its slurm.conf.
	Conf    string
	daemons []*exec.Cmd
}

// binaries are the programs Start needs, from Debian's slurm-wlm,
// slurm-client and munge packages.
var binaries = []string{"munged", "slurmctld", "slurmd", "srun", "scancel"}

// Start starts a cluster for t and stops it when t ends. It skips t under
// -short, when not root, and when Slurm or munge is not installed; it
// fails t, with the daemons' logs, when the cluster does not run a job
// within startTimeout.
func Start(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Slurm cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("a private Slurm cluster needs root (slurmd runs jobs as their user)")
	}
	for _, b := range binaries {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed (Debian packages slurm-wlm and munge): the Slurm tests need it", b)
		}
	}
	removeStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf")}
	t.Cleanup(c.stop)
	// munged wants the directories of its socket searchable by all.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.start(); err != nil {
		t.Fatalf("slurmtest: %v\n%s", err, c.logs())
	}
	return c
}

// start writes the configuration, starts the daemons and waits until a
// job runs.
func (c *Cluster) start() error {
	host, err := os.Hostname()
	if err != nil {
		return err
	}
	host, _, _ = strings.Cut(host, ".")
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(c.Dir, d), 0o700); err != nil {
			return err
		}
	}
	if err := c.writeKey(); err != nil {
		return err
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.Conf, []byte(c.conf(host, ports)), 0o644); err != nil {
		return err
	}
	if err := c.daemon("munged", "-F", "-f", "-S", c.path("munge.sock"),
		"--key-file="+c.path("munge.key"), "--log-file="+c.path("munged.log"),
		"--pid-file="+c.path("munged.pid"), "--seed-file="+c.path("munged.seed")); err != nil {
		return err
	}
	if err := waitFor(func() error { _, err := os.Stat(c.path("munge.sock")); return err }); err != nil {
		return fmt.Errorf("munged made no socket: %w", err)
	}
	if err := c.daemon("slurmctld", "-D", "-i"); err != nil {
		return err
	}
	if err := c.daemon("slurmd", "-D", "-N", host); err != nil {
		return err
	}
	err = waitFor(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := c.Command(ctx, "srun", "-N1", "true").CombinedOutput()
		if err != nil {
			return fmt.Errorf("srun -N1 true: %w: %s", err, out)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("the cluster runs no job after %v: %w", startTimeout, err)
	}
	return nil
}

func (c *Cluster) path(name string) string { return filepath.Join(c.Dir, name) }

// writeKey writes a random munge key, readable by its owner only as
// munged requires.
func (c *Cluster) writeKey() error {
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	return os.WriteFile(c.path("munge.key"), key, 0o400)
}

// conf returns the cluster's slurm.conf: one node of this machine's CPUs,
// no MPI plugin by default, and plugins that need no cgroups.
func (c *Cluster) conf(host string, ports []int) string {
	lines := []string{
		"ClusterName=slurmtest",
		fmt.Sprintf("SlurmctldHost=%s(127.0.0.1)", host),
		fmt.Sprintf("SlurmctldPort=%d", ports[0]),
		fmt.Sprintf("SlurmdPort=%d", ports[1]),
		"SlurmUser=root",
		"SlurmdUser=root",
		"AuthType=auth/munge",
		"CredType=cred/munge",
		"AuthInfo=socket=" + c.path("munge.sock"),
		"StateSaveLocation=" + c.path("state"),
		"SlurmdSpoolDir=" + c.path("spool"),
		"SlurmctldPidFile=" + c.path("slurmctld.pid"),
		"SlurmdPidFile=" + c.path("slurmd.pid"),
		"SlurmctldLogFile=" + c.path("slurmctld.log"),
		"SlurmdLogFile=" + c.path("slurmd.log"),
		"MpiDefault=none",
		"ProctrackType=proctrack/linuxproc",
		"TaskPlugin=task/none",
		"SelectType=select/linear",
		"SchedulerType=sched/builtin",
		"ReturnToService=2",
		"JobCompType=jobcomp/none",
		"AccountingStorageType=accounting_storage/none",
		"JobAcctGatherType=jobacct_gather/none",
		"SwitchType=switch/none",
		fmt.Sprintf("NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN", host, runtime.NumCPU()),
		fmt.Sprintf("PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP", host),
	}
	return strings.Join(lines, "\n") + "\n"
}

// daemon starts name in the foreground, in a process group of its own,
// its output in name.out.
func (c *Cluster) daemon(name string, args ...string) error {
	out, err := os.Create(c.path(name + ".out"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(name, args...)
	cmd.Env = c.Env()
	cmd.Stdout, cmd.Stderr = out, out
	// Killed with the test binary, should it die before its cleanup runs
	// (a test's timeout panics without running cleanups).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	c.daemons = append(c.daemons, cmd)
	return nil
}

// Env returns the environment of the test without Slurm's, PMI's and
// the MPI launchers' variables, plus the cluster's SLURM_CONF.
func (c *Cluster) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !launcherVar(kv) {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+c.Conf)
}

func launcherVar(kv string) bool {
	for _, p := range []string{"SLURM_", "PMI_", "PMIX_", "OMPI_", "MARTINI_"} {
		if strings.HasPrefix(kv, p) {
			return true
		}
	}
	return false
}

// Command returns a command of the cluster (srun, sinfo, ...) run with
// the cluster's environment, killed when ctx ends.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// Srun runs srun args with extra environment env, for timeout at most,
// and returns its output (standard output and error together), how it
// ended (an *exec.ExitError for a non-zero exit) and how long it took.
func (c *Cluster) Srun(timeout time.Duration, env []string, args ...string) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := c.Command(ctx, "srun", args...)
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		err = fmt.Errorf("srun still running after %v: %w (killed)", timeout, err)
	}
	return out.String(), took, err
}

// waitFor calls ready until it succeeds or startTimeout has passed, and
// returns its last error then.
func waitFor(ready func() error) error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := ready()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePorts returns n TCP ports of the loopback interface that were free
// a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// logs returns the daemons' output and logs, for a failure's message.
func (c *Cluster) logs() string {
	var b strings.Builder
	for _, name := range []string{"munged.out", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"} {
		data, err := os.ReadFile(c.path(name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		fmt.Fprintf(&b, "--- %s:\n%s", name, tail(string(data), 40))
	}
	return b.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}
