package mpi_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/netns"
	"github.com/rhinet-go/martini/mpi"
)

// A job of 4 across two hosts (network namespaces joined by a veth pair,
// made and removed by the test), 2 ranks on each: point-to-point of every
// size, every collective and one-sided windows pass with martini within a
// host and TCP between hosts (the default), and with TCP between every
// pair.
func TestAcrossHosts(t *testing.T) {
	skipJobsAcrossHosts(t, "launches whole jobs; the race detector's run covers the same code in TestTCPNetwork")
	s := netns.New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	hosts := a.Name + ":2," + b.Name + ":2"
	for _, c := range []struct {
		scenario string
		flags    []string
	}{
		{"sizes", nil},
		{"order", nil},
		{"requests", nil},
		{"coll-move", nil},
		{"coll-reduce-int", nil},
		{"coll-reduce-float", nil},
		{"coll-nonblocking", nil},
		{"comm-groups", nil},
		{"comm-env", nil}, // SplitType by host
		{"topo-neighbor", nil},
		{"win-fence", nil}, // windows: martini within a host, TCP between
		{"win-acc", nil},
		{"win-lock", nil},
		{"win-request", nil},
		{"sizes", []string{"-transport", "tcp"}},
		{"coll-move", []string{"-transport", "tcp"}},
	} {
		t.Run(strings.Join(append([]string{c.scenario}, c.flags...), " "), func(t *testing.T) {
			args := []string{"netns", "exec", a.Name, mpirunBin, "-hosts", hosts, "-launch", "ip netns exec {host}",
				"-timeout", jobTimeout.String()}
			args = append(append(args, c.flags...), self)
			ctx, cancel := context.WithTimeout(context.Background(), jobTimeout+30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "ip", args...)
			cmd.Env = append(os.Environ(), envScenario+"="+c.scenario)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				t.Fatalf("ip %s: %v\n--- stdout:\n%s--- stderr:\n%s", strings.Join(args, " "), err, &stdout, &stderr)
			}
			for i := range 4 {
				if want := fmt.Sprintf("scenario %s: rank %d: ok\n", c.scenario, i); !strings.Contains(stdout.String(), want) {
					t.Errorf("rank %d did not report success:\n%s%s", i, &stdout, &stderr)
				}
			}
		})
	}
}

// envStreamFor is how long the tcp-stream scenario streams.
const envStreamFor = "MPI_TEST_STREAM_FOR"

func init() { scenarios["tcp-stream"] = scenarioTCPStream }

// scenarioTCPStream streams 256 KiB messages from rank 1 to rank 2 for
// envStreamFor (a duration), each stamped with its number and whether it
// is the last; rank 2 checks them and prints "tcp-stream: streaming"
// after the first. Every rank then meets in a Barrier.
func scenarioTCPStream(w *mpi.Comm) error {
	d, err := time.ParseDuration(os.Getenv(envStreamFor))
	if err != nil {
		return fmt.Errorf("%s: %w", envStreamFor, err)
	}
	buf := make([]int64, 32<<10)
	switch w.Rank() {
	case 1:
		start := time.Now()
		for i := int64(0); ; i++ {
			last := time.Since(start) > d
			buf[0], buf[len(buf)-1] = i, i
			if last {
				buf[1] = 1
			}
			if err := mpi.Send(w, buf, 2, 0); err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
			if last {
				break
			}
		}
	case 2:
		for i := int64(0); ; i++ {
			if _, err := mpi.Recv(w, buf, 1, 0); err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
			if buf[0] != i || buf[len(buf)-1] != i {
				return fmt.Errorf("message %d is stamped %d and %d", i, buf[0], buf[len(buf)-1])
			}
			if i == 0 {
				fmt.Println("tcp-stream: streaming")
			}
			if buf[1] == 1 {
				break
			}
		}
	}
	return mpi.Barrier(w)
}

// streamAcross runs tcp-stream for streamFor across the two hosts of s
// (2 ranks each: ranks 1 and 2 stream over TCP between them) with the
// mpirun flags, and calls link once rank 2 has streamed; it returns the
// job's exit code, its output, and how long after link returned the job
// ended.
func streamAcross(t *testing.T, s *netns.Set, streamFor time.Duration, link func(), flags ...string) (int, string, time.Duration) {
	t.Helper()
	env := []string{envScenario + "=tcp-stream", envStreamFor + "=" + streamFor.String()}
	return runAcross(t, s, env, "tcp-stream: streaming", link, flags...)
}

// runAcross runs a job across the two hosts of s, 2 ranks each, with the
// environment env and the mpirun flags, and calls act once a line of its
// output ends with marker; it returns the job's exit code, its output,
// and how long after act returned the job ended. The test fails if no
// line ends with marker.
func runAcross(t *testing.T, s *netns.Set, env []string, marker string, act func(), flags ...string) (int, string, time.Duration) {
	t.Helper()
	a, b := s.Hosts[0], s.Hosts[1]
	args := []string{"netns", "exec", a.Name, mpirunBin, "-hosts", a.Name + ":2," + b.Name + ":2",
		"-launch", "ip netns exec {host}", "-timeout", "90s"}
	args = append(append(args, flags...), self)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	sc := bufio.NewScanner(out)
	var done time.Time
	for sc.Scan() {
		fmt.Fprintln(&stdout, sc.Text())
		if done.IsZero() && strings.HasSuffix(sc.Text(), marker) {
			act()
			done = time.Now()
		}
	}
	err = cmd.Wait()
	ended := time.Now()
	if done.IsZero() {
		t.Fatalf("no line ended with %q: %v\n--- stdout:\n%s--- stderr:\n%s", marker, err, &stdout, &stderr)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String() + stderr.String(), ended.Sub(done)
}

// setLink sets the joining link of ns up or down.
func setLink(t *testing.T, ns netns.Namespace, state string) {
	t.Helper()
	if out, err := exec.Command("ip", "-n", ns.Name, "link", "set", netns.Link, state).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s link set %s %s: %v: %s", ns.Name, netns.Link, state, err, out)
	}
}

// A TCP connection between hosts that stalls (the link of one host set
// down mid-stream, for good) fails the job within the stall bound
// (-tcp-timeout), naming the peer by rank and address, with no hang; a
// flap of 4 s, shorter than the default bound, is survived.
func TestAcrossHostsStall(t *testing.T) {
	skipJobsAcrossHosts(t, "launches whole jobs across network namespaces")
	t.Run("down", func(t *testing.T) {
		s := netns.New(t, 2)
		b := s.Hosts[1]
		const bound = 3 * time.Second
		code, out, after := streamAcross(t, s, time.Minute, func() { setLink(t, b, "down") }, "-tcp-timeout", bound.String())
		t.Logf("exit %d %v after the link went down:\n%s", code, after.Round(time.Millisecond), out)
		if code == 0 || code == 124 {
			t.Fatalf("exit %d, want a failure of the job", code)
		}
		if limit := bound + 15*time.Second; after > limit {
			t.Errorf("the job ended %v after the link went down, more than %v", after.Round(time.Millisecond), limit)
		}
		// Every connection across the link stalls, the Barrier's too, and
		// one not made yet finds the host unreachable until the bound:
		// whichever a rank's engine met first is the one named.
		peer := regexp.MustCompile(`process [0-3] at 10\.77\.0\.[12]:\d+: (stalled|unreachable for)`)
		if !peer.MatchString(out) {
			t.Errorf("no error names the stalled peer (%v):\n%s", peer, out)
		}
	})
	t.Run("flap", func(t *testing.T) {
		s := netns.New(t, 2)
		b := s.Hosts[1]
		code, out, _ := streamAcross(t, s, 10*time.Second, func() {
			setLink(t, b, "down")
			time.Sleep(4 * time.Second)
			setLink(t, b, "up")
		})
		if code != 0 {
			t.Fatalf("exit %d after a 4 s flap, want 0:\n%s", code, out)
		}
	})
}

// A rank's first collective between hosts completes without the other
// ranks' later calls (see TestTCPFirstCollective): across two hosts, 2
// ranks each, TCP between them; a fresh job for each, so that every
// collective is the first use of its connections.
func TestAcrossHostsFirstCollective(t *testing.T) {
	skipJobsAcrossHosts(t, "launches whole jobs; the race detector's run covers the same code in TestTCPFirstCollective")
	s := netns.New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	const jobs = 4
	for _, coll := range []string{"barrier", "bcast", "allreduce"} {
		t.Run(coll, func(t *testing.T) {
			t.Parallel()
			for range jobs {
				args := []string{"netns", "exec", a.Name, mpirunBin, "-hosts", a.Name + ":2," + b.Name + ":2",
					"-launch", "ip netns exec {host}", "-timeout", jobTimeout.String(), self}
				ctx, cancel := context.WithTimeout(context.Background(), jobTimeout+30*time.Second)
				cmd := exec.CommandContext(ctx, "ip", args...)
				cmd.Env = append(os.Environ(), envScenario+"=first-coll", envFirstColl+"="+coll, envFirstCollDir+"="+t.TempDir())
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("first-coll %s: %v\n--- stdout:\n%s--- stderr:\n%s", coll, err, &stdout, &stderr)
				}
				checkFirstCollective(t, 4, stdout.String())
				if t.Failed() {
					return // each job of a failing build waits firstCollHold
				}
			}
		})
	}
}

func init() { scenarios["tcp-late"] = scenarioTCPLate }

// scenarioTCPLate has rank 2 print "tcp-late: ready", wait a second and
// then send to rank 1, its first contact with it; every rank then meets
// in a Barrier.
func scenarioTCPLate(w *mpi.Comm) error {
	buf := []int64{0}
	switch w.Rank() {
	case 2:
		fmt.Println("tcp-late: ready")
		time.Sleep(time.Second)
		buf[0] = 42
		if err := mpi.Send(w, buf, 1, 0); err != nil {
			return err
		}
	case 1:
		if _, err := mpi.Recv(w, buf, 2, 0); err != nil {
			return err
		}
		if buf[0] != 42 {
			return fmt.Errorf("received %d, want 42", buf[0])
		}
	}
	return mpi.Barrier(w)
}

// A dial across hosts while the link is down for a while, shorter than
// the stall bound, waits for the link to come back: rank 2, on the host
// whose link is down for 3 s, sends its first message to rank 1 during
// the outage, and the job completes.
func TestAcrossHostsDialDuringFlap(t *testing.T) {
	skipJobsAcrossHosts(t, "launches whole jobs across network namespaces")
	s := netns.New(t, 2)
	b := s.Hosts[1]
	code, out, _ := runAcross(t, s, []string{envScenario + "=tcp-late"}, "tcp-late: ready", func() {
		setLink(t, b, "down")
		time.Sleep(3 * time.Second)
		setLink(t, b, "up")
	})
	if code != 0 {
		t.Fatalf("a dial during a 3 s outage: exit %d:\n%s", code, out)
	}
}

// skipJobsAcrossHosts skips a test that starts jobs across network
// namespaces under -short, and under the race detector, whose run of
// another test (why says which) covers the same code.
func skipJobsAcrossHosts(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts jobs across network namespaces")
	}
	if raceEnabled {
		t.Skip(why)
	}
}
