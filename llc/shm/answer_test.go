package shm

import (
	"encoding/binary"
	"sync/atomic"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// lineSink records the bodies of the line records a poll delivers.
type lineSink struct{ bodies [][]byte }

func (s *lineSink) Step(ev *llc.Event) {
	if ev.Kind == llc.EvLine && uint8(ev.Value) != layout.KindLineAck {
		s.bodies = append(s.bodies, append([]byte(nil), ev.Data...))
	}
}

// TestLineAnswerTakesOwnExtension plays process 0 of a pair against
// records that process 1 stores into its half of their line, each of 64
// bytes (its rest in process 1's own extension line). Where a record of
// process 1's answers process 0's last (it acknowledges every line record
// of process 0's, and no ring record followed them), process 0 stores
// into process 1's own extension line once it has read it, as a
// ping-pong's reader does; where it crosses one (an exchange) or follows
// a ring record, the line is left alone. Process 0's line records count
// from the line's opening, before the ring from process 1 is watched
// too. Every body arrives whole.
func TestLineAnswerTakesOwnExtension(t *testing.T) {
	const region = 5
	m := NewLocalMemory(0)
	mem := make([]byte, layout.RingCtl+4096)
	m.Track(region, mem)
	_, theirs := layout.LineHalves(0, 1)
	if err := m.WatchLine(&llc.Command{Kind: llc.CmdWatchLine, Peer: 1, Region: region, Off: theirs}, nil); err != nil {
		t.Fatal(err)
	}
	// A line record of process 0's before the ring from process 1 is
	// watched (the first direction of a pair to connect) counts too.
	m.Wrote(1, LineRecord)
	if err := m.Watch(&llc.Command{Kind: llc.CmdWatchRing, Peer: 1, Region: region}); err != nil {
		t.Fatal(err)
	}
	half := mem[theirs : theirs+layout.LineHalf]
	_, ext := layout.LineExt(mem, theirs)
	mark := layout.Word(ext, layout.LineExtBody-8)
	var sink lineSink
	seq := uint32(0)
	// peerRecord stores process 1's next record of 64 bytes, which
	// acknowledges acked of process 0's line records, and polls.
	peerRecord := func(acked uint32, fill byte) {
		t.Helper()
		seq++
		body := make([]byte, 64)
		for i := range body {
			body[i] = fill + byte(i)
		}
		*mark = ^uint64(0) // no byte of the body: the rest is 48 bytes
		binary.LittleEndian.PutUint64(half[0:], 7)
		copy(half[8:24], body)
		copy(ext, body[layout.LineHalfBody:])
		atomic.StoreUint64(layout.Word(half, layout.LineSig), layout.LineSignal(seq, testKind, 0, len(body), acked))
		n := len(sink.bodies)
		if !m.Poll(&sink) || len(sink.bodies) != n+1 {
			t.Fatalf("record %d: not delivered", seq)
		}
		if got := sink.bodies[n]; string(got) != string(body) {
			t.Fatalf("record %d: body % x, want % x", seq, got, body)
		}
	}
	for _, step := range []struct {
		name   string
		writes []Write
		acked  uint32
		stored bool // process 0 stores into process 1's own extension line
	}{
		{"an answer to a record in the own extension line", []Write{LineRecordOwnExt}, 2, true},
		{"an answer to a record in the half", []Write{LineRecord}, 3, true},
		{"a record that crosses process 0's", []Write{LineRecord}, 3, false},
		{"an answer after a ring record", []Write{RingRecord}, 4, false},
		{"an answer after a ring record and a line record", []Write{RingRecord, LineRecord}, 5, true},
		{"an acknowledgement alone is no record", []Write{LineAck}, 5, true},
	} {
		for _, w := range step.writes {
			m.Wrote(1, w)
		}
		peerRecord(step.acked, byte(16*seq))
		if stored := atomic.LoadUint64(mark) == 0; stored != step.stored {
			t.Errorf("%s: stored into the peer's extension line %v, want %v", step.name, stored, step.stored)
		}
	}
}
