package mpi_test

// Multi-process integration tests of package mpi.
//
// The test binary plays two parts. Run by "go test", it builds mpirun (and
// the examples) once and starts jobs of itself under mpirun:
//
//	mpirun -np N [flags] -timeout 60s <this test binary>
//
// with MPI_TEST_SCENARIO naming a scenario. Started by mpirun (MARTINI_RANK
// is set), TestMain runs that scenario as one rank and exits: 0 with
// "scenario NAME: rank R: ok" on stdout, or 1 with the reason on stderr. It
// never runs the tests then. Scenarios are in scenarios_test.go.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/hydratest"
	"github.com/rhinet-go/martini/mpi"
)

// Environment of a rank.
const (
	envScenario = "MPI_TEST_SCENARIO"  // the scenario to run
	envNoDump   = "MPI_TEST_NO_DUMP"   // "1": no goroutine dump on SIGTERM
	envAlone    = "MPI_TEST_SINGLETON" // "1": run the scenario without mpirun
)

// envSize, if set, is the size the world of a rank must have.
const envSize = "MPI_TEST_WORLD_SIZE"

func TestMain(m *testing.M) {
	if name := os.Getenv(envExample); name != "" {
		os.Exit(exampleRank(m, name)) // a rank of an example's job
	}
	if os.Getenv("MARTINI_RANK") != "" || os.Getenv("PMI_FD") != "" || os.Getenv("PMI_PORT") != "" || os.Getenv(envAlone) == "1" {
		os.Exit(rankMain())
	}
	os.Exit(testMain(m))
}

// rankMain runs the scenario named in the environment as one rank.
func rankMain() int {
	name := os.Getenv(envScenario)
	rank := os.Getenv("MARTINI_RANK")
	if rank == "" {
		rank = os.Getenv("PMI_RANK") // started by a PMI launcher
	}
	if rank == "" {
		rank = os.Getenv("PMI_ID") // by a PMI launcher on its port: the id is the rank
	}
	if rank == "" {
		rank = "0 (singleton)"
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "scenario %s: rank %s: FAIL: %v\n", name, rank, err)
		return 1
	}
	if os.Getenv(envNoDump) != "1" {
		dumpOnSIGTERM(name, rank)
	}
	var err error
	if raw, ok := rawScenarios[name]; ok {
		err = raw()
	} else if sc, ok := scenarios[name]; ok {
		err = runScenario(sc)
	} else {
		return fail(fmt.Errorf("no scenario %q (%s not set by the test?)", name, envScenario))
	}
	if err != nil {
		return fail(err)
	}
	fmt.Printf("scenario %s: rank %s: ok\n", name, rank)
	return 0
}

// runScenario brackets a scenario with Init and Finalize.
func runScenario(sc func(world *mpi.Comm) error) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	world := mpi.World()
	if world == nil {
		return errors.New("World() is nil after Init")
	}
	if want := os.Getenv(envSize); want != "" && strconv.Itoa(world.Size()) != want {
		return fmt.Errorf("a world of %d processes, want %s", world.Size(), want)
	}
	if err := sc(world); err != nil {
		return err // exit without Finalize: mpirun stops the others
	}
	return mpi.Finalize()
}

// dumpOnSIGTERM makes a rank that mpirun stops (after a timeout or another
// rank's failure) print where its goroutines were, to tell a hang's cause.
func dumpOnSIGTERM(name, rank string) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	go func() {
		<-c
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		fmt.Fprintf(os.Stderr, "scenario %s: rank %s: SIGTERM; goroutines:\n%s\n", name, rank, buf[:n])
		os.Exit(143)
	}()
}

// Built by testMain.
var (
	binDir    string // mpirun, hello, pingpong
	self      string // this test binary
	mpirunBin string
)

func testMain(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "mpi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	gocmd, err := exec.LookPath("go")
	if err != nil {
		gocmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	const mod = "github.com/rhinet-go/martini/"
	cmd := exec.Command(gocmd, "build", "-o", dir+"/", mod+"cmd/mpirun", mod+"examples/hello", mod+"examples/pingpong")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building mpirun and the examples: %v\n", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "built mpirun and the examples in %v\n", time.Since(start).Round(time.Millisecond))
	}
	binDir = dir
	mpirunBin = filepath.Join(dir, "mpirun")
	if self, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := runExamples()
	if c := m.Run(); c != 0 {
		return c
	}
	return code
}

// result is the outcome of one mpirun.
type result struct {
	args           []string
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("mpirun %s: exit %d after %v\n--- stdout:\n%s--- stderr:\n%s",
		strings.Join(r.args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// jobTimeout is what mpirun -timeout gets: a hang fails the test instead of
// stalling it.
const jobTimeout = 60 * time.Second

// mpirun runs the mpirun command with args and the extra environment env.
func mpirun(t testing.TB, env []string, args ...string) result {
	t.Helper()
	return mpirunWithin(t, jobTimeout+30*time.Second, env, args...)
}

// mpirunWithin is mpirun for a job that may take up to limit, its own
// -timeout included.
func mpirunWithin(t testing.TB, limit time.Duration, env []string, args ...string) result {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an MPI job: under -short the examples are the jobs that run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirunBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("mpirun %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// runScenarioJob runs scenario name as a job of np ranks with the mpirun
// flags, and checks that every rank reported success in time.
func runScenarioJob(t *testing.T, np int, name string, flags ...string) result {
	t.Helper()
	args := append([]string{"-np", strconv.Itoa(np), "-timeout", jobTimeout.String()}, flags...)
	args = append(args, self)
	r := mpirun(t, []string{envScenario + "=" + name}, args...)
	if r.code != 0 {
		t.Fatalf("scenario %s failed:\n%v", name, r)
	}
	for i := range np {
		if want := fmt.Sprintf("scenario %s: rank %d: ok\n", name, i); !strings.Contains(r.stdout, want) {
			t.Errorf("rank %d did not report success (%q):\n%v", i, want, r)
		}
	}
	// Oversubscribed ranks spin, yield and then sleep on the doorbell:
	// even 8 ranks on 2 cores must finish promptly.
	if limit := promptLimit(); r.elapsed > limit {
		t.Errorf("scenario %s with %d ranks took %v, more than %v", name, np, r.elapsed, limit)
	}
	if testing.Verbose() {
		t.Logf("%s: mpirun %s: %v", name, strings.Join(r.args[:len(r.args)-1], " "), r.elapsed.Round(time.Millisecond))
	}
	return r
}

// promptLimit is how long a scenario's job may take before its slowness
// fails the test, within jobTimeout: 30 s, and half as long again under
// the race detector, whose ranks take about twice as long, alone or
// beside the other tests' jobs.
func promptLimit() time.Duration {
	if raceEnabled {
		return 45 * time.Second
	}
	return 30 * time.Second
}

// nps are the job sizes to run a scenario at; 8 ranks on a machine with
// fewer cores checks oversubscription. Under the race detector, whose
// ranks are several times slower, the tests marked heavy skip 8 (and
// jobSizes keeps fewer still).
func nps(heavy bool) []int {
	if raceEnabled && heavy {
		return []int{2, 3, 4}
	}
	return []int{2, 3, 4, 8}
}

// jobSizes is what a test runs of sizes: all of them, and raceSizes of
// them under the race detector.
func jobSizes(sizes []int) []int {
	if raceEnabled {
		return raceSizes(sizes)
	}
	return sizes
}

// runAt runs scenario name at every job size of jobSizes(sizes), as
// parallel subtests.
func runAt(t *testing.T, name string, sizes []int, flags ...string) {
	for _, np := range jobSizes(sizes) {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, np, name, flags...)
		})
	}
}

// raceSizes is what the race detector's run keeps of a scenario's job
// sizes: a single process (its sends to itself), the smallest job of two
// processes or more and the largest, in their order. What the detector
// looks at, the goroutines of one process, is alike at the sizes between,
// whose algorithms the run without the detector covers.
func raceSizes(sizes []int) []int {
	lo, hi := 0, 0
	for _, np := range sizes {
		if np >= 2 && (lo == 0 || np < lo) {
			lo = np
		}
		hi = max(hi, np)
	}
	var keep []int
	for _, np := range sizes {
		if np == 1 || np == lo || np == hi {
			keep = append(keep, np)
		}
	}
	return keep
}

func TestRaceSizes(t *testing.T) {
	for _, c := range []struct{ in, want []int }{
		{[]int{2, 3, 4, 8}, []int{2, 8}},
		{[]int{1, 2, 3, 4}, []int{1, 2, 4}},
		{[]int{4, 2, 3}, []int{4, 2}},
		{[]int{1, 2}, []int{1, 2}},
		{[]int{3}, []int{3}},
		{[]int{1}, []int{1}},
		{[]int{2, 2, 5}, []int{2, 2, 5}},
	} {
		if got := raceSizes(c.in); !slices.Equal(got, c.want) {
			t.Errorf("raceSizes(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestTypes(t *testing.T) {
	t.Parallel()
	runAt(t, "types", nps(true))
}

func TestMessageSizes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		np    int
		flags []string
	}{
		{"default", 2, nil},
		{"default", 3, nil},
		{"rndv-push", 2, []string{"-rndv", "push"}},
		{"no-cma", 2, []string{"-no-cma"}},
		{"no-cma-push", 3, []string{"-no-cma", "-rndv", "push"}},
		{"eager-0", 2, []string{"-eager-limit", "0"}},
		{"eager-1024", 2, []string{"-eager-limit", "1024"}},
		{"eager-1024-push", 3, []string{"-eager-limit", "1k", "-rndv", "push"}},
		{"rndv-split", 2, []string{"-rndv", "split"}},
		{"no-cma-split", 3, []string{"-no-cma", "-rndv", "split"}},
		{"eager-1m", 4, []string{"-eager-limit", "1m"}},
		// Eager limits whose rings would not fit: capped.
		{"eager-8m", 2, []string{"-eager-limit", "8m"}},
		{"eager-4m", 4, []string{"-eager-limit", "4m"}},
	} {
		t.Run(fmt.Sprintf("%s/np=%d", c.name, c.np), func(t *testing.T) {
			if raceEnabled && c.name == "eager-4m" {
				t.Skip("slow under the race detector; eager-8m checks the same")
			}
			t.Parallel()
			runScenarioJob(t, c.np, "sizes", c.flags...)
		})
	}
}

func TestNonOvertaking(t *testing.T) {
	t.Parallel()
	sizes := []int{2, 3, 4}
	if raceEnabled {
		sizes = sizes[:2]
	}
	runAt(t, "order", sizes)
	t.Run("push/np=3", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 3, "order", "-rndv", "push", "-eager-limit", "4k")
	})
	t.Run("split/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "order", "-rndv", "split")
	})
}

func TestStatusAndProbe(t *testing.T) {
	t.Parallel()
	runAt(t, "probe", []int{2, 3})
	t.Run("push/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "probe", "-rndv", "push")
	})
}

func TestRequests(t *testing.T) {
	t.Parallel()
	runAt(t, "requests", []int{2, 4})
}

func TestProcNull(t *testing.T) {
	t.Parallel()
	runAt(t, "procnull", []int{2})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	runAt(t, "errors", []int{2, 3})
	t.Run("push/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "errors", "-rndv", "push")
	})
	t.Run("no-cma/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "errors", "-no-cma")
	})
	t.Run("split/np=3", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 3, "errors", "-rndv", "split")
	})
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	runAt(t, "lifecycle", []int{2})
}

func TestConcurrentGoroutines(t *testing.T) {
	t.Parallel()
	runAt(t, "concurrency", nps(true))
	for _, rndv := range []string{"push", "split"} {
		t.Run(rndv+"/np=3", func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, 3, "concurrency", "-rndv", rndv)
		})
	}
}

func TestNICProtection(t *testing.T) {
	t.Parallel()
	runAt(t, "protection", []int{2, 3})
}

func TestStats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"pull", []string{"-rndv", "pull"}},
		{"pull-no-cma", []string{"-rndv", "pull", "-no-cma"}},
		{"push", []string{"-rndv", "push"}},
		{"push-no-cma", []string{"-rndv", "push", "-no-cma"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, 2, "stats", c.flags...)
		})
	}
	t.Run("flag", func(t *testing.T) {
		t.Parallel()
		r := runScenarioJob(t, 3, "barrier", "-stats")
		for i := range 3 {
			for _, want := range []string{fmt.Sprintf("[%d] stats: eager(rings) ", i), fmt.Sprintf("[%d] martini: aotf ", i), "queue full 0"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("-stats: stderr lacks %q:\n%v", want, r)
				}
			}
		}
	})
}

func TestBarrier(t *testing.T) {
	t.Parallel()
	runAt(t, "barrier", nps(false))
	// A barrier whose token sends fail returns. Only at 2 ranks, where
	// every rank's send fails: with more, a rank whose own send went
	// through may wait for a token from a rank that gave up, as in any
	// MPI where an error inside a collective leaves the others undefined.
	for _, np := range []int{2} {
		t.Run(fmt.Sprintf("refused/np=%d", np), func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, np, "barrier-refused")
		})
	}
}

// TestSingleton runs a scenario as a process started without mpirun, a
// job of one, and the same under mpirun -np 1.
func TestSingleton(t *testing.T) {
	t.Parallel()
	t.Run("alone", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, self)
		cmd.Env = append(os.Environ(), envAlone+"=1", envScenario+"=self")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "scenario self: rank 0 (singleton): ok") {
			t.Fatalf("singleton: %v\n%s", err, out)
		}
	})
	t.Run("np=1", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 1, "self")
	})
}

// TestZeroAllocs checks that blocking eager Send and Recv do not allocate.
func TestZeroAllocs(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	runScenarioJob(t, 2, "allocs")
}

// TestFinalizePending calls Finalize while other goroutines are inside MPI
// calls: they fail cleanly instead of touching unmapped memory.
func TestFinalizePending(t *testing.T) {
	t.Parallel()
	for _, np := range []int{2, 3} {
		runScenarioJob(t, np, "finalize-pending")
	}
}

// TestFinalizeSettles ends a job with a broadcast whose counts differ:
// every rank reports the difference, from the Bcast or, where the
// broadcast ran ahead of its check (ranks outnumbering cores), from
// Finalize, on World and on a duplicate that is never freed.
func TestFinalizeSettles(t *testing.T) {
	t.Parallel()
	for _, np := range []int{2, 3, 5} {
		runScenarioJob(t, np, "finalize-settles")
		runScenarioJob(t, np, "finalize-settles-dup")
	}
}

// TestResourceExhaustion runs out of SIDs with pending rendezvous sends.
func TestResourceExhaustion(t *testing.T) {
	t.Parallel()
	runScenarioJob(t, 2, "exhaust", "-rndv", "pull")
}

// TestExhaustBeforeConnect reproduces a limitation of llc: when a process
// has used up its SIDs before a peer first connects to it, it cannot
// register the ring for that peer and refuses the connection ("it could
// not register a ring"), and the connection stays failed for the rest of
// the job, even once SIDs are free again. Skipped unless
// MPI_TEST_KNOWN_BUGS=1.
func TestExhaustBeforeConnect(t *testing.T) {
	if os.Getenv("MPI_TEST_KNOWN_BUGS") != "1" {
		t.Skip("known llc limitation; set MPI_TEST_KNOWN_BUGS=1 to run")
	}
	t.Parallel()
	runScenarioJob(t, 2, "sids-first", "-timeout", "10s")
}

// TestEngineFailure stops the protocol engine of one rank with a forged
// connection request.
func TestEngineFailure(t *testing.T) {
	t.Parallel()
	runScenarioJob(t, 2, "enginefail")
}

// runAlone runs a raw scenario as a process without mpirun and returns
// its exit status and output.
func runAlone(t *testing.T, name string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), envAlone+"=1", envScenario+"="+name, envNoDump+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", name, err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

func TestAbortAlone(t *testing.T) {
	t.Parallel()
	// An exit status has 8 bits: Abort(256) must not exit with 0.
	if code, out := runAlone(t, "abort-256-alone"); code != 1 || !strings.Contains(out, "called Abort(256)") {
		t.Errorf("singleton Abort(256): exit %d, want 1; output:\n%s", code, out)
	}
	// Abort on the World of a process that has not initialized.
	if code, out := runAlone(t, "abort-before-init"); code != 5 || !strings.Contains(out, "called Abort(5)") {
		t.Errorf("Abort(5) before Init: exit %d, want 5; output:\n%s", code, out)
	}
}

// Failures through mpirun: the job must end promptly, name the rank and
// how it failed, and leave nothing in /dev/shm.

func shmEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/dev/shm")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !otherMPIFile(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names
}

// otherMPIFile reports whether name in /dev/shm is one that MPICH or Open
// MPI makes: the reference runs of other packages' tests (libmpich's
// under mpiexec.hydra) may make and remove them meanwhile.
func otherMPIFile(name string) bool {
	for _, prefix := range []string{"mpich_", "vader_segment", "sm_segment", "ompi"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// runFailure runs scenario name, which must fail with exit code and a
// message of mpirun matching re, within bound.
func runFailure(t *testing.T, np int, name string, code int, re string, bound time.Duration, flags ...string) result {
	t.Helper()
	before := shmEntries(t)
	args := append([]string{"-np", strconv.Itoa(np)}, flags...)
	if !slices.Contains(flags, "-timeout") {
		args = append(args, "-timeout", jobTimeout.String())
	}
	args = append(args, self)
	r := mpirun(t, []string{envScenario + "=" + name, envNoDump + "=1"}, args...)
	if r.code != code {
		t.Errorf("exit %d, want %d\n%v", r.code, code, r)
	}
	if !regexp.MustCompile(re).MatchString(r.stderr) {
		t.Errorf("mpirun's report does not match %q\n%v", re, r)
	}
	if n := strings.Count(r.stderr, "mpirun: "); n != 1 {
		t.Errorf("%d reports by mpirun, want 1 (the first failure)\n%v", n, r)
	}
	if r.elapsed > bound {
		t.Errorf("the job took %v to end, more than %v\n%v", r.elapsed, bound, r)
	}
	for _, name := range shmEntries(t) {
		if !slices.Contains(before, name) {
			t.Errorf("new file in /dev/shm: %s", name)
		}
	}
	// The ranks that were blocked are gone: mpirun killed them.
	for _, m := range regexp.MustCompile(`blocked in Recv \(pid (\d+)\)`).FindAllStringSubmatch(r.stdout, -1) {
		pid, _ := strconv.Atoi(m[1])
		deadline := time.Now().Add(2 * time.Second)
		for hydratest.Alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("rank pid %d still alive after mpirun ended", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if testing.Verbose() {
		t.Logf("%s: exit %d after %v: %s", name, r.code, r.elapsed.Round(time.Millisecond), lastLine(r.stderr))
	}
	return r
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

func TestFailures(t *testing.T) {
	t.Parallel()
	t.Run("panic", func(t *testing.T) {
		t.Parallel()
		r := runFailure(t, 3, "fail-panic", 2,
			`(?m)^mpirun: rank 1 \(pid \d+\) panicked \(exit status 2\): panic: scenario fail-panic: rank 1 panics on purpose$`,
			10*time.Second)
		if !strings.Contains(r.stdout, "rank 0 blocked in Recv") || !strings.Contains(r.stdout, "rank 2 blocked in Recv") {
			t.Errorf("the other ranks were not blocked in Recv\n%v", r)
		}
	})
	t.Run("abort", func(t *testing.T) {
		t.Parallel()
		r := runFailure(t, 3, "fail-abort", 3,
			`(?m)^mpirun: rank 1 \(pid \d+\) called MPI Abort with error code 3: rank 1 called Abort\(3\)$`,
			10*time.Second)
		if !strings.Contains(r.stderr, "mpi: rank 1 called Abort(3)") {
			t.Errorf("the rank did not say it aborts\n%v", r)
		}
	})
	t.Run("abort-code-256", func(t *testing.T) {
		t.Parallel()
		// An exit status is 8 bits: Abort(256) must still fail the job.
		runFailure(t, 2, "fail-abort-256", 1,
			`(?m)^mpirun: rank 1 \(pid \d+\) called MPI Abort with error code 256`, 10*time.Second)
	})
	t.Run("abort-in-finalize", func(t *testing.T) {
		t.Parallel()
		runFailure(t, 2, "fail-abort-in-finalize", 4,
			`(?m)^mpirun: rank 0 \(pid \d+\) called MPI Abort with error code 4: rank 0 called Abort\(4\)$`,
			10*time.Second, "-timeout", "15s")
	})
	t.Run("no-finalize", func(t *testing.T) {
		t.Parallel()
		// The other ranks' Finalize fails as soon as rank 1 is gone and
		// they may be reaped first; mpirun must still name rank 1.
		runFailure(t, 3, "fail-nofinalize", 1,
			`(?m)^mpirun: rank 1 \(pid \d+\) exited without calling MPI Finalize \(MPI was initialized\)$`, 10*time.Second)
	})
	t.Run("unreceived", func(t *testing.T) {
		t.Parallel()
		r := runFailure(t, 2, "fail-unreceived", 1,
			`(?m)^mpirun: rank 1 \(pid \d+\) exited with status 1`, 10*time.Second)
		if !regexp.MustCompile(`rank 1: 1 message\(s\) sent to rank 1 were never received.* \d+ bytes from rank 0 of World with tag 5`).MatchString(r.stderr) {
			t.Errorf("no diagnostic naming the message:\n%v", r)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r := runFailure(t, 2, "fail-deadlock", 124,
			`(?m)^mpirun: job did not end within -timeout 2s; killing all ranks$`,
			5*time.Second, "-timeout", "2s")
		if r.elapsed < 2*time.Second {
			t.Errorf("the job ended after %v, before its timeout", r.elapsed)
		}
	})
}

// The examples, built once by testMain.

func TestExamplePingpong(t *testing.T) {
	t.Parallel()
	r := mpirun(t, nil, "-np", "2", "-timeout", jobTimeout.String(), filepath.Join(binDir, "pingpong"),
		"-max", "65536", "-runs", "1", "-time", "5ms")
	if r.code != 0 {
		t.Fatalf("pingpong failed:\n%v", r)
	}
	for _, want := range []string{
		`(?m)^# PingPong, 2 processes, eager limit \d+ B, rendezvous \w+, median of 1 runs$`,
		`(?m)^ +#bytes +#repetitions +t\[usec\] +Mbytes/sec$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("output does not match %q:\n%v", want, r)
		}
	}
	// One line per size: 0, then 1, 2, 4, ... 65536.
	rows := 0
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] != "#bytes" {
			if _, err := strconv.Atoi(f[0]); err == nil {
				rows++
			}
		}
	}
	if rows != 18 {
		t.Errorf("%d rows, want 18:\n%v", rows, r)
	}
}

func TestExampleHello(t *testing.T) {
	t.Parallel()
	r := mpirun(t, nil, "-np", "4", "-timeout", jobTimeout.String(), filepath.Join(binDir, "hello"))
	if r.code != 0 {
		t.Fatalf("hello failed:\n%v", r)
	}
	want := []string{"hello from rank 0 of 4", "rank 1 says 1", "rank 2 says 4", "rank 3 says 9"}
	got := strings.Split(strings.TrimSpace(r.stdout), "\n")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("output lines %q, want %q", got, want)
	}
}
