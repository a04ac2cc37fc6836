//go:build !amd64 || purego

package npb

// isLineStores: without non-temporal stores, isPartition keeps its plain
// loop (is_lines.go).
var isLineStores = false

// isStoreLine stores line into dst by ordinary stores.
func isStoreLine(dst, line *[16]int32) { *dst = *line }

// isStoreFence has nothing to order: the stores are ordinary ones.
func isStoreFence() {}
