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

// TestReqTableHandles checks the request table as TestTableHandles does
// the others: direct request handles, distinct while live, found until
// removed, reused once removed, and refused when of another kind.
func TestReqTableHandles(t *testing.T) {
	var tb reqTable
	a, _ := tb.add(reqObj{commH: 1})
	b, _ := tb.add(reqObj{commH: 2})
	if uint32(a)>>30 != handleDirect || uint32(a)>>26&0xf != kindRequest || a == b {
		t.Fatalf("handles %#x %#x: want distinct direct request handles", uint32(a), uint32(b))
	}
	if o, ok := tb.get(b); !ok || o.commH != 2 {
		t.Fatalf("get(b) = %+v, %v", o, ok)
	}
	for _, h := range []int32{requestNull, int32(uint32(a)&^(0xf<<26) | kindGroup<<26), a + 5000, int32(uint32(a) | 3<<30)} {
		if _, ok := tb.get(h); ok {
			t.Errorf("get(%#x) found an object", uint32(h))
		}
	}
	if o, ok := tb.remove(a); !ok || o.commH != 1 {
		t.Fatalf("remove(a) = %+v, %v", o, ok)
	}
	if _, ok := tb.get(a); ok {
		t.Error("a found after remove")
	}
	if _, ok := tb.remove(a); ok {
		t.Error("a removed twice")
	}
	if c, _ := tb.add(reqObj{commH: 3}); c != a {
		t.Errorf("add after remove: %#x, want the freed %#x", uint32(c), uint32(a))
	}
}

// TestReqTableReuse frees more handles than a processor's list keeps:
// the rest wait in the spare, and every index is handed out again before
// a fresh one.
func TestReqTableReuse(t *testing.T) {
	var tb reqTable
	const n = 3 * reqChunkLen / 2 // two chunks
	hs := make([]int32, n)
	for i := range hs {
		hs[i], _ = tb.add(reqObj{commH: int32(i)})
	}
	for i, h := range hs {
		if o, ok := tb.remove(h); !ok || o.commH != int32(i) {
			t.Fatalf("remove of handle %d = %+v, %v", i, o, ok)
		}
	}
	seen := make(map[int32]bool)
	for range hs {
		h, _ := tb.add(reqObj{})
		if seen[h] {
			t.Fatalf("handle %#x handed out twice", uint32(h))
		}
		seen[h] = true
	}
	for _, h := range hs {
		if !seen[h] {
			t.Fatalf("handle %#x not reused", uint32(h))
		}
	}
	if f := tb.fresh.Load(); f != n {
		t.Errorf("%d indices handed out, want %d", f, n)
	}
}

// TestReqTableConcurrent adds, reads and removes from many goroutines
// (run with -race).
func TestReqTableConcurrent(t *testing.T) {
	var tb reqTable
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 3000 {
				h, _ := tb.add(reqObj{commH: int32(i)})
				if o, ok := tb.get(h); !ok || o.commH != int32(i) {
					t.Errorf("get = %d, %v; want %d", o.commH, ok, i)
					return
				}
				tb.remove(h)
			}
		})
	}
	wg.Wait()
}
