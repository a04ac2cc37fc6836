package bootstrap

import (
	"fmt"
	"strconv"
	"strings"
)

// Placement: which processes share a processor.
//
// Where processes outnumber cores, mpirun pins rank r to the r-th CPU
// (launch, -bind-to core), so that two or more ranks take turns on each
// CPU. A message between two of them stays in that CPU's caches; one
// between CPUs crosses them. Each process publishes the CPU it is pinned
// to with its bootstrap data, and the collectives' Runners learn, for
// every rank of their communicator, which others share its processor
// (collectives.Runner.Processors).

// placement is what a process publishes of the CPU it is pinned to (-1:
// none) on host: "CPU@HOST".
func placement(cpu int, host string) string { return strconv.Itoa(cpu) + "@" + host }

// readPlacement returns, by rank, an identifier of the processor each of
// size processes is pinned to, equal for the processes that share one,
// from what the bootstrap exchange collected; a process that is not
// pinned has an identifier of its own. It returns nil when no two
// processes share a processor.
func readPlacement(kv map[string]string, size int) ([]int, error) {
	ids := make(map[string]int, size) // by CPU@HOST
	procs := make([]int, size)
	shared := false
	for r := range procs {
		v, ok := kv[cpuKey(r)]
		if !ok {
			return nil, fmt.Errorf("bootstrap: rank %d published no CPU", r)
		}
		cpu, _, ok := strings.Cut(v, "@")
		n, err := strconv.Atoi(cpu)
		if !ok || err != nil || n < -1 {
			return nil, fmt.Errorf("bootstrap: the CPU of rank %d: %q is not CPU@HOST", r, v)
		}
		if n < 0 {
			procs[r] = size + r // not pinned: beyond the ids of the CPUs
			continue
		}
		id, seen := ids[v]
		if !seen {
			id = len(ids)
			ids[v] = id
		}
		shared = shared || seen
		procs[r] = id
	}
	if !shared {
		return nil, nil
	}
	return procs, nil
}
