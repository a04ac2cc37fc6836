package nicemu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// TestPushNativeMatchesGeneral: the native profile's flattened write path
// (pushNative) leaves the same memory, errors and counts as the general
// one. Two jobs get the same requests, one through execPush (which takes
// pushNative where it applies), the other through pushGeneral alone.
func TestPushNativeMatchesGeneral(t *testing.T) {
	fast, slow := newWriteJob(t), newWriteJob(t)
	if fast.sid != slow.sid {
		t.Fatalf("the jobs registered SIDs %d and %d", fast.sid, slow.sid)
	}
	sid := fast.sid
	src := countingBytes(1088, 1)
	cases := []struct {
		name string
		dst  int
		sid  SID
		off  uint64
		len  int
		op   Op
	}{
		{"BOTF 64, a miss first", 1, sid, 0, 64, OpBOTF},
		{"BOTF 64, a hit", 1, sid, 64, 64, OpBOTF},
		{"BOTF 24", 1, sid, 200, 24, OpBOTF},
		{"BOTF 13, ending off a word", 1, sid, 300, 13, OpBOTF},
		{"BOTF 4, shorter than a word", 1, sid, 400, 4, OpBOTF},
		{"AOTF 8", 1, sid, 512, 8, OpAOTF},
		{"BOTF 128 across the end", 1, sid, 4032, 128, OpBOTF},
		{"BOTF 64 at the end", 1, sid, 4032, 64, OpBOTF},
		{"BOTF to an unknown SID", 1, sid + 1, 0, 64, OpBOTF},
		{"BOTF to an unknown process", 2, sid, 0, 64, OpBOTF},
		{"BOTF 64 to itself, a SID it lacks", 0, sid, 0, 64, OpBOTF},
		{"PUSH 1088, a packed record's size", 1, sid, 1024, 1088, OpPush},
		{"PUSH 64", 1, sid, 2112, 64, OpPush},
		{"PUSH 13, ending off a word", 1, sid, 2200, 13, OpPush},
		{"PUSH 128 across the end", 1, sid, 4032, 128, OpPush},
		{"PUSH to an unknown SID", 1, sid + 1, 0, 64, OpPush},
	}
	for _, c := range cases {
		errFast := fast.n0.execPush(c.dst, c.sid, c.off, src[:c.len], c.op)
		errSlow := slow.n0.pushGeneral(c.dst, c.sid, c.off, src[:c.len], c.op)
		var aeFast, aeSlow *AccessError
		switch {
		case (errFast == nil) != (errSlow == nil):
			t.Errorf("%s: errors %v and %v", c.name, errFast, errSlow)
		case errFast != nil && (!errors.As(errFast, &aeFast) || !errors.As(errSlow, &aeSlow) || aeFast.Violation != aeSlow.Violation):
			t.Errorf("%s: errors %v and %v", c.name, errFast, errSlow)
		}
		if sf, ss := fast.n0.Stats(), slow.n0.Stats(); sf != ss {
			t.Errorf("%s: stats\n%+v\nagainst\n%+v", c.name, sf, ss)
		}
		if !bytes.Equal(fast.mem, slow.mem) {
			t.Errorf("%s: the target memory differs", c.name)
		}
	}
	if st := fast.n0.Stats(); st.BOTF == 0 || st.RVATLBHits == 0 {
		t.Fatalf("no request went through: %+v", st)
	}
}

// TestPushPacketMatchesKick: PushPacket, a packet gathered where it lands,
// leaves the same memory and request counts as the packet's image built
// first and kicked, a BOTF from the Window or a PUSH from a buffer; where
// it declines (a miss of the RVATLB, a refusal), the caller's kick does
// the rest, as the translator's does.
func TestPushPacketMatchesKick(t *testing.T) {
	fast, slow := newWriteJob(t), newWriteJob(t)
	for _, j := range []writeJob{fast, slow} {
		for i := range j.mem {
			j.mem[i] = 0xee // stale bytes, which a packet's padding overwrites
		}
	}
	sid := fast.sid
	head, data := countingBytes(56, 1), countingBytes(1024, 101)
	// kick sends the packet's image as the request op: the way that
	// stages it.
	kick := func(n *NIC, dst int, sid SID, off uint64, head, data []byte, end int, signal uint64, op Op) error {
		img := make([]byte, end+8)
		copy(img[copy(img, head):], data)
		binary.LittleEndian.PutUint64(img[end:], signal)
		return kickWrite(n, dst, sid, off, img, op)
	}
	cases := []struct {
		name       string
		dst        int
		sid        SID
		off        uint64
		head, data int
		end        int
		op         Op
		gathered   bool // PushPacket writes it
	}{
		{"a cell, a miss first", 1, sid, 0, 56, 0, 56, OpBOTF, false},
		{"a cell", 1, sid, 64, 56, 0, 56, OpBOTF, true},
		{"meta and 8 bytes, padded", 1, sid, 128, 24, 8, 56, OpBOTF, true},
		{"meta and 200 bytes", 1, sid, 192, 24, 200, 248, OpBOTF, true},
		{"meta and 1024 bytes by PUSH", 1, sid, 512, 24, 1024, 1080, OpPush, true},
		{"meta alone by PUSH", 1, sid, 1600, 24, 0, 24, OpPush, true},
		{"across the end", 1, sid, 4032, 56, 0, 120, OpBOTF, false},
		{"ending off a word", 1, sid, 2004, 56, 0, 56, OpBOTF, false},
		{"an unknown SID", 1, sid + 1, 0, 56, 0, 56, OpBOTF, false},
		{"an unknown process", 2, sid, 0, 56, 0, 56, OpBOTF, false},
	}
	for i, c := range cases {
		signal := uint64(i+1)<<32 | uint64(c.end+8)
		h, d := head[:c.head], data[:c.data]
		var errFast error
		got := fast.n0.PushPacket(c.dst, c.sid, c.off, h, d, c.end, signal, c.op)
		if got != c.gathered {
			t.Errorf("%s: PushPacket reported %v, want %v", c.name, got, c.gathered)
		}
		if !got {
			errFast = kick(fast.n0, c.dst, c.sid, c.off, h, d, c.end, signal, c.op)
		}
		errSlow := kick(slow.n0, c.dst, c.sid, c.off, h, d, c.end, signal, c.op)
		compareKicked(t, c.name, fast, slow, errFast, errSlow)
	}
}

// TestPushCellMatchesKick: PushCell, a packet of one cell, leaves the same
// memory and request counts as the cell's image built first and kicked,
// a BOTF from the Window or a PUSH from a buffer; where it declines, the
// kick does the rest.
func TestPushCellMatchesKick(t *testing.T) {
	fast, slow := newWriteJob(t), newWriteJob(t)
	for _, j := range []writeJob{fast, slow} {
		for i := range j.mem {
			j.mem[i] = 0xee
		}
	}
	sid := fast.sid
	head := [56]byte(countingBytes(56, 1))
	cases := []struct {
		name     string
		dst      int
		sid      SID
		off      uint64
		op       Op
		gathered bool // PushCell writes it
	}{
		{"a miss first", 1, sid, 0, OpBOTF, false},
		{"a cell", 1, sid, 64, OpBOTF, true},
		{"a cell by PUSH", 1, sid, 128, OpPush, true},
		{"the last cell", 1, sid, 4032, OpBOTF, true},
		{"across the end", 1, sid, 4040, OpBOTF, false},
		{"ending off a word", 1, sid, 2004, OpBOTF, false},
		{"by AOTF", 1, sid, 256, OpAOTF, false},
		{"an unknown SID", 1, sid + 1, 0, OpBOTF, false},
		{"an unknown process", 2, sid, 0, OpBOTF, false},
	}
	for i, c := range cases {
		signal := uint64(i+1)<<32 | 64
		img := make([]byte, 64)
		copy(img, head[:])
		binary.LittleEndian.PutUint64(img[56:], signal)
		var errFast error
		got := fast.n0.PushCell(c.dst, c.sid, c.off, &head, signal, c.op)
		if got != c.gathered {
			t.Errorf("%s: PushCell reported %v, want %v", c.name, got, c.gathered)
		}
		if !got {
			errFast = kickWrite(fast.n0, c.dst, c.sid, c.off, img, c.op)
		}
		errSlow := kickWrite(slow.n0, c.dst, c.sid, c.off, img, c.op)
		compareKicked(t, c.name, fast, slow, errFast, errSlow)
	}
	if st := fast.n0.Stats(); st.BOTF == 0 || st.Push == 0 {
		t.Fatalf("no cell went through: %+v", st)
	}
}

// countingBytes returns n bytes that count up from first (mod 256).
func countingBytes(n, first int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(first + i)
	}
	return b
}

// compareKicked reports where the write jobs fast and slow, given the
// same request, differ: its errors, their counts (but the PATLB's, as the
// sources differ) or their target memory.
func compareKicked(t *testing.T, name string, fast, slow writeJob, errFast, errSlow error) {
	t.Helper()
	if (errFast == nil) != (errSlow == nil) {
		t.Errorf("%s: errors %v and %v", name, errFast, errSlow)
	}
	sf, ss := fast.n0.Stats(), slow.n0.Stats()
	sf.PATLBHits, sf.PATLBMisses, ss.PATLBHits, ss.PATLBMisses = 0, 0, 0, 0
	if sf != ss {
		t.Errorf("%s: stats\n%+v\nagainst\n%+v", name, sf, ss)
	}
	if !bytes.Equal(fast.mem, slow.mem) {
		t.Errorf("%s: the target memory differs", name)
	}
}

// kickWrite writes img to (dst, sid, off) by the request op, built in a
// Window and kicked: BOTF, or a PUSH of img.
func kickWrite(n *NIC, dst int, sid SID, off uint64, img []byte, op Op) error {
	if op == OpBOTF {
		copy(n.BOTFBuffer(), img)
		return n.KickBOTF(dst, sid, off, len(img))
	}
	return n.Push(dst, sid, off, img, nil)
}

// writeJob is a job of two processes in which process 0 writes into
// segment memory that process 1 registered: n0 is process 0's NIC, mem and
// sid the memory.
type writeJob struct {
	n0  *NIC
	mem []byte
	sid SID
}

// newWriteJob returns a writeJob whose segment the test's end removes.
func newWriteJob(t *testing.T) writeJob {
	t.Helper()
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 4096)
	return writeJob{n0, mem, sid}
}

// TestPushDataMatchesKick: PushData leaves the target's memory and the
// NIC's counters as the Window written and kicked does, and refuses what
// pushNative does not cover.
func TestPushDataMatchesKick(t *testing.T) {
	fast, slow := newWriteJob(t), newWriteJob(t)
	sid := fast.sid
	data := pattern(MaxBOTF, 7)
	cases := []struct {
		name  string
		dst   int
		sid   SID
		off   uint64
		n     int
		op    Op
		taken bool // PushData writes it
	}{
		{"8 bytes, a miss first", 1, sid, 0, 8, OpBOTF, false},
		{"8 bytes", 1, sid, 8, 8, OpBOTF, true},
		{"a line", 1, sid, 64, 64, OpBOTF, true},
		{"1 KiB by PUSH", 1, sid, 1024, 1024, OpPush, true},
		{"a whole Window", 1, sid, 128, MaxBOTF, OpBOTF, true},
		{"fewer than 8 bytes", 1, sid, 16, 5, OpBOTF, false},
		{"ending off a word", 1, sid, 20, 16, OpBOTF, false},
		{"across the end", 1, sid, 4088, 16, OpBOTF, false},
		{"an unknown SID", 1, sid + 1, 0, 8, OpBOTF, false},
		{"an unknown process", 2, sid, 0, 8, OpBOTF, false},
		{"an AOTF", 1, sid, 0, 8, OpAOTF, false},
	}
	for _, c := range cases {
		d := data[:c.n]
		var errFast error
		got := fast.n0.PushData(c.dst, c.sid, c.off, d, c.op)
		if got != c.taken {
			t.Errorf("%s: PushData reported %v, want %v", c.name, got, c.taken)
		}
		if c.op == OpAOTF {
			continue
		}
		if !got {
			errFast = kickWrite(fast.n0, c.dst, c.sid, c.off, d, c.op)
		}
		errSlow := kickWrite(slow.n0, c.dst, c.sid, c.off, d, c.op)
		if (errFast == nil) != (errSlow == nil) {
			t.Errorf("%s: errors %v and %v", c.name, errFast, errSlow)
		}
		if sf, ss := fast.n0.Stats(), slow.n0.Stats(); sf != ss {
			t.Errorf("%s: stats\n%+v\nagainst\n%+v", c.name, sf, ss)
		}
		if !bytes.Equal(fast.mem, slow.mem) {
			t.Errorf("%s: the target memory differs", c.name)
		}
	}
}

// TestPullAndAtomicDataMatchKick: PullData and AtomicData read, change
// and count as Pull, CompareAndSwap and FetchAndAdd do, and refuse what
// nativeTarget does not cover.
func TestPullAndAtomicDataMatchKick(t *testing.T) {
	fast, slow := newWriteJob(t), newWriteJob(t)
	const swapAt = 32 // the word the swapping compare-and-swap finds at 0
	for _, j := range []writeJob{fast, slow} {
		for i := range j.mem {
			j.mem[i] = byte(i * 7)
		}
		binary.LittleEndian.PutUint64(j.mem[swapAt:], 0)
	}
	sid := fast.sid
	var cases []dataMatchCase
	cases = append(cases, pullDataMatchCases(sid)...)
	cases = append(cases, atomicDataMatchCases(sid, swapAt)...)
	cases = append(cases, misaddressedDataMatchCases(sid)...)
	checkDataMatchesKick(t, fast, slow, cases)
	if w := binary.LittleEndian.Uint64(fast.mem[swapAt:]); w != 99 {
		t.Errorf("the word at %d is %d after the compare-and-swap of 0 for 99, want 99", swapAt, w)
	}
}

// dataMatchCase is one PullData or AtomicData request that
// TestPullAndAtomicDataMatchKick compares with the kicked operation.
type dataMatchCase struct {
	name  string
	dst   int
	sid   SID
	off   uint64
	n     int // bytes pulled; 0: an atomic
	op    Op
	arg0  uint64
	taken bool
}

// dataMatchResult is what one request returned.
type dataMatchResult struct {
	buf []byte
	val uint64
	err error
}

// pullDataMatchCases are the pulls, taken and refused by PullData.
func pullDataMatchCases(sid SID) []dataMatchCase {
	return []dataMatchCase{
		{"pull 8 bytes, a miss first", 1, sid, 0, 8, OpPull, 0, false},
		{"pull 8 bytes", 1, sid, 8, 8, OpPull, 0, true},
		{"pull 1 KiB", 1, sid, 1024, 1024, OpPull, 0, true},
		{"pull ending off a word", 1, sid, 3, 8, OpPull, 0, false},
		{"pull across the end", 1, sid, 4088, 16, OpPull, 0, false},
	}
}

// atomicDataMatchCases are the atomics AtomicData takes; swapAt holds 0.
func atomicDataMatchCases(sid SID, swapAt uint64) []dataMatchCase {
	return []dataMatchCase{
		{"fetch-and-add", 1, sid, 16, 0, OpFAA, 5, true},
		{"compare-and-swap that swaps", 1, sid, swapAt, 0, OpCAS, 0, true},
		{"compare-and-swap that does not", 1, sid, 24, 0, OpCAS, 1, true},
	}
}

// misaddressedDataMatchCases are requests off a word, to an unknown SID
// or to an unknown process, which the native paths refuse.
func misaddressedDataMatchCases(sid SID) []dataMatchCase {
	return []dataMatchCase{
		{"an atomic off a word", 1, sid, 20, 0, OpFAA, 1, false},
		{"an unknown SID", 1, sid + 1, 0, 0, OpFAA, 1, false},
		{"an unknown process", 2, sid, 0, 8, OpPull, 0, false},
	}
}

// checkDataMatchesKick runs each case natively on fast, falling back to
// the kicked operation when refused, and kicked on slow, and checks
// the results, the statistics and the target memory agree.
func checkDataMatchesKick(t *testing.T, fast, slow writeJob, cases []dataMatchCase) {
	t.Helper()
	// Every pull lands in the same buffer, whose page the NIC's PATLB
	// counts too: buffers at different addresses would share a set with
	// the target's pages in one job and not in the other.
	reply := make([]byte, 1024)
	for _, c := range cases {
		var got, want dataMatchResult
		var ok bool
		if c.op == OpPull {
			clear(reply)
			ok = fast.n0.PullData(c.dst, c.sid, c.off, reply[:c.n])
			got.buf = bytes.Clone(reply[:c.n])
		} else {
			got.val, ok = fast.n0.AtomicData(c.op, c.dst, c.sid, c.off, c.arg0, 99)
		}
		if ok != c.taken {
			t.Errorf("%s: reported %v, want %v", c.name, ok, c.taken)
		}
		if !ok {
			got = kickDataMatchCase(fast.n0, c, reply)
		}
		want = kickDataMatchCase(slow.n0, c, reply)
		if got.err != nil { // a refused request's value is stale
			got.val, want.val = 0, 0
		}
		if !bytes.Equal(got.buf, want.buf) || got.val != want.val || (got.err == nil) != (want.err == nil) {
			t.Errorf("%s: got %v, %d, %v; want %v, %d, %v", c.name, got.buf, got.val, got.err, want.buf, want.val, want.err)
		}
		if sf, ss := fast.n0.Stats(), slow.n0.Stats(); sf != ss {
			t.Errorf("%s: stats\n%+v\nagainst\n%+v", c.name, sf, ss)
		}
		if !bytes.Equal(fast.mem, slow.mem) {
			t.Errorf("%s: the target memory differs", c.name)
		}
	}
}

// kickDataMatchCase runs c on n by the kicked Pull, CompareAndSwap or
// FetchAndAdd, pulling into reply.
func kickDataMatchCase(n *NIC, c dataMatchCase, reply []byte) (r dataMatchResult) {
	switch c.op {
	case OpPull:
		clear(reply)
		r.err = n.Pull(c.dst, c.sid, c.off, reply[:c.n], nil)
		r.buf = bytes.Clone(reply[:c.n])
	case OpCAS:
		r.val, r.err = n.CompareAndSwap(c.dst, c.sid, c.off, c.arg0, 99)
	default:
		r.val, r.err = n.FetchAndAdd(c.dst, c.sid, c.off, c.arg0)
	}
	return r
}
