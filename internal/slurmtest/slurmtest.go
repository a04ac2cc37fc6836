// Package slurmtest starts a private Slurm cluster for a test: munged on
// its own socket and key, slurmctld and a slurmd per node with their own
// slurm.conf (passed as SLURM_CONF), and their state, spools and logs in
// a directory of their own. Start makes one node of this host, on free
// ports; StartOn makes a node of each network namespace of a netns.Set,
// its slurmd run inside the namespace under a host name of its own, so
// that jobs span hosts that share nothing but the machine's memory and
// kernel. The cluster is stopped and its directory removed when the test
// ends, on every path.
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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/netns"
)

// startTimeout bounds the wait for a started cluster to run a job.
const startTimeout = 30 * time.Second

// Cluster is a running private Slurm cluster.
type Cluster struct {
	// Dir holds the cluster's configuration, state, spools, logs, pid
	// files and munge socket.
	Dir string
	// Conf is the path of its slurm.conf.
	Conf string
	// Nodes are its nodes; the first runs slurmctld too.
	Nodes   []Node
	daemons []*exec.Cmd
}

// Node is a node of a cluster.
type Node struct {
	// Name is its Slurm node name and, in a namespace, its host name.
	Name string
	// Addr is the address at which slurmctld and srun reach its slurmd.
	Addr string
	// Netns is the network namespace its daemons run in; "": this host's.
	Netns string
}

// binaries are the programs Start needs, from Debian's slurm-wlm,
// slurm-client and munge packages; nsBinaries those StartOn needs
// besides, from util-linux.
var (
	binaries   = []string{"munged", "slurmctld", "slurmd", "srun", "scancel"}
	nsBinaries = []string{"nsenter", "unshare"}
)

// Start starts a cluster of one node, this host, for t and stops it when
// t ends. It skips t under -short, when not root, and when Slurm or
// munge is not installed; it fails t, with the daemons' logs, when the
// cluster does not run a job within startTimeout.
func Start(t testing.TB) *Cluster {
	t.Helper()
	skipUnlessAble(t, binaries)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	return launch(t, []Node{{Name: host, Addr: "127.0.0.1"}})
}

// StartOn starts a cluster of a node for each namespace of hosts, named
// node0, node1, ..., and stops it when t ends (before hosts are removed,
// if hosts was made first). Each node's slurmd runs inside its namespace
// with its node name as host name (a UTS namespace of its own); slurmctld
// runs in the first node's namespace, and so do the cluster's commands
// (Command, Srun). It skips and fails t as Start does.
func StartOn(t testing.TB, hosts *netns.Set) *Cluster {
	t.Helper()
	skipUnlessAble(t, append(binaries, nsBinaries...))
	nodes := make([]Node, len(hosts.Hosts))
	for i, h := range hosts.Hosts {
		nodes[i] = Node{Name: "node" + strconv.Itoa(i), Addr: h.Addr.String(), Netns: h.Name}
	}
	return launch(t, nodes)
}

// skipUnlessAble skips t under -short, when not root, and when one of
// the programs bins is not installed.
func skipUnlessAble(t testing.TB, bins []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Slurm cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("a private Slurm cluster needs root (slurmd runs jobs as their user)")
	}
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed (Debian packages slurm-wlm, munge and util-linux): the Slurm tests need it", b)
		}
	}
}

// launch starts a cluster of nodes for t and stops it when t ends.
func launch(t testing.TB, nodes []Node) *Cluster {
	t.Helper()
	removeStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Nodes: nodes}
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
	dirs := []string{"state"}
	for _, n := range c.Nodes {
		dirs = append(dirs, "spool-"+n.Name)
	}
	for _, d := range dirs {
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
	if err := os.WriteFile(c.Conf, []byte(c.conf(ports)), 0o644); err != nil {
		return err
	}
	if err := c.daemon(Node{}, "munged", "-F", "-f", "-S", c.path("munge.sock"),
		"--key-file="+c.path("munge.key"), "--log-file="+c.path("munged.log"),
		"--pid-file="+c.path("munged.pid"), "--seed-file="+c.path("munged.seed")); err != nil {
		return err
	}
	if err := waitFor(func() error { _, err := os.Stat(c.path("munge.sock")); return err }); err != nil {
		return fmt.Errorf("munged made no socket: %w", err)
	}
	if err := c.daemon(c.Nodes[0], "slurmctld", "-D", "-i"); err != nil {
		return err
	}
	for _, n := range c.Nodes {
		if err := c.daemon(n, "slurmd", "-D", "-N", n.Name); err != nil {
			return err
		}
	}
	every := "-N" + strconv.Itoa(len(c.Nodes))
	err = waitFor(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := c.Command(ctx, "srun", every, "true").CombinedOutput()
		if err != nil {
			return fmt.Errorf("srun %s true: %w: %s", every, err, out)
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

// conf returns the cluster's slurm.conf: its nodes, each of this
// machine's CPUs, no MPI plugin by default, and plugins that need no
// cgroups.
func (c *Cluster) conf(ports []int) string {
	ctl := c.Nodes[0]
	lines := []string{
		"ClusterName=slurmtest",
		fmt.Sprintf("SlurmctldHost=%s(%s)", ctl.Name, ctl.Addr),
		fmt.Sprintf("SlurmctldPort=%d", ports[0]),
		fmt.Sprintf("SlurmdPort=%d", ports[1]),
		"SlurmUser=root",
		"SlurmdUser=root",
		"AuthType=auth/munge",
		"CredType=cred/munge",
		"AuthInfo=socket=" + c.path("munge.sock"),
		"StateSaveLocation=" + c.path("state"),
		// %n: the node's name.
		"SlurmdSpoolDir=" + c.path("spool-%n"),
		"SlurmctldPidFile=" + c.path("slurmctld.pid"),
		"SlurmdPidFile=" + c.path("slurmd-%n.pid"),
		"SlurmctldLogFile=" + c.path("slurmctld.log"),
		"SlurmdLogFile=" + c.path("slurmd-%n.log"),
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
	}
	var names []string
	for _, n := range c.Nodes {
		lines = append(lines, fmt.Sprintf("NodeName=%s NodeAddr=%s CPUs=%d State=UNKNOWN", n.Name, n.Addr, runtime.NumCPU()))
		names = append(names, n.Name)
	}
	lines = append(lines, fmt.Sprintf("PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP", strings.Join(names, ",")))
	return strings.Join(lines, "\n") + "\n"
}

// daemon starts name in the foreground for node n (Node{}: this host),
// in a process group of its own, its output in name[-node].out.
func (c *Cluster) daemon(n Node, name string, args ...string) error {
	file := name
	if n.Netns != "" {
		file += "-" + n.Name
	}
	out, err := os.Create(c.path(file + ".out"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(name, args...)
	if n.Netns != "" {
		// nsenter, unshare and the shell each exec the next: the
		// command's process is the daemon's. nsenter, unlike ip netns
		// exec, keeps this host's /sys, where slurmd finds cgroups.
		cmd = exec.Command("nsenter", append([]string{"--net=" + netnsPath(n.Netns), "unshare", "--uts",
			"sh", "-c", `hostname "$0" && exec "$@"`, n.Name, name}, args...)...)
	}
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

// netnsPath is the file of the network namespace named name.
func netnsPath(name string) string { return filepath.Join("/run/netns", name) }

// Command returns a command of the cluster (srun, sinfo, ...) run with
// the cluster's environment, in the first node's network namespace,
// killed when ctx ends.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	if ns := c.Nodes[0].Netns; ns != "" {
		cmd = exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + netnsPath(ns), name}, args...)...)
	}
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
	names := []string{"munged.out", "slurmctld.out", "slurmctld.log"}
	for _, n := range c.Nodes {
		if n.Netns != "" {
			names = append(names, "slurmd-"+n.Name+".out")
		} else {
			names = append(names, "slurmd.out")
		}
		names = append(names, "slurmd-"+n.Name+".log")
	}
	for _, name := range names {
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
