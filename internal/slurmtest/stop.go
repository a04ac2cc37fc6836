package slurmtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopWait bounds the wait for a daemon to exit after SIGTERM.
const stopWait = 5 * time.Second

// dirPrefix begins the name of a cluster's directory in os.TempDir.
const dirPrefix = "slurmtest-"

// pidFiles returns the daemons' pid files in a cluster's directory dir:
// munged's, slurmctld's and each node's slurmd's.
func pidFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	return files
}

// stop cancels the cluster's jobs, stops its daemons, kills whatever of
// it is left (a daemon that forked away from its pid file's process, a
// slurmstepd still holding a step) and removes its directory.
func (c *Cluster) stop() {
	if len(c.daemons) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), stopWait)
		_ = c.Command(ctx, "scancel", "--full", "--user=root").Run()
		cancel()
	}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		stopDaemon(c.daemons[i].Process.Pid)
		_ = c.daemons[i].Wait()
	}
	for _, f := range pidFiles(c.Dir) {
		if pid := readPid(f); pid > 0 && holds(pid, c.Dir, c.Conf) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	killAll(leftovers(c.Conf))
	_ = os.RemoveAll(c.Dir)
}

// stopDaemon sends SIGTERM to the process group of pid, and SIGKILL if
// pid still runs after stopWait.
func stopDaemon(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(stopWait)
	for time.Now().Before(deadline) {
		if !running(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}

func readPid(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

// holds reports whether the command line or environment of pid names one
// of marks: a pid file's process is killed only if it is the cluster's.
func holds(pid int, marks ...string) bool {
	for _, f := range []string{"cmdline", "environ"} {
		data, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), f))
		for _, m := range marks {
			if bytes.Contains(data, []byte(m)) {
				return true
			}
		}
	}
	return false
}

// leftovers returns the pids of the processes, other than this one, that
// run with the cluster's configuration conf in their environment: its
// slurmstepds and the tasks of its jobs.
func leftovers(conf string) []int {
	mark := []byte("SLURM_CONF=" + conf + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(env, mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// removeStale removes the directories of clusters whose test binary died
// before its cleanup ran (its daemons died with it, their slurmstepds and
// tasks did not): those older than a cluster's start whose pid files name
// no live daemon of theirs.
func removeStale() {
	ents, _ := os.ReadDir(os.TempDir())
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(os.TempDir(), e.Name())
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < 2*startTimeout {
			continue
		}
		live := false
		for _, f := range pidFiles(dir) {
			pid := readPid(f)
			live = live || pid > 0 && running(pid) && holds(pid, dir)
		}
		if !live {
			killAll(leftovers(filepath.Join(dir, "slurm.conf")))
			_ = os.RemoveAll(dir)
		}
	}
}

func killAll(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
