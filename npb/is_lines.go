package npb

import "unsafe"

// IS's bucket sort through write-combining lines.
//
// isPartition's loop stores each key at the next place of its bucket:
// 1,024 places in turn, each in a cache line that the L1 cache has
// mostly let go of since its bucket's last key, and that the core must
// fetch before it stores into it (a read for ownership). Stores leave the
// core in order, so each such store holds up the ones behind it. Here
// each bucket's keys gather in a line of their own (isLines, 64 KiB for
// the 1,024 buckets), and a full line goes to its place in one piece by
// non-temporal stores, which write the whole line without fetching it;
// the loop is in assembly, its values in registers. docs/decisions.md
// ("IS's bucket sort through write-combining lines") has the figures.
//
// A line written so leaves the caches: where the keys fit in them, the
// plain loop is the faster, and below isLinesMin keys it runs instead.

// isLines holds, for each bucket, the keys of the line of the sorted
// keys its next key goes to, at the line's places.
type isLines [isMaxBuckets][16]int32

// isLinesMin is the fewest keys that isPartition sorts through isLines:
// 2 MiB of them, about what an L2 cache holds; with fewer, the keys stay
// in the caches and the plain loop was as fast or faster
// (docs/decisions.md).
const isLinesMin = 1 << 19

// isScatterChunk is how many keys one call of isScatterLines takes: a
// short stretch of work, so that the goroutine can be preempted between
// calls.
const isScatterChunk = 1 << 16

// isPartitionLines is isPartition's bucket sort through lines, for buf
// whose first key begins a cache line: counts holds the number of keys of
// each of the nb buckets, and becomes the place in buf after each
// bucket's last key. A bucket's first line, which it shares with the
// bucket before, and its last, which it shares with the bucket after,
// get only the bucket's own keys, by ordinary stores.
func isPartitionLines(buf []int32, counts *[isMaxBuckets]int32, nb int, keys []int32, shift uint, lines *isLines) {
	var start [isMaxBuckets]int32
	var at int32
	for b, n := range counts[:nb] {
		counts[b], start[b] = at, at
		at += n
	}
	buf = buf[:at]
	for len(keys) > 0 {
		// A chunk at a time: the goroutine cannot be preempted inside
		// the assembly.
		n := min(len(keys), isScatterChunk)
		isScatterLines(&buf[0], keys[:n], shift&31, counts, &start, lines)
		keys = keys[n:]
	}
	isStoreFence()
	for b, end := range counts[:nb] {
		if end&15 != 0 {
			first := max(end&^15, start[b])
			copy(buf[first:end], lines[b][first&15:end&15])
		}
	}
}

// isLinesFit reports whether isPartition sorts keys into buf through
// lines: where the CPU has the stores, there are isLinesMin keys or more,
// and buf begins a cache line.
func isLinesFit(buf, keys []int32) bool {
	return isLineStores && len(keys) >= isLinesMin && len(buf) > 0 && uintptr(unsafe.Pointer(&buf[0]))%64 == 0
}
