package mpi_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/hydratest"
)

// MPICH's mpiexec.hydra starts a Go MPI program as one job, through the
// PMI-1 and the PMI-2 wire protocols: the processes run over TCP, as no
// segment is made for them.
func TestHydra(t *testing.T) {
	hydra := hydratest.Hydra(t)
	if raceEnabled {
		t.Skip("launches whole jobs; the race detector's run covers the same code in TestTCPNetwork")
	}
	t.Parallel()
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
	// A job of one process: it is its host's only process, as a
	// singleton is (no host of its own to exchange).
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
	// With -pmi-port, Hydra's server listens on PMI_PORT instead of
	// passing PMI_FD: the processes make one job, not singletons each.
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
