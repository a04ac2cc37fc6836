package launch

import (
	"cmp"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/cpuload"
	"github.com/rhinet-go/martini/internal/cputopo"
)

// EnvCPUs is the variable by which mpirun, or its agent on a host, tells
// the host's ranks which CPUs to pin themselves to, in the order of their
// local ranks: local rank r takes the (r mod n)-th of the n CPUs listed
// (PlaceRanks). Empty or unset, rank r takes the r-th of the CPUs it may
// run on, a CPU of each core before a second of any. The launcher sets it
// for every rank it starts, so that a value in its own environment never
// reaches them.
const EnvCPUs = "MARTINI_CPUS"

// PlacementEnv returns the EnvCPUs variable for the local ranks of a host
// that the calling process is about to start, with bind their -bind-to
// setting: the CPUs of PlaceRanks where the ranks will pin themselves
// (the rule of Job.bindsToCore), else an empty value. The list is chosen
// once for the host's ranks, before any of them runs, so that every rank
// reads the same one.
func PlacementEnv(local int, bind string) string {
	if !pinsRanks(bind, local, allowedCPUs()) {
		return EnvCPUs + "="
	}
	cpus, err := PlaceRanks()
	if err != nil {
		return EnvCPUs + "="
	}
	return EnvCPUs + "=" + formatCPUs(cpus)
}

// pinsRanks reports whether local ranks of a host, started by mpirun with
// bind as their -bind-to setting and cpus CPUs to run on, pin themselves
// (Job.bindsToCore says why).
func pinsRanks(bind string, local, cpus int) bool {
	switch bind {
	case BindCore:
		return true
	case "":
		return cpus > 0 && local >= 2 && 2*local >= cpus
	}
	return false
}

// PlaceRanks returns the CPUs the calling process may run on, in the
// order a host's ranks should take them: those with the fewest threads of
// other programs pinned to them first. A thread counts where its affinity
// leaves out some of those CPUs, for 1/k on each of its k CPUs: another
// job's rank pinned to one CPU counts 1 there; a program allowed every CPU
// of the caller's, or threads of the kernel, count nowhere. So two jobs
// started side by side on a host with CPUs to spare take different ones,
// where each would otherwise take the first CPUs, and one job's ranks
// would share their CPUs with the other's (docs/decisions.md, placement).
// Among CPUs equally loaded, those whose core's other hardware threads
// are the least loaded come first, then one CPU of each core before a
// second of any, then ascending order: a job's ranks take a core each
// before two of them share one, whatever the host's numbering of its
// hardware threads.
func PlaceRanks() ([]int, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("launch: place ranks: %w", err)
	}
	cpus := cpuList(&allowed)
	load, err := pinnedLoad(&allowed, os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("launch: place ranks: %w", err)
	}
	return orderByLoad(cpus, load, cputopo.Cores(cpus)), nil
}

// orderByLoad sorts cpus as PlaceRanks lists them, with load the threads
// pinned to each CPU (missing entries 0) and core the name of each CPU's
// core (cputopo.Core; "" for a CPU taken as a core of its own).
func orderByLoad(cpus []int, load map[int]float64, core map[int]string) []int {
	out := slices.Clone(cpus)
	slices.Sort(out)
	type rank struct {
		siblings float64 // load on the core's other hardware threads
		round    int     // the CPU's place among its core's, from 0
	}
	ranks := make(map[int]rank, len(out))
	seen := make(map[string][]int)
	for _, c := range out {
		name := core[c]
		if name == "" {
			continue
		}
		seen[name] = append(seen[name], c)
	}
	for _, c := range out {
		var r rank
		for i, s := range seen[core[c]] {
			if s == c {
				r.round = i
			} else {
				r.siblings += load[s]
			}
		}
		ranks[c] = r
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(load[a], load[b]),
			cmp.Compare(ranks[a].siblings, ranks[b].siblings),
			cmp.Compare(ranks[a].round, ranks[b].round))
	})
	return out
}

// pinnedLoad sums, for each CPU of allowed, the threads of user processes
// other than self that are pinned to it (PlaceRanks says how they count).
// A process or thread that ends while it is read is skipped.
func pinnedLoad(allowed *unix.CPUSet, self int) (map[int]float64, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	load := make(map[int]float64)
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil || isKernelThread(stat) {
			continue
		}
		tasks, err := os.ReadDir("/proc/" + p.Name() + "/task")
		if err != nil {
			continue
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			var set unix.CPUSet
			if unix.SchedGetaffinity(tid, &set) == nil {
				addPinned(load, &set, allowed)
			}
		}
	}
	return load, nil
}

// addPinned counts a thread allowed set in load (PlaceRanks).
func addPinned(load map[int]float64, set, allowed *unix.CPUSet) {
	k := set.Count()
	if k == 0 || covers(set, allowed) {
		return
	}
	for i, w := range set {
		for w &= allowed[i]; w != 0; w &= w - 1 {
			load[i*64+bits.TrailingZeros64(uint64(w))] += 1 / float64(k)
		}
	}
}

// covers reports whether set holds every CPU of allowed.
func covers(set, allowed *unix.CPUSet) bool {
	for i, w := range allowed {
		if w&^set[i] != 0 {
			return false
		}
	}
	return true
}

// pfKthread is the flag of a kernel thread in /proc/PID/stat's flags
// field (PF_KTHREAD).
const pfKthread = 0x00200000

// isKernelThread reports whether stat, a /proc/PID/stat line, is a
// kernel thread's: they are pinned to their CPUs (ksoftirqd/N and the
// like) and run little.
func isKernelThread(stat []byte) bool {
	// After the command: state, ppid, pgrp, session, tty_nr, tpgid, flags.
	f := cpuload.StatFields(stat)
	if len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(string(f[6]), 10, 64)
	return err == nil && flags&pfKthread != 0
}

// formatCPUs formats cpus as EnvCPUs lists them: decimal, comma-separated.
func formatCPUs(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// parseCPUs parses EnvCPUs's value: nil for an empty one.
func parseCPUs(v string) ([]int, error) {
	if v == "" {
		return nil, nil
	}
	var cpus []int
	for _, f := range strings.Split(v, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 0 {
			return nil, fmt.Errorf("launch: %s=%q: want CPU numbers separated by commas", EnvCPUs, v)
		}
		cpus = append(cpus, c)
	}
	return cpus, nil
}
