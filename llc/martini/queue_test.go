package martini

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// translators opens n NICs of a job under profile and their translators.
func translators(tb testing.TB, n int, profile string) []*Translator {
	tb.Helper()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: n, PGID: 42, Profile: profile, HeapSize: 4 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { seg.Close() })
	ts := make([]*Translator, n)
	for i := range ts {
		nic, err := nicemu.Open(seg, i)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { nic.Close() })
		ts[i] = New(nic)
	}
	return ts
}

// TestQueueCommands drives the receive-queue commands of the IR on the
// NIC: records land as the IR's layout says, a full queue is reported as
// llc.ErrQueueFull, and a release frees the space.
func TestQueueCommands(t *testing.T) {
	ts := translators(t, 2, nicemu.ProfileNative)
	const space = 2 * nicemu.MaxVPUSH
	ev := llc.Outcome(ts[1].Execute(&llc.Command{Kind: llc.CmdAllocQueue, Size: llc.QueueHeader + space, Token: 1}))
	if ev.Kind != llc.EvDone || len(ev.Mem) != llc.QueueHeader+space {
		t.Fatalf("alloc queue: %+v", ev)
	}
	mem := ev.Mem
	produced := func() uint64 { return atomic.LoadUint64((*uint64)(unsafe.Pointer(&mem[0]))) }
	c := llc.Command{Kind: llc.CmdEnqueue, Peer: 1, Data: bytes.Repeat([]byte{7}, 1000), Token: 2}
	c.HeadLen = uint8(copy(c.Head[:], "head"))
	var sent int
	for {
		ev = llc.Outcome(ts[0].Execute(&c))
		if ev.Kind == llc.EvError {
			if !errors.Is(ev.Err, llc.ErrQueueFull) {
				t.Fatalf("enqueue: %v", ev.Err)
			}
			break
		}
		sent++
	}
	rec := 1004 + llc.QueueRecordHeader // 1012, padded to 1016
	if sent != 4 || produced() != 4*1016 {
		t.Fatalf("%d records before the queue filled, produced %d; want 4 and %d", sent, produced(), 4*1016)
	}
	r := mem[llc.QueueHeader:]
	if l, src := binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:]); l != 1004 || src != 0 || string(r[8:12]) != "head" || r[8+rec-llc.QueueRecordHeader-1] != 7 {
		t.Errorf("first record: length %d, source %d, %q", l, src, r[8:12])
	}
	// The receiver's poll delivers the four records and releases them:
	// the next one wraps (the tail is too short).
	var got recorder
	if !ts[1].Poll(&got) || len(got.recs) != 4 {
		t.Fatalf("poll delivered %d records, want 4", len(got.recs))
	}
	for i, r := range got.recs {
		if r.peer != 0 || r.head != "head"+strings.Repeat("\x07", llc.RecordMeta-4) || len(r.data) != 1004-llc.RecordMeta {
			t.Fatalf("record %d: from %d, head %q, %d bytes of body", i, r.peer, r.head, len(r.data))
		}
	}
	if ev := llc.Outcome(ts[0].Execute(&c)); ev.Kind != llc.EvDone {
		t.Fatalf("enqueue after release: %+v", ev)
	}
	if got := binary.LittleEndian.Uint32(r[4*1016:]); got != llc.QueueWrap {
		t.Errorf("wrap marker %#x", got)
	}
	if produced() != space+1016 {
		t.Errorf("produced %d, want %d", produced(), space+1016)
	}
	big := llc.Command{Kind: llc.CmdEnqueue, Peer: 1, Data: make([]byte, llc.MaxQueueRecord+1), Token: 3}
	if ev := llc.Outcome(ts[0].Execute(&big)); ev.Kind != llc.EvError || errors.Is(ev.Err, llc.ErrQueueFull) {
		t.Errorf("an oversized record: %+v", ev)
	}
}

// recorder is a sink that keeps copies of the records delivered to it.
type recorder struct {
	recs []struct {
		peer int
		head string
		data []byte
	}
}

func (r *recorder) Step(ev *llc.Event) {
	if ev.Kind == llc.EvRecord {
		r.recs = append(r.recs, struct {
			peer int
			head string
			data []byte
		}{ev.Peer, string(ev.Head), append([]byte(nil), ev.Data...)})
	}
}

// TestCharge: host work costs nothing under native and its profile cost
// under martini.
func TestCharge(t *testing.T) {
	native := translators(t, 1, nicemu.ProfileNative)[0]
	start := time.Now()
	native.Charge(llc.WorkSend, 1000)
	if d := time.Since(start); d > time.Millisecond {
		t.Errorf("native: 1000 sends charged %v", d)
	}
	m := translators(t, 1, nicemu.ProfileMartini)[0]
	start = time.Now()
	m.Charge(llc.WorkSend, 10)
	m.Charge(llc.WorkPoll, 10)
	if d, want := time.Since(start), 10*(nicemu.Martini.PMSend+nicemu.Martini.PMPoll); d < want {
		t.Errorf("martini: charged %v, want at least %v", d, want)
	}
}
