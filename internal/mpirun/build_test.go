package mpirun

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tests of a build that does not end well. Like the other build tests they
// set TMPDIR, so they do not run in parallel. A fresh GOCACHE makes the
// build compile the standard library: long enough to stop it midway.

// TestBuildInterrupted signals mpirun while the go command compiles: the
// build ends with all its processes, and nothing of it stays in TMPDIR.
func TestBuildInterrupted(t *testing.T) {
	tmp := coldBuild(t)
	sigs := make(chan os.Signal, 1)
	w := watchBuild(t, sigs, "-np", "2", "./testdata/printrank")
	w.waitFor(t, "compile")
	sigs <- os.Interrupt
	r := w.result()
	if r.code != 130 || !strings.Contains(r.stderr, "mpirun: received SIGINT (signal 2) while building; stopped") {
		t.Errorf("exit %d, stderr:\n%s\nwant 130 and the signal named", r.code, r.stderr)
	}
	w.checkEnded(t)
	checkEmpty(t, tmp)
}

// TestBuildTimeout: -timeout bounds the build too, with the same cleanup.
func TestBuildTimeout(t *testing.T) {
	tmp := coldBuild(t)
	w := watchBuild(t, nil, "-np", "2", "-timeout", "500ms", "./testdata/printrank")
	r := w.result()
	if r.code != exitTimeout || !strings.Contains(r.stderr, "mpirun: the build did not end within -timeout 500ms; stopped") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and the timeout named", r.code, r.stderr, exitTimeout)
	}
	w.checkEnded(t)
	checkEmpty(t, tmp)
}

// coldBuild gives the test an empty build cache and an empty TMPDIR, which
// it returns.
func coldBuild(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program with an empty build cache")
	}
	t.Setenv("GOCACHE", t.TempDir())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// buildWatch follows the processes of an mpirun run while it builds.
type buildWatch struct {
	done chan struct{}
	res  result
	seen chan map[int]proc // the processes below this one seen until mpirun returned
	comm chan string       // the names of new ones, as they are seen
}

// watchBuild runs mpirun with args (and signals on sigs) in a goroutine,
// and records the processes this test process has below it meanwhile.
func watchBuild(t *testing.T, sigs chan os.Signal, args ...string) *buildWatch {
	t.Helper()
	w := &buildWatch{done: make(chan struct{}), seen: make(chan map[int]proc, 1), comm: make(chan string, 1024)}
	go func() {
		defer close(w.done)
		w.res = mpirunSignalled(t, sigs, args...)
	}()
	go func() {
		seen := map[int]proc{}
		for {
			for pid, p := range descendants(os.Getpid()) {
				if _, ok := seen[pid]; !ok {
					seen[pid] = p
					select {
					case w.comm <- p.comm:
					default:
					}
				}
			}
			select {
			case <-w.done:
				w.seen <- seen
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return w
}

// waitFor waits until a process named comm runs below this one; it fails
// the test if mpirun returns first.
func (w *buildWatch) waitFor(t *testing.T, comm string) {
	t.Helper()
	for {
		select {
		case c := <-w.comm:
			if c == comm {
				return
			}
		case <-w.done:
			t.Fatalf("mpirun returned before a %s process was seen:\n%s", comm, w.res.stderr)
		}
	}
}

func (w *buildWatch) result() result {
	<-w.done
	return w.res
}

// checkEnded checks that no process seen below this one during the run
// (the go command, its compilers) still runs now that mpirun returned.
func (w *buildWatch) checkEnded(t *testing.T) {
	t.Helper()
	seen := <-w.seen
	if len(seen) == 0 {
		t.Fatal("no build process was seen")
	}
	table := processes()
	for pid, p := range seen {
		if now, ok := table[pid]; ok && now.comm == p.comm && now.running() {
			t.Errorf("process %d (%s) of the build still runs after mpirun returned", pid, p.comm)
		}
	}
}

// proc is a process as /proc/PID/stat shows it.
type proc struct {
	comm  string
	state byte
	ppid  int
}

func (p proc) running() bool { return p.state != 'Z' && p.state != 'X' }

// processes returns the processes of the system by pid.
func processes() map[int]proc {
	table := map[int]proc{}
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(string(data[end+1:]))
		if len(f) < 2 || len(f[0]) != 1 {
			continue
		}
		pid, err1 := strconv.Atoi(strings.TrimSpace(string(data[:open])))
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			table[pid] = proc{comm: string(data[open+1 : end]), state: f[0][0], ppid: ppid}
		}
	}
	return table
}

// descendants returns the running processes below pid.
func descendants(pid int) map[int]proc {
	table := processes()
	below := map[int]proc{}
	for q, p := range table {
		for a, hops := p.ppid, 0; a > 1 && hops < 64; a, hops = table[a].ppid, hops+1 {
			if a == pid {
				if p.running() {
					below[q] = p
				}
				break
			}
		}
	}
	return below
}
