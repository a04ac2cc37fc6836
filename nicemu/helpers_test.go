package nicemu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestMain lets the test binary act as a separate rank process (see
// cma_test.go): when NICEMU_TEST_CHILD is set it runs childMain instead of
// the tests.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

const testPGID = 0x5eed_0001

// testConfig is a small job: segments are sparse memfds, but small heaps keep
// the mappings modest.
func testConfig(nprocs int) JobConfig {
	return JobConfig{NProcs: nprocs, PGID: testPGID, HeapSize: 8 << 20, BounceSize: 64 << 10}
}

// newSegment creates a segment that is closed when the test ends (after the
// NICs opened on it, since cleanups run last-in first-out).
func newSegment(tb testing.TB, cfg JobConfig) *Segment {
	tb.Helper()
	seg, err := CreateSegment(cfg)
	if err != nil {
		tb.Fatalf("CreateSegment(%+v): %v", cfg, err)
	}
	tb.Cleanup(func() {
		if err := seg.Close(); err != nil {
			tb.Errorf("Segment.Close: %v", err)
		}
	})
	return seg
}

// attachAgain maps seg a second time, through a duplicate of its file, as
// another process would; the mapping is closed when the test ends.
func attachAgain(tb testing.TB, seg *Segment) *Segment {
	tb.Helper()
	fd, err := unix.Dup(int(seg.File().Fd()))
	if err != nil {
		tb.Fatal(err)
	}
	seg2, err := AttachSegment(os.NewFile(uintptr(fd), "martini-segment"))
	if err != nil {
		tb.Fatalf("AttachSegment: %v", err)
	}
	tb.Cleanup(func() { seg2.Close() })
	return seg2
}

// openNIC opens process pid's NIC on seg, closed when the test ends.
func openNIC(tb testing.TB, seg *Segment, pid int) *NIC {
	tb.Helper()
	n, err := Open(seg, pid)
	if err != nil {
		tb.Fatalf("Open(seg, %d): %v", pid, err)
	}
	tb.Cleanup(func() { n.Close() })
	return n
}

func mustRegisterSegment(tb testing.TB, n *NIC, size int) (SID, []byte) {
	tb.Helper()
	sid, mem, err := n.RegisterSegment(size)
	if err != nil {
		tb.Fatalf("PID %d RegisterSegment(%d): %v", n.PID(), size, err)
	}
	return sid, mem
}

func mustRegisterMemory(tb testing.TB, n *NIC, buf []byte) SID {
	tb.Helper()
	sid, err := n.RegisterMemory(buf)
	if err != nil {
		tb.Fatalf("PID %d RegisterMemory(%d bytes): %v", n.PID(), len(buf), err)
	}
	return sid
}

// pattern returns n deterministic bytes that differ per seed and do not
// repeat with a page period, so misplaced pages or chunks are detected.
func pattern(n int, seed uint64) []byte {
	b := make([]byte, n)
	fillPattern(b, seed)
	return b
}

func fillPattern(b []byte, seed uint64) {
	x := seed*0x9e3779b97f4a7c15 + 1
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	if i < len(b) {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], x)
		copy(b[i:], w[:])
	}
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func checkBytes(tb testing.TB, what string, got, want []byte) {
	tb.Helper()
	if i := firstDiff(got, want); i >= 0 {
		tb.Fatalf("%s: %d bytes differ from byte %d on (got len %d, want len %d)", what, countDiff(got, want), i, len(got), len(want))
	}
}

func countDiff(a, b []byte) int {
	c := 0
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			c++
		}
	}
	return c + max(len(a), len(b)) - min(len(a), len(b))
}

// wordAt returns the 8-byte word at byte offset off of a segment-memory view.
func wordAt(mem []byte, off int) *uint64 {
	if off%8 != 0 || off+8 > len(mem) {
		panic("wordAt: bad offset")
	}
	return (*uint64)(unsafe.Pointer(&mem[off]))
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// packetsFor is ceil(n/MTU), at least 1.
func packetsFor(n int) uint64 { return uint64(max(1, (n+MTU-1)/MTU)) }

// pagesSpanned is the number of PageSize pages [addr, addr+n) touches.
func pagesSpanned(addr uint64, n int) uint64 {
	if n <= 0 {
		n = 1
	}
	return (addr+uint64(n)-1)/PageSize - addr/PageSize + 1
}

// expectRefused runs op, which must be refused with violation v, and checks
// that the refusal is counted in the initiator's Stats, in the segment and in
// the target's PGIDTBL entry, and recorded as the newest error event.
func expectRefused(tb testing.TB, n *NIC, v Violation, wantOp Op, wantTarget int, op func() error) *AccessError {
	tb.Helper()
	seg := n.seg
	before := n.Stats()
	segBefore := seg.Refused()
	var procBefore uint64
	if wantTarget >= 0 && wantTarget < seg.NProcs() {
		procBefore = atomic.LoadUint64(&seg.proc(wantTarget).refused)
	}
	err := op()
	ae := refusalOf(tb, err, v, wantOp, wantTarget)
	after := n.Stats()
	checkRefusalCounted(tb, n, v, wantTarget, before, after, segBefore, procBefore)
	checkLastErrorEvent(tb, n, ae)
	// A refused request is not a request performed.
	if after.Push != before.Push || after.Pull != before.Pull || after.BOTF != before.BOTF ||
		after.AOTF != before.AOTF || after.CAS != before.CAS || after.FAA != before.FAA ||
		after.PushBytes != before.PushBytes || after.PullBytes != before.PullBytes {
		tb.Errorf("refused request counted as performed: before %+v after %+v", before, after)
	}
	if ae.Error() == "" {
		tb.Errorf("empty error text")
	}
	return ae
}

// refusalOf returns err as an *AccessError, which must be a refusal of
// violation v of wantOp aimed at wantTarget.
func refusalOf(tb testing.TB, err error, v Violation, wantOp Op, wantTarget int) *AccessError {
	tb.Helper()
	if err == nil {
		tb.Fatalf("request succeeded, want refusal %v", v)
	}
	if !errors.Is(err, ErrRefused) {
		tb.Fatalf("errors.Is(%v, ErrRefused) = false", err)
	}
	var ae *AccessError
	if !errors.As(err, &ae) {
		tb.Fatalf("error %T %v is not an *AccessError", err, err)
	}
	if ae.Violation != v || ae.Op != wantOp || ae.Target != wantTarget {
		tb.Fatalf("refused as %v/%v/target %d (%v), want %v/%v/target %d", ae.Op, ae.Violation, ae.Target, err, wantOp, v, wantTarget)
	}
	return ae
}

// checkRefusalCounted checks one refusal of violation v was counted
// between before and after in n's Stats, in the segment (from segBefore)
// and in wantTarget's PGIDTBL entry (from procBefore), if a process.
func checkRefusalCounted(tb testing.TB, n *NIC, v Violation, wantTarget int, before, after Stats, segBefore, procBefore uint64) {
	tb.Helper()
	seg := n.seg
	if after.Refused != before.Refused+1 {
		tb.Errorf("Stats.Refused %d -> %d, want +1", before.Refused, after.Refused)
	}
	for w := range after.RefusedBy {
		want := before.RefusedBy[w]
		if Violation(w) == v {
			want++
		}
		if after.RefusedBy[w] != want {
			tb.Errorf("Stats.RefusedBy[%v] %d -> %d, want %d", Violation(w), before.RefusedBy[w], after.RefusedBy[w], want)
		}
	}
	if got := seg.Refused(); got != segBefore+1 {
		tb.Errorf("Segment.Refused %d -> %d, want +1", segBefore, got)
	}
	if wantTarget >= 0 && wantTarget < seg.NProcs() {
		if got := atomic.LoadUint64(&seg.proc(wantTarget).refused); got != procBefore+1 {
			tb.Errorf("PGIDTBL[%d].refused %d -> %d, want +1", wantTarget, procBefore, got)
		}
	}
}

// checkLastErrorEvent checks n's newest error event records ae.
func checkLastErrorEvent(tb testing.TB, n *NIC, ae *AccessError) {
	tb.Helper()
	ev := n.ErrorEvents()
	if len(ev) == 0 {
		tb.Fatalf("no error event recorded")
	}
	last := ev[len(ev)-1]
	want := ErrorEvent{Op: ae.Op, Violation: ae.Violation, Target: ae.Target, SID: ae.SID, Offset: ae.Offset, Length: ae.Length}
	if last != want {
		tb.Errorf("last error event %+v, want %+v", last, want)
	}
}

// checkPullCounters checks the counters one PULL of size bytes moves.
func checkPullCounters(tb testing.TB, before, after Stats, size int) {
	tb.Helper()
	if d := after.Pull - before.Pull; d != 1 {
		tb.Errorf("Stats.Pull +%d, want +1", d)
	}
	if d := after.PullBytes - before.PullBytes; d != uint64(size) {
		tb.Errorf("Stats.PullBytes +%d, want +%d", d, size)
	}
	if d := after.Packets - before.Packets; d != packetsFor(size)+1 {
		tb.Errorf("Stats.Packets +%d, want +%d (replies plus the request)", d, packetsFor(size)+1)
	}
}

// pushChecked pushes src from n0 to off of mem, which peer 1 registered
// as sid and which is zero around [off, off+len(src)), and checks the
// acknowledgement, that the data land there and nowhere else, and the
// PUSH counters; it returns n0's statistics before and after.
func pushChecked(t *testing.T, n0 *NIC, sid SID, mem []byte, off uint64, src []byte) (before, after Stats) {
	t.Helper()
	size := len(src)
	before = n0.Stats()
	var ack uint64
	if err := n0.Push(1, sid, off, src, &ack); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if ack != 1 {
		t.Errorf("ack flag not set")
	}
	checkBytes(t, "pushed region", mem[off:off+uint64(size)], src)
	if firstDiff(mem[:off], make([]byte, off)) >= 0 || mem[off+uint64(size)] != 0 {
		t.Errorf("Push wrote outside [%d, %d)", off, off+uint64(size))
	}
	after = n0.Stats()
	checkPushCounters(t, before, after, size)
	return before, after
}

// checkPushCounters checks the counts of one PUSH of size bytes between
// before and after: the request, its bytes and its packets.
func checkPushCounters(tb testing.TB, before, after Stats, size int) {
	tb.Helper()
	if d := after.Push - before.Push; d != 1 {
		tb.Errorf("Stats.Push +%d, want +1", d)
	}
	if d := after.PushBytes - before.PushBytes; d != uint64(size) {
		tb.Errorf("Stats.PushBytes +%d, want +%d", d, size)
	}
	if d := after.Packets - before.Packets; d != packetsFor(size) {
		tb.Errorf("Stats.Packets +%d, want +%d", d, packetsFor(size))
	}
}

// barrierGroup opens the NICs of a segment of n processes and claims a
// barrier controller for a group of all of them: the NICs by PID, the
// controller's id and the group.
func barrierGroup(tb testing.TB, n int) ([]*NIC, int, []int) {
	tb.Helper()
	seg := newSegment(tb, testConfig(n))
	nics := make([]*NIC, n)
	procs := make([]int, n)
	for i := range nics {
		nics[i], procs[i] = openNIC(tb, seg, i), i
	}
	id, err := nics[0].AllocBarrier()
	if err != nil {
		tb.Fatal(err)
	}
	return nics, id, procs
}

// pullRefilled fills size bytes at off of mem, which peer 1 registered
// as sid, with the pattern of seed, pulls them into a buffer of n0's,
// checks the data, the done flag and the PULL counters since mid, and
// returns n0's statistics after the pull.
func pullRefilled(t *testing.T, n0 *NIC, sid SID, mem []byte, off uint64, size int, seed uint64, mid Stats) Stats {
	t.Helper()
	fillPattern(mem[off:off+uint64(size)], seed)
	want := slices.Clone(mem[off : off+uint64(size)])
	got := make([]byte, size)
	var done uint64
	if err := n0.Pull(1, sid, off, got, &done); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if done != 1 {
		t.Errorf("done flag not set")
	}
	checkBytes(t, "pulled data", got, want)
	after := n0.Stats()
	checkPullCounters(t, mid, after, size)
	return after
}
