package tuning

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/cpuid/v2"
)

// Vendor is the maker of the host's processors, as far as the table
// tells them apart.
type Vendor string

// The vendors of the table.
const (
	Intel   Vendor = "intel"
	AMD     Vendor = "amd"
	Generic Vendor = "generic" // any other: the thresholds that need no measurement
)

// Host is the class of host that the thresholds were measured on: the
// processors' vendor and how many CPUs the processes may use.
type Host struct {
	Vendor Vendor
	CPUs   int
}

// String formats h as ParseHost reads it.
func (h Host) String() string { return string(h.Vendor) + ":" + strconv.Itoa(h.CPUs) }

// Detected returns this host's class: the vendor cpuid reports and the
// CPUs the process may use (runtime.NumCPU).
var Detected = sync.OnceValue(func() Host {
	return Host{Vendor: vendorOf(cpuid.CPU.VendorID), CPUs: runtime.NumCPU()}
})

// vendorOf is the table's vendor of a cpuid vendor.
func vendorOf(v cpuid.Vendor) Vendor {
	switch v {
	case cpuid.Intel:
		return Intel
	case cpuid.AMD:
		return AMD
	}
	return Generic
}

// ParseHost reads a host class override, the value of MARTINI_TUNE
// (mpirun -tune): "" keeps detected, "VENDOR" (intel, amd or generic)
// replaces its vendor, "VENDOR:CPUS" its vendor and CPUs.
func ParseHost(spec string, detected Host) (Host, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return detected, nil
	}
	name, cpus, hasCPUs := strings.Cut(spec, ":")
	h := detected
	switch v := Vendor(strings.ToLower(strings.TrimSpace(name))); v {
	case Intel, AMD, Generic:
		h.Vendor = v
	default:
		return Host{}, fmt.Errorf("tuning: host class %q: want %s, %s or %s, optionally followed by :CPUS", spec, Intel, AMD, Generic)
	}
	if hasCPUs {
		n, err := strconv.Atoi(strings.TrimSpace(cpus))
		if err != nil || n < 1 {
			return Host{}, fmt.Errorf("tuning: host class %q: want a positive number of CPUs after the colon", spec)
		}
		h.CPUs = n
	}
	return h, nil
}
