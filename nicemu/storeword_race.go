//go:build race

package nicemu

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// copyWords copies src into dst, the first word of an aligned dst
// atomically (see storeword.go).
func copyWords(dst, src []byte) {
	if len(src) < 8 || uintptr(unsafe.Pointer(&dst[0]))%8 != 0 {
		copy(dst, src)
		return
	}
	copy(dst[8:], src[8:])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[0])), binary.LittleEndian.Uint64(src))
}
