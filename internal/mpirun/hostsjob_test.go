package mpirun

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/hydratest"
)

// Jobs across hosts whose hosts are all this one: the launch command
// starts the agent here, marking it (and so its ranks) with a variable of
// its environment, by which the test finds what is left of the job.

// fakeLaunch returns a -launch template that starts agents on this host,
// marked with a marker unique to t, and the marker.
func fakeLaunch(t *testing.T) (template, marker string) {
	if testing.Short() {
		t.Skip("starts a job across hosts")
	}
	marker = fmt.Sprintf("%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	return "env MPIRUN_TEST_JOB=" + marker + " MPIRUN_TEST_HOST={host}", marker
}

// marked returns the processes whose environment holds marker.
func marked(marker string) []int {
	want := []byte("MPIRUN_TEST_JOB=" + marker + "\x00")
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []int
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, want) {
			continue
		}
		if pid, err := strconv.Atoi(strings.Split(p, "/")[2]); err == nil && hydratest.Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkNothingLeft checks that no process of the job marked with marker
// is left, giving them a moment to go; it kills those that stay.
func checkNothingLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := marked(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the job left running: %v", pids)
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hostLine matches a line of hoststore: rank, host, local rank and size,
// tcp address, sum, hosts.
var hostLine = regexp.MustCompile(`^\[(\d+)\] rank (\d+) of (\d+) on (\S+) \(local (\d+) of (\d+), tcp (\S+)\): sum (\d+), hosts (.*)$`)

// checkHostLines checks the output of hoststore -probe, tagged, over
// hosts (each with its ranks' TCP address) with ranks placed 2 a host.
func checkHostLines(t *testing.T, stdout string, hosts, tcp []string) {
	t.Helper()
	var probes, ranks []string
	for _, l := range lines(stdout) {
		if strings.Contains(l, "refused") {
			probes = append(probes, l)
			continue
		}
		m := hostLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("unexpected line %q", l)
			continue
		}
		r, _ := strconv.Atoi(m[2])
		var placed []string
		for _, h := range hosts {
			placed = append(placed, h, h)
		}
		if m[1] != m[2] || m[3] != strconv.Itoa(len(placed)) || m[4] != hosts[r/2] || m[5] != strconv.Itoa(r%2) || m[6] != "2" || m[7] != tcp[r/2] || m[8] != "6" || m[9] != strings.Join(placed, " ") {
			t.Errorf("line %q: want rank %d on %s (local %d of 2, tcp %s), the sum 6 and the hosts %v", l, r, hosts[r/2], r%2, tcp[r/2], placed)
		}
		ranks = append(ranks, m[2])
	}
	slices.Sort(ranks)
	if want := []string{"0", "1", "2", "3"}; !slices.Equal(ranks, want) {
		t.Errorf("ranks %v reported, want %v", ranks, want)
	}
	if want := []string{"[3] refused: wrong job key", "[3] refused: already connected"}; !slices.Equal(probes, want) {
		t.Errorf("probes %q, want %q", probes, want)
	}
}

func TestHostsJob(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	before := shmEntries(t)
	r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, "-tag-output", helper("hoststore"), "-probe")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	checkHostLines(t, r.stdout, []string{"a", "b"}, []string{"127.0.0.1", "127.0.0.1"})
	checkNothingLeft(t, marker)
	if after := shmEntries(t); !slices.Equal(before, after) {
		t.Errorf("/dev/shm changed: before %q, after %q", before, after)
	}
}

func TestHostsHostfile(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("# two hosts\na slots=1\nb slots=2 max_slots=4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mpirun(t, "-hostfile", hostfile, "-launch", launch, "-tag-output", helper("printrank"))
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	for i := range 3 {
		if want := fmt.Sprintf("[%d] rank %d of 3 ", i, i); !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
		if want := fmt.Sprintf("[%d] stderr of rank %d\n", i, i); !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	checkNothingLeft(t, marker)
}

// hostFailureRE matches mpirun's report of a failed rank on a host.
func hostFailureRE(rank int, host, how string) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`(?m)^mpirun: rank %d \(pid \d+ on %s\) %s`, rank, regexp.QuoteMeta(host), how))
}

func TestHostsRankFails(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		code int
		re   *regexp.Regexp
	}{
		{"kill", []string{helper("failrank"), "kill", "3"}, 128 + int(syscall.SIGKILL), hostFailureRE(3, "b", `was killed by SIGKILL \(signal 9\)$`)},
		{"exit", []string{helper("failrank"), "exit", "1", "3"}, 3, hostFailureRE(1, "a", `exited with status 3$`)},
		{"panic", []string{helper("failrank"), "panic", "2"}, 2, hostFailureRE(2, "b", `panicked \(exit status 2\): panic: something went wrong`)},
		{"abort", []string{helper("abort")}, 7, hostFailureRE(1, "a", `called MPI Abort with error code 7: bad input$`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			launch, marker := fakeLaunch(t)
			r := mpirun(t, append([]string{"-hosts", "a:2,b:2", "-launch", launch}, c.args...)...)
			checkFailure(t, r, c.code, c.re)
			checkNothingLeft(t, marker)
		})
	}
}

func TestHostsAgentFails(t *testing.T) {
	t.Parallel()
	for launch, want := range map[string]string{
		"no-such-launcher {host}": `mpirun: host a: cannot start its agent \(no-such-launcher a .* agent\): exec: "no-such-launcher": executable file not found`,
		"false {host}":            `mpirun: host [ab]: its agent ended \(exit status 1\) before it started`,
		"sh -c {host}":            `mpirun: host ([ab]): .*: 1: ([ab]): not found\n(.|\n)*mpirun: host [ab]: its agent ended \(exit status 127\) before it started`,
	} {
		r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, helper("printrank"))
		if r.code != exitFailure || !regexp.MustCompile(want).MatchString(r.stderr) {
			t.Errorf("-launch %q: exit %d, stderr:\n%s\nwant %d and %s", launch, r.code, r.stderr, exitFailure, want)
		}
	}
}

func TestHostsInterrupt(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	sigs := make(chan os.Signal, 1)
	go func() {
		// Once every rank runs.
		for len(marked(marker)) < 2+4 {
			time.Sleep(20 * time.Millisecond)
		}
		sigs <- os.Interrupt
	}()
	r := mpirunSignalled(t, sigs, "-hosts", "a:2,b:2", "-launch", launch, helper("failrank"), "sleep")
	if r.code != 130 || !strings.Contains(r.stderr, "mpirun: received SIGINT") {
		t.Errorf("exit %d, stderr:\n%s\nwant 130 and the interrupt", r.code, r.stderr)
	}
	checkNothingLeft(t, marker)
}

// TestHostsTimeout: -timeout ends a job whose agents never say hello; the
// launch commands that do not stop are killed.
func TestHostsTimeout(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	// cat reads the standard input, which never ends, and says nothing.
	launch = strings.Replace(launch, "MPIRUN_TEST_HOST={host}", "sh -c cat>/dev/null {host}", 1)
	r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, "-timeout", "500ms", helper("printrank"))
	if r.code != exitTimeout || !strings.Contains(r.stderr, "mpirun: job did not end within -timeout 500ms") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and the timeout", r.code, r.stderr, exitTimeout)
	}
	checkNothingLeft(t, marker)
}

// TestHostsHeadKilled: agents whose head is gone (their standard input
// ends) stop their ranks and exit.
func TestHostsHeadKilled(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	cmd := exec.Command(helper("mpirun"), "-hosts", "a:2,b:2", "-launch", launch, helper("failrank"), "sleep")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer checkNothingLeft(t, marker)
	defer cmd.Wait()
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	for n := 0; n < 4 && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "pid ") {
			n++
		}
	}
	if n := len(marked(marker)); n != 2+4 {
		t.Errorf("%d processes of the job run, want 2 agents and 4 ranks", n)
	}
	cmd.Process.Kill() // no chance to stop the agents
}

// TestHostsGoPackage: a Go package is built once, by the head, and run on
// every host; the build leaves nothing in TMPDIR.
func TestHostsGoPackage(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	launch, marker := fakeLaunch(t)
	r := mpirun(t, "-hosts", "a,b", "-launch", launch, "-tag-output", "./testdata/printrank")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	for i := range 2 {
		if want := fmt.Sprintf("[%d] rank %d of 2", i, i); !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	checkEmpty(t, tmp)
	checkNothingLeft(t, marker)
}

// launchScript writes an executable shell script of body into a
// temporary directory of t and returns its path.
func launchScript(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostsAgentSilent: a launch command that never starts the agent (it
// sleeps) fails the job after -agent-timeout, naming the host and the
// launch command; the sleeps are killed.
func TestHostsAgentSilent(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	silent := launchScript(t, "silent", "sleep 1000\n")
	launch = strings.Replace(launch, "MPIRUN_TEST_HOST={host}", silent+" {host}", 1)
	r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, "-agent-timeout", "500ms", helper("printrank"))
	want := regexp.MustCompile(`(?m)^mpirun: host a: its agent did not answer within 500ms of the start of its launch command \(env MPIRUN_TEST_JOB=\S+ ` +
		regexp.QuoteMeta(silent) + ` a \S+ agent\).*; nor did the agent of host b$`)
	if r.code != exitFailure || !want.MatchString(r.stderr) {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %v", r.code, r.stderr, exitFailure, want)
	}
	// The bound, the stop of the agents (termGrace and agentGrace), slack.
	if r.elapsed > 500*time.Millisecond+termGrace+agentGrace+3*time.Second {
		t.Errorf("mpirun took %v to give up", r.elapsed)
	}
	checkNothingLeft(t, marker)
}

// TestHostsAgentEndsEarly: a launch command that exits before its agent
// answers is reported at once, with its exit status and what it wrote
// on stderr, though another host's launch command never answers.
func TestHostsAgentEndsEarly(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	script := launchScript(t, "early", `if [ "$1" = b ]; then echo "b: no route to host" >&2; exit 3; fi
sleep 1000
`)
	launch = strings.Replace(launch, "MPIRUN_TEST_HOST={host}", script+" {host}", 1)
	r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, helper("printrank"))
	want := regexp.MustCompile(`(?m)^mpirun: host b: b: no route to host\n(.|\n)*^mpirun: host b: its agent ended \(exit status 3\) before it started`)
	if r.code != exitFailure || !want.MatchString(r.stderr) {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %v", r.code, r.stderr, exitFailure, want)
	}
	// Well before the default -agent-timeout.
	if r.elapsed > termGrace+agentGrace+5*time.Second {
		t.Errorf("mpirun took %v to report it", r.elapsed)
	}
	checkNothingLeft(t, marker)
}

// TestHostsLaunchBanner: a launch command that prints a line before it
// starts the agent (a login banner) is reported as such, quoting the line.
func TestHostsLaunchBanner(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	banner := launchScript(t, "banner", `echo "Welcome to $1"
shift
exec "$@"
`)
	launch = strings.Replace(launch, "MPIRUN_TEST_HOST={host}", banner+" {host}", 1)
	r := mpirun(t, "-hosts", "a:2,b:2", "-launch", launch, helper("printrank"))
	want := regexp.MustCompile(`(?m)^mpirun: host [ab]: the launch command 'env MPIRUN_TEST_JOB=\S+ ` + regexp.QuoteMeta(banner) +
		` ([ab]) \S+ agent' wrote "Welcome to ([ab])" before the agent's protocol: something other than the agent wrote to its standard output \(a login banner or a shell start-up file such as ~/\.bashrc printing text is the usual cause\)$`)
	m := want.FindStringSubmatch(r.stderr)
	if r.code != exitFailure || m == nil || m[1] != m[2] {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and %v", r.code, r.stderr, exitFailure, want)
	}
	checkNothingLeft(t, marker)
}
