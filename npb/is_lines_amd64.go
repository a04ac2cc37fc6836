//go:build amd64 && !purego

package npb

// isLineStores says whether isPartition may sort through lines
// (is_lines.go): every amd64 CPU has SSE2's non-temporal stores.
var isLineStores = true

// isScatterLines is isPartitionLines's loop over keys, in assembly
// (is_lines_amd64.s), so that its values stay in registers: for each key,
// its bucket's count read and incremented (the key's place) and the key
// stored at that place in its bucket's line; a full line goes to its
// place in buf, which begins a cache line, by non-temporal stores, but a
// bucket's first line, which starts before the bucket (start), only the
// bucket's keys, by ordinary stores. shift is below 32.
//
//go:noescape
func isScatterLines(buf *int32, keys []int32, shift uint, counts, start *[isMaxBuckets]int32, lines *isLines)

// isStoreFence orders the non-temporal stores before it before every
// store after it (SFENCE), so that whoever sees a later store sees the
// lines too.
func isStoreFence()
