package shm

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// testKind is the kind of the records the tests write: the receiver
// delivers every kind but its own alike.
const testKind = 1

// ringSink records what an inRing delivers.
type ringSink struct{ bodies [][]byte }

func (s *ringSink) Step(ev *llc.Event) {
	if ev.Kind == llc.EvRecord {
		s.bodies = append(s.bodies, append([]byte(nil), ev.Data...))
	}
}

// putRecord writes a split record with a body of n bytes at pos of the
// ring's record space, as a sender does: payload cells first, then the
// first cell with the signal word.
func putRecord(data []byte, pos uint64, seq uint32, n int, fill byte) uint64 {
	size := layout.RecordSize(n)
	rec := data[pos : pos+size]
	rec[0] = testKind
	if n <= layout.RecInline {
		rec[layout.RecEnd] = 1
	}
	binary.LittleEndian.PutUint32(rec[12:16], uint32(n))
	body := layout.Body(rec, n, false)
	for i := range body {
		body[i] = fill
	}
	atomic.StoreUint64(layout.Word(data, pos+layout.RecSignal), layout.Signal(seq, size))
	return size
}

// putPacked writes a packed record with a body of n bytes at pos, all but
// its signal word; the caller stores layout.Signal(seq, size) at pos+size-8.
func putPacked(data []byte, pos uint64, n int, fill byte) (size uint64) {
	size = layout.PackedSize(n)
	rec := data[pos : pos+size]
	binary.LittleEndian.PutUint16(rec[layout.RecEnd:], uint16(size/layout.Cell))
	binary.LittleEndian.PutUint32(rec[12:16], uint32(n))
	body := layout.Body(rec, n, true)
	for i := range body {
		body[i] = fill
	}
	rec[0] = testKind
	return size
}

// testRing returns an inRing of size bytes of record space, and that
// space.
func testRing(size uint64) (*inRing, []byte) {
	mem := make([]byte, layout.RingCtl+size)
	return newInRing(1, 0, mem), mem[layout.RingCtl:]
}

// checkCleared fails t unless every cell of the first n bytes of a ring's
// record space reads zero in its first and its last word, after what.
func checkCleared(t *testing.T, data []byte, n uint64, after string) {
	t.Helper()
	for c := uint64(0); c < n; c += layout.Cell {
		if *layout.Word(data, c) != 0 || *layout.Word(data, c+layout.RecSignal) != 0 {
			t.Fatalf("layout.Cell at %d still signals after %s", c, after)
		}
	}
}

// A packed record is delivered once its last word, the signal, landed, and
// not before: the first word alone says where the signal is. Its first and
// last words read zero after the flush.
func TestInRingPackedRecord(t *testing.T) {
	const size = 8 * layout.Cell
	r, data := testRing(size)
	var sink ringSink

	n := putPacked(data, 0, 100, 0xb1) // 24+100+8 bytes: three cells
	if n != 3*layout.Cell {
		t.Fatalf("a packed record of 100 bytes takes %d bytes, want %d", n, 3*layout.Cell)
	}
	if r.poll(&sink) || len(sink.bodies) != 0 {
		t.Fatal("a packed record was delivered before its signal landed")
	}
	atomic.StoreUint64(layout.Word(data, n-8), layout.Signal(1, n))
	if !r.poll(&sink) || len(sink.bodies) != 1 || len(sink.bodies[0]) != 100 || sink.bodies[0][99] != 0xb1 {
		t.Fatalf("delivered %d records after the signal landed", len(sink.bodies))
	}
	r.poll(&sink)
	if got := atomic.LoadUint64(r.ctl); got != n {
		t.Fatalf("consumer count %d, want %d", got, n)
	}
	checkCleared(t, data, n, "the flush")
	// A wrap marker, then a packed record at 0 of the next lap.
	atomic.StoreUint64(layout.Word(data, n), layout.WrapWord(2))
	m := putPacked(data, 0, 40, 0xb2)
	atomic.StoreUint64(layout.Word(data, m-8), layout.Signal(3, m))
	if !r.poll(&sink) || len(sink.bodies) != 2 || !bytes.Equal(sink.bodies[1], bytes.Repeat([]byte{0xb2}, 40)) {
		t.Fatalf("poll across the wrap delivered %d records", len(sink.bodies))
	}
}

// A delivered record's space goes back to the sender at the receiver's next
// poll: until then its cells keep their signals and the consumer count
// stays; then every cell it covered, a wrap marker's too, reads zero and
// the count covers it.
func TestInRingFlushAtNextPoll(t *testing.T) {
	const size = 8 * layout.Cell
	r, data := testRing(size)
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
	if *layout.Word(data, 0) == 0 || *layout.Word(data, layout.RecSignal) == 0 {
		t.Fatal("first record's words zeroed before the next poll")
	}
	if r.poll(&sink) {
		t.Fatal("second poll found a record in an empty ring")
	}
	if got := atomic.LoadUint64(r.ctl); got != 4*layout.Cell {
		t.Fatalf("consumer count %d after the next poll, want %d", got, 4*layout.Cell)
	}
	checkCleared(t, data, 4*layout.Cell, "the flush")

	// Past the end: a wrap marker over the last four cells, then a
	// two-cell record at 0.
	atomic.StoreUint64(layout.Word(data, 4*layout.Cell), layout.WrapWord(3))
	putRecord(data, 0, 4, 40, 0xa3)
	if !r.poll(&sink) || len(sink.bodies) != 3 || sink.bodies[2][0] != 0xa3 {
		t.Fatalf("poll across the wrap delivered %d records", len(sink.bodies))
	}
	r.poll(&sink)
	if got := atomic.LoadUint64(r.ctl); got != size+2*layout.Cell {
		t.Fatalf("consumer count %d after the wrap, want %d", got, size+2*layout.Cell)
	}
	checkCleared(t, data, size, "the wrap's flush")
}

// A flush clears exactly the bytes delivered since the last one: inside
// the record space, around its end, and the whole space when the records
// delivered cover it.
func TestInRingClearSpan(t *testing.T) {
	const size = 8 * layout.Cell
	cases := []struct {
		name    string
		from, n uint64
	}{
		{"inside", 2 * layout.Cell, 3 * layout.Cell},
		{"around the end", 6 * layout.Cell, 4 * layout.Cell},
		{"the whole space", 5 * layout.Cell, size},
	}
	for _, c := range cases {
		r, data := testRing(size)
		for i := range data {
			data[i] = 0xee
		}
		r.released, r.consumed = 3*size+c.from, 3*size+c.from+c.n
		r.flush()
		for off := uint64(0); off < size; off++ {
			inSpan := (off+size-c.from)%size < c.n || c.n >= size
			if got := data[off]; inSpan != (got == 0) {
				t.Fatalf("%s: byte %d reads %#x after the flush of %d bytes from %d", c.name, off, got, c.n, c.from)
			}
		}
		if got := atomic.LoadUint64(r.ctl); got != r.consumed {
			t.Fatalf("%s: consumer count %d, want %d", c.name, got, r.consumed)
		}
	}
}
