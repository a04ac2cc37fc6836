//go:build !linux

package npb

import "unsafe"

// adviseHugePages does nothing outside Linux.
func adviseHugePages(unsafe.Pointer, uintptr) {}
