package mpirun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/internal/netns"
)

// Jobs across two network namespaces A and B joined by a veth pair, as
// two hosts: mpirun runs inside A and starts the agents with
// "ip netns exec {host}", as in
//
//	ip netns exec A mpirun -hosts A:2,B:2 -launch 'ip netns exec {host}' PROGRAM

// nsResult is the outcome of mpirun run inside a namespace.
type nsResult struct {
	code           int
	stdout, stderr string
}

// mpirunIn runs the mpirun command inside ns with args.
func mpirunIn(t *testing.T, ns netns.Namespace, args ...string) nsResult {
	t.Helper()
	cmd := ns.Command(helper("mpirun"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	r := nsResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	t.Logf("ip netns exec %s mpirun %s: %v\nstdout:\n%s\nstderr:\n%s", ns.Name, strings.Join(args, " "), err, r.stdout, r.stderr)
	return r
}

// checkEmptyNamespaces checks that no process is left in the namespaces
// of s, giving them a moment to go.
func checkEmptyNamespaces(t *testing.T, s *netns.Set) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, ns := range s.Hosts {
		for {
			pids, err := ns.Pids()
			if err != nil {
				t.Fatal(err)
			}
			if len(pids) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("processes left in %s: %v", ns.Name, pids)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestAcrossNamespaces(t *testing.T) {
	t.Parallel()
	s := netns.New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	hosts := a.Name + ":2," + b.Name + ":2"
	const launch = "ip netns exec {host}"

	// One job of 4 over the data store, found without -if: every rank
	// sees every other's key; the ranks on B reach mpirun in A, and
	// listen on their host's address.
	t.Run("job", func(t *testing.T) {
		r := mpirunIn(t, a, "-hosts", hosts, "-launch", launch, "-tag-output", helper("hoststore"), "-probe")
		if r.code != 0 {
			t.Fatalf("exit %d, want 0", r.code)
		}
		checkHostLines(t, r.stdout, []string{a.Name, b.Name}, []string{a.Addr.String(), b.Addr.String()})
		checkEmptyNamespaces(t, s)
	})

	// -if chooses the network by CIDR or by interface name.
	t.Run("if", func(t *testing.T) {
		for _, spec := range []string{s.Network.String(), netns.Link} {
			r := mpirunIn(t, a, "-hosts", hosts, "-launch", launch, "-if", spec, "-v", "-tag-output", helper("hoststore"))
			if r.code != 0 {
				t.Fatalf("-if %s: exit %d, want 0", spec, r.code)
			}
			if want := "mpirun: data store at " + a.Addr.String() + ":"; !strings.Contains(r.stderr, want) {
				t.Errorf("-if %s: stderr lacks %q", spec, want)
			}
			if want := "tcp " + b.Addr.String() + "): sum 6"; !strings.Contains(r.stdout, want) {
				t.Errorf("-if %s: stdout lacks %q", spec, want)
			}
		}
		checkEmptyNamespaces(t, s)
	})

	// MPI programs: martini within each namespace and TCP between them
	// (the default), or TCP between every pair.
	t.Run("mpi", func(t *testing.T) {
		testMPIAcross(t, s, hosts, launch)
		checkEmptyNamespaces(t, s)
	})

	// A rank killed on B ends the job, naming it, and nothing is left
	// running in either namespace.
	t.Run("killed", func(t *testing.T) {
		testKilledOnB(t, s, hosts, launch)
		checkEmptyNamespaces(t, s)
	})
}

// testKilledOnB runs failrank sleep over hosts and kills rank 3 on B.
func testKilledOnB(t *testing.T, s *netns.Set, hosts, launch string) {
	b := s.Hosts[1]
	cmd := s.Hosts[0].Command(helper("mpirun"), "-hosts", hosts, "-launch", launch, "-tag-output", helper("failrank"), "sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { t.Logf("mpirun stderr:\n%s", stderr.String()) }()
	pid := rankPid(t, bufio.NewScanner(stdout), 3, 4)
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.FailNow()
	}
	if pids, _ := b.Pids(); !slices.Contains(pids, pid) {
		t.Errorf("rank 3 (pid %d) does not run in %s (its processes: %v)", pid, b.Name, pids)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGKILL))
	}
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^mpirun: rank 3 \(pid %d on %s\) was killed by SIGKILL \(signal 9\)$`, pid, regexp.QuoteMeta(b.Name)))
	if !re.MatchString(stderr.String()) {
		t.Errorf("stderr does not match %v", re)
	}
	if n := strings.Count(stderr.String(), "mpirun: rank"); n != 1 {
		t.Errorf("%d failures reported, want only the first", n)
	}
}

// rankPid reads the tagged "pid N" lines of np ranks of failrank and
// returns the pid of rank, or 0 (having reported why) if they do not come.
func rankPid(t *testing.T, sc *bufio.Scanner, rank, np int) int {
	pids := map[int]int{}
	for len(pids) < np && sc.Scan() {
		var r, pid int
		if _, err := fmt.Sscanf(sc.Text(), "[%d] pid %d", &r, &pid); err == nil {
			pids[r] = pid
		}
	}
	if len(pids) < np {
		t.Errorf("got the pids of %d ranks, want %d", len(pids), np)
		return 0
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return pids[rank]
}

// testMPIAcross runs examples/hello over hosts, with each network, and
// examples/pingpong over one rank a host with -transport tcp.
func testMPIAcross(t *testing.T, s *netns.Set, hosts, launch string) {
	dir := t.TempDir()
	for _, ex := range []string{"hello", "pingpong"} {
		err := mpirunbuild.GoBuild(context.Background(), mpirunbuild.Spec{Pkg: "../../examples/" + ex, Out: filepath.Join(dir, ex), Work: dir, Stderr: os.Stderr})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := s.Hosts[0], s.Hosts[1]
	for _, transport := range []string{"auto", "tcp"} {
		r := mpirunIn(t, a, "-hosts", hosts, "-launch", launch, "-transport", transport, filepath.Join(dir, "hello"))
		want := []string{"hello from rank 0 of 4", "rank 1 says 1", "rank 2 says 4", "rank 3 says 9"}
		if got := sortedLines(r.stdout); r.code != 0 || !slices.Equal(got, want) {
			t.Errorf("hello, -transport %s: exit %d, stdout %q; want 0 and %q", transport, r.code, got, want)
		}
	}
	r := mpirunIn(t, a, "-hosts", a.Name+","+b.Name, "-launch", launch, "-transport", "tcp",
		filepath.Join(dir, "pingpong"), "-max", "1048576", "-runs", "1", "-time", "2ms")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# PingPong, 2 processes") || !regexp.MustCompile(`(?m)^ +1048576 +\d+ +[0-9.]+ +[0-9.]+$`).MatchString(r.stdout) {
		t.Errorf("pingpong across the namespaces: exit %d; want 0 and a table up to 1 MiB", r.code)
	}
}
