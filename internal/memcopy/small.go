package memcopy

import "unsafe"

// Small copies src into dst, which must not overlap it, and returns the
// number of bytes copied, as copy does. A copy of 16 to 64 bytes is made
// inline in 16-byte moves, two or four, the second half's ending where the
// copy ends (overlapping the first half's in the middle), as memmove makes
// such a copy once it has tested its way to the length; others go to
// copy. The message path's short bodies take it.
func Small(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < 16 || n > 64 {
		return copy(dst, src)
	}
	d, s := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	*(*[16]byte)(d) = *(*[16]byte)(s)
	*(*[16]byte)(unsafe.Add(d, n-16)) = *(*[16]byte)(unsafe.Add(s, n-16))
	if n > 32 {
		*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(s, 16))
		*(*[16]byte)(unsafe.Add(d, n-32)) = *(*[16]byte)(unsafe.Add(s, n-32))
	}
	return n
}
