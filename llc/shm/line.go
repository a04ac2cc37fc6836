package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// lineRecord is the receiving side of one peer's line: that peer's half.
type lineRecord struct {
	ack     uint32       // the acknowledgement last reported
	seen    uint64       // the signal word last read
	half    []byte       // layout.LineHalf bytes
	region  llc.RegionID // the region that holds it
	own     bool         // the region is this process's memory
	scratch [layout.RecMeta + layout.LineBody]byte
}

// takeLine delivers to sink the record in the peer's half of the line, if
// its sequence number is the ring's next, and frees its place in the
// ring; otherwise it reports a new acknowledgement there alone (a
// layout.KindLineAck). It reports whether it delivered either.
func (r *inRing) takeLine(sink llc.Sink) bool {
	l := r.line
	sig := atomic.LoadUint64(layout.Word(l.half, layout.LineSig))
	l.seen = sig
	if sig == 0 || uint32(sig>>32) != r.seq+1 {
		if sig == 0 || uint32(sig) == l.ack {
			return false
		}
		l.ack = uint32(sig)
		s := l.scratch[:layout.RecMeta]
		layout.PutMeta(s, layout.KindLineAck, layout.FlagLine, 0, 0, 0, uint64(l.ack))
		r.deliver(sink, s, nil)
		return false // no record: the ring's poll goes on to the next ring
	}
	l.ack = uint32(sig)
	w0 := binary.LittleEndian.Uint64(l.half[0:])
	w1 := binary.LittleEndian.Uint64(l.half[8:])
	body := int(uint16(w1 >> 16))
	if body > layout.LineBody {
		sink.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("corrupt line record from process %d: a body of %d bytes", r.peer, body)})
		return true
	}
	s := l.scratch[:]
	layout.PutMeta(s, uint8(w1), uint8(w1>>8)|layout.FlagLine, int32(uint32(w0)), uint32(w0>>32), uint32(body), uint64(uint32(sig)))
	binary.LittleEndian.PutUint64(s[layout.RecMeta:], binary.LittleEndian.Uint64(l.half[16:]))
	r.releaseUnwritten(layout.Cell)
	r.deliver(sink, s[:layout.RecMeta], s[layout.RecMeta:layout.RecMeta+body])
	return true
}
