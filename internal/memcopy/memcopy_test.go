package memcopy

import (
	"bytes"
	"fmt"
	"testing"
)

// Every size around the thresholds of amd64 (32 KiB, 1 MiB), at a few
// alignments, copies exactly its bytes and no more.
func TestCopy(t *testing.T) {
	src := make([]byte, 2<<20+64)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, n := range []int{0, 1, 63, 4096, 32<<10 - 1, 32 << 10, 32<<10 + 1, 100000, 1<<20 - 1, 1 << 20, 1<<20 + 1, 2 << 20} {
		for _, off := range []int{0, 1, 7, 63} {
			dst := make([]byte, n+off+16)
			got := Copy(dst[off:off+n], src[off:])
			if got != n || !bytes.Equal(dst[off:off+n], src[off:off+n]) {
				t.Fatalf("Copy of %d bytes at offset %d: returned %d, bytes equal %v", n, off, got, bytes.Equal(dst[off:off+n], src[off:off+n]))
			}
			if !bytes.Equal(dst[:off], make([]byte, off)) || !bytes.Equal(dst[off+n:], make([]byte, 16)) {
				t.Fatalf("Copy of %d bytes at offset %d wrote outside its destination", n, off)
			}
		}
	}
	if got := Copy(make([]byte, 5), src[:3]); got != 3 {
		t.Fatalf("Copy into 5 bytes from 3: %d, want 3", got)
	}
}

// BenchmarkCopy compares Copy with Go's copy over the sizes around the
// thresholds: go test -bench Copy ./internal/memcopy
func BenchmarkCopy(b *testing.B) {
	for _, n := range []int{16 << 10, 32 << 10, 64 << 10, 256 << 10, 1 << 20} {
		src, dst := make([]byte, n), make([]byte, n)
		b.Run(fmt.Sprintf("Copy/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Copy(dst, src)
			}
		})
		b.Run(fmt.Sprintf("copy/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// Small copies what copy copies, at every length around its inline moves
// (16 to 64 bytes) and at a few alignments, into a destination of the
// same length, a longer and a shorter one, and writes nothing else.
func TestSmall(t *testing.T) {
	src := make([]byte, 200)
	for i := range src {
		src[i] = byte(i*13 + 5)
	}
	for n := 0; n <= 80; n++ {
		for _, off := range []int{0, 1, 8, 15} {
			for _, room := range []int{n, n + 9, n / 2} {
				dst := make([]byte, off+room+32)
				want := min(n, room)
				if got := Small(dst[off:off+room], src[off:off+n]); got != want {
					t.Fatalf("Small of %d bytes into %d at offset %d returned %d, want %d", n, room, off, got, want)
				}
				if !bytes.Equal(dst[off:off+want], src[off:off+want]) {
					t.Fatalf("Small of %d bytes into %d at offset %d: bytes differ", n, room, off)
				}
				if !bytes.Equal(dst[:off], make([]byte, off)) || !bytes.Equal(dst[off+want:], make([]byte, len(dst)-off-want)) {
					t.Fatalf("Small of %d bytes into %d at offset %d wrote outside the copy", n, room, off)
				}
			}
		}
	}
}
