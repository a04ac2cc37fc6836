package launch

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/cputopo"
)

// bindToCore pins every thread of the process to one CPU: the rank-th of
// order, modulo its length, where the launcher chose an order (EnvCPUs),
// else the rank-th of the CPUs the process may run on, modulo their
// number, a CPU of each core before a second of any (PlaceRanks's order
// without other programs' load, the same in every rank). Threads the Go
// runtime starts later inherit the pinning of the thread that starts
// them.
func bindToCore(rank int, order []int) error {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("launch: bind to core: %w", err)
	}
	cpus := cpuList(&allowed)
	if len(order) > 0 {
		for _, c := range order {
			if c >= len(allowed)*64 || !allowed.IsSet(c) {
				return fmt.Errorf("launch: %s=%s: CPU %d is not one of the %d this process may run on", EnvCPUs, formatCPUs(order), c, len(cpus))
			}
		}
		cpus = order
	} else {
		cpus = orderByLoad(cpus, nil, cputopo.Cores(cpus))
	}
	if len(cpus) == 0 {
		return nil
	}
	cpu := cpus[rank%len(cpus)]
	var set unix.CPUSet
	set.Set(cpu)
	if err := setThreadsAffinity(&set); err != nil {
		return fmt.Errorf("launch: bind rank %d to CPU %d: %w", rank, cpu, err)
	}
	allowedBefore = allowed
	boundCPU.Store(int64(cpu))
	return nil
}

// boundCPU is the CPU bindToCore pinned the process to, -1 before and
// after Unpin; allowedBefore the CPUs the process was allowed before.
var (
	boundCPU      = func() (c atomic.Int64) { c.Store(-1); return }()
	allowedBefore unix.CPUSet
)

// Unpin undoes bindToCore: every thread of the process may run again on
// the CPUs it was allowed before. It reports whether the process was
// pinned by bindToCore and is no more. It is for the process's waits
// (llc.Endpoint.Unpin): another program that holds the CPU the process
// is pinned to keeps it there for whole slices of the scheduler's (llc's
// crowd.go says how that shows).
func Unpin() bool {
	if boundCPU.Load() < 0 {
		return false
	}
	if err := setThreadsAffinity(&allowedBefore); err != nil {
		return false
	}
	boundCPU.Store(-1)
	settleAffinity() // threads still starting: at worst they stay pinned
	return true
}

// SettleBinding completes the pinning of the process that FromEnv began
// (bindToCore): it sets the threads whose start was under way then, if
// any. Init calls it once the network is up; it returns at once where
// FromEnv did not pin the process, and waits the rest of 2 ms where less
// has passed since.
func (j *Job) SettleBinding() error {
	if err := settleAffinity(); err != nil {
		return fmt.Errorf("launch: bind rank %d: %w", j.LocalRank, err)
	}
	return nil
}

// setThreadsAffinity sets the affinity of every thread of the process to
// set. A thread that another starts while the threads are set one by one
// copies its parent's affinity when its start begins but joins the list
// of threads only when the start ends: it may be missing from the walk
// that sets its parent, and from the next walk too, and then appear with
// the old affinity. So the walk repeats, reading each thread's affinity
// rather than trusting the walks before, until one finds every thread
// already set; and, once it has set any thread, settleAffinity walks
// again at least threadStartSettle later, when a start under way then
// has ended unless the kernel held it up that long. Init makes that walk
// once the network is up (Job.SettleBinding), which takes longer than
// that, so that the process does not wait for it.
func setThreadsAffinity(set *unix.CPUSet) error {
	affinity.mu.Lock()
	defer affinity.mu.Unlock()
	affinity.set = *set
	changed, err := setThreads(set)
	if changed {
		affinity.lastSet, affinity.settled = time.Now(), false
	}
	return err
}

// settleAffinity walks the threads again (setThreadsAffinity says why),
// once at least threadStartSettle has passed since a walk last set one,
// and again so while a walk sets any.
func settleAffinity() error {
	affinity.mu.Lock()
	defer affinity.mu.Unlock()
	for !affinity.settled {
		if wait := threadStartSettle - time.Since(affinity.lastSet); wait > 0 {
			time.Sleep(wait)
		}
		changed, err := setThreads(&affinity.set)
		if err != nil {
			return err
		}
		if changed {
			affinity.lastSet = time.Now()
		} else {
			affinity.settled = true
		}
	}
	return nil
}

// threadStartSettle is how long after setThreadsAffinity set a thread
// settleAffinity walks again, for the starts of threads under way then.
const threadStartSettle = 2 * time.Millisecond

// affinity is the set setThreadsAffinity gave the threads last, under
// mu, which also keeps the walks apart; lastSet is when a walk last set
// a thread, and settled whether settleAffinity has walked since.
var affinity = struct {
	mu      sync.Mutex
	set     unix.CPUSet
	lastSet time.Time
	settled bool
}{settled: true}

// setThreads walks the threads (setEachThread) until a walk finds every
// one set, and reports whether any walk set one.
func setThreads(set *unix.CPUSet) (changed bool, err error) {
	for {
		c, err := setEachThread(set)
		changed = changed || c
		if err != nil || !c {
			return changed, err
		}
	}
}

// setEachThread walks the process's threads once and sets the affinity
// of each one whose affinity is not set already. It reports whether it
// set any.
func setEachThread(set *unix.CPUSet) (changed bool, err error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false, err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		var cur unix.CPUSet
		switch err := unix.SchedGetaffinity(tid, &cur); {
		case err == unix.ESRCH, err == nil && cur == *set:
			continue // ended meanwhile, or set
		}
		switch err := unix.SchedSetaffinity(tid, set); err {
		case nil:
			changed = true
		case unix.ESRCH: // ended meanwhile
		default:
			return changed, err
		}
	}
	return changed, nil
}

// cpuList lists the CPUs of set in order.
func cpuList(set *unix.CPUSet) []int {
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// allowedCPUs is the number of CPUs the process may run on, 0 if unknown.
func allowedCPUs() int {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return 0
	}
	return allowed.Count()
}

// PinnedCPU returns the CPU the process is pinned to, or -1 when it may
// run on more than one (or its affinity is unknown): the CPU bindToCore
// pinned it to, else the calling thread's one CPU (taskset), which
// threads the Go runtime starts later inherit.
func PinnedCPU() int {
	if c := boundCPU.Load(); c >= 0 {
		return int(c)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() != 1 {
		return -1
	}
	return cpuList(&set)[0]
}

// shareProcessors lowers GOMAXPROCS to the process's share of the CPUs
// it may run on, among the local ranks of its host (processorShare),
// unless getenv("GOMAXPROCS") sets it. The runtime chose GOMAXPROCS at
// start as if the process had the machine to itself: with every rank's
// runtime running its collector's workers and spare threads on the other
// ranks' CPUs, a rank's goroutine moved between threads and the ranks
// preempted each other (docs/decisions.md, GOMAXPROCS). Where mpirun pins
// the ranks (bindsToCore), the share is one.
func shareProcessors(local int, getenv func(string) string) {
	if getenv("GOMAXPROCS") != "" {
		return
	}
	if n := processorShare(allowedCPUs(), local); n > 0 && n < runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(n)
	}
}

// processorShare is one of local ranks' share of cpus CPUs: at least one,
// 0 when either is unknown.
func processorShare(cpus, local int) int {
	if cpus < 1 || local < 1 {
		return 0
	}
	return max(1, cpus/local)
}
