package llc

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
)

// ringSink records what an inRing delivers.
type ringSink struct{ bodies [][]byte }

func (s *ringSink) Step(Event) {}

func (s *ringSink) Record(_ int, _, data []byte) {
	s.bodies = append(s.bodies, append([]byte(nil), data...))
}

// putRecord writes a record with a body of n bytes at pos of the ring's
// record space, as a sender does: payload cells first, then the first
// cell with the signal word.
func putRecord(data []byte, pos uint64, seq uint32, n int, fill byte) uint64 {
	size := recordSize(n)
	rec := data[pos : pos+size]
	binary.LittleEndian.PutUint32(rec[12:16], uint32(n))
	body := recordBody(rec, n)
	for i := range body {
		body[i] = fill
	}
	atomic.StoreUint64(word(data, pos+recSignal), signal(seq, size))
	return size
}

// A delivered record's space goes back to the sender at the receiver's next
// poll: until then its cells keep their signals and the consumer count
// stays; then every cell it covered, a wrap marker's too, reads zero and
// the count covers it.
func TestInRingFlushAtNextPoll(t *testing.T) {
	const size = 8 * cell
	mem := make([]byte, ringCtl+size)
	r := newInRing(1, 0, mem)
	data := mem[ringCtl:]
	var sink ringSink

	// A three-cell record at 0, then a one-cell record at 3 cells.
	n1 := putRecord(data, 0, 1, 100, 0xa1)
	putRecord(data, n1, 2, 8, 0xa2)
	if !r.poll(&sink) || len(sink.bodies) != 2 {
		t.Fatalf("first poll delivered %d records, want 2", len(sink.bodies))
	}
	if got := atomic.LoadUint64(r.ctl); got != 0 {
		t.Fatalf("consumer count %d published before the next poll", got)
	}
	if *word(data, recSignal) == 0 {
		t.Fatal("first record's signal zeroed before the next poll")
	}
	if r.poll(&sink) {
		t.Fatal("second poll found a record in an empty ring")
	}
	if got := atomic.LoadUint64(r.ctl); got != 4*cell {
		t.Fatalf("consumer count %d after the next poll, want %d", got, 4*cell)
	}
	for c := uint64(0); c < 4*cell; c += cell {
		if *word(data, c+recSignal) != 0 {
			t.Fatalf("cell at %d still signals after the flush", c)
		}
	}

	// Past the end: a wrap marker over the last four cells, then a
	// two-cell record at 0.
	atomic.StoreUint64(word(data, 4*cell+recSignal), signal(3, wrapMarker))
	putRecord(data, 0, 4, 40, 0xa3)
	if !r.poll(&sink) || len(sink.bodies) != 3 || sink.bodies[2][0] != 0xa3 {
		t.Fatalf("poll across the wrap delivered %d records", len(sink.bodies))
	}
	r.poll(&sink)
	if got := atomic.LoadUint64(r.ctl); got != size+2*cell {
		t.Fatalf("consumer count %d after the wrap, want %d", got, size+2*cell)
	}
	for c := uint64(0); c < size; c += cell {
		if *word(data, c+recSignal) != 0 {
			t.Fatalf("cell at %d still signals after the wrap's flush", c)
		}
	}
}
