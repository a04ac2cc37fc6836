//go:build !amd64 || purego

package npb

import "unsafe"

// isLineStores: without non-temporal stores, isPartition keeps its plain
// loop (is_lines.go); isPartitionLines works all the same, by ordinary
// stores.
var isLineStores = false

// isScatterLines is isPartitionLines's loop over keys (the amd64
// assembly's, with ordinary stores for the full lines): for each key, its
// bucket's count read and incremented (the key's place) and the key
// stored at that place in its bucket's line; a full line goes to its
// place in buf, but a bucket's first line, which starts before the bucket
// (start), only the bucket's keys. shift is below 32.
func isScatterLines(buf *int32, keys []int32, shift uint, counts, start *[isMaxBuckets]int32, lines *isLines) {
	shift &= 31
	for _, k := range keys {
		b := uint32(k) >> shift & (isMaxBuckets - 1)
		p := counts[b]
		counts[b] = p + 1
		line := &lines[b]
		line[p&15] = k
		if p&15 != 15 {
			continue
		}
		s := max(p-15, start[b])
		dst := unsafe.Slice((*int32)(unsafe.Add(unsafe.Pointer(buf), uintptr(s)*4)), p+1-s)
		copy(dst, line[s&15:])
	}
}

// isStoreFence has nothing to order: the stores are ordinary ones.
func isStoreFence() {}
