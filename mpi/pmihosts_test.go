package mpi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/hydratest"
	"github.com/rhinet-go/martini/internal/netns"
	"github.com/rhinet-go/martini/internal/peernet"
	"github.com/rhinet-go/martini/mpi"
)

func init() {
	rawScenarios["peers"] = rawPeers
	rawScenarios["kill-last"] = rawKillLast
}

// rawPeers reports which network carries each rank's messages
// (peernet.Run).
func rawPeers() error {
	out, err := peernet.Run()
	fmt.Print(out)
	return err
}

// rawKillLast: every rank prints its pid after Init; the last kills
// itself while the others wait for it in Barrier.
func rawKillLast() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	fmt.Printf("rank %d: pid %d\n", w.Rank(), os.Getpid())
	if w.Rank() == w.Size()-1 {
		time.Sleep(200 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	err := w.Barrier()
	return fmt.Errorf("rank %d: Barrier returned (%v) although rank %d was killed", w.Rank(), err, w.Size()-1)
}

// peerBytes reads rank 0's "peer P: tcp bytes B" lines of rawPeers, by
// peer.
func peerBytes(t *testing.T, stdout string, n int) []int {
	t.Helper()
	bytes := make([]int, n)
	for p := 1; p < n; p++ {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^peer %d: tcp bytes (\d+)$`, p)).FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("no report of peer %d:\n%s", p, stdout)
		}
		fmt.Sscan(m[1], &bytes[p])
	}
	return bytes
}

// Under mpiexec.hydra on one host, the ranks learn that they share it,
// map the segment the first of them made and talk over martini, through
// PMI-1 and PMI-2: no byte goes over TCP.
func TestHydraSharedMemory(t *testing.T) {
	hydra := hydratest.Hydra(t)
	if raceEnabled {
		t.Skip("launches whole jobs")
	}
	t.Parallel()
	const n = 4
	for _, pmi := range []string{"1", "2"} {
		stdout, stderr, err := hydratest.Run(hydra, []string{envScenario + "=peers", "MARTINI_PMI=" + pmi}, n, self)
		if err != nil {
			t.Fatalf("MARTINI_PMI=%s: mpiexec.hydra -n %d: %v\n--- stdout:\n%s--- stderr:\n%s", pmi, n, err, stdout, stderr)
		}
		for r := range n {
			if want := fmt.Sprintf("rank %d of %d: network martini\n", r, n); !strings.Contains(stdout, want) {
				t.Errorf("MARTINI_PMI=%s: no %q in\n%s", pmi, want, stdout)
			}
		}
		for p, b := range peerBytes(t, stdout, n)[1:] {
			if b != 0 {
				t.Errorf("MARTINI_PMI=%s: %d bytes over TCP to peer %d", pmi, b, p+1)
			}
		}
	}
}

// hydraIn runs a job of 2+2 ranks of scenario under mpiexec.hydra started
// in the first namespace of s, with the second's proxy started by a
// launcher that enters it.
func hydraIn(t *testing.T, s *netns.Set, env []string) (stdout, stderr string, err error) {
	a, b := s.Hosts[0], s.Hosts[1]
	launcher, err := hydratest.NamespaceLauncher(t.TempDir(), map[string]string{a.Addr.String(): a.Name, b.Addr.String(): b.Name})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hydratest.Timeout)
	defer cancel()
	flags := []string{"-hosts", a.Addr.String() + "," + b.Addr.String(), "-ppn", "2", "-launcher", "ssh", "-launcher-exec", launcher}
	cmd := hydratest.CmdFlags(ctx, hydratest.Hydra(t), flags, env, 4, self)
	if err := hydratest.InNamespace(cmd, a.Name); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("Hydra job still running after %v: %w (killed)", hydratest.Timeout, err)
	}
	return out.String(), errOut.String(), err
}

// Under mpiexec.hydra across two hosts (network namespaces joined by a
// veth pair), the ranks of each host talk over martini and those of
// different hosts over TCP, on the namespaces' addresses; a rank killed
// on the second host ends the job, named; nothing is left running.
func TestHydraAcrossNamespaces(t *testing.T) {
	hydratest.Hydra(t)
	if raceEnabled {
		t.Skip("launches whole jobs")
	}
	s := netns.New(t, 2)
	for _, pmi := range []string{"1", "2"} {
		stdout, stderr, err := hydraIn(t, s, []string{envScenario + "=peers", "MARTINI_PMI=" + pmi})
		if err != nil {
			t.Fatalf("MARTINI_PMI=%s: %v\n--- stdout:\n%s--- stderr:\n%s", pmi, err, stdout, stderr)
		}
		for r := range 4 {
			if want := fmt.Sprintf("rank %d of 4: network martini+tcp\n", r); !strings.Contains(stdout, want) {
				t.Errorf("MARTINI_PMI=%s: no %q in\n%s", pmi, want, stdout)
			}
		}
		bytes := peerBytes(t, stdout, 4)
		if bytes[1] >= peernet.Bytes || bytes[2] < peernet.Bytes || bytes[3] < peernet.Bytes {
			t.Errorf("MARTINI_PMI=%s: bytes over TCP to peers 1 (same host), 2 and 3 (the other): %v; want under %d, then at least %d",
				pmi, bytes[1:], peernet.Bytes, peernet.Bytes)
		}
		checkNoneLeft(t, s)
	}
	t.Run("killed", func(t *testing.T) {
		stdout, stderr, err := hydraIn(t, s, []string{envScenario + "=kill-last", envNoDump + "=1"})
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("job: %v, want a failed job\n--- stdout:\n%s--- stderr:\n%s", err, stdout, stderr)
		}
		// Whoever ends the job first names the process that died: the
		// ranks that see it go its rank (sharing its host, or over TCP),
		// Hydra its host and the pid of that host's first process to end
		// badly: the killed rank, or rank 2 when Hydra's own cleanup
		// killed it first (its proxy then may lose the ranks' stderr).
		pid := func(r int) string {
			m := regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d: pid (\d+)$`, r)).FindStringSubmatch(stdout)
			if m == nil {
				return "none"
			}
			return m[1]
		}
		b := s.Hosts[1].Addr.String()
		hydraNames := func(r int) bool { return strings.Contains(stdout, "PID "+pid(r)+" RUNNING AT "+b+"\n") }
		if !hydraNames(3) && !hydraNames(2) &&
			!strings.Contains(stderr, "mpi: rank 3 (pid "+pid(3)+" ") && !strings.Contains(stderr, "connection to process 3 at "+b+":") {
			t.Errorf("the output does not name rank 3 on %s:\n--- stdout:\n%s--- stderr:\n%s", b, stdout, stderr)
		}
		checkNoneLeft(t, s)
	})
}

// checkNoneLeft checks that no process is left in the namespaces of s,
// giving them a moment to go.
func checkNoneLeft(t *testing.T, s *netns.Set) {
	t.Helper()
	for _, ns := range s.Hosts {
		var pids []int
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var err error
			if pids, err = ns.Pids(); err != nil {
				t.Fatal(err)
			}
			if len(pids) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(pids) > 0 {
			t.Errorf("processes left in %s: %v", ns.Name, pids)
		}
	}
}
