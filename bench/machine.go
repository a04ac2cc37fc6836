package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/unix"
)

// Machine describes the computer a Record was measured on.
type Machine struct {
	// CPU is the processor's model name (cpuid's brand string).
	CPU    string `json:"cpu"`
	Vendor string `json:"vendor"`
	// CPUs is the number of logical CPUs the measuring process may run on
	// (its affinity mask): what the benchmark had. 0 when not known, as
	// in records of schema 1.
	CPUs int `json:"cpus,omitempty"`
	// PackageCores and PackageThreads are the physical cores and logical
	// processors of the CPU package as cpuid reports them. On a virtual
	// machine that is the host's package as the hypervisor describes it,
	// which can be far more than the machine's CPUs. Records of schema 1
	// call them "cores" and "threads".
	PackageCores   int `json:"cpuid_package_cores"`
	PackageThreads int `json:"cpuid_package_threads"`
	CacheLine      int `json:"cache_line"`
	// L1D, L2 and L3 are the cache sizes in bytes as cpuid reports them,
	// or as Linux does (sysfs) where cpuid gives none; 0 when neither
	// tells.
	L1D   int      `json:"l1d_bytes"`
	L2    int      `json:"l2_bytes"`
	L3    int      `json:"l3_bytes"`
	Flags []string `json:"flags"` // CPU features
	OS    string   `json:"os"`
	Arch  string   `json:"arch"`
	// Hostname is the machine's host name.
	Hostname string `json:"hostname"`
}

// UnmarshalJSON reads a Machine of any schema: the fields that records
// of schema 1 call "cores" and "threads" become PackageCores and
// PackageThreads. A field it does not know is an error.
func (m *Machine) UnmarshalJSON(data []byte) error {
	type current Machine // the fields, without this method
	var v struct {
		current
		Cores   *int `json:"cores"`   // schema 1: cpuid's package cores
		Threads *int `json:"threads"` // schema 1: cpuid's package threads
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("machine: %w", err)
	}
	*m = Machine(v.current)
	if v.Cores != nil {
		m.PackageCores = *v.Cores
	}
	if v.Threads != nil {
		m.PackageThreads = *v.Threads
	}
	return nil
}

// cacheDir is where Linux describes the caches of the first CPU.
const cacheDir = "/sys/devices/system/cpu/cpu0/cache"

// ThisMachine describes the computer the program runs on: the CPUs this
// process may use (its affinity mask), the CPU's model, features and
// package as cpuid sees them, and the caches, from cpuid or, for those
// cpuid does not give, from Linux's description of the first CPU's
// caches.
func ThisMachine() Machine {
	c := cpuid.CPU
	host, _ := os.Hostname()
	m := Machine{
		CPU:            c.BrandName,
		Vendor:         c.VendorString,
		CPUs:           usableCPUs(),
		PackageCores:   c.PhysicalCores,
		PackageThreads: c.LogicalCores,
		CacheLine:      c.CacheLine,
		L1D:            max(c.Cache.L1D, 0),
		L2:             max(c.Cache.L2, 0),
		L3:             max(c.Cache.L3, 0),
		Flags:          c.FeatureSet(),
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH,
		Hostname:       host,
	}
	if m.L1D == 0 || m.L2 == 0 || m.L3 == 0 {
		m.fillCaches(readSysfsCaches(cacheDir))
	}
	return m
}

// usableCPUs returns how many CPUs this process may run on, from its
// affinity mask, or runtime.NumCPU when the mask cannot be read.
func usableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return runtime.NumCPU()
	}
	return set.Count()
}

// fillCaches sets the cache sizes m does not know from c.
func (m *Machine) fillCaches(c sysfsCaches) {
	if m.L1D == 0 {
		m.L1D = c.l1d
	}
	if m.L2 == 0 {
		m.L2 = c.l2
	}
	if m.L3 == 0 {
		m.L3 = c.l3
	}
}

// LastLevelCache is the size of the largest cache in m, or 8 MiB when the
// CPU does not tell.
func (m Machine) LastLevelCache() int {
	if n := max(m.L3, m.L2, m.L1D); n > 0 {
		return n
	}
	return 8 << 20
}

// GitRevision returns the commit checked out in dir, with "+dirty" when
// the tree has uncommitted changes to tracked files, or "" when git or the
// repository is not there. Changes under the repository's results/ do not
// count: they are what the benchmarks write, and a run after another
// (mpibench at several process counts) would otherwise be marked dirty
// by the pages its predecessor regenerated.
func GitRevision(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if err := exec.Command("git", "-C", dir, "diff", "--quiet", "HEAD", "--", ":/", ":(top,exclude)results").Run(); err != nil {
		rev += "+dirty"
	}
	return rev
}
