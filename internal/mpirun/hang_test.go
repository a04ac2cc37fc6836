package mpirun

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hangBound is how long a job whose program can never end may run before
// it is reported: generous, since the machine may be loaded; mpirun's
// -timeout (hangTimeout) stops the job in case it hangs.
const (
	hangBound   = 30 * time.Second
	hangTimeout = "45s"
)

// runHang runs helper hang in mode with mpirun's extra arguments and checks
// that the job failed within hangBound, with an error on standard error
// that matches want, and left no process nor /dev/shm entry behind.
func runHang(t *testing.T, mode string, want *regexp.Regexp, args ...string) {
	t.Helper()
	before := shmEntries(t)
	args = append(append([]string{"-timeout", hangTimeout}, args...), helper("hang"), mode)
	r := mpirun(t, args...)
	if r.code == 0 || r.code == exitTimeout {
		t.Errorf("exit %d, want the failure of a rank", r.code)
	}
	if r.elapsed > hangBound {
		t.Errorf("the job took %v, more than %v", r.elapsed, hangBound)
	}
	if !want.MatchString(r.stderr) {
		t.Errorf("stderr does not match %v:\n%s", want, r.stderr)
	}
	var pids []int
	for _, l := range lines(r.stdout) {
		var pid int
		if _, err := fmt.Sscanf(l, "pid %d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	waitDead(t, pids, 5*time.Second)
	if after := shmEntries(t); !slices.Equal(before, after) {
		t.Errorf("/dev/shm changed: before %q, after %q", before, after)
	}
}

// TestVirtualDeadlockReported: in virtual time ranks that each receive
// from the next one, with nothing in flight, are a deadlock the ordering of
// virtual time sees; each rank's Recv fails naming every rank's pending
// receive, and the job ends.
func TestVirtualDeadlockReported(t *testing.T) {
	t.Parallel()
	for _, np := range []int{2, 3} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			t.Parallel()
			var calls []string
			for r := range np {
				calls = append(calls, fmt.Sprintf("rank %d waits in a receive from rank %d with tag 0 of MPI_COMM_WORLD", r, (r+1)%np))
			}
			want := regexp.MustCompile(`(?m)^mpi: Recv with rank \d: mpi: deadlock: every process waits and nothing is in flight: ` + strings.Join(calls, "; ") + "$")
			runHang(t, "deadlock", want, "-np", strconv.Itoa(np), "-profile", "martini", "-clock", "virtual")
		})
	}
}

// TestUnmatchedAtFinalizeReported: a receive or probe of rank 0 that no
// process can match any more, as every process it could come from is in
// Finalize, fails naming the pending call, and the job ends, on the
// martini and tcp transports, in real and virtual time.
func TestUnmatchedAtFinalizeReported(t *testing.T) {
	t.Parallel()
	nets := map[string][]string{
		"martini": nil,
		"tcp":     {"-transport", "tcp"},
		"virtual": {"-profile", "martini", "-clock", "virtual"},
	}
	const any, one = "every other process is in Finalize", "rank 1 is in Finalize"
	calls := map[string]string{
		"recv":     "Recv from any rank: rank 0: a receive from any source with tag 5 of MPI_COMM_WORLD can never complete: " + any,
		"recvfrom": "Recv with rank 1: rank 0: a receive from rank 1 with tag 5 of MPI_COMM_WORLD can never complete: " + one,
		"probe":    "Probe: rank 0: a probe from rank 1 with tag 5 of MPI_COMM_WORLD can never complete: " + one,
		"mprobe":   "Mprobe: rank 0: a probe from any source with tag 5 of MPI_COMM_WORLD can never complete: " + any,
		"irecv":    "Irecv from any rank: rank 0: a wait can never complete: " + any,
	}
	for net, args := range nets {
		for mode, msg := range calls {
			if net != "martini" && mode != "recv" && mode != "probe" {
				continue // the waits are the same on every network
			}
			t.Run(net+"-"+mode, func(t *testing.T) {
				t.Parallel()
				want := regexp.MustCompile(`(?m)^mpi: ` + regexp.QuoteMeta(msg) + "$")
				runHang(t, mode, want, append([]string{"-np", "3"}, args...)...)
			})
		}
	}
}

// TestLateSenderNotReported: a receive that waits for long, while one
// process it could come from is in Finalize and another sleeps outside MPI
// before it sends the message, is neither a deadlock nor unmatched: the
// job ends well, in real and virtual time, with 2 and 3 processes (at 2,
// the sleeping process is the only other one).
func TestLateSenderNotReported(t *testing.T) {
	t.Parallel()
	for _, np := range []string{"2", "3"} {
		for net, args := range map[string][]string{"martini": nil, "virtual": {"-profile", "martini", "-clock", "virtual"}} {
			t.Run(net+"-np"+np, func(t *testing.T) {
				t.Parallel()
				r := mpirun(t, append(append([]string{"-timeout", hangTimeout, "-np", np}, args...), helper("hang"), "late")...)
				if r.code != 0 || !strings.Contains(r.stdout, "received") {
					t.Errorf("exit %d, want 0 with the message received", r.code)
				}
			})
		}
	}
}
