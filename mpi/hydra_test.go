package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"

	"github.com/rhinet-go/martini/internal/hydratest"
)

func init() { rawScenarios["exit-before-init"] = rawExitBeforeInit }

// rawExitBeforeInit: PMI rank 2 exits at once, with success, without
// calling Init; the others must fail Init.
func rawExitBeforeInit() error {
	if os.Getenv("PMI_RANK") == "2" {
		return nil
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	mpi.Finalize()
	return errors.New("Init succeeded although rank 2 never called it")
}

// MPICH's mpiexec.hydra starts a Go MPI program as one job, through the
// PMI-1 and the PMI-2 wire protocols: the processes run over TCP, as no
// segment is made for them.
func TestHydra(t *testing.T) {
	hydra := hydratest.Hydra(t)
	if raceEnabled {
		t.Skip("launches whole jobs; the race detector's run covers the same code in TestTCPNetwork")
	}
	t.Parallel()
	hydraScenarios(t, hydra)
	hydraOneProcess(t, hydra)
	hydraPMIPort(t, hydra)
	hydraExitBeforeInit(t, hydra)
	t.Run("a rank fails", func(t *testing.T) {
		t.Parallel()
		stdout, stderr, err := hydratest.Run(hydra, []string{envScenario + "=fail-panic"}, 3, self)
		if err == nil {
			t.Fatalf("the job succeeded although rank 1 panicked:\n%s%s", stdout, stderr)
		}
		if !strings.Contains(stderr, "rank 1 panics on purpose") {
			t.Errorf("no word of the panic:\n%s", stderr)
		}
	})
}

// hydraScenarios runs three scenarios as jobs of three processes under
// hydra, through each PMI version.
func hydraScenarios(t *testing.T, hydra string) {
	for _, pmi := range []string{"1", "2"} {
		for _, name := range []string{"sizes", "coll-move", "comm-groups"} {
			t.Run(fmt.Sprintf("pmi-%s/%s", pmi, name), func(t *testing.T) {
				t.Parallel()
				const n = 3
				stdout, stderr, err := hydratest.Run(hydra, []string{envScenario + "=" + name, "MARTINI_PMI=" + pmi}, n, self)
				if err != nil {
					t.Fatalf("mpiexec.hydra -n %d: %v\n--- stdout:\n%s--- stderr:\n%s", n, err, stdout, stderr)
				}
				for i := range n {
					if want := fmt.Sprintf("scenario %s: rank %d: ok\n", name, i); !strings.Contains(stdout, want) {
						t.Errorf("rank %d did not report success:\n%s%s", i, stdout, stderr)
					}
				}
			})
		}
	}
}

// hydraOneProcess runs a job of one process: it is its host's only
// process, as a singleton is (no host of its own to exchange).
func hydraOneProcess(t *testing.T, hydra string) {
	for _, pmi := range []string{"1", "2"} {
		t.Run(fmt.Sprintf("pmi-%s/n=1", pmi), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, err := hydratest.Run(hydra, []string{envScenario + "=sizes", "MARTINI_PMI=" + pmi}, 1, self)
			if err != nil {
				t.Fatalf("mpiexec.hydra -n 1: %v\n--- stdout:\n%s--- stderr:\n%s", err, stdout, stderr)
			}
			if want := "scenario sizes: rank 0: ok\n"; !strings.Contains(stdout, want) {
				t.Errorf("rank 0 did not report success:\n%s%s", stdout, stderr)
			}
		})
	}
}

// hydraPMIPort runs a job with -pmi-port, where Hydra's server listens on
// PMI_PORT instead of passing PMI_FD: the processes make one job, not
// singletons each.
func hydraPMIPort(t *testing.T, hydra string) {
	for _, pmi := range []string{"1", "2"} {
		t.Run(fmt.Sprintf("pmi-%s/pmi-port", pmi), func(t *testing.T) {
			t.Parallel()
			const n = 2
			stdout, stderr, err := hydratest.RunFlags(hydra, []string{"-pmi-port"},
				[]string{envScenario + "=sizes", "MARTINI_PMI=" + pmi, envSize + "=" + strconv.Itoa(n)}, n, self)
			if err != nil {
				t.Fatalf("mpiexec.hydra -pmi-port -n %d: %v\n--- stdout:\n%s--- stderr:\n%s", n, err, stdout, stderr)
			}
			for i := range n {
				if want := fmt.Sprintf("scenario sizes: rank %d: ok\n", i); !strings.Contains(stdout, want) {
					t.Errorf("rank %d did not report success:\n%s%s", i, stdout, stderr)
				}
			}
		})
	}
}

// hydraExitBeforeInit runs a job with a rank that exits before Init: the
// others fail Init once the bound on its fence has passed, instead of
// waiting for it forever, and the job ends with none of its processes
// left.
func hydraExitBeforeInit(t *testing.T, hydra string) {
	for _, pmi := range []string{"1", "2"} {
		t.Run(fmt.Sprintf("pmi-%s/a rank exits before Init", pmi), func(t *testing.T) {
			t.Parallel()
			tag := fmt.Sprintf("%d-exit-before-init-%s", os.Getpid(), pmi)
			start := time.Now()
			stdout, stderr, err := hydratest.Run(hydra, []string{envScenario + "=exit-before-init", "MARTINI_PMI=" + pmi,
				"MARTINI_PMI_INIT_TIMEOUT=2s", hydratest.TagVar + "=" + tag}, 3, self)
			took := time.Since(start)
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("job: %v after %v, want a failed job\n--- stdout:\n%s--- stderr:\n%s", err, took, stdout, stderr)
			}
			if took > hydratest.Timeout/2 {
				t.Errorf("the job took %v to fail", took)
			}
			if !strings.Contains(stderr, "MARTINI_PMI_INIT_TIMEOUT") {
				t.Errorf("no rank failed Init naming the bound:\n%s", stderr)
			}
			// Hydra's ending of the job, or the kill of one that hangs,
			// takes effect on its own time: give it a while (a guard,
			// not a speed target).
			left := hydratest.Tagged(tag)
			for deadline := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = hydratest.Tagged(tag) {
				time.Sleep(10 * time.Millisecond)
			}
			for _, p := range left {
				t.Errorf("process %d of the job still runs", p)
				syscall.Kill(p, syscall.SIGKILL)
			}
		})
	}
}
