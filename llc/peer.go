package llc

import (
	"encoding/binary"
	"fmt"

	"github.com/rhinet-go/martini/llc/layout"
)

type connState uint8

const (
	connIdle      connState = iota // no connection, none requested
	connLocking                    // CAS on the responder's common command slot issued
	connRequested                  // request written, waiting for the reply
	connUp                         // ring granted
	connFailed                     // the responder refused (no ring memory)
	connQueue                      // EagerQueue: no connection, records go to the peer's queue
)

// peer is the sending side's state for one destination process.
type peer struct {
	conn connState
	out  outRing
	err  error
	// tailPending: a read of the consumer count is in flight.
	tailPending bool
	tailBuf     [8]byte
	// full: the record at the head of the queue found the ring full (it
	// is counted in RingFull once, however many times it is retried), or
	// the peer's receive queue full (EagerQueue).
	full bool
	// enqPending: the CmdEnqueue of the record at the head of the queue
	// is in flight (EagerQueue).
	enqPending bool

	// q holds records waiting for the connection or for ring space, in
	// order.
	q fifo[outItem]
	// line is the pair's shared line (line.go).
	line lineState
}

// outItem is a record waiting to be written: a user send (eager or RTS) or
// a control record.
type outItem struct {
	op   *SendOp // user send, or nil for control
	rndv bool
	kind uint8 // control record kind
	aux  uint64
	ctl  [recInline]byte // a control record's body: it fits the first cell
	clen int
	// A payload in several queue records (parts.go): the bytes whose
	// records are in the receiver's queue, and those of the record in
	// flight (0: none, or a message in one record).
	sent, inflight int
}

// Control record bodies fit an outItem and the first cell of a record.
var (
	_ [recInline - ctsSize]byte
	_ [recInline - rtsSize]byte
)

func (p *peer) queued() bool { return p.q.n > 0 }

func (p *peer) enqueue(it outItem) { p.q.push(it) }

func (p *peer) failQueued(err error) {
	for ; p.q.n > 0; p.q.pop() {
		if op := p.q.front().op; op != nil && !op.done {
			op.finish(err)
		}
	}
}

// trySend writes queued records to peer dst while the connection is up and
// its ring has room, and reports whether it wrote any.
func (e *Engine) trySend(dst int) bool {
	p := &e.peers[dst]
	switch p.conn {
	case connIdle:
		e.connect(dst)
		return false
	case connFailed:
		if p.q.n == 0 {
			return false
		}
		e.blocked--
		// Rendezvous sends that never sent their RTS: forget them and
		// their registration (one still in flight is released when it
		// completes, see onRegSend).
		for i := range p.q.n {
			switch it := p.q.at(i); {
			case it.op == nil || it.op.done:
			case it.rndv:
				e.dropRndvSend(it.op)
			default:
				e.dropSync(it.op)
			}
		}
		p.failQueued(p.err)
		return true
	case connQueue:
		return e.trySendQueue(dst)
	case connUp:
	default:
		return false
	}
	wrote := false
	for p.q.n > 0 {
		it := p.q.front()
		var ok bool
		switch {
		case it.op == nil:
			ok = e.writeRecord(dst, it.kind, 0, 0, 0, it.aux, it.ctl[:it.clen], nil)
		case it.op.done:
			ok = true // failed before it could be sent
		case it.rndv:
			if !rndvReady(it.op, e.cfg.Rendezvous) {
				return wrote
			}
			ok = e.writeRTS(dst, it.op)
		default:
			ok = e.writeEager(dst, it.op)
		}
		if !ok {
			e.refreshTail(dst)
			return wrote
		}
		wrote = true
		p.q.pop()
		if p.q.n == 0 {
			e.blocked--
		}
	}
	return wrote
}

// queueControl sends a control record to dst, behind any queued records.
func (e *Engine) queueControl(dst int, kind uint8, aux uint64, ctl []byte) {
	p := &e.peers[dst]
	if p.conn == connUp && p.q.n == 0 && e.writeRecord(dst, kind, 0, 0, 0, aux, ctl, nil) {
		return
	}
	it := outItem{kind: kind, aux: aux, clen: len(ctl)}
	copy(it.ctl[:], ctl)
	p.enqueue(it)
	if p.q.n == 1 {
		e.blocked++
	}
	e.trySend(dst)
}

// writeRecord emits the commands that put one record into dst's ring: the
// meta (kind, flags, tag, ctx, aux) and payload, then the signal word; a
// packed record is one command. It returns false when the ring has no
// room.
func (e *Engine) writeRecord(dst int, kind, flags uint8, tag int32, ctx uint32, aux uint64, ctl, payload []byte) bool {
	p := &e.peers[dst]
	r := &p.out
	body := len(ctl) + len(payload)
	n, packed := layout.RecordSize(body), body <= recInline
	if !packed && layout.PackedSize(body) <= uint64(e.cfg.PackedRecords) {
		n, packed = layout.PackedSize(body), true
	}
	adv := n // the ring space the record takes
	if e.pm {
		adv = pmRecordSize(n)
	}
	at, wrap, wrapAt, ok := r.reserve(adv)
	if !ok {
		if !p.full {
			p.full = true
			e.stats.RingFull++
		}
		return false
	}
	p.full = false
	if wrap {
		r.seq++
		e.emit(&Command{Kind: CmdWrite, Peer: dst, Region: r.region, Signal: layout.WrapWord(r.seq), SigOff: ringCtl + wrapAt})
		r.head += r.size - wrapAt
	}
	r.seq++
	if body <= lineBody && aux == 0 && e.writeLine(dst, r.seq, kind, flags, tag, ctx, ctl, payload) {
		r.head += adv
		return true
	}
	rec := ringCtl + at
	if !packed {
		// Payload cells first; the first cell, with the signal, last.
		c := Command{Kind: CmdWrite, Peer: dst, Region: r.region, Off: rec + cell, Data: payload}
		c.HeadLen = uint8(copy(c.Head[:], ctl))
		e.emit(&c)
	}
	c := e.sched.alloc() // built in place in the queue
	e.stats.CommandsIssued++
	c.Kind, c.Peer, c.Region, c.Off, c.HeadLen = CmdWrite, dst, r.region, rec, recSignal
	c.Signal, c.SigOff = layout.Signal(r.seq, adv), rec+recSignal
	layout.PutMeta(c.Head[:recMeta], kind, flags, tag, ctx, uint32(body), aux)
	switch {
	case body <= recInline:
		binary.LittleEndian.PutUint16(c.Head[recEnd:], 1)
		b := c.Head[recMeta:]
		*(*[MaxHead - recMeta]byte)(b) = [MaxHead - recMeta]byte{} // no stale bytes of an earlier command in the padding
		if len(ctl) > 0 {
			b = b[copy(b, ctl):]
		}
		copy(b, payload)
	case packed:
		// Meta and body, then the signal as the record's last word.
		binary.LittleEndian.PutUint16(c.Head[recEnd:], uint16(n/cell))
		c.HeadLen = uint8(recMeta + copy(c.Head[recMeta:], ctl))
		c.Data, c.SigOff = payload, rec+n-8
	}
	if kind != recEager && kind != recUnsolicited {
		e.stats.ControlSent++
	}
	if e.pm {
		e.addWork(WorkSend, 1)
	}
	r.head += adv
	return true
}

// refreshTail reads dst's consumer count, unless a read is in flight.
func (e *Engine) refreshTail(dst int) {
	p := &e.peers[dst]
	if p.tailPending {
		return
	}
	p.tailPending = true
	e.stats.TailReads++
	e.emit(&Command{Kind: CmdRead, Peer: dst, Region: p.out.region, Off: 0, Data: p.tailBuf[:], Token: token(tokTail, uint64(dst))})
}

func (e *Engine) onTail(dst int, ev Event) {
	p := &e.peers[dst]
	p.tailPending = false
	if ev.Kind == EvError {
		e.fail(fmt.Errorf("llc: reading the ring consumer count of process %d: %w", dst, ev.Err))
		return
	}
	if t := binary.LittleEndian.Uint64(p.tailBuf[:]); t > p.out.tail && t <= p.out.head {
		p.out.tail = t
	}
}

// The records, rings and lines the engine writes and a receiver reads
// have their format in package layout; these are the engine's names for
// it.
const (
	ringCtl   = layout.RingCtl
	ringLine  = layout.RingLine
	cell      = layout.Cell
	recMeta   = layout.RecMeta
	recInline = layout.RecInline
	recSignal = layout.RecSignal
	recHeader = layout.RecHeader
	recEnd    = layout.RecEnd
)

// Record kinds.
const (
	recEager uint8 = iota + 1 // payload is the message
	recRTS                    // rendezvous request to send
	recCTS                    // rendezvous clear to send (write variant)
	recFIN                    // rendezvous finished
	recWrap  = layout.KindWrap
)

// meta is the fixed part of a record after the signal word.
type meta struct {
	kind   uint8
	flags  uint8 // flagSync
	tag    int32
	ctx    uint32
	length uint32 // payload length (eager) or message length (RTS)
	aux    uint64 // rendezvous ids; the send id of a synchronous eager message
}

func (m *meta) put(b []byte) { layout.PutMeta(b, m.kind, m.flags, m.tag, m.ctx, m.length, m.aux) }

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.flags = b[1]
	m.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	m.ctx = binary.LittleEndian.Uint32(b[8:])
	m.length = binary.LittleEndian.Uint32(b[12:])
	m.aux = binary.LittleEndian.Uint64(b[16:])
}

// outRing is the sender's view of a ring it writes into.
type outRing struct {
	region RegionID
	size   uint64 // bytes of record space
	head   uint64 // bytes produced
	tail   uint64 // consumer count last read
	seq    uint32
}

func (r *outRing) free() uint64 { return r.size - (r.head - r.tail) }

// reserve finds room for a record of n bytes. It returns the data offset of
// the record and whether a wrap marker must be written first at wrapAt.
func (r *outRing) reserve(n uint64) (at uint64, wrap bool, wrapAt uint64, ok bool) {
	pos := r.head & (r.size - 1)
	need := n
	if pos+n > r.size {
		need += r.size - pos
		wrap = true
	}
	if need > r.free() {
		return 0, false, 0, false
	}
	if wrap {
		return 0, true, pos, true
	}
	return pos, false, 0, true
}

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
