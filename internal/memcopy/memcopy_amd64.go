//go:build amd64 && !race

package memcopy

import "github.com/klauspost/cpuid/v2"

// useRep: the processor's REP MOVSB is fast (ERMS and FSRM) on an AMD
// processor, where it moves 32 KiB to 1 MiB faster than Go's copy, whose
// vector loop slows once source and destination no longer fit the first
// level cache together; from 1 MiB on Go's copy stores past the caches
// (docs/decisions.md, "Mid-sized copies by REP MOVSB"). On other
// processors it is not measured, and not used.
var useRep = cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Supports(cpuid.ERMS, cpuid.FSRM)

// The sizes REP MOVSB moves: [repMin, repMax) bytes.
const (
	repMin = 32 << 10
	repMax = 1 << 20
)

// repMove copies n bytes from src to dst by REP MOVSB; both hold n bytes
// at least.
func repMove(dst, src []byte, n int) { repMovsb(&dst[0], &src[0], n) }

// repMovsb is REP MOVSB of n bytes from src to dst (memcopy_amd64.s).
//
//go:noescape
func repMovsb(dst, src *byte, n int)
