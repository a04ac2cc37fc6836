package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["crowded"] = scenarioCrowded }

// scenarioCrowded runs small allreduces for a second at least (rank 0's
// clock; several looks at the CPU's load), and on until a rank's waits
// sleep beside another program or every rank has unpinned itself (what
// the tests below look for, each rank's statistics), for at most
// crowdedFor; then barriers that rank 0 enters late, so that every
// rank's waits sleep on the doorbell after the others may have unpinned
// themselves. Whether a rank looks at its CPU's load in a given spell
// depends on how the scheduler runs the ranks beside the program, so a
// loaded machine may take more than the second.
func scenarioCrowded(w *mpi.Comm) error {
	start := time.Now()
	seen := false
	for state := []int64{1, 0, 0}; state[0] > 0; {
		s, err := mpi.ReadStats()
		if err != nil {
			return err
		}
		state = []int64{0, oneIf(s.Wait.Beside), oneIf(s.Wait.Unpinned)}
		if since := time.Since(start); w.Rank() == 0 && (since < time.Second || !seen && since < crowdedFor) {
			state[0] = 1
		}
		if err := mpi.Allreduce(w, nil, state, mpi.Sum); err != nil {
			return err
		}
		seen = state[1] > 0 || state[2] == int64(w.Size())
	}
	for range 3 {
		if w.Rank() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if err := w.Barrier(); err != nil {
			return err
		}
	}
	return nil
}

// crowdedFor bounds scenarioCrowded's allreduces.
const crowdedFor = 20 * time.Second

// oneIf is 1 for true, 0 for false.
func oneIf(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestCrowdedRanksUnpin: a job whose ranks outnumber its CPUs pins them
// by default, and a program that never yields on one of those CPUs holds
// it for whole slices of the scheduler while the ranks pinned there wait
// behind it. Their looks at the CPU's load see the program's share and
// unpin them, and then the job's other ranks unpin themselves too (llc's
// crowd.go): every rank's statistics say so. The job runs on at most two
// CPUs (taskset), with twice as many ranks, the program pinned to the
// first.
func TestCrowdedRanksUnpin(t *testing.T) {
	taskset, cpus := jobCPUs(t)
	np := 2 * len(cpus)
	out := crowdedJob(t, taskset, cpus, np)
	if n := strings.Count(out, "unpinned (crowded)"); n != np {
		t.Errorf("%d of %d ranks unpinned themselves beside a program holding CPU %s:\n%s", n, np, cpus[0], out)
	}
}

// TestRanksBesideAProgramSleep: a job with a CPU for each rank pins them,
// and a program that never yields on one of those CPUs would take it for
// whole slices of the scheduler each time the rank there yields while it
// waits. That rank's looks at the CPU's load see the program and have its
// waits sleep instead of yielding (llc's crowd.go); no rank unpins.
func TestRanksBesideAProgramSleep(t *testing.T) {
	taskset, cpus := jobCPUs(t)
	if len(cpus) < 2 {
		t.Skip("one CPU: a job with a CPU for each rank has one rank")
	}
	out := crowdedJob(t, taskset, cpus, len(cpus))
	if strings.Contains(out, "unpinned (crowded)") {
		t.Errorf("a rank with a CPU of its own unpinned itself:\n%s", out)
	}
	if !strings.Contains(out, "slept instead of yielding") {
		t.Errorf("no rank stopped yielding its CPU to a program holding CPU %s:\n%s", cpus[0], out)
	}
}

// crowdedJob runs the crowded scenario as a job of np ranks on cpus
// (taskset), with -stats, beside a loop that never yields pinned to the
// first of them, and returns the job's output once every rank has
// reported success.
func crowdedJob(t *testing.T, taskset string, cpus []string, np int) string {
	t.Helper()
	// A loop that never yields and ends with the test's process.
	hog := exec.Command(taskset, "-c", cpus[0], "sh", "-c", "while kill -0 $PPID 2>/dev/null; do :; done")
	hog.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := hog.Start(); err != nil {
		t.Fatalf("the program that never yields: %v", err)
	}
	defer func() {
		hog.Process.Kill()
		hog.Wait()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 2*jobTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, taskset, "-c", strings.Join(cpus, ","),
		mpirunBin, "-np", strconv.Itoa(np), "-stats", "-timeout", jobTimeout.String(), self)
	cmd.Env = append(os.Environ(), envScenario+"=crowded")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the job on CPUs %s: %v\n%s", strings.Join(cpus, ","), err, out)
	}
	for r := range np {
		if want := fmt.Sprintf("scenario crowded: rank %d: ok", r); !strings.Contains(string(out), want) {
			t.Errorf("rank %d did not report success", r)
		}
	}
	return string(out)
}

// jobCPUs returns taskset's path, to run a job and other programs on
// chosen CPUs, and the first two CPUs the test process may run on (one
// where it has one); it skips the test without them.
func jobCPUs(t *testing.T) (taskset string, cpus []string) {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset (util-linux) to put a job and other programs on chosen CPUs")
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Skip(err)
	}
	for c := 0; c < len(allowed)*64 && len(cpus) < 2; c++ {
		if allowed.IsSet(c) {
			cpus = append(cpus, strconv.Itoa(c))
		}
	}
	return taskset, cpus
}
