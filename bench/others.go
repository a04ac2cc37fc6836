package bench

import (
	"fmt"
	"time"

	"github.com/rhinet-go/martini/internal/cpuload"
	"golang.org/x/sys/unix"
)

// OthersCPU measures how much of the machine's CPU time went to programs
// other than this process and the children it has waited for (a run's
// jobs, launchers and ranks, and the compilers it ran), between
// StartOthersCPU and Share: the CPUs' busy time in /proc/stat less this
// process's and its children's CPU time (getrusage).
type OthersCPU struct {
	start cpuload.Sample
}

// StartOthersCPU takes the first reading.
func StartOthersCPU() (*OthersCPU, error) {
	s, err := machineSample()
	if err != nil {
		return nil, err
	}
	return &OthersCPU{start: s}, nil
}

// Share returns the share of the time of the machine's cpus CPUs since
// StartOthersCPU that other programs kept them busy, 0 to 1.
func (o *OthersCPU) Share(cpus int) (float64, error) {
	s, err := machineSample()
	if err != nil {
		return 0, err
	}
	return cpuload.ForeignShare(o.start, s, cpus), nil
}

// machineSample reads the machine's busy time and this process's and its
// waited-for children's CPU time, in /proc's ticks.
func machineSample() (cpuload.Sample, error) {
	s, err := cpuload.Take(cpuload.AllCPUs, nil)
	if err != nil {
		return s, fmt.Errorf("bench: the machine's CPU time: %w", err)
	}
	for _, who := range []int{unix.RUSAGE_SELF, unix.RUSAGE_CHILDREN} {
		var ru unix.Rusage
		if err := unix.Getrusage(who, &ru); err != nil {
			return s, fmt.Errorf("bench: CPU time used: %w", err)
		}
		used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		s.Ours += uint64(used * cpuload.TicksPerSecond / time.Second)
	}
	return s, nil
}

// OthersShareLimit is the share of the machine's CPU time, while a run
// measured, at or above which other programs took enough of it that the
// run's processes had to share the CPUs with them.
const OthersShareLimit = 0.05

// OthersReason says in plain words that other programs kept share of the
// machine's cpus CPUs busy while the run measured, when share is
// OthersShareLimit or more; "" otherwise.
func OthersReason(share float64, cpus int) string {
	if share < OthersShareLimit {
		return ""
	}
	return fmt.Sprintf("other programs kept %.0f%% of the machine's %d CPUs busy while the run measured "+
		"(the CPUs' busy time in /proc/stat less the run's own processes' CPU time), "+
		"so the benchmark's processes had to share the CPUs with them", 100*share, cpus)
}
