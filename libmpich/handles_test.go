package main

import (
	"sync"
	"testing"
)

// TestTableHandles checks the handles a table gives: MPICH's direct form
// of the table's kind, distinct while live, reused once removed, and
// refused when of another kind or freed.
func TestTableHandles(t *testing.T) {
	tb := newTable[string](kindComm)
	a, _ := tb.add("a")
	b, _ := tb.add("b")
	if uint32(a)>>30 != handleDirect || uint32(a)>>26&0xf != kindComm || a == b {
		t.Fatalf("handles %#x %#x: want distinct direct communicator handles", uint32(a), uint32(b))
	}
	if v, ok := tb.get(b); !ok || v != "b" {
		t.Fatalf("get(b) = %q, %v", v, ok)
	}
	for _, h := range []int32{commWorld, commNull, int32(uint32(a)&^(0xf<<26) | kindGroup<<26)} {
		if _, ok := tb.get(h); ok {
			t.Errorf("get(%#x) found an object", uint32(h))
		}
	}
	if _, ok := tb.remove(a); !ok {
		t.Fatal("remove(a) failed")
	}
	if _, ok := tb.get(a); ok {
		t.Error("a found after remove")
	}
	if _, ok := tb.remove(a); ok {
		t.Error("a removed twice")
	}
	if c, _ := tb.add("c"); c != a {
		t.Errorf("add after remove: %#x, want the freed %#x", uint32(c), uint32(a))
	}
	if n := tb.len(); n != 2 {
		t.Errorf("len %d, want 2", n)
	}
}

// TestTableConcurrent adds, reads and removes from many goroutines (run
// with -race).
func TestTableConcurrent(t *testing.T) {
	tb := newTable[int](kindRequest)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				h, _ := tb.add(i)
				if v, ok := tb.get(h); !ok || v != i {
					t.Errorf("get = %d, %v; want %d", v, ok, i)
					return
				}
				tb.remove(h)
			}
		}()
	}
	wg.Wait()
	if n := tb.len(); n != 0 {
		t.Errorf("len %d after removing all", n)
	}
}

// TestStatusCount checks MPI_Status's count encoding: the low 32 bits in
// count_lo, the rest above the cancelled bit.
func TestStatusCount(t *testing.T) {
	for _, n := range []int64{0, 1, 1<<31 - 1, 1 << 31, 1<<32 + 5, 1 << 40} {
		for _, c := range []bool{false, true} {
			var s status
			s.setCount(n, c)
			if s.count() != n || s.cancelled() != c {
				t.Errorf("setCount(%d, %v): count %d cancelled %v", n, c, s.count(), s.cancelled())
			}
		}
	}
}

// TestPredefinedSizes checks that the size each predefined datatype's
// handle encodes (bits 8-15) is the size the table gives.
func TestPredefinedSizes(t *testing.T) {
	for h, ti := range predefinedTypes {
		if uint32(h)>>24 != 0x4c {
			continue
		}
		if enc := int(h >> 8 & 0xff); enc != ti.size {
			t.Errorf("datatype %#x: size %d in the handle, %d in the table", uint32(h), enc, ti.size)
		}
		if n, ok := typeSize(h); !ok || n != ti.size {
			t.Errorf("typeSize(%#x) = %d, %v", uint32(h), n, ok)
		}
	}
}

// TestErrorCodes checks that an error code keeps its class and text.
func TestErrorCodes(t *testing.T) {
	code := errorCode("MPI_Send", errorf(errRank, "invalid rank 9"))
	if classOfCode(code) != errRank {
		t.Fatalf("class %d, want %d", classOfCode(code), errRank)
	}
	if got, want := errorText(code), "MPI_ERR_RANK: MPI_Send: invalid rank 9"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got := errorText(errTruncate); got != "MPI_ERR_TRUNCATE" {
		t.Errorf("class text %q", got)
	}
}
