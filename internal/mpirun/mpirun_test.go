package mpirun

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/hydratest"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
)

// bin holds the helper programs of testdata and the mpirun command, built
// once by TestMain.
var bin string

var helpers = []string{"printrank", "failrank", "nofinalize", "storesum", "abort", "background", "leave", "hoststore", "vtping", "hang", "habit", "segments"}

func TestMain(m *testing.M) {
	// The jobs across hosts that tests run in this process start this
	// binary (os.Executable) as their agents.
	if len(os.Args) == 2 && os.Args[1] == agentCommand {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		os.Exit(runAgent(os.Stdin, os.Stdout, os.Stderr, sigs))
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mpirun-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	gocmd, err := mpirunbuild.GoTool()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	args := []string{"build", "-o", dir + "/", "../../cmd/mpirun"}
	for _, h := range helpers {
		args = append(args, "./testdata/"+h)
	}
	cmd := exec.Command(gocmd, args...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test helpers: %v\n", err)
		return 1
	}
	bin = dir
	return m.Run()
}

func helper(name string) string { return filepath.Join(bin, name) }

// result is the outcome of one in-process run of mpirun.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func mpirun(t *testing.T, args ...string) result {
	t.Helper()
	return mpirunSignalled(t, nil, args...)
}

func mpirunSignalled(t *testing.T, sigs chan os.Signal, args ...string) result {
	t.Helper()
	return mpirunWith(t, nil, sigs, args...)
}

// mpirunWith runs mpirun with standard input stdin (nil: none).
func mpirunWith(t *testing.T, stdin io.Reader, sigs chan os.Signal, args ...string) result {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a job")
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(args, stdin, &stdout, &stderr, sigs)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	t.Logf("mpirun %s: exit %d after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
	return r
}

func lines(s string) []string {
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(l) == 1 && l[0] == "" {
		return nil
	}
	return l
}

func sortedLines(s string) []string {
	l := lines(s)
	slices.Sort(l)
	return l
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{},
		{"-np", "2"},
		{helper("printrank")},
		{"-np", "0", helper("printrank")},
		{"-np", "-1", helper("printrank")},
		{"-np", "two", helper("printrank")},
		{"-bogus", "-np", "2", helper("printrank")},
		{"-np", "2", "-rndv", "fast", helper("printrank")},
		{"-np", "2", "-eager", "vpush", helper("printrank")},
		{"-np", "2", "-eager-limit", "-5", helper("printrank")},
		{"-np", "2", "-eager-limit", "lots", helper("printrank")},
		{"-np", "2", "-timeout", "-1s", helper("printrank")},
		{"-np", "2", "-timeout", "soon", helper("printrank")},
		{"-np", "2", "-profile", "myrinet", helper("printrank")},
		{"-np", "2", "-clock", "virtual", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "sundial", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-host-speed", "2", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-host-speed", "-1", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-transport", "tcp", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-compute", "declared", "-op-rate", "5", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-compute", "flops", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-compute", "declared", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-compute", "declared", "-op-rate", "0", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-compute", "declared", "-op-rate", "5", "-host-speed", "1", helper("printrank")},
		{"-np", "2", "-profile", "martini", "-clock", "virtual", "-op-rate", "5", helper("printrank")},
	} {
		r := mpirun(t, args...)
		if r.code != 2 {
			t.Errorf("mpirun %q: exit %d, want 2", args, r.code)
		}
		if l := lines(r.stderr); len(l) != 2 || !strings.HasPrefix(l[0], "mpirun: ") || l[1] != usageShort {
			t.Errorf("mpirun %q: stderr %q, want why and %q", args, r.stderr, usageShort)
		}
		if r.stdout != "" {
			t.Errorf("mpirun %q: output on stdout: %q", args, r.stdout)
		}
	}
	if r := mpirun(t, "-h"); r.code != 0 || !strings.Contains(r.stderr, "usage: mpirun -np N") || !strings.Contains(r.stderr, "-tag-output") {
		t.Errorf("mpirun -h: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRanksPrint(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "3", helper("printrank"), "a", "b c")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	var want []string
	for i := range 3 {
		want = append(want,
			fmt.Sprintf("rank %d of 3 args=a,b c eager= rndv= nocma= stats=", i),
			"no newline at the end")
	}
	slices.Sort(want)
	if got := sortedLines(r.stdout); !slices.Equal(got, want) {
		t.Errorf("stdout lines:\n%q\nwant\n%q", got, want)
	}
	if got, want := sortedLines(r.stderr), []string{"stderr of rank 0", "stderr of rank 1", "stderr of rank 2"}; !slices.Equal(got, want) {
		t.Errorf("stderr lines %q, want %q", got, want)
	}
}

func TestTagOutput(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "3", "-tag-output", helper("printrank"))
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	tagged := regexp.MustCompile(`^\[(\d)\] (.*)$`)
	n := 0
	for _, l := range lines(r.stdout) {
		m := tagged.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("stdout line %q is not tagged", l)
			continue
		}
		if strings.HasPrefix(m[2], "rank ") && !strings.HasPrefix(m[2], "rank "+m[1]+" ") {
			t.Errorf("line %q tagged with the wrong rank", l)
		}
		n++
	}
	if n != 6 {
		t.Errorf("%d tagged stdout lines, want 6", n)
	}
	for _, l := range lines(r.stderr) {
		m := tagged.FindStringSubmatch(l)
		if m == nil || m[2] != "stderr of rank "+m[1] {
			t.Errorf("stderr line %q is not tagged with its rank", l)
		}
	}
}

func TestSettingsForwarded(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "2", "-eager-limit", "4k", "-rndv", "push", "-no-cma", "-stats", helper("printrank"))
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	for i := range 2 {
		want := fmt.Sprintf("rank %d of 2 args= eager=4096 rndv=push nocma=1 stats=1\n", i)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
}

func TestPlainProgramInPath(t *testing.T) {
	t.Parallel()
	// Like "mpirun -np 2 hostname": no NIC, no data store, exit 0 is fine.
	r := mpirun(t, "-np", "2", "true")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
}

func TestProgramNotFound(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"no-such-program-xyzzy", "./no/such/program", filepath.Join(t.TempDir(), "nothing")} {
		r := mpirun(t, "-np", "2", prog)
		if r.code == 0 || !strings.Contains(r.stderr, prog) {
			t.Errorf("%s: exit %d, stderr %q; want a failure naming the program", prog, r.code, r.stderr)
		}
	}
}

// failureRE matches mpirun's report of a failed rank.
func failureRE(rank int, how string) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`(?m)^mpirun: rank %d \(pid \d+\) %s`, rank, how))
}

func checkFailure(t *testing.T, r result, code int, re *regexp.Regexp) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d", r.code, code)
	}
	if !re.MatchString(r.stderr) {
		t.Errorf("stderr does not match %v:\n%s", re, r.stderr)
	}
	if n := strings.Count(r.stderr, "mpirun: rank"); n != 1 {
		t.Errorf("%d failures reported, want only the first", n)
	}
	if r.elapsed > 5*time.Second {
		t.Errorf("the job took %v to end; the sleeping ranks were not killed", r.elapsed)
	}
}

func TestRankExitStatus(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "3", helper("failrank"), "exit", "1", "3")
	checkFailure(t, r, 3, failureRE(1, `exited with status 3$`))
}

func TestRankPanics(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "3", helper("failrank"), "panic", "2")
	checkFailure(t, r, 2, failureRE(2, `panicked \(exit status 2\): panic: something went wrong`))
}

func TestRankKilledBySignal(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "2", helper("failrank"), "kill", "0")
	checkFailure(t, r, 128+int(syscall.SIGKILL), failureRE(0, `was killed by SIGKILL \(signal 9\)`))
}

func TestExitWithoutFinalize(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "2", helper("nofinalize"))
	checkFailure(t, r, 1, failureRE(1, `exited without calling MPI Finalize \(MPI was initialized\)`))
}

// TestLeaveReported: a rank that leaves the job with status 0 before MPI
// Init, or after it without Finalize, is the failure reported, whatever
// the ranks that waited for it do then.
func TestLeaveReported(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"init", "finalize"} {
		for _, react := range []string{"exit", "panic", "abort"} {
			t.Run(when+"-"+react, func(t *testing.T) {
				t.Parallel()
				r := mpirun(t, "-np", "3", helper("leave"), when, react)
				how := `exited with status 0 before calling MPI Init`
				if when == "finalize" {
					how = `exited without calling MPI Finalize \(MPI was initialized\)`
				}
				checkFailure(t, r, 1, failureRE(1, how))
			})
		}
	}
}

// TestNoDescendantLeft: a rank's child that holds the rank's output does
// not outlive it, nor hold mpirun up.
func TestNoDescendantLeft(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "2", helper("background"))
	if r.code != 0 {
		t.Errorf("exit %d, want 0", r.code)
	}
	var pids []int
	for _, l := range lines(r.stdout) {
		var pid int
		if _, err := fmt.Sscanf(l, "child %d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("stdout %q: want the pids of 2 children", r.stdout)
	}
	waitDead(t, pids, time.Second)
}

func TestAbort(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "3", helper("abort"))
	checkFailure(t, r, 7, failureRE(1, `called MPI Abort with error code 7: bad input$`))
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "2", "-timeout", "500ms", helper("failrank"), "sleep")
	if r.code != exitTimeout {
		t.Errorf("exit %d, want %d", r.code, exitTimeout)
	}
	if !strings.Contains(r.stderr, "mpirun: job did not end within -timeout 500ms") {
		t.Errorf("stderr does not name the timeout:\n%s", r.stderr)
	}
	if r.elapsed > 3*time.Second {
		t.Errorf("the job took %v", r.elapsed)
	}
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		sigs <- os.Interrupt
	}()
	r := mpirunSignalled(t, sigs, "-np", "2", helper("failrank"), "sleep")
	if r.code != 130 {
		t.Errorf("exit %d, want 130", r.code)
	}
	if !strings.Contains(r.stderr, "mpirun: received SIGINT") {
		t.Errorf("stderr does not report the interrupt:\n%s", r.stderr)
	}
	if r.elapsed > 3*time.Second {
		t.Errorf("the job took %v", r.elapsed)
	}
}

func TestDataStoreThroughMpirun(t *testing.T) {
	t.Parallel()
	before := shmEntries(t)
	r := mpirun(t, "-np", "4", helper("storesum"))
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	var want []string
	for i := range 4 {
		want = append(want, fmt.Sprintf("rank %d of 4: sum 6", i))
	}
	if got := sortedLines(r.stdout); !slices.Equal(got, want) {
		t.Errorf("stdout %q, want %q", got, want)
	}
	// The segment is a memfd: nothing may appear in /dev/shm.
	if after := shmEntries(t); !slices.Equal(before, after) {
		t.Errorf("/dev/shm changed: before %q, after %q", before, after)
	}
}

func shmEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/dev/shm")
	if err != nil {
		t.Skipf("cannot list /dev/shm: %v", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The build tests set TMPDIR, so they cannot run in parallel; they run
// before the parallel tests.

func TestBuildGoPackage(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := mpirun(t, "-np", "2", "-tag-output", "./testdata/printrank")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0", r.code)
	}
	for i := range 2 {
		if want := fmt.Sprintf("[%d] rank %d of 2", i, i); !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	checkEmpty(t, tmp)
}

func TestBuildFailure(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := mpirun(t, "-np", "2", "./testdata/broken")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if !strings.Contains(r.stderr, "mpirun: build") {
		t.Errorf("stderr does not report the build failure:\n%s", r.stderr)
	}
	checkEmpty(t, tmp)
}

// checkEmpty checks that nothing (mpirun's directory, the go command's
// work directory) was left in dir, the TMPDIR of a build.
func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left behind in TMPDIR", e.Name())
	}
}

// startMpirun starts the mpirun command on failrank sleep with np ranks and
// returns it with the pids of its ranks.
func startMpirun(t *testing.T, np int) (*exec.Cmd, []int) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a job")
	}
	cmd := exec.Command(helper("mpirun"), "-np", strconv.Itoa(np), helper("failrank"), "sleep")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		t.Logf("mpirun stderr:\n%s", stderr.String())
	})
	var pids []int
	sc := bufio.NewScanner(stdout)
	for len(pids) < np && sc.Scan() {
		var pid int
		if _, err := fmt.Sscanf(sc.Text(), "pid %d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) < np {
		t.Fatalf("got the pids of %d ranks, want %d", len(pids), np)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return cmd, pids
}

func waitDead(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, pid := range pids {
		for hydratest.Alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d still alive %v after mpirun ended", pid, within)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestMpirunTerminated(t *testing.T) {
	t.Parallel()
	cmd, pids := startMpirun(t, 2)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("mpirun exit %d (%v), want %d", code, err, 128+int(syscall.SIGTERM))
	}
	waitDead(t, pids, time.Second)
}

func TestMpirunKilledTakesRanksDown(t *testing.T) {
	t.Parallel()
	cmd, pids := startMpirun(t, 2)
	cmd.Process.Kill() // no chance to clean up: Pdeathsig must do it
	cmd.Wait()
	waitDead(t, pids, 2*time.Second)
}

// TestVirtualTimeDeterministic runs the same ping-pongs twice in virtual
// time, at 2 processes and at 4 (more than this machine's cores when it
// has 2): each rank's ping-pong times are the same in both runs. (The
// closing allreduce's end is not compared: whether its messages find
// their receives posted depends on the real order, and so, by a hop, does
// its time.)
func TestVirtualTimeDeterministic(t *testing.T) {
	t.Parallel()
	for _, np := range []string{"2", "4"} {
		var first string
		for run := range 2 {
			out := vtpingTrips(t, np, "-host-speed", "0", helper("vtping"))
			if run == 0 {
				first = out
			} else if out != first {
				t.Errorf("np %s: the second run's times differ:\n%s\nfirst:\n%s", np, out, first)
			}
		}
	}
}

// TestVirtualDeclaredDeterministic runs the ping-pongs under declared
// computing, each rank spending CPU time and declaring 1000 operations at
// 50 Mop/s (20 µs) before each send, at 2 and 4 processes: both runs give
// the same times, which are those of communication only plus exactly the
// declared time at 8 B and 1 KB (100 sends of 20 µs in each ping-pong's 50
// round trips), and at least that at 64 KB (whose transfers the computing
// delays a little more).
func TestVirtualDeclaredDeterministic(t *testing.T) {
	t.Parallel()
	for _, np := range []string{"2", "4"} {
		bare := tripTimes(t, vtpingTrips(t, np, "-host-speed", "0", helper("vtping")))
		var first string
		for run := range 2 {
			out := vtpingTrips(t, np, "-compute", "declared", "-op-rate", "50", helper("vtping"), "-declare", "1000")
			if run == 0 {
				first = out
			} else if out != first {
				t.Errorf("np %s: the second run's times differ:\n%s\nfirst:\n%s", np, out, first)
			}
			for i, d := range tripTimes(t, out) {
				if diff := d - bare[i]; diff < 100*20e-6-2e-9 || i%3 < 2 && diff > 100*20e-6+2e-9 {
					t.Errorf("np %s: ping-pong %d took %.9f s, %.9f s without computing: want 2 ms more", np, i, d, bare[i])
				}
			}
		}
	}
}

// vtpingTrips runs helper vtping on np processes in virtual time with the
// given arguments and returns its lines of round trips, sorted.
func vtpingTrips(t *testing.T, np string, args ...string) string {
	t.Helper()
	r := mpirun(t, append([]string{"-np", np, "-profile", "martini", "-clock", "virtual"}, args...)...)
	if r.code != 0 {
		t.Fatalf("np %s %q: exit %d: %s", np, args, r.code, r.stderr)
	}
	var trips []string
	for _, l := range sortedLines(r.stdout) {
		if strings.Contains(l, "round trips [") {
			trips = append(trips, l)
		}
	}
	if n, _ := strconv.Atoi(np); len(trips) != n || strings.Count(r.stdout, "allreduce "+strconv.Itoa(n*(n-1)/2)+",") != n {
		t.Fatalf("np %s %q: output %q", np, args, r.stdout)
	}
	return strings.Join(trips, "\n")
}

// tripTimes reads the times of vtpingTrips's lines, in order.
func tripTimes(t *testing.T, trips string) []float64 {
	t.Helper()
	var times []float64
	for _, l := range strings.Split(trips, "\n") {
		_, list, _ := strings.Cut(l, "[")
		list, _, _ = strings.Cut(list, "]")
		for _, f := range strings.Fields(list) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			times = append(times, v)
		}
	}
	return times
}
