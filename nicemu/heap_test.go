package nicemu

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkHeap verifies the free list is sorted, coalesced and inside
// [base, base+size).
func checkHeap(t *testing.T, h *heap, base, size int) {
	t.Helper()
	for i, e := range h.free {
		if e.size <= 0 || e.off < base || e.off+e.size > base+size {
			t.Fatalf("extent %d %+v outside [%d, %d)", i, e, base, base+size)
		}
		if i > 0 {
			p := h.free[i-1]
			if p.off+p.size > e.off {
				t.Fatalf("extents %+v and %+v overlap or are unsorted", p, e)
			}
			if p.off+p.size == e.off {
				t.Fatalf("extents %+v and %+v not coalesced", p, e)
			}
		}
	}
}

func freeBytes(h *heap) (n int) {
	for _, e := range h.free {
		n += e.size
	}
	return n
}

// TestHeapAllocRelease allocates and releases in a heap of 64 aligned
// units: packing, coalescing in any order, first fit and exhaustion.
func TestHeapAllocRelease(t *testing.T) {
	const base, size = heapTestBase, heapTestSize
	h := newHeap(base, size)
	a, b, c, d := allocPacked(t, &h)
	// Release out of order: b, then d (no neighbours free), then c, which
	// joins b and d, then a, which joins the front.
	releaseCoalescing(t, &h, a, b, c, d)
	// First fit reuses the lowest hole.
	checkFirstFit(t, &h)
	// Exhaustion, also by fragmentation.
	checkHeapExhaustion(t, &h)
}

// The base and size of TestHeapAllocRelease's heap.
const heapTestBase, heapTestSize = 1 << 20, 64 * heapAlign

// allocPacked allocates 1 byte, one unit, one unit and a byte, and ten
// units from the empty heap h, and checks they are aligned and packed.
func allocPacked(t *testing.T, h *heap) (a, b, c, d int) {
	t.Helper()
	const base, size = heapTestBase, heapTestSize
	a, err := h.alloc(1)
	if err != nil || a != base {
		t.Fatalf("alloc(1) = %d, %v", a, err)
	}
	b, _ = h.alloc(heapAlign)
	c, _ = h.alloc(heapAlign + 1)
	d, _ = h.alloc(10 * heapAlign)
	if b != base+heapAlign || c != base+2*heapAlign || d != base+4*heapAlign {
		t.Fatalf("allocations at %d %d %d, want 64-byte aligned and packed", b, c, d)
	}
	checkHeap(t, h, base, size)
	if got := freeBytes(h); got != size-14*heapAlign {
		t.Fatalf("%d bytes free, want %d", got, size-14*heapAlign)
	}
	return a, b, c, d
}

// releaseCoalescing releases allocPacked's b, d, c and a in that order
// and checks the free list after each joins its neighbours.
func releaseCoalescing(t *testing.T, h *heap, a, b, c, d int) {
	t.Helper()
	const base, size = heapTestBase, heapTestSize
	h.release(b, heapAlign)
	h.release(d, 10*heapAlign)
	checkHeap(t, h, base, size)
	if len(h.free) != 2 {
		t.Fatalf("free list %+v, want 2 extents", h.free)
	}
	h.release(c, heapAlign+1)
	checkHeap(t, h, base, size)
	if len(h.free) != 1 || h.free[0].off != b {
		t.Fatalf("free list %+v, want one extent from %d", h.free, b)
	}
	h.release(a, 1)
	if !slices.Equal(h.free, []extent{{base, size}}) {
		t.Fatalf("after releasing everything: %+v", h.free)
	}
}

// checkFirstFit: in the empty heap h, an allocation reuses the lowest
// hole.
func checkFirstFit(t *testing.T, h *heap) {
	t.Helper()
	const base, size = heapTestBase, heapTestSize
	x, _ := h.alloc(2 * heapAlign)
	y, _ := h.alloc(2 * heapAlign)
	h.release(x, 2*heapAlign)
	z, _ := h.alloc(heapAlign)
	if z != x {
		t.Fatalf("first fit: %d, want the hole at %d", z, x)
	}
	h.release(z, heapAlign)
	h.release(y, 2*heapAlign)
	if !slices.Equal(h.free, []extent{{base, size}}) {
		t.Fatalf("after releasing everything: %+v", h.free)
	}
}

// checkHeapExhaustion: in the empty heap h, an allocation larger than the
// heap fails, one of all of it empties it, and with every other unit
// free no two-unit allocation fits.
func checkHeapExhaustion(t *testing.T, h *heap) {
	t.Helper()
	const base, size = heapTestBase, heapTestSize
	if _, err := h.alloc(size + 1); err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("oversized alloc: %v", err)
	}
	all, err := h.alloc(size)
	if err != nil || all != base || len(h.free) != 0 {
		t.Fatalf("alloc of everything: %d, %v, %+v", all, err, h.free)
	}
	if _, err := h.alloc(1); err == nil {
		t.Fatalf("alloc from an empty heap succeeded")
	}
	h.release(all, size)
	var offs []int
	for range 64 {
		o, err := h.alloc(heapAlign)
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, o)
	}
	for i := 0; i < 64; i += 2 {
		h.release(offs[i], heapAlign)
	}
	checkHeap(t, h, base, size)
	if _, err := h.alloc(2 * heapAlign); err == nil {
		t.Fatalf("alloc larger than every hole succeeded with %d bytes in %d holes", freeBytes(h), len(h.free))
	}
}

// TestHeapRandom allocates and releases at random and checks that live
// blocks never overlap and that everything coalesces back.
func TestHeapRandom(t *testing.T) {
	const base, size = 4096, 1 << 20
	h := newHeap(base, size)
	rng := rand.New(rand.NewPCG(1, 2))
	type block struct{ off, size int }
	var live []block
	for range 20000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(live))
			h.release(live[i].off, live[i].size)
			live = slices.Delete(live, i, i+1)
		} else {
			n := 1 + rng.IntN(8192)
			off, err := h.alloc(n)
			if err != nil {
				continue
			}
			if off%heapAlign != 0 {
				t.Fatalf("alloc(%d) = %d, not aligned", n, off)
			}
			for _, b := range live {
				if off < b.off+roundUp(b.size, heapAlign) && b.off < off+roundUp(n, heapAlign) {
					t.Fatalf("alloc(%d) = %d overlaps live block %+v", n, off, b)
				}
			}
			live = append(live, block{off, n})
		}
	}
	checkHeap(t, &h, base, size)
	for _, b := range live {
		h.release(b.off, b.size)
	}
	if !slices.Equal(h.free, []extent{{base, size}}) {
		t.Fatalf("after releasing everything: %d extents", len(h.free))
	}
}

func TestRegisterSegmentMemory(t *testing.T) {
	cfg := testConfig(2)
	cfg.HeapSize = 4 * PageSize
	seg := newSegment(t, cfg)
	n := openNIC(t, seg, 0)
	lo, hi := seg.heapBase(0), seg.heapBase(0)+cfg.HeapSize

	sid, mem := mustRegisterSegment(t, n, 4*PageSize)
	if len(mem) != 4*PageSize || cap(mem) != 4*PageSize {
		t.Fatalf("region len %d cap %d", len(mem), cap(mem))
	}
	if e := seg.sidEntry(0, sid); e.kind != uint64(KindSegment) || int(e.base) < lo || int(e.base+e.length) > hi || e.length != 4*PageSize {
		t.Fatalf("SID entry %+v outside the heap [%d, %d)", *e, lo, hi)
	}
	if _, _, err := n.RegisterSegment(1); err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("RegisterSegment past the heap: %v", err)
	}
	for _, size := range []int{0, -1} {
		if _, _, err := n.RegisterSegment(size); err == nil {
			t.Errorf("RegisterSegment(%d) succeeded", size)
		}
	}
	if _, err := n.RegisterMemory(nil); err == nil {
		t.Errorf("RegisterMemory(nil) succeeded")
	}
	// Dirty the memory, release it, and register it again: it comes back
	// zeroed, in whatever pieces.
	fillPattern(mem, 1)
	if err := n.Deregister(sid); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.heap.free, []extent{{lo, cfg.HeapSize}}) {
		t.Fatalf("heap after Deregister: %+v", n.heap.free)
	}
	for _, size := range []int{100, PageSize, 3*PageSize - 1024} {
		_, m := mustRegisterSegment(t, n, size)
		if firstDiff(m, make([]byte, size)) >= 0 {
			t.Errorf("reused segment memory of %d bytes not zeroed", size)
		}
		fillPattern(m, 2)
	}
	st := n.Stats()
	if st.Registrations != 4 || st.Deregistrations != 1 {
		t.Errorf("Registrations %d Deregistrations %d", st.Registrations, st.Deregistrations)
	}
	// Close releases everything.
	n.Close()
	if !slices.Equal(n.heap.free, []extent{{lo, cfg.HeapSize}}) || len(n.freeSIDs) != NumSIDs-1 {
		t.Errorf("after Close: heap %+v, %d free SIDs", n.heap.free, len(n.freeSIDs))
	}
	for s := SID(1); s < NumSIDs; s++ {
		if _, ok := seg.readSID(0, s); ok {
			t.Fatalf("SID %d still registered after Close", s)
		}
	}
}

func TestSIDTableFull(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n := openNIC(t, seg, 0)
	buf := make([]byte, 8)
	seen := make(map[SID]bool)
	for i := range NumSIDs - 1 {
		var sid SID
		var err error
		if i%2 == 0 {
			sid, err = n.RegisterMemory(buf)
		} else {
			sid, _, err = n.RegisterSegment(8)
		}
		if err != nil {
			t.Fatalf("registration %d: %v", i+1, err)
		}
		if sid == 0 || sid >= NumSIDs || seen[sid] {
			t.Fatalf("registration %d got SID %d", i+1, sid)
		}
		seen[sid] = true
	}
	free := freeBytes(&n.heap)
	if _, err := n.RegisterMemory(buf); err == nil || !strings.Contains(err.Error(), "SID table full") {
		t.Fatalf("registration %d: %v", NumSIDs, err)
	}
	if _, _, err := n.RegisterSegment(64); err == nil || !strings.Contains(err.Error(), "SID table full") {
		t.Fatalf("segment registration %d: %v", NumSIDs, err)
	}
	if freeBytes(&n.heap) != free {
		t.Errorf("failed RegisterSegment leaked heap: %d free, was %d", freeBytes(&n.heap), free)
	}
	// A deregistration frees a SID for the next registration.
	if err := n.Deregister(5); err != nil {
		t.Fatal(err)
	}
	if sid, err := n.RegisterMemory(buf); err != nil || sid != 5 {
		t.Fatalf("after Deregister(5): SID %d, %v", sid, err)
	}
}

// TestOpenInvalidatesStaleRegistrations: a process that opens a slot
// previously used by another one starts with an empty SID table.
func TestOpenInvalidatesStaleRegistrations(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	old := openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, old, 64)
	if err := n0.Push(1, sid, 0, u64(1), nil); err != nil {
		t.Fatal(err)
	}
	// The old process dies without Close; a new one takes the slot.
	n1 := openNIC(t, seg, 1)
	expectRefused(t, n0, ViolationBadSID, OpPush, 1, func() error { return n0.Push(1, sid, 0, u64(2), nil) })
	sid2, mem := mustRegisterSegment(t, n1, 64)
	if err := n0.Push(1, sid2, 0, u64(3), nil); err != nil || *wordAt(mem, 0) != 3 {
		t.Fatalf("PUSH to the new process: %v", err)
	}
}

// TestRegisterSegmentHighWater checks that registration clears only the
// memory an earlier registration may have written (procEntry.heapTop),
// also for the next process to open the slot, and leaves the rest, which
// reads zero as the segment was created, untouched.
func TestRegisterSegmentHighWater(t *testing.T) {
	cfg := testConfig(2)
	cfg.HeapSize = 8 * PageSize
	seg := newSegment(t, cfg)
	n := openNIC(t, seg, 0)
	lo := seg.heapBase(0)

	sid, mem := mustRegisterSegment(t, n, 2*PageSize)
	if top := seg.proc(0).heapTop; top != 2*PageSize {
		t.Fatalf("heapTop after the first registration = %d, want %d", top, 2*PageSize)
	}
	fillPattern(mem, 3)
	// Memory above the mark must still read as created: a stray byte there
	// (which no registration could have written) survives registration.
	seg.mem[lo+5*PageSize] = 0xaa
	if err := n.Deregister(sid); err != nil {
		t.Fatal(err)
	}
	n.Close()

	// The slot's next user takes the dirty memory and more.
	n2 := openNIC(t, seg, 0)
	_, m := mustRegisterSegment(t, n2, 6*PageSize)
	if i := firstDiff(m[:2*PageSize], make([]byte, 2*PageSize)); i >= 0 {
		t.Fatalf("memory below the high-water mark not zeroed at byte %d", i)
	}
	if m[5*PageSize] != 0xaa {
		t.Fatalf("memory above the high-water mark was written")
	}
	if top := seg.proc(0).heapTop; top != 6*PageSize {
		t.Fatalf("heapTop = %d, want %d", top, 6*PageSize)
	}
}
