package nicemu

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestPushPullSegment moves data into and out of another process's segment
// memory, at aligned and unaligned offsets.
func TestPushPullSegment(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 2<<20)
	for _, size := range transferSizes {
		for _, off := range []uint64{0, 8, 3} {
			t.Run(fmt.Sprintf("%d@%d", size, off), func(t *testing.T) {
				clear(mem)
				mid := checkSegmentPush(t, n0, sid, mem, off, size)
				checkSegmentPull(t, n0, sid, mem, off, size, mid)
			})
		}
	}
}

// checkSegmentPush pushes size bytes to off of mem, segment memory of
// PID 1, and checks the data lands there only and n0 counts one segment
// copy; it returns n0's statistics after.
func checkSegmentPush(t *testing.T, n0 *NIC, sid SID, mem []byte, off uint64, size int) Stats {
	t.Helper()
	before, mid := pushChecked(t, n0, sid, mem, off, pattern(size, uint64(size)^off))
	if d := mid.SegmentOps - before.SegmentOps; d != 1 {
		t.Errorf("Stats.SegmentOps +%d, want +1", d)
	}
	if mid.CMAOps != 0 || mid.BounceOps != 0 {
		t.Errorf("segment PUSH counted as CMA (%d) or bounce (%d)", mid.CMAOps, mid.BounceOps)
	}
	return mid
}

// checkSegmentPull refills size bytes at off of mem, pulls them back and
// checks the data and that n0 counts one segment copy, and no PUSH,
// since mid.
func checkSegmentPull(t *testing.T, n0 *NIC, sid SID, mem []byte, off uint64, size int, mid Stats) {
	t.Helper()
	after := pullRefilled(t, n0, sid, mem, off, size, 1234, mid)
	if d := after.SegmentOps - mid.SegmentOps; d != 1 {
		t.Errorf("Stats.SegmentOps +%d, want +1", d)
	}
	if after.Push != mid.Push || after.PushBytes != mid.PushBytes {
		t.Errorf("PULL counted as PUSH")
	}
}

// TestPushSelf covers requests a process aims at itself, in segment and in
// process memory (the latter is a plain copy, neither CMA nor bounce).
func TestPushSelf(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n := openNIC(t, seg, 0)
	ssid, mem := mustRegisterSegment(t, n, 4096)
	region := make([]byte, 4096)
	psid := mustRegisterMemory(t, n, region)
	src := pattern(1000, 5)
	if err := n.Push(0, ssid, 17, src, nil); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "own segment memory", mem[17:1017], src)
	if err := n.Push(0, psid, 17, src, nil); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "own process memory", region[17:1017], src)
	got := make([]byte, 1000)
	if err := n.Pull(0, psid, 17, got, nil); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "pull of own process memory", got, src)
	st := n.Stats()
	if st.CMAOps != 0 || st.BounceOps != 0 || st.SegmentOps != 1 {
		t.Errorf("self transfers: CMAOps %d BounceOps %d SegmentOps %d", st.CMAOps, st.BounceOps, st.SegmentOps)
	}
}

// TestZeroLength: an empty PUSH or PULL is a valid request (one packet) that
// moves nothing.
func TestZeroLength(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 64)
	var ack, done uint64
	if err := n0.Push(1, sid, 64, nil, &ack); err != nil || ack != 1 {
		t.Fatalf("empty Push at the end of the region: %v, ack %d", err, ack)
	}
	if err := n0.Pull(1, sid, 0, []byte{}, &done); err != nil || done != 1 {
		t.Fatalf("empty Pull: %v, done %d", err, done)
	}
	if firstDiff(mem, make([]byte, 64)) >= 0 {
		t.Errorf("empty Push wrote")
	}
	st := n0.Stats()
	if st.Push != 1 || st.Pull != 1 || st.PushBytes != 0 || st.PullBytes != 0 || st.Packets != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestAtomicWordPush: an 8-byte aligned PUSH into segment memory is a single
// store, so a reader polling the word never sees a torn value.
func TestAtomicWordPush(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 64)
	w := wordAt(mem, 16)
	const a, b = 0x0123456789abcdef, 0xfedcba9876543210
	if err := n0.Push(1, sid, 16, u64(a), nil); err != nil {
		t.Fatal(err)
	}
	if got := atomic.LoadUint64(w); got != a {
		t.Fatalf("word = %#x, want %#x", got, a)
	}
	var got [8]byte
	if err := n0.Pull(1, sid, 16, got[:], nil); err != nil || string(got[:]) != string(u64(a)) {
		t.Fatalf("Pull of the word: %x, %v", got, err)
	}

	// A poller sees only whole values.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var torn atomic.Uint64
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if v := atomic.LoadUint64(w); v != a && v != b {
				torn.Store(v)
			}
		}
	})
	for i := range 20000 {
		v := uint64(a)
		if i%2 == 1 {
			v = b
		}
		if err := n0.Push(1, sid, 16, u64(v), nil); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if v := torn.Load(); v != 0 {
		t.Errorf("poller saw torn value %#x", v)
	}
}

// TestTLBCounters checks the RVATLB and PATLB hit and miss counts of a
// fresh NIC.
func TestTLBCounters(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, n1, 64<<10)
	sid2, _ := mustRegisterSegment(t, n1, 64)
	at := uint64(seg.sidEntry(1, sid).base) // segment offset of the region

	checkTLB(t, n0, "fresh NIC", tlbCounts{})
	src := make([]byte, 8)
	want := checkPushTLB(t, n0, sid, sid2, src)
	// An 8 KiB PULL from page 4 of the region: the target pages are new,
	// the reply buffer's pages are too.
	want = checkPullTLB(t, n0, sid, at, want)

	// Refused requests miss the RVATLB without touching the PATLB.
	if err := n0.Push(1, 999, 0, src, nil); err == nil {
		t.Fatal("PUSH to an unregistered SID succeeded")
	}
	want.rm++
	checkTLB(t, n0, "refused PUSH", want)
}

// tlbCounts are a NIC's RVATLB and PATLB hits and misses.
type tlbCounts struct{ rh, rm, ph, pm uint64 }

// checkTLB checks n's TLB counts are want after what.
func checkTLB(t *testing.T, n *NIC, what string, want tlbCounts) {
	t.Helper()
	s := n.Stats()
	if got := (tlbCounts{s.RVATLBHits, s.RVATLBMisses, s.PATLBHits, s.PATLBMisses}); got != want {
		t.Errorf("%s: RVATLB hits/misses %d/%d, PATLB %d/%d; want %d/%d, %d/%d",
			what, got.rh, got.rm, got.ph, got.pm, want.rh, want.rm, want.ph, want.pm)
	}
}

// checkPushTLB pushes the 8 bytes of src to sid twice, then to sid2,
// checking the TLB counts of a fresh n0 after each; it returns them.
func checkPushTLB(t *testing.T, n0 *NIC, sid, sid2 SID, src []byte) tlbCounts {
	t.Helper()
	sp := pagesSpanned(addr(src), 8)
	if err := n0.Push(1, sid, 0, src, nil); err != nil {
		t.Fatal(err)
	}
	want := tlbCounts{0, 1, 0, sp + 1}
	checkTLB(t, n0, "first 8-byte PUSH", want)
	if err := n0.Push(1, sid, 0, src, nil); err != nil {
		t.Fatal(err)
	}
	want.rh++
	want.ph += sp + 1
	checkTLB(t, n0, "same PUSH again", want)
	if err := n0.Push(1, sid2, 0, src, nil); err != nil {
		t.Fatal(err)
	}
	want.rm++
	want.ph += sp
	want.pm++
	checkTLB(t, n0, "PUSH to another SID", want)
	return want
}

// checkPullTLB pulls 8 KiB from page 4 of sid's region, at segment offset
// at, twice, checking the TLB counts after each from want; it returns
// them.
func checkPullTLB(t *testing.T, n0 *NIC, sid SID, at uint64, want tlbCounts) tlbCounts {
	t.Helper()
	buf := make([]byte, 8192)
	bp := pagesSpanned(addr(buf), len(buf))
	tp := pagesSpanned(at+4*PageSize, len(buf))
	if err := n0.Pull(1, sid, 4*PageSize, buf, nil); err != nil {
		t.Fatal(err)
	}
	want.rh++
	want.pm += bp + tp
	checkTLB(t, n0, "first 8 KiB PULL", want)
	if err := n0.Pull(1, sid, 4*PageSize, buf, nil); err != nil {
		t.Fatal(err)
	}
	want.rh++
	want.ph += bp + tp
	checkTLB(t, n0, "same PULL again", want)
	return want
}

// TestCompareAndSwapFetchAndAdd checks remote compare-and-swap and
// fetch-and-add, one at a time and from two processes at once.
func TestCompareAndSwapFetchAndAdd(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 64)
	w := wordAt(mem, 8)
	atomic.StoreUint64(w, 5)
	checkSequentialAtomics(t, n0, sid, mem, w)
	// Concurrent FAA from two processes (two NICs, two goroutines) and CAS
	// increments are all counted once.
	checkConcurrentAtomics(t, n0, n1, sid, mem, w)
}

// checkSequentialAtomics runs a compare-and-swap that swaps, one that
// does not, and two fetch-and-adds on w, word 8 of mem, which holds 5,
// and checks the values, the neighbouring words and n0's counts.
func checkSequentialAtomics(t *testing.T, n0 *NIC, sid SID, mem []byte, w *uint64) {
	t.Helper()
	old, err := n0.CompareAndSwap(1, sid, 8, 5, 42)
	if err != nil || old != 5 || atomic.LoadUint64(w) != 42 {
		t.Fatalf("successful CAS: old %d, %v, word %d", old, err, atomic.LoadUint64(w))
	}
	old, err = n0.CompareAndSwap(1, sid, 8, 5, 7)
	if err != nil || old != 42 || atomic.LoadUint64(w) != 42 {
		t.Fatalf("failing CAS: old %d (want current 42), %v, word %d", old, err, atomic.LoadUint64(w))
	}
	old, err = n0.FetchAndAdd(1, sid, 8, 8)
	if err != nil || old != 42 || atomic.LoadUint64(w) != 50 {
		t.Fatalf("FAA: old %d, %v, word %d", old, err, atomic.LoadUint64(w))
	}
	old, err = n0.FetchAndAdd(1, sid, 8, ^uint64(0)) // -1
	if err != nil || old != 50 || atomic.LoadUint64(w) != 49 {
		t.Fatalf("FAA -1: old %d, %v, word %d", old, err, atomic.LoadUint64(w))
	}
	if mem[0] != 0 || mem[16] != 0 {
		t.Errorf("atomics touched neighbouring words")
	}
	st := n0.Stats()
	if st.CAS != 2 || st.FAA != 2 || st.Packets != 8 || st.Refused != 0 {
		t.Errorf("stats: CAS %d FAA %d Packets %d Refused %d", st.CAS, st.FAA, st.Packets, st.Refused)
	}
}

// checkConcurrentAtomics has n0 and n1 each increment w by fetch-and-add
// and word 16 of mem by compare-and-swap 2000 times at once, and checks
// no increment is lost.
func checkConcurrentAtomics(t *testing.T, n0, n1 *NIC, sid SID, mem []byte, w *uint64) {
	t.Helper()
	n2 := n1 // PID 1 incrementing its own word through its NIC
	atomic.StoreUint64(w, 0)
	const per = 2000
	var wg sync.WaitGroup
	for _, n := range []*NIC{n0, n2} {
		wg.Go(func() {
			for range per {
				if _, err := n.FetchAndAdd(1, sid, 8, 1); err != nil {
					t.Error(err)
					return
				}
				for {
					cur := atomic.LoadUint64(wordAt(mem, 16))
					if prev, err := n.CompareAndSwap(1, sid, 16, cur, cur+1); err != nil {
						t.Error(err)
						return
					} else if prev == cur {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	if got := atomic.LoadUint64(w); got != 2*per {
		t.Errorf("FAA total %d, want %d", got, 2*per)
	}
	if got := atomic.LoadUint64(wordAt(mem, 16)); got != 2*per {
		t.Errorf("CAS total %d, want %d", got, 2*per)
	}
}

func TestAOTF(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 3*PageSize)
	const off = PageSize + 0x234 // header offset; low 12 bits are replaced
	if err := n0.SetAOTFHeader(5, 1, sid, off); err != nil {
		t.Fatal(err)
	}
	checkAOTFStores(t, n0, mem, off)
	// Refusals at store time.
	checkAOTFStoreRefusals(t, n0)
	// Refusals at header registration.
	checkAOTFHeaderRefusals(t, n0, n1, sid)
	// The NIC still works after the refusals.
	if err := n0.AOTF(5, 8, 77); err != nil || atomic.LoadUint64(wordAt(mem, PageSize+8)) != 77 {
		t.Errorf("AOTF after refusals: %v", err)
	}
}

// checkAOTFStores stores through header page 5, whose header points at
// off in mem, to three words of the page, and checks they land there,
// nowhere else, and are counted.
func checkAOTFStores(t *testing.T, n0 *NIC, mem []byte, off uint64) {
	t.Helper()
	for _, low := range []uint64{0, 0x18, PageSize - 8} {
		v := 0xa0f0_0000 + low
		if err := n0.AOTF(5, low, v); err != nil {
			t.Fatalf("AOTF(5, %#x): %v", low, err)
		}
		at := int((off &^ 0xFFF) | low)
		if got := atomic.LoadUint64(wordAt(mem, at)); got != v {
			t.Errorf("AOTF(5, %#x): word at %#x = %#x, want %#x", low, at, got, v)
		}
	}
	// Nothing landed outside the header's page.
	if firstDiff(mem[:PageSize], make([]byte, PageSize)) >= 0 || firstDiff(mem[2*PageSize:], make([]byte, PageSize)) >= 0 {
		t.Errorf("AOTF wrote outside the header's page")
	}
	st := n0.Stats()
	if st.AOTF != 3 || st.PushBytes != 24 || st.Packets != 3 || st.Push != 0 {
		t.Errorf("stats: AOTF %d PushBytes %d Packets %d Push %d", st.AOTF, st.PushBytes, st.Packets, st.Push)
	}
}

// checkAOTFStoreRefusals: stores through a bad page or to a bad offset
// are refused.
func checkAOTFStoreRefusals(t *testing.T, n0 *NIC) {
	t.Helper()
	for _, c := range []struct {
		name      string
		page      int
		low12     uint64
		violation Violation
	}{
		{"unregistered page", 6, 0, ViolationBadRequest},
		{"misaligned", 5, 0x13, ViolationBadRequest},
		{"past the page", 5, PageSize, ViolationBadRequest},
		{"negative page", -1, 0, ViolationBadRequest},
		{"page out of range", NumAOTFPages, 0, ViolationBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectRefused(t, n0, c.violation, OpAOTF, -1, func() error { return n0.AOTF(c.page, c.low12, 1) })
		})
	}
}

// checkAOTFHeaderRefusals: headers for a bad page, SID, offset or job are
// refused, and a header is checked for the page's first word only.
func checkAOTFHeaderRefusals(t *testing.T, n0, n1 *NIC, sid SID) {
	t.Helper()
	t.Run("header page out of range", func(t *testing.T) {
		expectRefused(t, n0, ViolationBadRequest, OpAOTF, 1, func() error { return n0.SetAOTFHeader(NumAOTFPages, 1, sid, 0) })
	})
	t.Run("header to unregistered SID", func(t *testing.T) {
		expectRefused(t, n0, ViolationBadSID, OpAOTF, 1, func() error { return n0.SetAOTFHeader(7, 1, sid+1, 0) })
	})
	t.Run("header past the region", func(t *testing.T) {
		expectRefused(t, n0, ViolationOutOfRange, OpAOTF, 1, func() error { return n0.SetAOTFHeader(7, 1, sid, 3*PageSize) })
	})
	t.Run("header to another job", func(t *testing.T) {
		seg := newSegment(t, JobConfig{NProcs: 2, PGID: testPGID, HeapSize: PageSize, BounceSize: PageSize, ForeignPGID: map[int]uint64{1: 0xbad}})
		a := openNIC(t, seg, 0)
		b := openNIC(t, seg, 1)
		fsid, _ := mustRegisterSegment(t, b, 64)
		expectRefused(t, a, ViolationForeignJob, OpAOTF, 1, func() error { return a.SetAOTFHeader(0, 1, fsid, 0) })
		if err := a.AOTF(0, 0, 1); err == nil {
			t.Errorf("AOTF through a refused header succeeded")
		}
	})
	t.Run("store outside a shrunk region", func(t *testing.T) {
		// The header was checked for the page's first word only; a store
		// to a later word of a region ending inside the page is refused.
		s2, small := mustRegisterSegment(t, n1, 64)
		if err := n0.SetAOTFHeader(8, 1, s2, 0); err != nil {
			t.Fatal(err)
		}
		expectRefused(t, n0, ViolationOutOfRange, OpAOTF, 1, func() error { return n0.AOTF(8, 64, 1) })
		if err := n0.AOTF(8, 56, 9); err != nil || atomic.LoadUint64(wordAt(small, 56)) != 9 {
			t.Errorf("AOTF to the region's last word: %v", err)
		}
	})
}

func TestBOTF(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 8192)
	for _, size := range []int{0, 1, 8, 100, MaxBOTF} {
		clear(mem)
		p := pattern(size, uint64(size))
		if err := n0.BOTF(1, sid, 40, p); err != nil {
			t.Fatalf("BOTF of %d bytes: %v", size, err)
		}
		checkBytes(t, fmt.Sprintf("BOTF of %d bytes", size), mem[40:40+size], p)
		if mem[40+size] != 0 {
			t.Errorf("BOTF of %d bytes wrote past its end", size)
		}
	}
	st := n0.Stats()
	if st.BOTF != 5 || st.Push != 0 || st.PGIDOverwrites != 0 || st.PushBytes != uint64(1+8+100+MaxBOTF) {
		t.Errorf("stats: BOTF %d Push %d PGIDOverwrites %d PushBytes %d", st.BOTF, st.Push, st.PGIDOverwrites, st.PushBytes)
	}
	expectRefused(t, n0, ViolationBadRequest, OpBOTF, 1, func() error { return n0.BOTF(1, sid, 0, make([]byte, MaxBOTF+1)) })
	// The refusal returned the Window: the next requests go through.
	for i := range 2 * NumWindows {
		if err := n0.BOTF(1, sid, 0, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A length field forged in the Window after BOTF wrote it is caught.
	r := n0.windows[0]
	h := (*botfHeader)(unsafe.Pointer(&r.image[0]))
	h.pgid, h.dst, h.sid, h.off, h.length = n0.PGID(), 1, uint64(sid), 0, uint64(MaxBOTF+1)
	expectRefused(t, n0, ViolationBadRequest, OpBOTF, 1, func() error { return n0.execBOTF(r) })
}

// TestWindowsContflag: requests rotate over the Windows, and each Window's
// contflag is written for every request kicked on it, refused or not; a new
// NIC for the slot picks up the contflags where the old one left them.
func TestWindowsContflag(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, n1, 64)
	for i := range 3*NumWindows + 1 {
		w := n0.next
		var err error
		if i%3 == 2 {
			err = n0.Push(1, sid+7, 0, u64(1), nil) // refused
		} else {
			err = n0.Push(1, sid, 0, u64(1), nil)
		}
		if (err != nil) != (i%3 == 2) {
			t.Fatalf("request %d: %v", i, err)
		}
		if n0.next != (w+1)%NumWindows {
			t.Fatalf("request %d on Window %d, next %d", i, w, n0.next)
		}
		if c := atomic.LoadUint64(&n0.cont[w*8]); c != n0.issued[w] {
			t.Fatalf("request %d: Window %d contflag %d, issued %d", i, w, c, n0.issued[w])
		}
	}
	var total uint64
	for w := range NumWindows {
		total += n0.issued[w]
	}
	if total != 3*NumWindows+1 {
		t.Errorf("%d requests issued, want %d", total, 3*NumWindows+1)
	}
	again := openNIC(t, seg, 0)
	if again.issued != n0.issued {
		t.Errorf("re-opened NIC issued %v, want %v", again.issued, n0.issued)
	}
	if err := again.Push(1, sid, 0, u64(2), nil); err != nil {
		t.Fatal(err)
	}
}
