package cachecopy

import (
	"bytes"
	"testing"
)

// Copy copies what the built-in copy does, at every length around its
// pieces, into a longer and a shorter destination, and between
// overlapping slices either way.
func TestCopy(t *testing.T) {
	src := make([]byte, 3*piece+7)
	for i := range src {
		src[i] = byte(i*7 + i>>9)
	}
	for _, n := range []int{0, 1, piece - 1, piece, piece + 1, 2 * piece, 3*piece + 7} {
		for _, dn := range []int{n, n + 5, n / 2} {
			got, want := make([]byte, dn), make([]byte, dn)
			if g, w := Copy(got, src[:n]), copy(want, src[:n]); g != w || !bytes.Equal(got, want) {
				t.Fatalf("Copy of %d bytes into %d: %d bytes, equal %v; want %d", n, dn, g, bytes.Equal(got, want), w)
			}
		}
	}
	for _, shift := range []int{-piece - 3, piece + 3} {
		buf, want := append([]byte(nil), src...), append([]byte(nil), src...)
		lo, hi := max(0, -shift), max(0, shift)
		n := len(src) - max(lo, hi)
		Copy(buf[hi:hi+n], buf[lo:lo+n])
		copy(want[hi:hi+n], want[lo:lo+n])
		if !bytes.Equal(buf, want) {
			t.Errorf("overlapping copy, shift %d: differs from the built-in copy", shift)
		}
	}
}

// Copy allocates nothing.
func TestCopyAllocs(t *testing.T) {
	src, dst := make([]byte, 2*piece), make([]byte, 2*piece)
	if a := testing.AllocsPerRun(10, func() { Copy(dst, src) }); a != 0 {
		t.Errorf("%v allocations a copy", a)
	}
}

// readSum keeps the benchmark's reads from being optimised away.
var readSum byte

// BenchmarkCopyThenRead copies 1 MiB and reads it back, as a receiver
// does; builtin is the built-in copy.
func BenchmarkCopyThenRead(b *testing.B) {
	src, dst := make([]byte, 1<<20), make([]byte, 1<<20)
	for _, c := range []struct {
		name string
		copy func(dst, src []byte) int
	}{{"cachecopy", Copy}, {"builtin", func(d, s []byte) int { return copy(d, s) }}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var sum byte
			for range b.N {
				c.copy(dst, src)
				for i := 0; i < len(dst); i += 64 {
					sum += dst[i]
				}
			}
			readSum = sum
		})
	}
}
