package launch

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func cpuSet(cpus ...int) *unix.CPUSet {
	var s unix.CPUSet
	for _, c := range cpus {
		s.Set(c)
	}
	return &s
}

// TestOrderByLoad: the CPUs with the least of other programs' pinned
// threads first, ascending among equals; no load keeps the CPUs in order.
// Where CPUs are hardware threads of one core, the least loaded cores
// come first, and a CPU of each before a second of any.
func TestOrderByLoad(t *testing.T) {
	adjacent := map[int]string{0: "0/0", 1: "0/0", 2: "0/1", 3: "0/1", 4: "0/2", 5: "0/2"}
	split := map[int]string{0: "0/0", 1: "0/1", 2: "0/2", 3: "0/0", 4: "0/1", 5: "0/2"}
	for _, c := range []struct {
		cpus []int
		load map[int]float64
		core map[int]string
		want []int
	}{
		{[]int{0, 1, 2, 3}, nil, nil, []int{0, 1, 2, 3}},
		{[]int{3, 1, 2, 0}, nil, nil, []int{0, 1, 2, 3}},
		{[]int{0, 1, 2, 3}, map[int]float64{0: 1, 1: 1}, nil, []int{2, 3, 0, 1}},
		{[]int{0, 1, 2, 3}, map[int]float64{0: 2, 1: 0.5, 3: 0.25}, nil, []int{2, 3, 1, 0}},
		// Two threads a core, numbered side by side or a core's second
		// after every core's first: the ranks take a core each first.
		{[]int{0, 1, 2, 3, 4, 5}, nil, adjacent, []int{0, 2, 4, 1, 3, 5}},
		{[]int{0, 1, 2, 3, 4, 5}, nil, split, []int{0, 1, 2, 3, 4, 5}},
		// Another job's rank on CPU 0: the free cores, then their second
		// threads, then the loaded core's free thread, then its CPU.
		{[]int{0, 1, 2, 3, 4, 5}, map[int]float64{0: 1}, adjacent, []int{2, 4, 3, 5, 1, 0}},
		{[]int{0, 1, 2, 3, 4, 5}, map[int]float64{1: 1}, split, []int{0, 2, 3, 5, 4, 1}},
		// A CPU of unknown core counts as a core of its own.
		{[]int{0, 1, 2}, nil, map[int]string{0: "0/0", 1: "0/0"}, []int{0, 2, 1}},
	} {
		if got := orderByLoad(c.cpus, c.load, c.core); !slices.Equal(got, c.want) {
			t.Errorf("orderByLoad(%v, %v, %v) = %v, want %v", c.cpus, c.load, c.core, got, c.want)
		}
	}
}

// TestAddPinned: a thread counts 1/k on each of its k CPUs among the
// allowed ones, unless it may run on every allowed CPU.
func TestAddPinned(t *testing.T) {
	allowed := cpuSet(0, 1, 2, 3)
	load := map[int]float64{}
	addPinned(load, cpuSet(1), allowed)             // another job's rank
	addPinned(load, cpuSet(2, 3, 70), allowed)      // a CPU the caller may not use among three
	addPinned(load, cpuSet(0, 1, 2, 3), allowed)    // not pinned, as far as the caller sees
	addPinned(load, cpuSet(0, 1, 2, 3, 9), allowed) // the same
	addPinned(load, cpuSet(), allowed)
	want := map[int]float64{1: 1, 2: 1.0 / 3, 3: 1.0 / 3}
	if len(load) != len(want) {
		t.Fatalf("load %v, want %v", load, want)
	}
	for c, w := range want {
		if load[c] != w {
			t.Errorf("load on CPU %d = %v, want %v", c, load[c], w)
		}
	}
}

// TestIsKernelThread reads the flags of /proc/PID/stat lines, a command
// with spaces and parentheses included.
func TestIsKernelThread(t *testing.T) {
	for _, c := range []struct {
		stat string
		want bool
	}{
		{"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0", true},
		{"17 (ksoftirqd/1) S 2 0 0 0 -1 69238880 0 0", true},
		{"812 (a (b) c) S 1 812 812 0 -1 4194560 120 0", false},
		{"812 (sh) S 1 812", false},
		{"garbage", false},
	} {
		if got := isKernelThread([]byte(c.stat)); got != c.want {
			t.Errorf("isKernelThread(%q) = %v, want %v", c.stat, got, c.want)
		}
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	if isKernelThread(stat) {
		t.Errorf("the test's own process reads as a kernel thread: %s", stat)
	}
}

// TestParseCPUs: EnvCPUs's value and its errors; formatCPUs writes what
// parseCPUs reads.
func TestParseCPUs(t *testing.T) {
	if cpus, err := parseCPUs(""); err != nil || cpus != nil {
		t.Errorf(`parseCPUs("") = %v, %v`, cpus, err)
	}
	if cpus, err := parseCPUs(formatCPUs([]int{5, 0, 12})); err != nil || !slices.Equal(cpus, []int{5, 0, 12}) {
		t.Errorf("parseCPUs(5,0,12) = %v, %v", cpus, err)
	}
	for _, v := range []string{"1,,2", "a", "-1", "1;2"} {
		if _, err := parseCPUs(v); err == nil || !strings.Contains(err.Error(), EnvCPUs) {
			t.Errorf("parseCPUs(%q): error %v, want one naming %s", v, err, EnvCPUs)
		}
	}
}

// TestBindToCoreOrder: a rank takes its place in the launcher's order,
// and an order that names a CPU the process may not use is an error.
func TestBindToCoreOrder(t *testing.T) {
	before := keepAffinity(t)
	cpus := cpuList(before)
	last := cpus[len(cpus)-1]
	if err := bindToCore(1, []int{cpus[0], last}); err != nil {
		t.Fatal(err)
	}
	if got := PinnedCPU(); got != last {
		t.Errorf("rank 1 of order %v pinned to CPU %d", []int{cpus[0], last}, got)
	}
	setThreadsAffinity(before)
	boundCPU.Store(-1)
	outside := len(before) * 64 // beyond any CPU set
	for c := range outside {
		if !before.IsSet(c) {
			outside = c
			break
		}
	}
	err := bindToCore(0, []int{outside})
	if err == nil || !strings.Contains(err.Error(), EnvCPUs) {
		t.Errorf("bindToCore with CPU %d, not allowed: error %v, want one naming %s", outside, err, EnvCPUs)
	}
}

// TestPlacementEnv: no order where the ranks do not pin; where they do,
// every CPU the process may use once. The scan of the threads pinned to
// them (pinnedLoad) counts a process pinned to the first CPU.
func TestPlacementEnv(t *testing.T) {
	if got := PlacementEnv(4, BindNone); got != EnvCPUs+"=" {
		t.Errorf("PlacementEnv(4, none) = %q, want an empty value", got)
	}
	if got := PlacementEnv(1, ""); got != EnvCPUs+"=" {
		t.Errorf("PlacementEnv(1, default) = %q, want an empty value", got)
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Skip(err)
	}
	cpus := cpuList(&allowed)
	order, err := parseCPUs(strings.TrimPrefix(PlacementEnv(1, BindCore), EnvCPUs+"="))
	if err != nil {
		t.Fatal(err)
	}
	if sorted := slices.Sorted(slices.Values(order)); !slices.Equal(sorted, cpus) {
		t.Errorf("PlacementEnv(1, core) orders %v, want the CPUs %v", order, cpus)
	}
	if len(cpus) < 2 {
		t.Skip("the rest needs two CPUs")
	}
	other := exec.Command("sleep", "600")
	other.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := other.Start(); err != nil {
		t.Skip(err)
	}
	defer func() {
		other.Process.Kill()
		other.Wait()
	}()
	if err := unix.SchedSetaffinity(other.Process.Pid, cpuSet(cpus[0])); err != nil {
		t.Skip(err)
	}
	load, err := pinnedLoad(&allowed, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if load[cpus[0]] < 1 {
		t.Errorf("load on CPU %d = %v beside a process pinned there, want 1 or more", cpus[0], load[cpus[0]])
	}
}
