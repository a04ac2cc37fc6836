// Package hugepage describes Linux's transparent huge pages to the code
// that asks for them: the system's policy, the whole huge pages inside a
// block of memory, and what /proc says a mapping holds.
package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// Size is the size of a transparent huge page on amd64 and arm64 with
// 4 KiB base pages.
const Size = 2 << 20

// Policy is the system's policy for transparent huge pages
// (/sys/kernel/mm/transparent_hugepage/enabled).
type Policy int

const (
	// Unknown: the system does not say (not Linux, or no such file).
	Unknown Policy = iota
	// Never: no anonymous memory gets huge pages.
	Never
	// Madvise: only memory advised with MADV_HUGEPAGE does, Debian's
	// default.
	Madvise
	// Always: any anonymous memory may, unless advised MADV_NOHUGEPAGE.
	Always
)

// String returns the policy as policyFile names it ("unknown" for
// Unknown).
func (p Policy) String() string {
	switch p {
	case Never:
		return "never"
	case Madvise:
		return "madvise"
	case Always:
		return "always"
	}
	return "unknown"
}

// policyFile is where Linux says which policy is in force.
const policyFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// SystemPolicy returns the policy in force: the bracketed word of
// policyFile, Unknown where it cannot be read.
func SystemPolicy() Policy {
	b, err := os.ReadFile(policyFile)
	if err != nil {
		return Unknown
	}
	return parsePolicy(string(b))
}

// parsePolicy reads the bracketed word of policyFile's contents s.
func parsePolicy(s string) Policy {
	switch {
	case strings.Contains(s, "[always]"):
		return Always
	case strings.Contains(s, "[madvise]"):
		return Madvise
	case strings.Contains(s, "[never]"):
		return Never
	}
	return Unknown
}

// Whole returns the part of b that whole huge pages, aligned to Size,
// make up: nil where b holds none.
func Whole(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + Size - 1) &^ (Size - 1)
	hi := (p + uintptr(len(b))) &^ (Size - 1)
	if hi <= lo {
		return nil
	}
	return b[lo-p : hi-p : hi-p]
}

// SmapsField returns the value of field name (AnonHugePages, VmFlags)
// of the mapping of this process that holds address a, from
// /proc/self/smaps.
func SmapsField(a uintptr, name string) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= a && a < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, name+":"); ok && in {
			return strings.TrimSpace(rest), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading /proc/self/smaps: %w", err)
	}
	return "", fmt.Errorf("no mapping holds %#x in /proc/self/smaps", a)
}

// AnonHugeKB returns the kilobytes of the mapping holding address a that
// lie in transparent huge pages (smaps' AnonHugePages).
func AnonHugeKB(a uintptr) (int, error) {
	v, err := SmapsField(a, "AnonHugePages")
	if err != nil {
		return 0, err
	}
	kb, err := strconv.Atoi(strings.TrimSuffix(v, " kB"))
	if err != nil {
		return 0, fmt.Errorf("AnonHugePages %q: %w", v, err)
	}
	return kb, nil
}
