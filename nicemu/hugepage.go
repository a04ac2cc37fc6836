package nicemu

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Transparent huge pages for the memory that cross-memory copies use.
//
// A cross-memory copy (process_vm_readv, process_vm_writev) pins every
// page of the remote buffer, page by page, and reaches its own through
// the caller's page tables. Go's heap follows the system's transparent
// huge page policy, and where that is "madvise", the distributions'
// default, the heap gets none: its buffers are 4 KiB pages, and a copy
// whose remote buffer lies on them takes about 1.3 times as long as one
// whose remote buffer lies on a huge page. The local side's pages make no
// difference (docs/decisions.md, transparent huge pages).
//
// The NIC therefore counts the bytes each aligned huge-page region of the
// process's memory offers to peers' copies (RegisterMemory: the buffer a
// peer may copy from or into), and once a region has carried
// collapseAfter bytes, it asks the kernel to collapse the region into one
// huge page (madvise MADV_COLLAPSE, Linux 6.1): a region used that much is
// likely used as much again. A collapse copies the region, which takes
// about the time that collapseAfter bytes of copies save. The local side
// of a copy does not count: collapsing it would cost a collapse for
// nothing. A region is collapsed at most once; a collapse the kernel
// refuses as temporary (EAGAIN) is tried again after another
// collapseAfter bytes, collapseTries times in all.
//
// Not under a timing profile, not where the system disables transparent
// huge pages, and not with MARTINI_NO_HUGEPAGES=1 (mpirun -no-hugepages).
type hugePages struct {
	size    uintptr // bytes of a huge page (a power of two)
	regions map[uintptr]hugeRegion
	stats   *Stats
	// collapse asks the kernel to back the region at r of size bytes with
	// one huge page (collapseRegion; tests replace it).
	collapse func(r, size uintptr) unix.Errno
}

// hugeRegion is the state of one aligned huge-page region.
type hugeRegion struct {
	bytes   uint64 // carried since the region was first used or last tried
	tries   uint8  // collapses tried
	settled bool   // collapsed, or given up on
}

const (
	// collapseAfter is how many bytes a region carries before it is
	// collapsed.
	collapseAfter = 64 << 20
	// collapseTries bounds the attempts at one region.
	collapseTries = 3
	// maxHugePage is the largest huge page the NIC collapses regions into:
	// the size measured.
	maxHugePage = 2 << 20
	// thpDir is where Linux describes its transparent huge pages.
	thpDir = "/sys/kernel/mm/transparent_hugepage/"
)

// envNoHugePages is the environment variable that, set to 1, keeps the
// NIC from collapsing the memory of cross-memory copies into huge pages.
const envNoHugePages = "MARTINI_NO_HUGEPAGES"

// newHugePages returns the huge-page state of a NIC whose counters are
// stats, or nil where huge pages are not to be used: the system disables
// them or does not say their size, or they are larger than maxHugePage
// (an arm64 kernel with 64 KiB pages has huge pages of 512 MiB, whose
// collapse was never measured).
func newHugePages(stats *Stats) *hugePages {
	enabled, err := os.ReadFile(thpDir + "enabled")
	if err != nil || strings.Contains(string(enabled), "[never]") {
		return nil
	}
	b, err := os.ReadFile(thpDir + "hpage_pmd_size")
	if err != nil {
		return nil
	}
	size, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || size == 0 || size&(size-1) != 0 || size > maxHugePage {
		return nil
	}
	return &hugePages{size: uintptr(size), regions: make(map[uintptr]hugeRegion), stats: stats, collapse: collapseRegion}
}

// collapseRegion collapses the size bytes at r, a huge page's worth
// aligned to one, into a huge page (madvise MADV_COLLAPSE).
func collapseRegion(r, size uintptr) unix.Errno {
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, r, size, unix.MADV_COLLAPSE)
	return errno
}

// note counts n bytes at address at as carried by a cross-memory copy,
// and collapses the regions that have carried enough.
func (h *hugePages) note(at uintptr, n int) {
	if h == nil || n <= 0 {
		return
	}
	end := at + uintptr(n)
	for r := at &^ (h.size - 1); r < end; r += h.size {
		s := h.regions[r]
		if s.settled {
			continue
		}
		s.bytes += uint64(min(end, r+h.size) - max(at, r))
		if s.bytes >= collapseAfter {
			h.try(r, &s)
		}
		h.regions[r] = s
	}
}

// try asks the kernel to back region r, whose state is s, with one huge
// page.
func (h *hugePages) try(r uintptr, s *hugeRegion) {
	s.tries++
	s.bytes = 0
	switch errno := h.collapse(r, h.size); {
	case errno == 0:
		s.settled = true
		h.stats.HugeCollapses++
	case errno == unix.EAGAIN && s.tries < collapseTries:
		h.stats.HugeDeferrals++
	default:
		// Refused for good: a kernel without MADV_COLLAPSE, a region
		// not all mapped, or one the kernel keeps refusing.
		s.settled = true
		h.stats.HugeRefusals++
	}
}
