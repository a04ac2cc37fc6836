package npb

import (
	"errors"
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
	// A collapse that fell short for a passing reason (EAGAIN: a page
	// locked or moving; ENOMEM: no free huge page at that moment, as with
	// other work running) is asked for again a few times; the huge pages
	// made already stay, and a later call skips them.
	for range collapseTries {
		if err := unix.Madvise(region, unix.MADV_COLLAPSE); !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.ENOMEM) {
			return
		}
	}
}

// collapseTries is how many times adviseHugePages asks for a collapse
// that fails for a passing reason.
const collapseTries = 3
