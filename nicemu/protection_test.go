package nicemu

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

const foreignPGID = 0xf0e1_9999

// protectionJob is a 3-process segment whose slot 2 belongs to another job.
type protectionJob struct {
	seg        *Segment
	n0, n1, n2 *NIC
	sid        SID    // 4 KiB of segment memory at PID 1
	mem        []byte // its local view
	psid       SID    // 4 KiB of process memory at PID 1
	region     []byte
	fsid       SID // 4 KiB of segment memory at the foreign PID 2
	fmem       []byte
	eight      []byte // 8 zero bytes shared by TestProtection's subtests
}

func newProtectionJob(t *testing.T) *protectionJob {
	cfg := testConfig(3)
	cfg.ForeignPGID = map[int]uint64{2: foreignPGID}
	j := &protectionJob{seg: newSegment(t, cfg)}
	j.n0 = openNIC(t, j.seg, 0)
	j.n1 = openNIC(t, j.seg, 1)
	j.n2 = openNIC(t, j.seg, 2)
	j.sid, j.mem = mustRegisterSegment(t, j.n1, 4096)
	j.region = make([]byte, 4096)
	j.psid = mustRegisterMemory(t, j.n1, j.region)
	j.fsid, j.fmem = mustRegisterSegment(t, j.n2, 4096)
	fillPattern(j.fmem, 1)
	if j.n2.PGID() != foreignPGID || j.n0.PGID() != testPGID {
		t.Fatalf("PGIDs %#x %#x", j.n0.PGID(), j.n2.PGID())
	}
	return j
}

// stillWorks checks that the NIC performs requests after a refusal.
func (j *protectionJob) stillWorks(t *testing.T) {
	t.Helper()
	v := uint64(0x600d) + j.n0.Stats().Refused
	if err := j.n0.Push(1, j.sid, 0, u64(v), nil); err != nil {
		t.Fatalf("PUSH after a refusal: %v", err)
	}
	if got := atomic.LoadUint64(wordAt(j.mem, 0)); got != v {
		t.Fatalf("PUSH after a refusal wrote %#x, want %#x", got, v)
	}
}

// TestProtection runs every kind of refused request against a job with a
// foreign slot, checking after each kind that the NIC still works.
func TestProtection(t *testing.T) {
	j := newProtectionJob(t)
	j.eight = make([]byte, 8)

	t.Run("bad process", j.testBadProcess)
	t.Run("foreign job", j.testForeignJob)
	t.Run("unregistered SID", j.testUnregisteredSID)
	t.Run("out of range", j.testOutOfRange)
	t.Run("atomics", j.testAtomics)
	t.Run("stale translation", j.testStaleTranslation)
	t.Run("BOTF PGID forgery", j.testBOTFForgery)
	t.Run("error events", j.testErrorEvents)

	// Every refusal of every NIC is in the segment's count.
	total := j.n0.Stats().Refused + j.n1.Stats().Refused + j.n2.Stats().Refused
	if got := j.seg.Refused(); got < total {
		t.Errorf("Segment.Refused() = %d, NICs refused %d", got, total)
	}
}

// testBadProcess checks that every operation to a PID outside the job is
// refused.
func (j *protectionJob) testBadProcess(t *testing.T) {
	n0, eight := j.n0, j.eight
	for _, dst := range []int{-1, 3, 1 << 20} {
		ae := expectRefused(t, n0, ViolationBadProcess, OpPush, dst, func() error { return n0.Push(dst, j.sid, 0, eight, nil) })
		if ae.SID != j.sid || ae.Length != 8 {
			t.Errorf("AccessError %+v", ae)
		}
		expectRefused(t, n0, ViolationBadProcess, OpPull, dst, func() error { return n0.Pull(dst, j.sid, 0, eight, nil) })
		expectRefused(t, n0, ViolationBadProcess, OpCAS, dst, func() error { _, err := n0.CompareAndSwap(dst, j.sid, 0, 0, 1); return err })
		expectRefused(t, n0, ViolationBadProcess, OpBOTF, dst, func() error { return n0.BOTF(dst, j.sid, 0, eight) })
		expectRefused(t, n0, ViolationBadProcess, OpAOTF, dst, func() error { return n0.SetAOTFHeader(0, dst, j.sid, 0) })
	}
	j.stillWorks(t)
}

// testForeignJob checks that the foreign job's slot and ours cannot reach
// each other, even with a forged PGID, and that refusals write nothing.
func (j *protectionJob) testForeignJob(t *testing.T) {
	n0, eight := j.n0, j.eight
	want := pattern(4096, 1)
	expectRefused(t, n0, ViolationForeignJob, OpPush, 2, func() error { return n0.Push(2, j.fsid, 0, pattern(100, 2), nil) })
	expectRefused(t, n0, ViolationForeignJob, OpPull, 2, func() error { return n0.Pull(2, j.fsid, 0, eight, nil) })
	expectRefused(t, n0, ViolationForeignJob, OpCAS, 2, func() error { _, err := n0.CompareAndSwap(2, j.fsid, 0, 0, 1); return err })
	expectRefused(t, n0, ViolationForeignJob, OpFAA, 2, func() error { _, err := n0.FetchAndAdd(2, j.fsid, 0, 1); return err })
	expectRefused(t, n0, ViolationForeignJob, OpBOTF, 2, func() error { return n0.BOTF(2, j.fsid, 0, eight) })
	// Forging the foreign job's key in the packet image does not help.
	expectRefused(t, n0, ViolationForeignJob, OpBOTF, 2, func() error { return n0.BOTFImage(foreignPGID, 2, j.fsid, 0, eight) })
	checkBytes(t, "foreign job's memory", j.fmem, want)
	// Nor can the foreign process reach ours.
	expectRefused(t, j.n2, ViolationForeignJob, OpPush, 1, func() error { return j.n2.Push(1, j.sid, 0, eight, nil) })
	// Refused reads leave the destination buffer alone.
	buf := []byte("untouched")
	expectRefused(t, n0, ViolationForeignJob, OpPull, 2, func() error { return n0.Pull(2, j.fsid, 0, buf, nil) })
	if string(buf) != "untouched" {
		t.Errorf("refused PULL wrote %q", buf)
	}
	j.stillWorks(t)
}

// testUnregisteredSID checks that SIDs not registered at the target are
// refused.
func (j *protectionJob) testUnregisteredSID(t *testing.T) {
	n0, eight := j.n0, j.eight
	for _, sid := range []SID{0, j.sid + 100, NumSIDs - 1, NumSIDs, 1 << 31} {
		expectRefused(t, n0, ViolationBadSID, OpPush, 1, func() error { return n0.Push(1, sid, 0, eight, nil) })
		expectRefused(t, n0, ViolationBadSID, OpPull, 1, func() error { return n0.Pull(1, sid, 0, eight, nil) })
		expectRefused(t, n0, ViolationBadSID, OpFAA, 1, func() error { _, err := n0.FetchAndAdd(1, sid, 0, 1); return err })
	}
	// A SID registered at PID 1 means nothing at PID 0.
	expectRefused(t, n0, ViolationBadSID, OpPush, 0, func() error { return n0.Push(0, j.sid, 0, eight, nil) })
	j.stillWorks(t)
}

// testOutOfRange checks that accesses past a region's end, including ones
// whose offset wraps, are refused without writing, while the last bytes are
// reachable.
func (j *protectionJob) testOutOfRange(t *testing.T) {
	n0, eight := j.n0, j.eight
	before := pattern(4096, 3)
	copy(j.mem, before)
	for _, c := range []struct {
		off uint64
		n   int
	}{{4089, 8}, {4096, 1}, {4097, 0}, {0, 4097}, {1 << 63, 8}, {^uint64(0), 1}, {^uint64(0) - 6, 8}} {
		what := fmt.Sprintf("%d bytes at %d", c.n, c.off)
		expectRefused(t, n0, ViolationOutOfRange, OpPush, 1, func() error { return n0.Push(1, j.sid, c.off, make([]byte, c.n), nil) })
		expectRefused(t, n0, ViolationOutOfRange, OpPull, 1, func() error { return n0.Pull(1, j.sid, c.off, make([]byte, c.n), nil) })
		expectRefused(t, n0, ViolationOutOfRange, OpPush, 1, func() error { return n0.Push(1, j.psid, c.off, make([]byte, c.n), nil) })
		if c.n <= MaxBOTF {
			expectRefused(t, n0, ViolationOutOfRange, OpBOTF, 1, func() error { return n0.BOTF(1, j.sid, c.off, make([]byte, c.n)) })
		}
		checkBytes(t, what, j.mem, before)
	}
	expectRefused(t, n0, ViolationOutOfRange, OpCAS, 1, func() error { _, err := n0.CompareAndSwap(1, j.sid, 4096, 0, 1); return err })
	// The last bytes are in range.
	if err := n0.Push(1, j.sid, 4088, eight, nil); err != nil {
		t.Errorf("PUSH to the last word: %v", err)
	}
	if err := n0.Push(1, j.sid, 4096, nil, nil); err != nil {
		t.Errorf("empty PUSH at the end: %v", err)
	}
	j.stillWorks(t)
}

// testAtomics checks that atomics on process memory or at misaligned
// offsets are refused without writing.
func (j *protectionJob) testAtomics(t *testing.T) {
	n0 := j.n0
	expectRefused(t, n0, ViolationNotSegment, OpCAS, 1, func() error { _, err := n0.CompareAndSwap(1, j.psid, 0, 0, 1); return err })
	expectRefused(t, n0, ViolationNotSegment, OpFAA, 1, func() error { _, err := n0.FetchAndAdd(1, j.psid, 8, 1); return err })
	for _, off := range []uint64{1, 4, 7, 4084} {
		expectRefused(t, n0, ViolationMisaligned, OpCAS, 1, func() error { _, err := n0.CompareAndSwap(1, j.sid, off, 0, 1); return err })
		expectRefused(t, n0, ViolationMisaligned, OpFAA, 1, func() error { _, err := n0.FetchAndAdd(1, j.sid, off, 1); return err })
	}
	if firstDiff(j.region, make([]byte, len(j.region))) >= 0 {
		t.Errorf("refused atomics wrote process memory")
	}
	j.stillWorks(t)
}

// testStaleTranslation checks that translations cached for deregistered
// SIDs, of segment and of process memory, are never used.
func (j *protectionJob) testStaleTranslation(t *testing.T) {
	j.staleSegmentSID(t)
	j.staleMemorySID(t)
	j.stillWorks(t)
}

// staleSegmentSID caches PID 1's translation of a segment region at PID 0,
// deregisters it, and checks that neither the old SID nor its reuse for a
// smaller region lets requests through the RVATLB.
func (j *protectionJob) staleSegmentSID(t *testing.T) {
	t.Helper()
	n0, eight := j.n0, j.eight
	// PID 0 caches PID 1's translation of a 4 KiB region, which is then
	// deregistered: the RVATLB must not let requests through.
	sid, mem := mustRegisterSegment(t, j.n1, 4096)
	if err := n0.Push(1, sid, 1000, eight, nil); err != nil {
		t.Fatal(err)
	}
	off := j.seg.sidEntry(1, sid).base
	if err := j.n1.Deregister(sid); err != nil {
		t.Fatal(err)
	}
	hits := n0.Stats().RVATLBHits
	expectRefused(t, n0, ViolationBadSID, OpPush, 1, func() error { return n0.Push(1, sid, 1000, u64(1), nil) })
	expectRefused(t, n0, ViolationBadSID, OpPull, 1, func() error { return n0.Pull(1, sid, 0, eight, nil) })
	if n0.Stats().RVATLBHits != hits {
		t.Errorf("RVATLB hit on a deregistered SID")
	}
	if atomic.LoadUint64(wordAt(mem, 1000)) != 0 {
		t.Errorf("PUSH through a stale translation")
	}
	// The SID is reused for a smaller region at the same segment
	// offset: the old length must not be used.
	sid2, mem2 := mustRegisterSegment(t, j.n1, 64)
	if sid2 != sid || j.seg.sidEntry(1, sid2).base != off {
		t.Logf("SID %d at %d re-registered as SID %d at %d", sid, off, sid2, j.seg.sidEntry(1, sid2).base)
	}
	expectRefused(t, n0, ViolationOutOfRange, OpPush, 1, func() error { return n0.Push(1, sid2, 1000, u64(2), nil) })
	if err := n0.Push(1, sid2, 56, u64(3), nil); err != nil || atomic.LoadUint64(wordAt(mem2, 56)) != 3 {
		t.Errorf("PUSH to the new registration: %v", err)
	}
}

// staleMemorySID deregisters a process-memory SID and reuses it for another
// slice: data must land in the new one, and deregistering twice or SID 0
// must fail.
func (j *protectionJob) staleMemorySID(t *testing.T) {
	t.Helper()
	n0 := j.n0
	// Process memory: the SID is reused for another slice; data must
	// land in the new one.
	a := make([]byte, 64)
	b := make([]byte, 64)
	sa := mustRegisterMemory(t, j.n1, a)
	if err := n0.Push(1, sa, 0, []byte("first"), nil); err != nil {
		t.Fatal(err)
	}
	if err := j.n1.Deregister(sa); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, n0, ViolationBadSID, OpPush, 1, func() error { return n0.Push(1, sa, 0, []byte("stale"), nil) })
	sb := mustRegisterMemory(t, j.n1, b)
	if err := n0.Push(1, sb, 0, []byte("second"), nil); err != nil {
		t.Fatal(err)
	}
	if string(a[:5]) != "first" || string(b[:6]) != "second" {
		t.Errorf("after re-registration: old %q new %q", a[:6], b[:6])
	}
	if err := j.n1.Deregister(sb); err != nil {
		t.Fatal(err)
	}
	if err := j.n1.Deregister(sb); err == nil {
		t.Errorf("double Deregister succeeded")
	}
	if err := j.n1.Deregister(0); err == nil {
		t.Errorf("Deregister(0) succeeded")
	}
}

// testBOTFForgery checks that a BOTF image carrying a forged PGID is
// delivered within our own job with the PGID rewritten and counted, while an
// honest one is not counted.
func (j *protectionJob) testBOTFForgery(t *testing.T) {
	n0 := j.n0
	clear(j.mem)
	before := n0.Stats()
	for _, forged := range []uint64{foreignPGID, 0, ^uint64(0)} {
		if err := n0.BOTFImage(forged, 1, j.sid, 64, []byte("forged")); err != nil {
			t.Fatalf("BOTFImage with forged PGID %#x to own job: %v", forged, err)
		}
	}
	if string(j.mem[64:70]) != "forged" {
		t.Errorf("BOTF payload not delivered: %q", j.mem[64:70])
	}
	after := n0.Stats()
	if d := after.PGIDOverwrites - before.PGIDOverwrites; d != 3 {
		t.Errorf("Stats.PGIDOverwrites +%d, want +3", d)
	}
	if d := after.BOTF - before.BOTF; d != 3 {
		t.Errorf("Stats.BOTF +%d, want +3", d)
	}
	// The NIC rewrote the image's PGID field with the Window's.
	for w := range NumWindows {
		if h := (*botfHeader)(unsafe.Pointer(&n0.windows[w].image[0])); h.length != 0 && h.pgid != testPGID {
			t.Errorf("Window %d image still carries PGID %#x", w, h.pgid)
		}
	}
	// An honest BOTF is not counted as a forgery.
	if err := n0.BOTFImage(testPGID, 1, j.sid, 64, []byte("honest")); err != nil {
		t.Fatal(err)
	}
	if n0.Stats().PGIDOverwrites != after.PGIDOverwrites {
		t.Errorf("honest BOTF counted as a PGID overwrite")
	}
	checkBytes(t, "foreign job's memory", j.fmem, pattern(4096, 1))
	j.stillWorks(t)
}

// testErrorEvents checks that a fresh NIC keeps the last maxErrorEvents
// refusals, hands out a copy of them, and counts every refusal.
func (j *protectionJob) testErrorEvents(t *testing.T) {
	eight := j.eight
	n := openNIC(t, j.seg, 0)
	for i := range maxErrorEvents + 10 {
		err := n.Push(1, j.sid, uint64(10000+i), eight, nil)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("refusal %d: %v", i, err)
		}
	}
	ev := n.ErrorEvents()
	if len(ev) != maxErrorEvents {
		t.Fatalf("%d error events, want the last %d", len(ev), maxErrorEvents)
	}
	for i, e := range ev {
		want := ErrorEvent{Op: OpPush, Violation: ViolationOutOfRange, Target: 1, SID: j.sid, Offset: uint64(10000 + 10 + i), Length: 8}
		if e != want {
			t.Fatalf("event %d = %+v, want %+v", i, e, want)
		}
	}
	ev[0].Offset = 0
	if n.ErrorEvents()[0].Offset == 0 {
		t.Errorf("ErrorEvents returned the NIC's own slice")
	}
	if st := n.Stats(); st.Refused != maxErrorEvents+10 || st.RefusedBy[ViolationOutOfRange] != maxErrorEvents+10 {
		t.Errorf("Refused %d, by range %d", st.Refused, st.RefusedBy[ViolationOutOfRange])
	}
}

func TestViolationAndErrorText(t *testing.T) {
	for v := ViolationBadProcess; v < numViolations; v++ {
		if s := v.String(); strings.HasPrefix(s, "Violation(") {
			t.Errorf("Violation %d has no name", int(v))
		}
	}
	if Violation(0).String() != "Violation(0)" || Violation(99).String() != "Violation(99)" {
		t.Errorf("unknown violations: %q %q", Violation(0), Violation(99))
	}
	for o := OpPush; o <= OpFAA; o++ {
		if strings.HasPrefix(o.String(), "Op(") {
			t.Errorf("Op %d has no name", uint64(o))
		}
	}
	if Op(0).String() != "Op(0)" {
		t.Errorf("Op(0) = %q", Op(0))
	}
	e := &AccessError{Op: OpPull, Violation: ViolationBadSID, Target: 3, SID: 9, Offset: 16, Length: 8, Detail: "why"}
	if got := e.Error(); !strings.Contains(got, "PULL to PID 3 SID 9 offset 16 length 8") || !strings.HasSuffix(got, "(why)") {
		t.Errorf("Error() = %q", got)
	}
	if errors.Is(e, errors.New("other")) {
		t.Errorf("AccessError matches an unrelated error")
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", e), ErrRefused) {
		t.Errorf("wrapped AccessError does not match ErrRefused")
	}
}
