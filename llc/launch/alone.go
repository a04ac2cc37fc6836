package launch

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
)

// aloneOut receives the warning of warnAlone; a variable for the tests.
var aloneOut io.Writer = os.Stderr

var aloneOnce sync.Once

// warnAlone writes, once per process, the warning of aloneWarning when a
// singleton was started by a launcher that started others beside it.
func warnAlone(getenv func(string) string) {
	msg := aloneWarning(getenv)
	if msg == "" {
		return
	}
	aloneOnce.Do(func() { fmt.Fprintln(aloneOut, msg) })
}

// aloneWarning returns a warning when the environment shows that a
// launcher started several processes but speaks no PMI to this one, which
// therefore runs as a job of its own (Slurm's srun without --mpi=pmi2,
// Open MPI's mpirun); "" when it shows none.
func aloneWarning(getenv func(string) string) string {
	const alone = "launch: warning: this process runs alone, as a job of one rank (rank 0 of 1), although %s started %d processes without speaking PMI to them; %s"
	for _, v := range []string{"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"} {
		if n := tasks(getenv(v)); n > 1 {
			return fmt.Sprintf(alone, "Slurm ("+v+")", n,
				"run it with srun --mpi=pmi2 (or MpiDefault=pmi2 in slurm.conf)")
		}
		if getenv(v) != "" {
			break // the step's own count rules over the allocation's
		}
	}
	if n := tasks(getenv("OMPI_COMM_WORLD_SIZE")); n > 1 {
		return fmt.Sprintf(alone, "Open MPI's mpirun", n,
			"run it with this runtime's mpirun, srun --mpi=pmi2 or MPICH's mpiexec.hydra")
	}
	return ""
}

// tasks returns the number in a launcher's count variable, 0 if it holds
// none.
func tasks(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return n
}
