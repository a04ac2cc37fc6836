package layout

import (
	"bytes"
	"testing"
)

// Record sizes are whole cells: a split record has its body from the
// second cell unless it fits the first, a packed one has meta, body and
// signal in as few cells as they fill.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		payload       int
		split, packed uint64
	}{
		{0, Cell, Cell}, {RecInline, Cell, Cell}, {RecInline + 1, 2 * Cell, 2 * Cell},
		{Cell, 2 * Cell, 2 * Cell}, {Cell + 1, 3 * Cell, 2 * Cell}, {1000, Cell + 1024, 1088},
	} {
		if got := Size(c.payload, false); got != c.split || got != RecordSize(c.payload) {
			t.Errorf("split record of %d bytes: %d, want %d", c.payload, got, c.split)
		}
		if got := Size(c.payload, true); got != c.packed || got != PackedSize(c.payload) {
			t.Errorf("packed record of %d bytes: %d, want %d", c.payload, got, c.packed)
		}
	}
}

// A record's body is after the meta when packed or inline, and in the
// second cell when split.
func TestBody(t *testing.T) {
	rec := make([]byte, 3*Cell)
	for i := range rec {
		rec[i] = byte(i)
	}
	if b := Body(rec, 8, false); !bytes.Equal(b, rec[RecMeta:RecMeta+8]) {
		t.Errorf("inline body at %d", b[0])
	}
	if b := Body(rec, 40, true); !bytes.Equal(b, rec[RecMeta:RecMeta+40]) {
		t.Errorf("packed body at %d", b[0])
	}
	if b := Body(rec, 40, false); !bytes.Equal(b, rec[Cell:Cell+40]) {
		t.Errorf("split body at %d", b[0])
	}
}

// PutMeta writes the fields where a receiver reads them, and the words
// and halves are where the package comment says.
func TestMetaAndWords(t *testing.T) {
	b := make([]byte, RecMeta)
	PutMeta(b, 3, 0x80, -2, 7, 9, 1<<40)
	want := []byte{3, 0x80, 0, 0, 0xfe, 0xff, 0xff, 0xff, 7, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}
	if !bytes.Equal(b, want) {
		t.Errorf("meta % x, want % x", b, want)
	}
	if s := Signal(5, 128); s != 5<<32|128 {
		t.Errorf("signal %#x", s)
	}
	if w := WrapWord(6); uint8(w) != KindWrap || w>>32 != 6 {
		t.Errorf("wrap word %#x", w)
	}
	mem := make([]byte, 16)
	*Word(mem, 8) = 0x0102030405060708
	if mem[8] != 8 || mem[15] != 1 {
		t.Errorf("word at 8: % x", mem)
	}
	if a, b := LineHalves(0, 1); a != RingLine || b != RingLine+LineHalf {
		t.Errorf("halves of process 0 to 1: %d %d", a, b)
	}
	if a, b := LineHalves(1, 0); a != RingLine+LineHalf || b != RingLine {
		t.Errorf("halves of process 1 to 0: %d %d", a, b)
	}
}

// TestLineFits: only the shared line's two halves, in a region long enough
// for their extensions, are lines' halves.
func TestLineFits(t *testing.T) {
	end := int(LineEnd(RingLine + LineHalf))
	for _, c := range []struct {
		half uint64
		size int
		want bool
	}{
		{RingLine, end, true},
		{RingLine + LineHalf, end, true},
		{RingLine + LineHalf, end - 1, false},
		{RingLine + 8, end, false},               // not a half's start
		{RingLine - LineHalf, end, false},        // before the shared line
		{RingLine + Cell, end + Cell, false},     // the shared extension line
		{RingLine, int(LineEnd(RingLine)), true}, // the first half's own extension ends first
	} {
		if got := LineFits(c.half, c.size); got != c.want {
			t.Errorf("LineFits(%d, %d) = %v, want %v", c.half, c.size, got, c.want)
		}
	}
}
