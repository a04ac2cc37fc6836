package launch

import (
	"fmt"
	"hash/fnv"
	"os"

	"github.com/rhinet-go/martini/llc/pmi"
)

// What started a process, the values of Job.Launcher.
const (
	LauncherMpirun    = "mpirun"    // this runtime's mpirun
	LauncherPMI1      = "pmi-1"     // a PMI-1 launcher, such as mpiexec.hydra
	LauncherPMI2      = "pmi-2"     // a PMI-2 launcher, such as srun --mpi=pmi2
	LauncherSingleton = "singleton" // nothing: a job of one process
)

// pmiJob returns the job of a process that a PMI launcher started: its
// rank, size and data store come from the launcher's PMI server (package
// pmi; MARTINI_PMI chooses the protocol). No segment is inherited
// (Segment is nil). The job key is derived from the PMI job id, which
// every process of the job shares, so that they agree on it without an
// exchange. The settings still come from the MARTINI_* variables, but
// MARTINI_BIND=core, which binds by rank on one host, is refused: the
// launcher binds (mpiexec.hydra -bind-to core, srun --cpu-bind=cores).
//
// The processes of a job of several learn which of them share a host
// through the data store (placeOnHosts), and make their hosts' segments
// themselves (ShareSegment); a job of one process is its host's only
// process, as a singleton is (LocalRank 0, LocalSize 1), and needs no
// exchange of hosts.
func pmiJob(getenv func(string) string, settings Settings) (*Job, error) {
	if settings.Bind == BindCore {
		return nil, fmt.Errorf("launch: %s=%s binds by rank under mpirun; under a PMI launcher (%s or %s is set) use the launcher's binding", EnvBind, BindCore, pmi.EnvFD, pmi.EnvPort)
	}
	pj, err := pmi.FromEnv(getenv)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	launcher := LauncherPMI1
	if pj.Version == 2 {
		launcher = LauncherPMI2
	}
	j := &Job{
		Rank:     pj.Rank,
		Size:     pj.Size,
		PGID:     jobKey(pj.Store.JobID()),
		Store:    pj.Store,
		Launcher: launcher,
		Settings: settings,
		TCPAddr:  LoopbackAddr,
	}
	if j.Size == 1 {
		j.LocalSize = 1
		return j, nil
	}
	if err := j.placeOnHosts(); err != nil {
		// Hydra ends the job, killing every process, once one closes its
		// PMI connection without finalizing: say why before the close,
		// or the caller may never get to.
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", j.Rank, err)
		j.Close()
		return nil, err
	}
	return j, nil
}

// jobKey derives a non-zero job key from a PMI job id.
func jobKey(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	if k := h.Sum64(); k != 0 {
		return k
	}
	return 1
}
