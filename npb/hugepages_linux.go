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
// marked. It is advice: where the kernel declines, nothing changes but
// speed.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	start := uintptr(p)
	lo := (start + hugePageSize - 1) &^ (hugePageSize - 1)
	hi := (start + n) &^ (hugePageSize - 1)
	if hi <= lo {
		return
	}
	region := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = unix.Madvise(region, unix.MADV_HUGEPAGE) // advice only: see above
}
