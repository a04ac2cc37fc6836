//go:build amd64 && !purego

package npb

// isLineStores says whether isPartition may sort through lines
// (is_lines.go): every amd64 CPU has SSE2's non-temporal stores. The
// tests switch it to compare both ways.
var isLineStores = true

// isStoreLine stores line into dst, a cache line, by non-temporal stores
// (is_lines_amd64.s): the line is written without being read first, and
// leaves the caches.
//
//go:noescape
func isStoreLine(dst, line *[16]int32)

// isStoreFence orders the non-temporal stores before it before every
// store after it (SFENCE), so that whoever sees a later store sees the
// lines too.
func isStoreFence()
