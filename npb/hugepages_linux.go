package npb

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageSize is the size of a transparent huge page on amd64 and
// arm64 with 4 KiB base pages.
const hugePageSize = 2 << 20

// adviseHugePages asks the kernel to back the whole huge pages inside the
// n bytes at p with transparent huge pages (madvise MADV_HUGEPAGE), which
// Debian's default (transparent_hugepage=madvise) gives only to memory so
// marked, and then to rebuild them from huge pages at once
// (MADV_COLLAPSE, Linux 6.1 and later): memory that the Go heap hands out
// again it zeroes first, so its small pages are in place before the
// advice, which covers only pages faulted in after it. Both are advice:
// where the kernel declines, nothing changes but speed.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	start := uintptr(p)
	lo := (start + hugePageSize - 1) &^ (hugePageSize - 1)
	hi := (start + n) &^ (hugePageSize - 1)
	if hi <= lo {
		return
	}
	region := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = unix.Madvise(region, unix.MADV_HUGEPAGE) // advice only: see above
	_ = unix.Madvise(region, unix.MADV_COLLAPSE)
}
