// Package cachecopy copies a message's bytes so that they stay in the
// caches for whoever reads them next.
//
// Go's copy of 1 MiB or more (runtime.memmove on amd64) writes with
// non-temporal stores, around the caches: right for data nobody reads
// soon, wrong for a message, whose receiver reads it next and then finds
// it in memory rather than in its cache. Copy splits such a copy into
// pieces below that size, up to a core's second-level cache (at least 2
// MiB); above that the data would not stay in the caches anyway, and the
// built-in copy is used whole. docs/decisions.md has the measurements.
package cachecopy

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// piece is the size of the copies Copy makes of a long one: below the
// 1 MiB from which the runtime's memmove bypasses the caches.
const piece = 512 << 10

// cached is the longest copy Copy keeps in the caches: a core's
// second-level cache, and at least 2 MiB. Longer copies go around the
// caches as the runtime makes them: a copy of several MiB evicts what
// the copy's two sides would read next, and then writes that go to
// memory directly cost less (docs/decisions.md).
var cached = max(2<<20, cpuid.CPU.Cache.L2)

// Copy copies src into dst as the built-in copy does and returns the
// number of bytes copied, min(len(dst), len(src)); a copy from piece to
// cached bytes goes in pieces that the caches keep.
// Overlapping slices are copied whole, by the built-in copy. A short copy
// costs a comparison more than the built-in one (Copy is inlined).
func Copy(dst, src []byte) int {
	if len(dst) < piece || len(src) < piece {
		return copy(dst, src)
	}
	return copyLong(dst, src)
}

// copyLong is Copy of piece bytes or more.
func copyLong(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n > cached || overlap(dst[:n], src[:n]) {
		return copy(dst, src)
	}
	for off := 0; off < n; off += piece {
		end := min(off+piece, n)
		copy(dst[off:end], src[off:end])
	}
	return n
}

// overlap reports whether a and b, both non-empty, share memory.
func overlap(a, b []byte) bool {
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}
