package mpirun

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
	"golang.org/x/sys/unix"
)

// What mpirun checks before it builds anything or starts a rank: that the
// job can run here at all, and that the ranks will accept their settings.

// Descriptors mpirun holds: fdsPerRank for each rank while it runs (its
// data-store socket and the read ends of its stdout and stderr), and at
// most fdsReserved besides (the standard streams, the segment, the
// poller, the descriptors of the rank being started).
const (
	fdsPerRank  = 3
	fdsReserved = 32
)

// reservedPIDs is how many process IDs Linux never hands out (RESERVED_PIDS).
const reservedPIDs = 300

// rankLimit is a bound on the number of ranks: at most n, because of why
// (a phrase that follows "because").
type rankLimit struct {
	n   int
	why string
}

// rankLimits returns the bounds that this system and mpirun put on the
// number of ranks. Those it cannot read are left out.
func rankLimits() []rankLimit {
	limits := []rankLimit{{martini.MaxProcs, fmt.Sprintf("the NIC's process table has %d entries (a bit each in a page of multicast destinations)", martini.MaxProcs)}}
	if n, err := readProcInt("/proc/sys/kernel/pid_max"); err == nil {
		limits = append(limits, rankLimit{n - reservedPIDs - 1, fmt.Sprintf("the system has %d process IDs (kernel.pid_max), %d of them reserved, and mpirun takes one", n, reservedPIDs)})
	}
	if n, err := readProcInt("/proc/sys/kernel/threads-max"); err == nil {
		limits = append(limits, rankLimit{n - 1, fmt.Sprintf("the system runs at most %d threads (kernel.threads-max)", n)})
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur < 1<<31 {
		limits = append(limits, rankLimit{(int(rl.Cur) - fdsReserved) / fdsPerRank, fmt.Sprintf("mpirun holds %d descriptors a rank and may open %d (ulimit -n)", fdsPerRank, rl.Cur)})
	}
	// The superuser is not held to RLIMIT_NPROC.
	if unix.Geteuid() != 0 && unix.Getrlimit(unix.RLIMIT_NPROC, &rl) == nil && rl.Cur < 1<<31 {
		limits = append(limits, rankLimit{int(rl.Cur) - 1, fmt.Sprintf("your processes may have %d threads (ulimit -u), mpirun's among them", rl.Cur)})
	}
	return limits
}

func readProcInt(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// checkRanks returns an error naming the tightest of limits that np
// exceeds, or nil if np is within them all.
func checkRanks(np int, limits []rankLimit) error {
	var tightest *rankLimit
	for i, l := range limits {
		if np > l.n && (tightest == nil || l.n < tightest.n) {
			tightest = &limits[i]
		}
	}
	if tightest == nil {
		return nil
	}
	return fmt.Errorf("-np %d: more ranks than can run here: at most %d, because %s", np, max(tightest.n, 0), tightest.why)
}

// settingsEnv returns the environment that every rank inherits: mpirun's
// own, with the settings of the command line after it (they win).
func settingsEnv(s launch.Settings) []string {
	return append(os.Environ(), s.Env()...)
}

// checkSettingsEnv checks the MARTINI_* settings the ranks will read from
// env, as they will (launch.ParseSettings): a bad one exported in mpirun's
// environment would fail every rank's MPI Init.
func checkSettingsEnv(env []string) error {
	s, err := launch.ParseSettings(envGetter(env))
	if err == nil {
		if _, cerr := collectives.ParseSelection(s.Coll); cerr != nil {
			err = fmt.Errorf("%s=%q: %w", launch.EnvColl, s.Coll, cerr)
		}
	}
	if err != nil {
		return fmt.Errorf("the ranks' environment: %w", err)
	}
	return nil
}

// envGetter returns a getenv over env, a list of "KEY=value" entries: the
// last entry of a key wins, as in exec.Cmd.Env.
func envGetter(env []string) func(string) string {
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return func(k string) string { return vars[k] }
}
