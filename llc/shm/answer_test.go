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
// bytes (its rest in the first of process 1's own extension lines) or of
// layout.LineBody (in both). Where a record of process 1's answers
// process 0's last (it acknowledges every line record of process 0's,
// and no ring record followed them), process 0 stores into the own
// extension lines that the record took, and no other, once it has read
// them, as a ping-pong's reader does; where it crosses one (an exchange)
// or follows a ring record, the lines are left alone. Process 0's line
// records count from the line's opening, before the ring from process 1
// is watched too. Every body arrives whole.
func TestLineAnswerTakesOwnExtension(t *testing.T) {
	for _, size := range []int{64, layout.LineBody} {
		answerRounds(t, size)
	}
}

// answerRounds is TestLineAnswerTakesOwnExtension with records of size
// bytes.
func answerRounds(t *testing.T, size int) {
	a := newAnswerLine(t, size)
	for _, step := range []answerStep{
		{"an answer to a record in the own extension line", []Write{LineRecordOwnExt}, 2, true},
		{"an answer to a record in the half", []Write{LineRecord}, 3, true},
		{"a record that crosses process 0's", []Write{LineRecord}, 3, false},
		{"an answer after a ring record", []Write{RingRecord}, 4, false},
		{"an answer after a ring record and a line record", []Write{RingRecord, LineRecord}, 5, true},
		{"an acknowledgement alone is no record", []Write{LineAck}, 5, true},
	} {
		a.step(t, step)
	}
}

// answerStep is process 0's writes before process 1's next record, the
// line records of process 0's that record acknowledges, and whether
// process 0 stores into process 1's own extension lines.
type answerStep struct {
	name   string
	writes []Write
	acked  uint32
	stored bool // process 0 stores into process 1's own extension lines
}

// answerLine is process 0's memory watching the line and the ring from
// process 1, with records of size bytes.
type answerLine struct {
	size  int
	m     *LocalMemory
	half  []byte
	ext   []byte
	marks []*uint64 // the last word of each own extension line
	lines int       // the own extension lines a record's rest takes
	sink  lineSink
	seq   uint32
}

// newAnswerLine watches the line from process 1, counts a line record of
// process 0's, then watches the ring from process 1.
func newAnswerLine(t *testing.T, size int) *answerLine {
	t.Helper()
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
	a := &answerLine{size: size, m: m, half: mem[theirs : theirs+layout.LineHalf]}
	_, a.ext = layout.LineExt(mem, theirs)
	// The last word of each own extension line; the record's rest takes
	// lines of them.
	a.marks = []*uint64{layout.Word(a.ext, layout.Cell-8), layout.Word(a.ext, 2*layout.Cell-8)}
	a.lines = (size - layout.LineHalfBody + layout.Cell - 1) / layout.Cell
	return a
}

// peerRecord stores process 1's next record, which acknowledges acked
// of process 0's line records, and polls.
func (a *answerLine) peerRecord(t *testing.T, acked uint32, fill byte) {
	t.Helper()
	size, half, ext := a.size, a.half, a.ext
	a.seq++
	body := make([]byte, size)
	for i := range body {
		body[i] = fill + byte(i)
	}
	for _, w := range a.marks {
		*w = ^uint64(0)
	}
	binary.LittleEndian.PutUint64(half[0:], 7)
	copy(half[8:24], body)
	copy(ext, body[layout.LineHalfBody:])
	atomic.StoreUint64(layout.Word(half, layout.LineSig), layout.LineSignal(a.seq, testKind, 0, len(body), acked))
	n := len(a.sink.bodies)
	if !a.m.Poll(&a.sink) || len(a.sink.bodies) != n+1 {
		t.Fatalf("%d bytes, record %d: not delivered", size, a.seq)
	}
	if got := a.sink.bodies[n]; string(got) != string(body) {
		t.Fatalf("%d bytes, record %d: body % x, want % x", size, a.seq, got, body)
	}
}

// step makes process 0's writes, stores process 1's next record, and
// checks which of the own extension lines process 0 stored into.
func (a *answerLine) step(t *testing.T, step answerStep) {
	t.Helper()
	for _, w := range step.writes {
		a.m.Wrote(1, w)
	}
	a.peerRecord(t, step.acked, byte(16*a.seq))
	for i, w := range a.marks {
		want := step.stored && i < a.lines
		if stored := atomic.LoadUint64(w) == 0; stored != want {
			t.Errorf("%d bytes, %s: stored into the peer's extension line %d %v, want %v", a.size, step.name, i, stored, want)
		}
	}
}
