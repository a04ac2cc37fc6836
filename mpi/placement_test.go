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

	"github.com/rhinet-go/martini/internal/cpuload"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["pinned-cpu"] = scenarioPinnedCPU }

// scenarioPinnedCPU prints the CPU the rank is pinned to.
func scenarioPinnedCPU(w *mpi.Comm) error {
	fmt.Printf("placed: rank %d: cpu %d\n", w.Rank(), launch.PinnedCPU())
	return w.Barrier()
}

// TestRanksAvoidPinnedCPUs: ranks that pin themselves take the CPUs that
// other programs are pinned to last (launch.PlaceRanks). A group of
// processes pinned to the first of the job's two CPUs (taskset) stands
// for another job's ranks, many of them, so that the test's neighbours'
// pinned ranks cannot outweigh it; rank 0 then takes the second CPU and
// rank 1 the first, where without the placement rank 0 would take the
// first.
func TestRanksAvoidPinnedCPUs(t *testing.T) {
	taskset, cpus := jobCPUs(t)
	if len(cpus) < 2 {
		t.Skip("the test needs two CPUs")
	}
	// Sleeping processes pinned to the first CPU, in a process group of
	// their own that ends with the test's process: more than the pinned
	// threads of a few neighbouring jobs' ranks.
	const n = 64
	others := exec.Command(taskset, "-c", cpus[0], "sh", "-c",
		fmt.Sprintf(`for i in $(seq %d); do sleep 600 & done; while kill -0 $PPID 2>/dev/null; do sleep 0.2; done; kill 0`, n))
	others.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := others.Start(); err != nil {
		t.Fatalf("the pinned processes: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-others.Process.Pid, syscall.SIGKILL)
		others.Wait()
	})
	waitGroup(t, others.Process.Pid, n)

	ctx, cancel := context.WithTimeout(context.Background(), 2*jobTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, taskset, "-c", strings.Join(cpus, ","),
		mpirunBin, "-np", "2", "-bind-to", "core", "-timeout", jobTimeout.String(), self)
	cmd.Env = append(os.Environ(), envScenario+"=pinned-cpu")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the job on CPUs %s: %v\n%s", strings.Join(cpus, ","), err, out)
	}
	for r, cpu := range []string{cpus[1], cpus[0]} {
		if want := fmt.Sprintf("placed: rank %d: cpu %s\n", r, cpu); !strings.Contains(string(out), want) {
			t.Errorf("rank %d is not on CPU %s, beside %d processes pinned to CPU %s:\n%s", r, cpu, n, cpus[0], out)
		}
	}
}

// waitGroup waits until the process group pgid holds n processes besides
// its leader.
func waitGroup(t *testing.T, pgid, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for groupSize(pgid) <= n {
		if time.Now().After(deadline) {
			t.Fatalf("the %d pinned processes did not start", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupSize counts the processes of process group pgid.
func groupSize(pgid int) int {
	procs, _ := os.ReadDir("/proc")
	n := 0
	for _, p := range procs {
		stat, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command: state, ppid, pgrp.
		if f := cpuload.StatFields(stat); len(f) > 2 && string(f[2]) == strconv.Itoa(pgid) {
			n++
		}
	}
	return n
}
