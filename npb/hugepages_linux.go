package npb

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/hugepage"
)

// adviseHugePages asks the kernel to back the whole huge pages inside the
// n bytes at p with transparent huge pages (madvise MADV_HUGEPAGE), which
// Debian's default (transparent_hugepage=madvise) gives only to memory so
// marked, and then to rebuild them from huge pages at once
// (MADV_COLLAPSE, Linux 6.1 and later): memory that the Go heap hands out
// again it zeroes first, so its small pages are in place before the
// advice, which covers only pages faulted in after it. Both are advice:
// where the kernel declines, nothing changes but speed.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	region := hugepage.Whole(unsafe.Slice((*byte)(p), n))
	if region == nil {
		return
	}
	_ = unix.Madvise(region, unix.MADV_HUGEPAGE) // advice only: see above
	_ = unix.Madvise(region, unix.MADV_COLLAPSE)
}
