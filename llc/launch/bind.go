package launch

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// bindToCore pins every thread of the process to one CPU: the rank-th of
// the CPUs the process may run on, modulo their number. Threads the Go
// runtime starts later inherit the pinning of the thread that starts them.
func bindToCore(rank int) error {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("launch: bind to core: %w", err)
	}
	var cpus []int
	for c := 0; c < len(allowed)*64 && len(cpus) < allowed.Count(); c++ {
		if allowed.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return nil
	}
	var set unix.CPUSet
	set.Set(cpus[rank%len(cpus)])
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("launch: bind to core: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("launch: bind rank %d to CPU %d: %w", rank, cpus[rank%len(cpus)], err)
		}
	}
	return nil
}
