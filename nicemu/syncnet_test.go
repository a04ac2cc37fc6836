package nicemu

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestSyncLayout checks the sizes and offsets the sync region assumes.
func TestSyncLayout(t *testing.T) {
	t.Run("sizes", checkSyncSizes)
	t.Run("regions", checkSyncRegions)
	t.Run("segment", checkSyncRegionsInSegment)
}

// checkSyncSizes checks the sizes of the sync region's structures and
// of a barrier payload slot.
func checkSyncSizes(t *testing.T) {
	sizes := []struct {
		name      string
		got, want uintptr
	}{
		{"syncCounters", unsafe.Sizeof(syncCounters{}), syncCountersSize},
		{"barrierCtl", unsafe.Sizeof(barrierCtl{}), barrierCtlSize},
		{"barrierArrival", unsafe.Sizeof(barrierArrival{}), arrivalSize},
		{"barrierLast", unsafe.Sizeof(barrierLast{}), lastSize},
		{"ringEntry", unsafe.Sizeof(ringEntry{}), ringEntrySize},
		{"mcMeta", unsafe.Sizeof(mcMeta{}), mcMetaSize},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, want %d", s.name, s.got, s.want)
		}
	}
	if off := unsafe.Offsetof(mcMeta{}.pending); off != 64 {
		t.Errorf("mcMeta.pending at %d, want its own line at 64", off)
	}
	if BarrierPayloadSize+8 != barrierSlotSize || BarrierPayloadSize > payloadLenMask {
		t.Errorf("BarrierPayloadSize %d does not fit a %d-byte slot with its header", BarrierPayloadSize, barrierSlotSize)
	}
}

// checkSyncRegions checks the sync region's parts are cache-line aligned,
// in order without overlap, inside the region, page aligned where they
// must be, and that a multicast bitmap holds MaxProcs bits.
func checkSyncRegions(t *testing.T) {
	regions := []struct {
		name     string
		off, end int
	}{
		{"counters", syncCountersOff, syncCountersOff + syncCountersSize},
		{"multicast seq", syncMcSeqOff, syncMcSeqOff + 64},
		{"multicast meta", syncMcMetaOff, syncMcMetaOff + MulticastSlots*mcMetaSize},
		{"multicast bitmaps", syncMcBitmapOff, syncMcBitmapOff + MulticastSlots*mcBitmapSize},
		{"controllers", syncCtlOff, syncCtlOff + NumBarriers*barrierCtlSize},
		{"last generations", syncLastOff, syncLastOff + NumBarriers*lastSize},
		{"payload slots", syncPayloadOff, syncPayloadOff + NumBarriers*2*barrierSlotSize},
		{"arrival rings", syncArriveOff, syncArriveOff + NumBarriers*arrivalSize},
		{"multicast data", syncMcDataOff, syncMcDataOff + MulticastSlots*MulticastSize},
	}
	for i, r := range regions {
		if r.off%64 != 0 {
			t.Errorf("sync region %s at %d is not cache-line aligned", r.name, r.off)
		}
		if i > 0 && r.off < regions[i-1].end {
			t.Errorf("sync region %s at %d overlaps %s (ends at %d)", r.name, r.off, regions[i-1].name, regions[i-1].end)
		}
		if r.end > syncRegionSize {
			t.Errorf("sync region %s ends at %d, past the region (%d)", r.name, r.end, syncRegionSize)
		}
	}
	for _, off := range []int{syncMcBitmapOff, syncCtlOff, syncLastOff, syncPayloadOff, syncArriveOff, syncMcDataOff, syncRegionSize, partSync, partBounce} {
		if off%PageSize != 0 {
			t.Errorf("offset %d is not page aligned", off)
		}
	}
	if MaxProcs != mcBitmapSize*8 {
		t.Errorf("MaxProcs %d, bitmap holds %d bits", MaxProcs, mcBitmapSize*8)
	}
}

// checkSyncRegionsInSegment: every process's region lies inside its
// partition, before the bounce buffer, the whole segment is mapped, and
// no segment holds more than MaxProcs processes.
func checkSyncRegionsInSegment(t *testing.T) {
	// Every process's region lies inside its partition, before the bounce
	// buffer, and the whole segment is mapped.
	seg := newSegment(t, testConfig(3))
	for p := range 3 {
		if b := seg.syncBase(p); b < seg.partBase(p)+partSIDs+NumSIDs*sidEntrySize || b+syncRegionSize > seg.partBase(p)+partBounce {
			t.Errorf("PID %d: sync region at %d outside [SID table end, bounce buffer)", p, b)
		}
	}
	last := seg.mcData(2, MulticastSlots-1)
	last[len(last)-1] = 1 // within the mapping
	if end := seg.syncBase(2) + syncRegionSize; end > seg.Size() {
		t.Errorf("last sync region ends at %d, past the segment (%d)", end, seg.Size())
	}

	if s, err := CreateSegment(JobConfig{NProcs: MaxProcs + 1, PGID: testPGID}); err == nil {
		s.Close()
		t.Errorf("CreateSegment of %d processes succeeded", MaxProcs+1)
	}
}

// TestAttachSegmentRejectsLayout checks that a header whose geometry does
// not match the file size is refused, not trusted.
func TestAttachSegmentRejectsLayout(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	good := make([]byte, PageSize) // the header page is all that differs
	copy(good, seg.mem)
	for _, c := range []struct {
		name string
		f    func(h *jobHeader)
	}{
		{"no processes", func(h *jobHeader) { h.nprocs = 0 }},
		{"too many processes", func(h *jobHeader) { h.nprocs = MaxProcs + 1 }},
		{"one process more", func(h *jobHeader) { h.nprocs++ }},
		{"partition size", func(h *jobHeader) { h.partSize -= PageSize }},
		{"heap size", func(h *jobHeader) { h.heapSize += PageSize }},
		{"huge bounce", func(h *jobHeader) { h.bounceSize = 1 << 62 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := slices.Clone(good)
			c.f((*jobHeader)(unsafe.Pointer(&b[0])))
			s, err := AttachSegment(memfile(t, b, int64(seg.Size())))
			if err == nil {
				s.Close()
				t.Fatalf("AttachSegment accepted it")
			}
			t.Log(err)
		})
	}
	s, err := AttachSegment(memfile(t, good, int64(seg.Size())))
	if err != nil {
		t.Fatalf("AttachSegment of an intact header: %v", err)
	}
	s.Close()
}

// awaitSync waits until cond holds: it spins, then yields, then sleeps on
// n's doorbell, which the sync network and multicast ring. It returns false
// if cond still does not hold after timeout.
func awaitSync(n *NIC, timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		switch {
		case i < 64:
		case i < 512:
			runtime.Gosched()
		default:
			if time.Now().After(deadline) {
				return cond()
			}
			seen := n.ArmDoorbell()
			if cond() {
				n.DisarmDoorbell()
				return true
			}
			n.WaitDoorbell(seen, 10*time.Millisecond)
		}
	}
}

// barrierPayload is what member publishes at generation gen in the tests:
// lengths cycle through 0..BarrierPayloadSize.
func barrierPayload(member int, gen uint64) []byte {
	// Lengths spread over the whole slot, the empty and the full payload
	// among them.
	return pattern(int((gen*7919+uint64(member)*1237)%(BarrierPayloadSize+1)), gen<<16|uint64(member))
}

// expectSyncRefused runs op, which must be refused with violation v, and
// checks that the refusal is counted in the NIC's Stats, in the segment and
// in the target's PGIDTBL entry, and that nothing was counted as performed.
func expectSyncRefused(tb testing.TB, n *NIC, v Violation, wantOp Op, wantTarget int, op func() error) *AccessError {
	tb.Helper()
	before := n.Stats()
	ae := expectRefused(tb, n, v, wantOp, wantTarget, op)
	if ae.Error() == "" {
		tb.Errorf("empty error text")
	}
	after := n.Stats()
	if after.BarrierArrivals != before.BarrierArrivals || after.BarrierReleases != before.BarrierReleases ||
		after.Multicasts != before.Multicasts || after.MulticastBytes != before.MulticastBytes ||
		after.Deliveries != before.Deliveries || after.Wakeups != before.Wakeups {
		tb.Errorf("refused request counted as performed: before %+v after %+v", before, after)
	}
	return ae
}

// TestBarrierAllocFree checks that concurrent claims share out every barrier
// controller exactly once, that a freed barrier comes back with fresh
// counters, and that all can be freed and claimed again.
func TestBarrierAllocFree(t *testing.T) {
	seg := newSegment(t, testConfig(4))
	nics := []*NIC{openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2), openNIC(t, seg, 3)}

	owner := claimEveryBarrier(t, nics)

	// Free one (by a process of the job other than its claimer) and get it
	// back; its counters start afresh.
	const id = 77
	freeHalfDoneBarrier(t, nics, owner, id)
	reuseFreedBarrier(t, nics, id)

	freeAndReclaimAllBarriers(t, nics)
}

// claimEveryBarrier has four processes, two goroutines each, claim every
// controller at once, checks that each was handed out exactly once and that
// none is left, and returns the goroutine that claimed each.
func claimEveryBarrier(t *testing.T, nics []*NIC) map[int]int {
	t.Helper()
	var mu sync.Mutex
	owner := make(map[int]int)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			n := nics[g%4]
			for {
				id, err := n.AllocBarrier()
				if err != nil {
					if !errors.Is(err, ErrNoBarrier) {
						t.Errorf("AllocBarrier: %v, want ErrNoBarrier", err)
					}
					return
				}
				mu.Lock()
				if prev, dup := owner[id]; dup {
					t.Errorf("barrier %d allocated twice (goroutines %d and %d)", id, prev, g)
				}
				owner[id] = g
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(owner) != NumBarriers {
		t.Fatalf("%d barriers allocated, want %d", len(owner), NumBarriers)
	}
	for id := range NumBarriers {
		if _, ok := owner[id]; !ok {
			t.Errorf("barrier %d never allocated", id)
		}
	}
	if id, err := nics[0].AllocBarrier(); !errors.Is(err, ErrNoBarrier) || id != -1 {
		t.Fatalf("AllocBarrier with all in use = %d, %v; want -1, ErrNoBarrier", id, err)
	}
	return owner
}

// freeHalfDoneBarrier completes three generations of barrier id, leaves a
// fourth half done, has a process other than its claimer free it, and checks
// that the freed barrier refuses a second free and arrivals.
func freeHalfDoneBarrier(t *testing.T, nics []*NIC, owner map[int]int, id int) {
	t.Helper()
	claimer := nics[owner[id]%4]
	other := nics[(owner[id]+1)%4]
	procs := []int{claimer.PID()}
	for g := uint64(1); g <= 3; g++ {
		if gen, err := claimer.BarrierArrive(id, 0, procs, nil); err != nil || gen != g {
			t.Fatalf("arrival %d on barrier %d = %d, %v", g, id, gen, err)
		}
	}
	// A half-done generation of a 2-member group.
	if gen, err := claimer.BarrierArrive(id, 0, []int{claimer.PID(), other.PID()}, []byte("left")); err != nil || gen != 4 {
		t.Fatalf("arrival 4 = %d, %v", gen, err)
	}
	if !claimer.BarrierReleased(id, 1, 3) || claimer.BarrierReleased(id, 2, 4) {
		t.Fatalf("before the free: released(3) %v released(4) %v", claimer.BarrierReleased(id, 1, 3), claimer.BarrierReleased(id, 2, 4))
	}
	if err := other.FreeBarrier(id); err != nil {
		t.Fatalf("FreeBarrier(%d) by a process of the job: %v", id, err)
	}
	expectSyncRefused(t, other, ViolationBadRequest, OpBarrier, -1, func() error { return other.FreeBarrier(id) })
	expectSyncRefused(t, claimer, ViolationBadRequest, OpBarrier, -1, func() error {
		_, err := claimer.BarrierArrive(id, 0, procs, nil)
		return err
	})
}

// reuseFreedBarrier claims the freed barrier id again and checks that it
// starts at generation 0 and that a group of two needs both arrivals to
// complete generation 1.
func reuseFreedBarrier(t *testing.T, nics []*NIC, id int) {
	t.Helper()
	got, err := nics[3].AllocBarrier()
	if err != nil || got != id {
		t.Fatalf("AllocBarrier after freeing %d = %d, %v", id, got, err)
	}
	if nics[3].BarrierReleased(id, 2, 1) {
		t.Errorf("reallocated barrier: generation 1 already released")
	}
	if !nics[3].BarrierReleased(id, 2, 0) {
		t.Errorf("reallocated barrier: generation 0 not released")
	}
	// A group of two completes generation 1: the stale arrival is gone.
	pair := []int{3, 0}
	if gen, err := nics[3].BarrierArrive(id, 0, pair, []byte("a")); err != nil || gen != 1 {
		t.Fatalf("first arrival on the reallocated barrier = %d, %v", gen, err)
	}
	if nics[3].BarrierReleased(id, 2, 1) {
		t.Fatalf("generation 1 released after one arrival of two: the freed barrier kept its count")
	}
	if gen, err := nics[0].BarrierArrive(id, 1, pair, []byte("b")); err != nil || gen != 1 {
		t.Fatalf("second arrival = %d, %v", gen, err)
	}
	if !nics[0].BarrierReleased(id, 2, 1) {
		t.Fatalf("generation 1 not released after both arrivals")
	}
}

// freeAndReclaimAllBarriers frees every barrier and checks that all can be
// claimed again, in order.
func freeAndReclaimAllBarriers(t *testing.T, nics []*NIC) {
	t.Helper()
	for i := range NumBarriers {
		if err := nics[i%4].FreeBarrier(i); err != nil {
			t.Fatalf("FreeBarrier(%d): %v", i, err)
		}
	}
	for i := range NumBarriers {
		if got, err := nics[1].AllocBarrier(); err != nil || got != i {
			t.Fatalf("AllocBarrier after freeing all = %d, %v; want %d", got, err, i)
		}
	}
}

// runBarrierGroup runs rounds generations of a barrier on controller id with
// one goroutine per member, member i running on nics[i] as PID procs[i]. It
// checks that no member is released before every member arrived at that
// generation and that every payload reads back, and returns nothing; errors
// are reported through t.
func runBarrierGroup(t *testing.T, nics []*NIC, id int, procs []int, rounds int) {
	t.Helper()
	k := len(procs)
	arrived := make([]atomic.Int64, rounds+2)
	var wg sync.WaitGroup
	for m := range k {
		wg.Go(func() {
			n := nics[m]
			for g := uint64(1); g <= uint64(rounds); g++ {
				// Skew the members so fast ones arrive at the next
				// generation while slow ones still read this one.
				if (g+uint64(m))%5 == 0 {
					for range m {
						runtime.Gosched()
					}
				}
				arrived[g].Add(1)
				gen, err := n.BarrierArrive(id, m, procs, barrierPayload(m, g))
				if err != nil {
					t.Errorf("member %d: BarrierArrive at generation %d: %v", m, g, err)
					return
				}
				if gen != g {
					t.Errorf("member %d: BarrierArrive returned generation %d, want %d", m, gen, g)
					return
				}
				if !awaitSync(n, 30*time.Second, func() bool { return n.BarrierReleased(id, k, gen) }) {
					t.Errorf("member %d: generation %d never released (%d of %d arrived)", m, g, arrived[g].Load(), k)
					return
				}
				if a := arrived[g].Load(); a != int64(k) {
					t.Errorf("member %d: generation %d released with %d of %d members arrived", m, g, a, k)
					return
				}
				for o := range k {
					p := n.BarrierPayload(id, o, g)
					if p == nil {
						t.Errorf("member %d: generation %d: no payload of member %d", m, g, o)
						return
					}
					if want := barrierPayload(o, g); !slices.Equal(p, want) {
						t.Errorf("member %d: generation %d: payload of member %d = %x, want %x", m, g, o, p, want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestBarrierGroups(t *testing.T) {
	const nprocs = 8
	const rounds = 300
	for _, k := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			seg := newSegment(t, testConfig(nprocs))
			all := make([]*NIC, nprocs)
			for p := range all {
				all[p] = openNIC(t, seg, p)
			}
			// Member i is PID (3i+1) mod 8: members are not PIDs.
			procs := make([]int, k)
			nics := make([]*NIC, k)
			for i := range procs {
				procs[i] = (3*i + 1) % nprocs
				nics[i] = all[procs[i]]
			}
			id, err := all[5].AllocBarrier()
			if err != nil {
				t.Fatal(err)
			}
			runBarrierGroup(t, nics, id, procs, rounds)
			var arrivals, releases uint64
			for _, n := range all {
				s := n.Stats()
				arrivals += s.BarrierArrivals
				releases += s.BarrierReleases
			}
			// Members arriving last at once may each count the release.
			if arrivals != uint64(k*rounds) || releases < rounds || releases > uint64(k*rounds) {
				t.Errorf("Stats: %d arrivals, %d releases; want %d, %d to %d", arrivals, releases, k*rounds, rounds, k*rounds)
			}
			if !all[0].BarrierReleased(id, k, rounds) || all[0].BarrierReleased(id, k, rounds+1) {
				t.Errorf("after %d rounds: released(%d) %v, released(%d) %v", rounds,
					rounds, all[0].BarrierReleased(id, k, rounds), rounds+1, all[0].BarrierReleased(id, k, rounds+1))
			}
		})
	}
}

// TestBarrierGoroutinesOfOneNIC runs a group in which three members are
// goroutines of one NIC, alongside two barriers on other controllers. (A
// group has at most NProcs members: member m's payload slots are in
// partition m.)
func TestBarrierGoroutinesOfOneNIC(t *testing.T) {
	seg := newSegment(t, testConfig(4))
	n0, n1, n2 := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	var wg sync.WaitGroup
	for _, g := range []struct {
		nics  []*NIC
		procs []int
	}{
		{[]*NIC{n0, n0, n1, n0}, []int{0, 0, 1, 0}},
		{[]*NIC{n1, n2}, []int{1, 2}},
		{[]*NIC{n2, n0, n2}, []int{2, 0, 2}},
	} {
		id, err := n0.AllocBarrier()
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { runBarrierGroup(t, g.nics, id, g.procs, 200) })
	}
	wg.Wait()
}

// TestBarrierSlowReader checks the double buffering: a member's payload of
// generation g stays readable after its arrival at g+1 and is replaced by
// its arrival at g+2.
func TestBarrierSlowReader(t *testing.T) {
	fast, slow, id, procs := newBarrierPair(t)
	bp := barrierPair{fast, slow, id, procs}
	a0, a1 := []byte("fast, generation one"), []byte("slow, generation one")
	b0, b1 := []byte("fast, generation two"), []byte("slow, generation two")
	c0 := []byte("fast, generation three")
	view := bp.releaseFirstGeneration(t, a0, a1)
	bp.releaseWhileReading(t, view, a0, a1, b0, b1)
	// The next-but-one arrival reuses the slot: generation 1 is gone.
	bp.checkSlotReused(t, b0, c0)
	// An empty payload is not a missing one.
	bp.checkEmptyAndBadPayloads(t)
}

// barrierPair is newBarrierPair's two members of barrier id.
type barrierPair struct {
	fast, slow *NIC
	id         int
	procs      []int
}

// arrive has n arrive as member with payload and checks it reached
// generation want.
func (bp barrierPair) arrive(t *testing.T, n *NIC, member int, payload []byte, want uint64) {
	t.Helper()
	if gen, err := n.BarrierArrive(bp.id, member, bp.procs, payload); err != nil || gen != want {
		t.Fatalf("PID %d arrives: generation %d, %v; want %d", n.PID(), gen, err, want)
	}
}

// releaseFirstGeneration has slow arrive with a1, then fast with a0,
// checking generation 1 is released only by the second arrival; it
// returns the slow member's view of a0.
func (bp barrierPair) releaseFirstGeneration(t *testing.T, a0, a1 []byte) (view []byte) {
	t.Helper()
	fast, slow, id := bp.fast, bp.slow, bp.id
	bp.arrive(t, slow, 1, a1, 1)
	if slow.BarrierReleased(id, 2, 1) {
		t.Fatal("generation 1 released after one arrival of two")
	}
	if p := slow.BarrierPayload(id, 0, 1); p != nil {
		t.Fatalf("payload of a member that has not arrived: %q", p)
	}
	bp.arrive(t, fast, 0, a0, 1)
	if !slow.BarrierReleased(id, 2, 1) {
		t.Fatal("generation 1 not released")
	}
	view = slow.BarrierPayload(id, 0, 1) // the slow member starts reading
	if string(view) != string(a0) {
		t.Fatalf("generation 1 payload of member 0 = %q", view)
	}
	return view
}

// releaseWhileReading has fast arrive at generation 2 with b0 while slow
// still reads generation 1 through view, which stays intact, then slow
// with b1, releasing generation 2 with both payloads.
func (bp barrierPair) releaseWhileReading(t *testing.T, view, a0, a1, b0, b1 []byte) {
	t.Helper()
	fast, slow, id := bp.fast, bp.slow, bp.id
	bp.arrive(t, fast, 0, b0, 2) // the fast member is already at generation 2
	if got := slow.BarrierPayload(id, 0, 1); string(got) != string(a0) || string(view) != string(a0) {
		t.Fatalf("after the fast member's next arrival, generation 1 reads %q (view %q), want %q", got, view, a0)
	}
	if got := fast.BarrierPayload(id, 1, 1); string(got) != string(a1) {
		t.Fatalf("generation 1 payload of member 1 = %q", got)
	}
	if slow.BarrierReleased(id, 2, 2) {
		t.Fatal("generation 2 released with the slow member still reading generation 1")
	}
	bp.arrive(t, slow, 1, b1, 2)
	if !fast.BarrierReleased(id, 2, 2) {
		t.Fatal("generation 2 not released")
	}
	for m, want := range [][]byte{b0, b1} {
		if got := fast.BarrierPayload(id, m, 2); string(got) != string(want) {
			t.Fatalf("generation 2 payload of member %d = %q, want %q", m, got, want)
		}
	}
}

// checkSlotReused has fast arrive at generation 3 with c0, which replaces
// its generation 1 payload and leaves generation 2's b0.
func (bp barrierPair) checkSlotReused(t *testing.T, b0, c0 []byte) {
	t.Helper()
	fast, slow, id := bp.fast, bp.slow, bp.id
	bp.arrive(t, fast, 0, c0, 3)
	if got := slow.BarrierPayload(id, 0, 1); got != nil {
		t.Fatalf("generation 1 payload after the next-but-one arrival = %q, want nil", got)
	}
	if got := slow.BarrierPayload(id, 0, 3); string(got) != string(c0) {
		t.Fatalf("generation 3 payload = %q", got)
	}
	if got := slow.BarrierPayload(id, 0, 2); string(got) != string(b0) {
		t.Fatalf("generation 2 payload after the fast member's arrival at 3 = %q", got)
	}
}

// checkEmptyAndBadPayloads has slow arrive at generation 3 with no
// payload, read as empty, not missing, and checks lookups of a bad id,
// member or group size find nothing.
func (bp barrierPair) checkEmptyAndBadPayloads(t *testing.T) {
	t.Helper()
	fast, slow, id := bp.fast, bp.slow, bp.id
	bp.arrive(t, slow, 1, nil, 3)
	if got := fast.BarrierPayload(id, 1, 3); got == nil || len(got) != 0 {
		t.Fatalf("empty payload read as %q (nil %v)", got, got == nil)
	}
	for _, bad := range [][2]int{{-1, 0}, {NumBarriers, 0}, {id, -1}, {id, 2}} {
		if got := fast.BarrierPayload(bad[0], bad[1], 3); got != nil {
			t.Errorf("BarrierPayload(%d, %d, 3) = %q, want nil", bad[0], bad[1], got)
		}
	}
	if fast.BarrierReleased(-1, 2, 0) || fast.BarrierReleased(NumBarriers, 2, 0) || fast.BarrierReleased(id, 3, 0) {
		t.Errorf("BarrierReleased of a bad id or size is true")
	}
}

// TestBarrierDoorbell checks that the releasing arrival rings the sleeping
// members' doorbells and counts the wake-ups.
func TestBarrierDoorbell(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	n0, n1, n2 := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	id, err := n1.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	procs := []int{2, 0, 1}
	for round := uint64(1); round <= 3; round++ {
		if _, err := n1.BarrierArrive(id, 2, procs, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := n2.BarrierArrive(id, 0, procs, nil); err != nil {
			t.Fatal(err)
		}
		seen1 := n1.ArmDoorbell() // n1 sleeps; n2 only polls
		before := n0.Stats()
		if _, err := n0.BarrierArrive(id, 1, procs, nil); err != nil {
			t.Fatal(err)
		}
		after := n0.Stats()
		if d := after.Wakeups - before.Wakeups; d != 1 {
			t.Errorf("round %d: releasing arrival counted %d wake-ups, want 1 (one sleeping member)", round, d)
		}
		if d := after.BarrierReleases - before.BarrierReleases; d != 1 {
			t.Errorf("round %d: BarrierReleases +%d, want +1", round, d)
		}
		start := time.Now()
		n1.WaitDoorbell(seen1, 5*time.Second)
		if d := time.Since(start); d > time.Second {
			t.Errorf("round %d: the release did not ring the sleeping member (slept %v)", round, d)
		}
		if !n1.BarrierReleased(id, 3, round) {
			t.Errorf("round %d not released", round)
		}
	}
	if s := n1.Stats(); s.BarrierReleases != 0 || s.BarrierArrivals != 3 || s.Wakeups != 0 {
		t.Errorf("n1 Stats: %d releases, %d arrivals, %d wake-ups; want 0, 3, 0", s.BarrierReleases, s.BarrierArrivals, s.Wakeups)
	}
}

// TestBarrierProtection checks that barrier requests to another job's
// controller, or malformed, are refused and not counted.
func TestBarrierProtection(t *testing.T) {
	cfg := testConfig(3)
	cfg.ForeignPGID = map[int]uint64{2: foreignPGID}
	seg := newSegment(t, cfg)
	n0, n1, foreign := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	id, err := n0.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	fid, err := foreign.AllocBarrier()
	if err != nil || fid == id {
		t.Fatalf("foreign AllocBarrier = %d, %v (job's is %d)", fid, err, id)
	}
	unclaimed := fid + 1
	procs := []int{0, 1}
	checkForeignBarrierRefusals(t, n0, n1, foreign, id, fid)
	checkBadBarrierRequests(t, n0, id, unclaimed, procs)
	checkBarrierAfterRefusals(t, n0, n1, foreign, id, fid, procs)
}

// refusedArrival returns an arrival of member at barrier id through n,
// which checks that a refused arrival returns generation 0.
func refusedArrival(t *testing.T, n *NIC, id, member int, procs []int, payload []byte) func() error {
	return func() error {
		gen, err := n.BarrierArrive(id, member, procs, payload)
		if err != nil && gen != 0 {
			t.Errorf("refused arrival returned generation %d", gen)
		}
		return err
	}
}

// checkForeignBarrierRefusals: another job's process can neither arrive
// at nor free the job's controller id, nor read its payload, and the
// job's processes cannot touch the other job's fid.
func checkForeignBarrierRefusals(t *testing.T, n0, n1, foreign *NIC, id, fid int) {
	t.Helper()
	for _, c := range []struct {
		n  *NIC
		id int
	}{{foreign, id}, {n0, fid}, {n1, fid}} {
		ae := expectSyncRefused(t, c.n, ViolationForeignJob, OpBarrier, -1, refusedArrival(t, c.n, c.id, 0, []int{c.n.PID()}, []byte("x")))
		if ae.Offset != uint64(c.id) || ae.Length != 1 {
			t.Errorf("AccessError %+v", ae)
		}
		expectSyncRefused(t, c.n, ViolationForeignJob, OpBarrier, -1, func() error { return c.n.FreeBarrier(c.id) })
		if p := c.n.BarrierPayload(c.id, 0, 1); p != nil {
			t.Errorf("PID %d reads another job's barrier payload", c.n.PID())
		}
	}
}

// checkBadBarrierRequests: bad ids, unclaimed controllers, bad members or
// groups and oversized payloads are refused.
func checkBadBarrierRequests(t *testing.T, n0 *NIC, id, unclaimed int, procs []int) {
	t.Helper()
	for _, bad := range []int{-1, NumBarriers, 1 << 40, unclaimed} {
		expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, bad, 0, procs, nil))
		expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, func() error { return n0.FreeBarrier(bad) })
	}
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, -1, procs, nil))
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, 2, procs, nil))
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, 0, nil, nil))
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, 1, procs, nil)) // member 1 is PID 1
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, 0, []int{0, 1, 0, 1}, nil))
	ae := expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, refusedArrival(t, n0, id, 0, procs, make([]byte, BarrierPayloadSize+1)))
	if ae.Length != BarrierPayloadSize+1 {
		t.Errorf("oversized payload refusal: %+v", ae)
	}
}

// checkBarrierAfterRefusals: none of the refusals counted as an arrival:
// the group still works, with a payload of the largest size, and so does
// the foreign job's own controller.
func checkBarrierAfterRefusals(t *testing.T, n0, n1, foreign *NIC, id, fid int, procs []int) {
	t.Helper()
	full0, full1 := pattern(BarrierPayloadSize, 1), pattern(BarrierPayloadSize, 2)
	if gen, err := n0.BarrierArrive(id, 0, procs, full0); err != nil || gen != 1 {
		t.Fatalf("arrival after refusals = %d, %v", gen, err)
	}
	if n0.BarrierReleased(id, 2, 1) {
		t.Fatal("released after one arrival: a refused request was counted")
	}
	if gen, err := n1.BarrierArrive(id, 1, procs, full1); err != nil || gen != 1 {
		t.Fatalf("second arrival = %d, %v", gen, err)
	}
	if !n0.BarrierReleased(id, 2, 1) || string(n1.BarrierPayload(id, 0, 1)) != string(full0) || string(n0.BarrierPayload(id, 1, 1)) != string(full1) {
		t.Fatal("barrier after refusals: not released or payloads wrong")
	}
	// The foreign job's own controller works for it.
	if gen, err := foreign.BarrierArrive(fid, 0, []int{2}, []byte("f")); err != nil || gen != 1 || !foreign.BarrierReleased(fid, 1, 1) {
		t.Fatalf("foreign job's own barrier: %d, %v", gen, err)
	}
	if s := n0.Stats(); s.BarrierArrivals != 1 || s.BarrierReleases != 0 {
		t.Errorf("n0 Stats after refusals: %d arrivals, %d releases", s.BarrierArrivals, s.BarrierReleases)
	}
}

// The sync-network child process. The test binary runs syncChildMain
// instead of the tests when NICEMU_SYNC_CHILD is set (TestMain belongs to
// cma_test.go; an init function runs before it).
const syncChildEnv = "NICEMU_SYNC_CHILD"

func init() {
	if os.Getenv(syncChildEnv) != "" {
		os.Exit(syncChildMain())
	}
}

// syncJob is the script that the parent (PID 0) and every child run in the
// child-process test: rounds barrier generations of the whole job on
// controller id, then root 0 multicasts count messages to all, then every
// child multicasts one message to every other process, then one last
// barrier.
type syncJob struct {
	n      *NIC
	id     int
	procs  []int
	rounds int
	count  int
}

const syncTimeout = 30 * time.Second

func syncJobMessage(root, i int) []byte {
	sizes := []int{0, 1, 100, 4096, MulticastSize - 1, MulticastSize}
	return pattern(sizes[i%len(sizes)], uint64(root)<<32|uint64(i))
}

func (j *syncJob) barrier(gen uint64) error {
	me := j.n.PID()
	got, err := j.n.BarrierArrive(j.id, me, j.procs, barrierPayload(me, gen))
	if err != nil {
		return err
	}
	if got != gen {
		return fmt.Errorf("PID %d: arrived at generation %d, want %d", me, got, gen)
	}
	if !awaitSync(j.n, syncTimeout, func() bool { return j.n.BarrierReleased(j.id, len(j.procs), gen) }) {
		return fmt.Errorf("PID %d: generation %d never released", me, gen)
	}
	for m := range j.procs {
		if p := j.n.BarrierPayload(j.id, m, gen); !slices.Equal(p, barrierPayload(m, gen)) {
			return fmt.Errorf("PID %d: generation %d: payload of member %d = %x", me, gen, m, p)
		}
	}
	return nil
}

func (j *syncJob) multicast(tag uint64, data []byte) error {
	var dests []int
	for _, p := range j.procs {
		if p != j.n.PID() {
			dests = append(dests, p)
		}
	}
	var err error
	if !awaitSync(j.n, syncTimeout, func() bool {
		var ok bool
		ok, err = j.n.TryMulticast(dests, tag, data)
		return ok || err != nil
	}) {
		return fmt.Errorf("PID %d: no multicast slot freed for %v", j.n.PID(), syncTimeout)
	}
	return err
}

func (j *syncJob) deliver(root int, tag uint64, want []byte) error {
	buf := make([]byte, MulticastSize)
	var l int
	var err error
	if !awaitSync(j.n, syncTimeout, func() bool {
		var ok bool
		l, ok, err = j.n.TryDeliver(root, tag, buf)
		return ok || err != nil
	}) {
		return fmt.Errorf("PID %d: multicast %d from %d never came", j.n.PID(), tag, root)
	}
	if err != nil {
		return err
	}
	if !slices.Equal(buf[:l], want) {
		return fmt.Errorf("PID %d: multicast %d from %d: %d bytes, differ from byte %d", j.n.PID(), tag, root, l, firstDiff(buf[:l], want))
	}
	return nil
}

func (j *syncJob) run() error {
	me := j.n.PID()
	for g := 1; g <= j.rounds; g++ {
		if err := j.barrier(uint64(g)); err != nil {
			return err
		}
	}
	for i := range j.count {
		var err error
		if me == 0 {
			err = j.multicast(uint64(i), syncJobMessage(0, i))
		} else {
			err = j.deliver(0, uint64(i), syncJobMessage(0, i))
		}
		if err != nil {
			return err
		}
	}
	if me != 0 {
		if err := j.multicast(1000, syncJobMessage(me, 1000)); err != nil {
			return err
		}
	}
	for _, p := range j.procs {
		if p != 0 && p != me {
			if err := j.deliver(p, 1000, syncJobMessage(p, 1000)); err != nil {
				return err
			}
		}
	}
	return j.barrier(uint64(j.rounds + 1))
}

func syncChildMain() int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "nicemu sync child: "+format+"\n", args...)
		return 2
	}
	var pid, nprocs int
	j := &syncJob{}
	if _, err := fmt.Sscanf(os.Getenv(syncChildEnv), "%d %d %d %d %d", &pid, &nprocs, &j.id, &j.rounds, &j.count); err != nil {
		return fail("bad %s=%q: %v", syncChildEnv, os.Getenv(syncChildEnv), err)
	}
	seg, err := AttachSegment(os.NewFile(3, "martini-segment"))
	if err != nil {
		return fail("%v", err)
	}
	if j.n, err = Open(seg, pid); err != nil {
		return fail("%v", err)
	}
	for p := range nprocs {
		j.procs = append(j.procs, p)
	}
	if err := j.run(); err != nil {
		return fail("%v", err)
	}
	s := j.n.Stats()
	fmt.Printf("STATS arrivals=%d multicasts=%d bytes=%d deliveries=%d wakeups=%d\n",
		s.BarrierArrivals, s.Multicasts, s.MulticastBytes, s.Deliveries, s.Wakeups)
	return 0
}

// TestChildProcessSyncNet runs barriers and multicasts across four real
// processes: the test (PID 0) and three children, which sleep on their
// doorbells while they wait.
func TestChildProcessSyncNet(t *testing.T) {
	const nprocs, rounds, count = syncNetProcs, syncNetRounds, syncNetCount
	cfg := testConfig(nprocs)
	cfg.HeapSize = 1 << 20
	seg := newSegment(t, cfg)
	j := &syncJob{n: openNIC(t, seg, 0), rounds: rounds, count: count}
	for p := range nprocs {
		j.procs = append(j.procs, p)
	}
	var err error
	if j.id, err = j.n.AllocBarrier(); err != nil {
		t.Fatal(err)
	}
	children := startSyncChildren(t, seg, j.id)
	if err := j.run(); err != nil {
		t.Fatalf("parent: %v", err)
	}
	checkSyncChildren(t, children)
	checkSyncParent(t, seg, j)
}

// The size of TestChildProcessSyncNet's job: processes, barrier rounds
// and multicasts from the parent.
const syncNetProcs, syncNetRounds, syncNetCount = 4, 200, 12

// syncChild is one child process of TestChildProcessSyncNet.
type syncChild struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

// startSyncChildren starts PIDs 1 to syncNetProcs-1 on seg, in barrier id;
// the test's end kills any that has not exited.
func startSyncChildren(t *testing.T, seg *Segment, id int) []*syncChild {
	t.Helper()
	const nprocs, rounds, count = syncNetProcs, syncNetRounds, syncNetCount
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var children []*syncChild
	for pid := 1; pid < nprocs; pid++ {
		c := &syncChild{done: make(chan error, 1)}
		c.cmd = exec.Command(exe, "-test.run=^$")
		c.cmd.Env = append(os.Environ(),
			fmt.Sprintf("%s=%d %d %d %d %d", syncChildEnv, pid, nprocs, id, rounds, count),
			"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		c.cmd.ExtraFiles = []*os.File{seg.File()}
		c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { c.done <- c.cmd.Wait() }()
		t.Cleanup(func() {
			if c.cmd.ProcessState == nil {
				c.cmd.Process.Kill()
				<-c.done
				t.Logf("child %d stderr:\n%s", pid, c.stderr.String())
			}
		})
		children = append(children, c)
	}
	return children
}

// checkSyncChildren waits for each child to exit cleanly and checks the
// statistics it printed.
func checkSyncChildren(t *testing.T, children []*syncChild) {
	t.Helper()
	const nprocs, rounds, count = syncNetProcs, syncNetRounds, syncNetCount
	for i, c := range children {
		pid := i + 1
		select {
		case err := <-c.done:
			if err != nil {
				t.Fatalf("child %d: %v; stderr:\n%s", pid, err, c.stderr.String())
			}
		case <-time.After(syncTimeout):
			t.Fatalf("child %d did not exit", pid)
		}
		var arrivals, multicasts, nbytes, deliveries, wakeups int
		if _, err := fmt.Sscanf(c.stdout.String(), "STATS arrivals=%d multicasts=%d bytes=%d deliveries=%d wakeups=%d",
			&arrivals, &multicasts, &nbytes, &deliveries, &wakeups); err != nil {
			t.Fatalf("child %d said %q: %v", pid, c.stdout.String(), err)
		}
		if arrivals != rounds+1 || multicasts != 1 || nbytes != len(syncJobMessage(pid, 1000)) || deliveries != count+nprocs-2 {
			t.Errorf("child %d Stats: %d arrivals, %d multicasts of %d bytes, %d deliveries; want %d, 1 of %d, %d",
				pid, arrivals, multicasts, nbytes, deliveries, rounds+1, len(syncJobMessage(pid, 1000)), count+nprocs-2)
		}
		t.Logf("child %d rang %d doorbells", pid, wakeups)
	}
}

// checkSyncParent checks the parent's statistics and the releases
// counted across seg.
func checkSyncParent(t *testing.T, seg *Segment, j *syncJob) {
	t.Helper()
	const nprocs, rounds, count = syncNetProcs, syncNetRounds, syncNetCount
	s := j.n.Stats()
	var nbytes uint64
	for i := range count {
		nbytes += uint64(len(syncJobMessage(0, i)))
	}
	if s.BarrierArrivals != rounds+1 || s.Multicasts != count || s.MulticastBytes != nbytes || s.Deliveries != nprocs-1 {
		t.Errorf("parent Stats: %d arrivals, %d multicasts of %d bytes, %d deliveries; want %d, %d of %d, %d",
			s.BarrierArrivals, s.Multicasts, s.MulticastBytes, s.Deliveries, rounds+1, count, nbytes, nprocs-1)
	}
	var releases uint64
	for p := range nprocs {
		releases += atomic.LoadUint64(&seg.syncCounters(p).releases)
	}
	if releases < rounds+1 || releases > nprocs*(rounds+1) {
		t.Errorf("%d releases in all, want %d to %d (members arriving last at once may each count one)", releases, rounds+1, nprocs*(rounds+1))
	}
	t.Logf("parent rang %d doorbells", s.Wakeups)
}

// TestBarrierRecordRing checks the arrival line's ring: a member that
// arrives by records runs ahead of a slow one without waiting for
// releases; the slow one then reads every generation's keys and records
// still in the ring, and a full arrival's key too, while the
// double-buffered payload of an earlier full arrival stays untouched.
func TestBarrierRecordRing(t *testing.T) {
	fast, slow, id, procs := newBarrierPair(t)
	// Generation 1: a full arrival of both, with payloads.
	if _, err := fast.BarrierArriveData(id, 0, procs, 11, nil, []byte("fast payload")); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.BarrierArriveData(id, 1, procs, 12, nil, []byte("slow payload")); err != nil {
		t.Fatal(err)
	}
	runRecordsAhead(t, fast, slow, id, procs)
	catchUpByRecords(t, fast, slow, id, procs)
	checkRecordRingWraps(t, fast, slow, id, procs)
}

// ringRecord is member who's record for generation g.
func ringRecord(who, g int) (r [RecordSize]byte) {
	copy(r[:], fmt.Sprintf("member %d generation %d", who, g))
	return r
}

// ringDatum is member who's data word for generation g.
func ringDatum(who, g int) (d [DatumSize]byte) {
	copy(d[:], fmt.Sprintf("m%d g%d", who, g))
	return d
}

// runRecordsAhead has fast arrive by records for generations 2 to
// RecordRingDepth without waiting, and checks what slow sees: generation
// 1's payload and key, no release since, and fast's arrivals and data.
func runRecordsAhead(t *testing.T, fast, slow *NIC, id int, procs []int) {
	t.Helper()
	for g := 2; g <= RecordRingDepth; g++ {
		d := ringDatum(0, g)
		gen, err := fast.BarrierArriveRecord(id, 0, procs, uint64(100+g), ringRecord(0, g), &d)
		if err != nil || gen != uint64(g) {
			t.Fatalf("record arrival %d: generation %d, %v", g, gen, err)
		}
	}
	if got := string(slow.BarrierPayload(id, 0, 1)[:12]); got != "fast payload" {
		t.Errorf("generation 1's payload after the records: %q", got)
	}
	if k := slow.BarrierKey(id, 0, 1); k != 11 {
		t.Errorf("generation 1's key in the ring: %d, want 11", k)
	}
	if last := slow.BarrierLastReleased(id, 2); last != 1 {
		t.Errorf("last released with the fast member %d generations ahead: %d, want 1", RecordRingDepth-1, last)
	}
	if !slow.BarrierArrived(id, 0, RecordRingDepth) || slow.BarrierArrived(id, 0, RecordRingDepth+1) || slow.BarrierArrived(id, 1, 2) {
		t.Errorf("arrived: fast at %d %v, at %d %v; slow at 2 %v; want true, false, false", RecordRingDepth,
			slow.BarrierArrived(id, 0, RecordRingDepth), RecordRingDepth+1, slow.BarrierArrived(id, 0, RecordRingDepth+1), slow.BarrierArrived(id, 1, 2))
	}
	if d := slow.BarrierDatum(id, 0, 7); d != ringDatum(0, 7) {
		t.Errorf("the fast member's data word of generation 7, read ahead of the release: %q", d)
	}
}

// catchUpByRecords has slow arrive by records for generations 2 to
// RecordRingDepth, each releasing its generation, whose keys, records
// and data words of both members it then checks.
func catchUpByRecords(t *testing.T, fast, slow *NIC, id int, procs []int) {
	t.Helper()
	for g := 2; g <= RecordRingDepth; g++ {
		if slow.BarrierReleased(id, 2, uint64(g)) {
			t.Fatalf("generation %d released before the slow member arrived", g)
		}
		if last := fast.BarrierLastReleased(id, 2); last != uint64(g-1) {
			t.Fatalf("before the slow member's arrival %d: last released %d, want %d", g, last, g-1)
		}
		d := ringDatum(1, g)
		gen, err := slow.BarrierArriveRecord(id, 1, procs, uint64(200+g), ringRecord(1, g), &d)
		if err != nil || gen != uint64(g) || !slow.BarrierReleased(id, 2, uint64(g)) {
			t.Fatalf("slow record arrival %d: generation %d, %v", g, gen, err)
		}
		for m, want := range []uint64{uint64(100 + g), uint64(200 + g)} {
			if k := slow.BarrierKey(id, m, uint64(g)); k != want {
				t.Errorf("generation %d: member %d's key %d, want %d", g, m, k, want)
			}
			if r := fast.BarrierRecord(id, m, uint64(g)); r != ringRecord(m, g) {
				t.Errorf("generation %d: member %d's record %q", g, m, r)
			}
			if d := fast.BarrierDatum(id, m, uint64(g)); d != ringDatum(m, g) {
				t.Errorf("generation %d: member %d's data word %q", g, m, d)
			}
		}
	}
}

// checkRecordRingWraps checks the last release of groups of one and of
// three, that the next arrival replaces generation 1's key, and that a
// record arrival as another member is refused.
func checkRecordRingWraps(t *testing.T, fast, slow *NIC, id int, procs []int) {
	t.Helper()
	if last := fast.BarrierLastReleased(id, 1); last != RecordRingDepth {
		t.Errorf("last released of the group of the fast member alone: %d, want %d", last, RecordRingDepth)
	}
	if last := fast.BarrierLastReleased(id, 3); last != 0 {
		t.Errorf("last released of a group larger than the job: %d, want 0", last)
	}
	// The ring wraps: the next arrival replaces generation 1's key.
	if _, err := fast.BarrierArriveRecord(id, 0, procs, 999, ringRecord(0, RecordRingDepth+1), nil); err != nil {
		t.Fatal(err)
	}
	if k := slow.BarrierKey(id, 0, RecordRingDepth+1); k != 999 {
		t.Errorf("after the ring wrapped: key %d, want 999", k)
	}
	// A refused arrival: not the caller's member.
	if _, err := fast.BarrierArriveRecord(id, 1, procs, 1, [RecordSize]byte{}, nil); err == nil {
		t.Error("a record arrival as another member was accepted")
	}
}

// newBarrierPair returns the NICs of a job of two processes, a barrier
// controller the first claimed, and the group of both.
func newBarrierPair(t testing.TB) (fast, slow *NIC, id int, procs []int) {
	seg := newSegment(t, testConfig(2))
	fast, slow = openNIC(t, seg, 0), openNIC(t, seg, 1)
	id, err := fast.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	return fast, slow, id, []int{0, 1}
}

// TestBarrierRecordRings checks that an arrival with a record rings a
// sleeping member though it releases nothing: that member may wait for
// the arrival alone (a broadcast's root), not for the release.
func TestBarrierRecordRings(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	n0, n1 := openNIC(t, seg, 0), openNIC(t, seg, 1)
	id, err := n0.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	procs := []int{0, 1, 2}
	if _, err := n1.BarrierArriveRecord(id, 1, procs, 1, [RecordSize]byte{}, nil); err != nil {
		t.Fatal(err)
	}
	seen := n1.ArmDoorbell() // n1 sleeps until member 0 arrives
	before := n0.Stats()
	if _, err := n0.BarrierArriveRecord(id, 0, procs, 1, [RecordSize]byte{}, &[DatumSize]byte{7}); err != nil {
		t.Fatal(err)
	}
	after := n0.Stats()
	if d := after.Wakeups - before.Wakeups; d != 1 {
		t.Errorf("the arrival counted %d wake-ups, want 1 (one sleeping member)", d)
	}
	if d := after.BarrierReleases - before.BarrierReleases; d != 0 {
		t.Errorf("BarrierReleases +%d with member 2 missing, want +0", d)
	}
	start := time.Now()
	n1.WaitDoorbell(seen, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the arrival did not ring the sleeping member (slept %v)", d)
	}
	if !n1.BarrierArrived(id, 0, 1) || n1.BarrierDatum(id, 0, 1) != [DatumSize]byte{7} {
		t.Errorf("member 0's arrival: %v, word %v", n1.BarrierArrived(id, 0, 1), n1.BarrierDatum(id, 0, 1))
	}
}

// TestBarrierArrivedRing checks BarrierArrived, which reads the ring's
// entries, against the generations the members arrived at: across the
// ring's wrap, for arrivals by record and by payload, and on the
// controller freed and claimed again, where no generation counts as
// arrived until a member arrives at it anew.
func TestBarrierArrivedRing(t *testing.T) {
	fast, slow, id, procs := newBarrierPair(t)
	check := func(when string, fastAt, slowAt uint64) {
		t.Helper()
		for g := uint64(1); g <= fastAt+2*RecordRingDepth; g++ {
			if got := slow.BarrierArrived(id, 0, g); got != (g <= fastAt) {
				t.Fatalf("%s: member 0 (at %d) arrived at %d: %v", when, fastAt, g, got)
			}
			if got := fast.BarrierArrived(id, 1, g); got != (g <= slowAt) {
				t.Fatalf("%s: member 1 (at %d) arrived at %d: %v", when, slowAt, g, got)
			}
		}
	}
	check("before any arrival", 0, 0)
	for g := uint64(1); g <= RecordRingDepth+RecordRingDepth/2; g++ {
		if _, err := fast.BarrierArriveRecord(id, 0, procs, g, [RecordSize]byte{}, nil); err != nil {
			t.Fatal(err)
		}
		if g%3 == 0 { // member 1 arrives at a third of the pace, by payload
			if _, err := slow.BarrierArriveParts(id, 1, procs, g, nil, []byte("x"), nil); err != nil {
				t.Fatal(err)
			}
		}
		check(fmt.Sprintf("generation %d", g), g, g/3)
	}
	if err := fast.FreeBarrier(id); err != nil {
		t.Fatal(err)
	}
	again, err := slow.AllocBarrier()
	if err != nil || again != id {
		t.Fatalf("claimed again: %d, %v; want %d", again, err, id)
	}
	check("claimed again", 0, 0)
	if _, err := fast.BarrierArriveRecord(id, 0, procs, 1, [RecordSize]byte{}, nil); err != nil {
		t.Fatal(err)
	}
	check("claimed again, member 0 at 1", 1, 0)
}

// TestBarrierKeyWindow checks every member's key window against the hash
// computed from the keys it passed, through both kinds of arrival and
// across the ring's wrap, then on the controller freed and claimed again
// (its rings still holding the last use's keys): two members that pass the
// same keys have the same window, and one key of difference shows for
// KeyWindow generations, then no more.
func TestBarrierKeyWindow(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	nics := []*NIC{openNIC(t, seg, 0), openNIC(t, seg, 1)}
	procs := []int{0, 1}
	const odd = 40 // the generation at which member 1 passes another key
	first := -1
	for use := range 2 {
		id, err := nics[0].AllocBarrier()
		if err != nil {
			t.Fatal(err)
		}
		if first < 0 {
			first = id
		} else if id != first {
			t.Fatalf("claimed controller %d after freeing %d: the test needs the rings of the last use", id, first)
		}
		var passed [2][]uint64 // by member, the keys of generations 1, 2, ...
		for gen := uint64(1); gen <= 3*RecordRingDepth; gen++ {
			for m, n := range nics {
				key := gen*0x1234567 + uint64(use) // masked by the NIC
				if m == 1 && gen == odd {
					key++
				}
				passed[m] = append(passed[m], key&(1<<KeyBits-1))
				if gen%3 == 0 {
					_, err = n.BarrierArriveKey(id, m, procs, key, nil)
				} else {
					_, err = n.BarrierArriveRecord(id, m, procs, key, [RecordSize]byte{}, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			for m := range nics {
				var want uint64
				for j := max(1, int(gen)-KeyWindow+1); j <= int(gen); j++ {
					want = want*keyWindowBase + passed[m][j-1]
				}
				if got := nics[0].BarrierKeyWindow(id, m, gen); got != want {
					t.Fatalf("use %d, generation %d, member %d: window %#x, want %#x", use, gen, m, got, want)
				}
			}
			w0, w1 := nics[1].BarrierKeyWindow(id, 0, gen), nics[1].BarrierKeyWindow(id, 1, gen)
			if differs := gen >= odd && gen < odd+KeyWindow; (w0 != w1) != differs {
				t.Errorf("use %d, generation %d: windows differ %v, want %v", use, gen, w0 != w1, differs)
			}
		}
		if err := nics[1].FreeBarrier(id); err != nil {
			t.Fatal(err)
		}
	}
}
