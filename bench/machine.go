package bench

import (
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// ThisMachine describes the computer the program runs on, from the CPU's
// own identification (cpuid).
func ThisMachine() Machine {
	c := cpuid.CPU
	host, _ := os.Hostname()
	return Machine{
		CPU:       c.BrandName,
		Vendor:    c.VendorString,
		Cores:     c.PhysicalCores,
		Threads:   c.LogicalCores,
		CacheLine: c.CacheLine,
		L1D:       max(c.Cache.L1D, 0),
		L2:        max(c.Cache.L2, 0),
		L3:        max(c.Cache.L3, 0),
		Flags:     c.FeatureSet(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		Hostname:  host,
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
// repository is not there.
func GitRevision(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if err := exec.Command("git", "-C", dir, "diff", "--quiet", "HEAD").Run(); err != nil {
		rev += "+dirty"
	}
	return rev
}
