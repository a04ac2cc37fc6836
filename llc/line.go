package llc

import (
	"encoding/binary"

	"github.com/rhinet-go/martini/llc/layout"
)

// A pair's shared line is one 64-byte cache line that carries the small
// records of both directions between two processes (Config.SharedLines,
// on a network whose memory both may load and store). It lies in the ring
// that the lower-numbered process of the pair grants the other
// ([ringLine, ringLine+cell) of that region): the lower-numbered process
// writes the first half, the other the second, and each polls the other's
// half.
//
// Why: a ring per direction puts a message and its reply in two lines, and
// each message costs two transfers of a line between the cores (the
// writer takes the line the receiver polls, then the receiver takes it
// back). When the reply goes into the line the request came in, the
// receiver already holds the line, and a message costs one transfer: a
// ping-pong of small messages takes about half the time of one over rings.
//
// A half holds one record at a time, of up to lineBody bytes of body and
// no aux word (an eager message, not a synchronous one). Layout, four
// little-endian words:
//
//	[0, 8)   tag (low 32 bits), context (high 32 bits)
//	[8, 16)  kind, flags, body length (16 bits)
//	[16, 24) the body
//	[24, 32) the signal: the record's sequence number (high 32 bits), and
//	         how many of the other process's line records this one has
//	         consumed (its acknowledgement, low 32 bits)
//
// The signal is written last. A line record takes its place in the
// sender's ring as if it had been written there: it reserves its cell and
// takes the ring's next sequence number, but leaves the cell untouched;
// the receiver, finding no record at its ring position, takes the line's
// record when its sequence number is the next one. The records of the
// ring and of the line therefore arrive in the order they were sent, the
// ring's accounting (space, wrap markers, the consumer count) is
// unchanged, and a line record's cell needs no zeroing.
//
// A sender writes its half again only once the receiver has acknowledged
// the record in it; until then its small records go to the ring. The
// acknowledgement travels with the receiver's next line record, which in
// a ping-pong is the reply; a process that consumes a line record while
// its own half still waits for an acknowledgement writes its
// acknowledgement alone (the signal word with the same sequence number),
// so that two processes that crossed records do not both stay on their
// rings. The receiving side reports every new acknowledgement it sees in
// a half, with a record or alone (a recLineAck).
//
// A process that has written its half does not read the peer's for a
// short while, its quiet window (package llc/shm), so that the peer finds the
// line still in its own cache when it writes its answer.
const (
	lineBody   = layout.LineBody
	lineSig    = layout.LineSig
	flagLine   = layout.FlagLine
	recLineAck = layout.KindLineAck // the receiver's report of an acknowledgement alone
)

// lineState is the sending and acknowledging side of one peer's line.
type lineState struct {
	ok     bool     // the line exists: both processes know its region
	inPeer int      // the Size of its commands: LineInPeer when the peer's memory holds it
	region RegionID // its ring region
	out    uint64   // offset of this process's half in the region
	seq    uint32   // ring sequence number of this process's last line record
	sent   uint32   // line records written
	acked  uint32   // line records the peer has consumed, as it last said
	recv   uint32   // line records consumed from the peer
}

// openLine makes the line of peer dst known once it lies in region, a
// ring of owner's (the lower-numbered of the pair), and asks the
// transport to watch dst's half.
func (e *Engine) openLine(dst, owner int, region RegionID) {
	if !e.cfg.SharedLines {
		return
	}
	mine, theirs := layout.LineHalves(e.cfg.Self, dst)
	inPeer := 0
	if owner == dst {
		inPeer = LineInPeer
	}
	e.peers[dst].line = lineState{ok: true, inPeer: inPeer, region: region, out: mine}
	e.emit(&Command{Kind: CmdWatchLine, Peer: dst, Region: region, Off: theirs, Size: inPeer})
}

// writeLine writes a record of at most lineBody bytes of body and no aux
// into dst's line instead of its ring, if the line is free, and reports
// whether it did. The caller has reserved the record's cell in the ring;
// seq is its sequence number.
func (e *Engine) writeLine(dst int, seq uint32, kind, flags uint8, tag int32, ctx uint32, ctl, payload []byte) bool {
	l := &e.peers[dst].line
	if !l.ok || l.acked != l.sent || seq == 0 {
		return false
	}
	c := e.sched.alloc()
	e.stats.CommandsIssued++
	c.Kind, c.Peer, c.Region, c.Off, c.HeadLen = CmdWriteLine, dst, l.region, l.out, lineSig
	c.Signal, c.SigOff, c.Size = uint64(seq)<<32|uint64(l.recv), l.out+lineSig, l.inPeer
	h := c.Head[:lineSig]
	binary.LittleEndian.PutUint64(h[0:], uint64(uint32(tag))|uint64(ctx)<<32)
	binary.LittleEndian.PutUint64(h[8:], uint64(kind)|uint64(flags)<<8|uint64(len(ctl)+len(payload))<<16)
	binary.LittleEndian.PutUint64(h[16:], lineWord(ctl, payload))
	l.seq = seq
	l.sent++
	e.stats.LineSent++
	return true
}

// lineWord packs a line record's body, ctl then payload (at most lineBody
// bytes together), into the little-endian word that carries it, zero
// beyond the body: without a call to copy, which costs more than the
// bytes here.
func lineWord(ctl, payload []byte) uint64 {
	if len(ctl) == 0 && len(payload) == lineBody {
		return binary.LittleEndian.Uint64(payload)
	}
	var w uint64
	shift := 0
	for _, part := range [2][]byte{ctl, payload} {
		for _, b := range part {
			w |= uint64(b) << shift
			shift += 8
		}
	}
	return w
}

// lineArrived takes a record that src wrote into its half of the line,
// with its acknowledgement: ack is how many of this process's line
// records src has consumed. It acknowledges src's record alone when this
// process's own half still waits for src (see the comment at the top).
func (e *Engine) lineArrived(src int, ack uint32) {
	l := &e.peers[src].line
	l.recv++
	l.acked = ack
	if !l.ok || l.acked == l.sent {
		return
	}
	e.stats.LineAcks++
	e.emit(&Command{Kind: CmdWriteLine, Peer: src, Region: l.region, Off: l.out,
		Signal: uint64(l.seq)<<32 | uint64(l.recv), SigOff: l.out + lineSig, Size: l.inPeer})
}
