package llc

import "github.com/rhinet-go/martini/llc/layout"

// The tests' short names for the layout of records and lines.
const LineHalf = layout.LineHalf

func word(b []byte, off uint64) *uint64 { return layout.Word(b, off) }

func signal(seq uint32, size uint64) uint64 { return layout.Signal(seq, size) }

func putMeta(b []byte, kind, flags uint8, tag int32, ctx, length uint32, aux uint64) {
	layout.PutMeta(b, kind, flags, tag, ctx, length, aux)
}
