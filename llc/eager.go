package llc

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/rhinet-go/martini/llc/layout"
)

// The eager protocol, sending side: a send up to the eager limit is one
// record (meta, then the payload, then the signal word) that the engine
// writes into the peer's ring, or into the pair's shared line when it is
// free, and that completes the send at once (a synchronous one on its
// receiver's acknowledgement). Control records travel the same way. The
// receiving side is in match.go, the record format in package layout.

// EagerMode selects the eager transport: how eager messages and every
// control record (RTS, CTS, FIN, PUT, unsolicited messages) travel.
type EagerMode uint8

// Eager transports.
const (
	// EagerRings: a ring per sender, granted by the receiver on the
	// sender's first contact (lazy connection), records packed in 64-byte
	// cells (after Liu, Wu and Panda). The default.
	EagerRings EagerMode = iota
	// EagerPM: PM/RHiNET (thesis 8.3): the same per-sender rings, but
	// every process connects to every process when its engine starts,
	// every record starts at a PMAlign-aligned position of its ring, the
	// receiver checks every inbound ring on every poll, and the host work
	// of PM's library calls is reported (see HostCharger).
	EagerPM
	// EagerQueue: PM/RHiNET-VP (thesis 8.4): no rings; every process has
	// one receive queue (CmdAllocQueue) into which every sender enqueues
	// its records (CmdEnqueue), so a poll checks one place however many
	// peers there are. Records are at most MaxRecord bytes; a larger
	// eager message travels as several records (parts.go), up to
	// MaxQueueEagerLimit. Host work is reported.
	EagerQueue
)

func (m EagerMode) String() string {
	switch m {
	case EagerRings:
		return "rings"
	case EagerPM:
		return "pm"
	case EagerQueue:
		return "queue"
	}
	return fmt.Sprintf("EagerMode(%d)", m)
}

// WorkCounts counts host work of the PM message layers, indexed by
// HostWork. Only EagerPM and EagerQueue count; a Ready batch reports the
// work done since the last batch, for a driver whose transport is a
// HostCharger to charge.
type WorkCounts [WorkZero + 1]int

// send starts op. An eager send completes before send returns whenever the
// connection exists and the ring has room; otherwise op completes during a
// later Poll or Step.
func (e *Engine) send(op *SendOp, unsolicited bool) {
	op.done, op.err, op.region, op.id, op.unsolicited, op.events, op.cancelled = false, nil, 0, 0, unsolicited, nil, false
	op.withdrawn = false
	if op.Notify {
		op.events = &e.events
	}
	if e.err != nil {
		op.finish(e.err)
		return
	}
	if op.Peer < 0 || op.Peer >= e.cfg.Size {
		op.finish(fmt.Errorf("llc: send to process %d: only %d processes", op.Peer, e.cfg.Size))
		return
	}
	if unsolicited && len(op.Data) > e.cfg.EagerLimit {
		op.finish(e.unsolicitedTooLarge(op))
		return
	}
	p := &e.peers[op.Peer]
	if e.sendsEager(op, unsolicited) {
		if op.awaitsAck() {
			e.startSync(op)
		}
		if p.conn == connUp && p.q.n == 0 && !e.inParts(op) && e.writeEager(op.Peer, op) {
			return
		}
		p.enqueue(outItem{op: op})
	} else {
		e.rndvSendStart(op)
		p.enqueue(outItem{op: op, rndv: true})
	}
	if p.q.n == 1 {
		e.blocked++
	}
	e.trySend(op.Peer)
}

// submitSend is Submit of a send: through the line when it can go there
// at once, else send's way. Endpoint.Send calls it directly, without
// Submit's dispatch on the operation's type.
func (e *Engine) submitSend(op *SendOp) {
	if !e.sendLine(op) && !e.sendRing(op) {
		e.send(op, false)
	}
}

// sendLine sends op through the pair's shared line when it can go there
// at once, as a host's small messages mostly do: send's, writeEager's and
// writeRecord's tests in one, without their cases for what a line record
// never is (synchronous, notifying, in parts, behind queued records). It
// reports false, having changed nothing, when op must go send's way.
func (e *Engine) sendLine(op *SendOp) bool {
	if uint(op.Peer) >= uint(len(e.peers)) {
		return false
	}
	// The line's state first: where it is busy (a stream, in one
	// direction) the send goes send's way after a test or two.
	p := &e.peers[op.Peer]
	n := len(op.Data)
	if !p.line.free() || n > e.lineLimit || op.Sync || op.Notify || op.Rendezvous {
		return false
	}
	r := &p.out
	if p.conn != connUp || p.q.n != 0 || !r.fits(cell) || r.seq >= math.MaxUint32-1 {
		return false
	}
	op.done, op.region, op.id, op.unsolicited, op.cancelled, op.withdrawn = true, 0, 0, false, false, false
	if op.err != nil || op.events != nil { // pointers: stored only when they must change
		op.err, op.events = nil, nil
	}
	p.full = false
	r.seq++
	r.head += cell
	// writeLine's work, in line: a call costs the message a tenth of
	// what this function does.
	l := &p.line
	l.seq = r.seq
	l.sent++
	c := e.sched.next()
	c.Kind, c.Peer, c.Region, c.Off, c.HeadLen, c.Data, c.Token = CmdWriteLine, op.Peer, l.region, l.out, lineSig, nil, 0
	l.meta = lineMeta(recEager, 0, n)
	c.Signal, c.SigOff, c.Size, c.Old, c.New = uint64(r.seq)<<32|uint64(uint8(l.recv))<<24|uint64(l.meta), l.out+lineSig, l.inPeer, 0, 0
	h := c.Head[:lineSig]
	binary.LittleEndian.PutUint64(h[0:], uint64(uint32(op.Tag))|uint64(op.Ctx)<<32)
	if n == 8 { // the commonest, without halfWords' call
		binary.LittleEndian.PutUint64(h[8:], binary.LittleEndian.Uint64(op.Data))
		binary.LittleEndian.PutUint64(h[16:], 0)
	} else {
		w0, w1 := halfWords(op.Data[:min(n, lineHalfBody)])
		binary.LittleEndian.PutUint64(h[8:], w0)
		binary.LittleEndian.PutUint64(h[16:], w1)
		if n > lineHalfBody {
			c.Data = op.Data[lineHalfBody:]
		}
	}
	e.stats.CommandsIssued++
	e.stats.LineSent++
	e.stats.EagerSent++
	e.stats.BytesSent += uint64(n)
	return true
}

// sendRing sends op into the peer's ring as one packed record when it
// can go there at once and not into the line: the small messages of a
// stream, whose line awaits its acknowledgement, and those too long for
// the line, up to ringLimit. It is send's, writeEager's and writeRecord's
// tests in one, as sendLine is, and reports false, having changed
// nothing, when op must go send's way.
func (e *Engine) sendRing(op *SendOp) bool {
	n := len(op.Data)
	if uint(op.Peer) >= uint(len(e.peers)) || n > e.ringLimit || op.Sync || op.Notify || op.Rendezvous {
		return false
	}
	p := &e.peers[op.Peer]
	size := layout.PackedSize(n)
	r := &p.out
	if p.conn != connUp || p.q.n != 0 || !r.fits(size) || n <= lineBody && p.line.free() {
		return false
	}
	op.done, op.region, op.id, op.unsolicited, op.cancelled, op.withdrawn = true, 0, 0, false, false, false
	if op.err != nil || op.events != nil {
		op.err, op.events = nil, nil
	}
	p.full = false
	r.seq++
	rec := ringCtl + r.head&(r.size-1)
	r.head += size
	// writeRecord's command, built in place: every field a CmdWrite is
	// read for is set.
	c := e.sched.next()
	c.Kind, c.Peer, c.Region, c.Off, c.Token, c.Signal = CmdWrite, op.Peer, r.region, rec, 0, layout.Signal(r.seq, size)
	layout.PutMeta(c.Head[:recMeta], recEager, 0, op.Tag, op.Ctx, uint32(n), 0)
	if n == 8 { // the commonest: putPacked's record of one cell, without copy's call
		binary.LittleEndian.PutUint16(c.Head[recEnd:], 1)
		b := (*[MaxHead - recMeta]byte)(c.Head[recMeta:])
		binary.LittleEndian.PutUint64(b[:], binary.LittleEndian.Uint64(op.Data))
		*(*[MaxHead - recMeta - 8]byte)(b[8:]) = [MaxHead - recMeta - 8]byte{}
		if c.Data != nil { // a recycled command's: a load, where a store costs the write barrier's test
			c.Data = nil
		}
		c.HeadLen, c.SigOff = recSignal, rec+recSignal
	} else {
		putPacked(c, rec, size, nil, op.Data)
	}
	e.stats.CommandsIssued++
	e.stats.EagerSent++
	e.stats.BytesSent += uint64(n)
	return true
}

// putPacked completes c, the command of a packed ring record of n bytes
// at rec whose meta is in place, with its body, ctl then payload: inline
// after the meta in a record of one cell, zero up to the signal that ends
// the cell, else the command's data, the signal the record's last word.
func putPacked(c *Command, rec, n uint64, ctl, payload []byte) {
	binary.LittleEndian.PutUint16(c.Head[recEnd:], uint16(n/cell))
	if len(ctl)+len(payload) > recInline {
		c.HeadLen = uint8(recMeta + copy(c.Head[recMeta:], ctl))
		c.Data, c.SigOff = payload, rec+n-8
		return
	}
	b := c.Head[recMeta:]
	*(*[MaxHead - recMeta]byte)(b) = [MaxHead - recMeta]byte{} // no stale bytes of an earlier command in the padding
	copy(b[copy(b, ctl):], payload)
	c.HeadLen, c.Data, c.SigOff = recSignal, nil, rec+recSignal
}

// packedBody is the longest body of a packed record of at most limit
// bytes: at least what one cell carries, which is always packed.
func packedBody(limit int) int {
	return max(recInline, limit/cell*cell-recHeader)
}

// sendsEager reports whether op goes by the eager path: up to the eager
// limit unless it asks for a rendezvous, up to EagerHintLimit to a ring
// peer if it asks for the eager path, at any size without rendezvous
// (Config.NoRendezvous). Unsolicited sends are eager (send has refused
// those above the limit).
func (e *Engine) sendsEager(op *SendOp, unsolicited bool) bool {
	n := len(op.Data)
	switch {
	case unsolicited, e.cfg.NoRendezvous:
		return true
	case op.Rendezvous:
		return false
	case n <= e.cfg.EagerLimit:
		return true
	}
	return op.Eager && n <= e.cfg.EagerHintLimit && e.cfg.Eager == EagerRings && !e.queuePeer(op.Peer)
}

// writeEager writes an eager send into dst's ring and completes it (a
// synchronous one once it is acknowledged).
func (e *Engine) writeEager(dst int, op *SendOp) bool {
	kind := recEager
	if op.unsolicited {
		kind = recUnsolicited
	}
	flags, aux := syncFlags(op)
	if !e.writeRecord(dst, kind, flags, op.Tag, op.Ctx, aux, nil, op.Data) {
		return false
	}
	e.stats.EagerSent++
	e.stats.BytesSent += uint64(len(op.Data))
	e.eagerWritten(op)
	return true
}

// Synchronous sends (MPI_Ssend): the send completes only once the receiver
// has matched the message to a receive.
//
// A rendezvous send completes so anyway (its FIN or PUT follows the
// match), so above the eager limit nothing changes. An eager record of a
// synchronous send carries flagSync and the send's id in its aux field;
// the receiver answers with a recSyncAck record naming that id when the
// message matches a receive (on arrival, on a later Recv, or when Mprobe
// takes it), and the sender completes the op then. The acknowledgement
// travels behind the receiver's earlier records to the sender, through
// the same ring or queue as every control record.

// recSyncAck acknowledges a synchronous eager message; aux is the send id.
const recSyncAck uint8 = recUnsolicited + 1

// flagSync marks the eager record of a synchronous send (meta.flags).
const flagSync uint8 = 1

// startSync gives a synchronous eager send its id and keeps it until its
// acknowledgement.
func (e *Engine) startSync(op *SendOp) {
	op.id = e.newID()
	e.syncSends[op.id] = op
}

// eagerWritten completes an eager send whose record was written, unless it
// is synchronous: that one waits for its acknowledgement.
func (e *Engine) eagerWritten(op *SendOp) {
	if !op.awaitsAck() {
		op.finish(nil)
	}
}

// syncFlags returns the flags and aux field of op's eager record.
func syncFlags(op *SendOp) (flags uint8, aux uint64) {
	if op.awaitsAck() {
		return flagSync, op.id
	}
	return 0, 0
}

// awaitsAck reports whether op is an eager send that completes on its
// receiver's acknowledgement: a synchronous one (unsolicited messages
// match no receive, so Sync does not apply to them).
func (s *SendOp) awaitsAck() bool { return s.Sync && !s.unsolicited }

// syncID returns the send id a record asks to acknowledge, or 0.
func syncID(m *meta) uint64 {
	if m.flags&flagSync != 0 {
		return m.aux
	}
	return 0
}

// ackSync tells src that its synchronous message id has matched a
// receive; id 0 (not synchronous) sends nothing.
func (e *Engine) ackSync(src int, id uint64) {
	if id != 0 {
		e.queueControl(src, recSyncAck, id, nil)
	}
}

// onSyncAck completes the synchronous send that src acknowledged.
func (e *Engine) onSyncAck(src int, id uint64) {
	op := e.syncSends[id]
	if op == nil {
		e.fail(fmt.Errorf("llc: acknowledgement from process %d for unknown synchronous send %d", src, id))
		return
	}
	delete(e.syncSends, id)
	op.finish(nil)
}

// dropSync forgets a synchronous eager send that will never be sent (it
// failed or was cancelled while queued).
func (e *Engine) dropSync(op *SendOp) {
	if op.awaitsAck() && e.syncSends[op.id] == op {
		delete(e.syncSends, op.id)
	}
}

// writeRecord emits the commands that put one record into dst's ring: the
// meta (kind, flags, tag, ctx, aux) and payload, then the signal word; a
// packed record is one command. It returns false when the ring has no
// room.
func (e *Engine) writeRecord(dst int, kind, flags uint8, tag int32, ctx uint32, aux uint64, ctl, payload []byte) bool {
	p := &e.peers[dst]
	r := &p.out
	body := len(ctl) + len(payload)
	// A line record's sequence number is never 0, which reads as an empty
	// half; a wrap marker may take a number before it.
	line := body <= lineBody && len(ctl) <= lineHalfBody && aux == 0 && p.line.free() && r.seq < math.MaxUint32-1
	if line && r.fits(cell) {
		// A line record whose cell needs no wrap marker before it: every
		// message of a ping-pong, without the general reservation.
		p.full = false
		r.seq++
		e.writeLine(dst, r.seq, kind, flags, tag, ctx, ctl, payload)
		r.head += cell
		return true
	}
	n, adv, packed := e.recordSize(body, line)
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
		c := e.command()
		c.Kind, c.Peer, c.Region, c.Signal, c.SigOff = CmdWrite, dst, r.region, layout.WrapWord(r.seq), ringCtl+wrapAt
		r.head += r.size - wrapAt
	}
	r.seq++
	if line {
		e.writeLine(dst, r.seq, kind, flags, tag, ctx, ctl, payload)
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
	if packed {
		putPacked(c, rec, n, ctl, payload)
	}
	e.countRecord(kind, flags, len(payload))
	r.head += adv
	return true
}

// recordSize returns the size n of a ring record of body bytes, the ring
// space adv it takes (n, or PM/RHiNET's) and whether it is packed; a
// record whose body goes into the line keeps one cell.
func (e *Engine) recordSize(body int, line bool) (n, adv uint64, packed bool) {
	n, packed = cell, true
	if !line && body > recInline {
		n, packed = layout.RecordSize(body), false
		if ps := layout.PackedSize(body); ps <= uint64(e.cfg.PackedRecords) {
			n, packed = ps, true
		}
	}
	if e.pm {
		return n, pmRecordSize(n), packed
	}
	return n, n, packed
}

// countRecord counts a ring record of kind and flags and its payload of
// size bytes: a control record, and under PM/RHiNET the host's work and
// copy. The copy of a message in several records is counted whole, once
// (writeParts), as the receiver counts it and as the queue's sender does:
// whether a copy runs in the L2 depends on the whole message's buffers.
func (e *Engine) countRecord(kind, flags uint8, size int) {
	parts := kind == recPart || flags&flagParts != 0
	if kind != recEager && kind != recUnsolicited && !parts {
		e.stats.ControlSent++
	}
	if e.pm {
		e.addWork(WorkSend, 1)
		if !parts {
			e.addCopy(size)
		}
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

// metaTag, metaCtx and metaLength read one field of the meta at the
// start of b; metaSync reads the send's id of a synchronous one (syncID),
// whose flags are flags.
func metaTag(b []byte) int32     { return int32(binary.LittleEndian.Uint32(b[4:])) }
func metaCtx(b []byte) uint32    { return binary.LittleEndian.Uint32(b[8:]) }
func metaLength(b []byte) uint32 { return binary.LittleEndian.Uint32(b[12:]) }
func metaSync(flags uint8, b []byte) uint64 {
	if flags&flagSync != 0 {
		return binary.LittleEndian.Uint64(b[16:])
	}
	return 0
}

func (m *meta) get(b []byte) {
	m.kind = b[0]
	m.flags = b[1]
	m.tag = metaTag(b)
	m.ctx = metaCtx(b)
	m.length = metaLength(b)
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

// fits reports whether a record of n bytes fits at the ring's head
// without a wrap marker: reserve would return it at once.
func (r *outRing) fits(n uint64) bool {
	return r.head&(r.size-1)+n <= r.size && n <= r.free()
}

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
// little-endian words (layout.LineSignal):
//
//	[0, 8)   tag (low 32 bits), context (high 32 bits)
//	[8, 24)  the body's first 16 bytes
//	[24, 32) the signal: kind, flags and body length (a byte each), how
//	         many of the other process's line records this one has
//	         consumed, modulo 256 (its acknowledgement, a byte), and the
//	         record's sequence number (high 32 bits)
//
// The rest of a body longer than 16 bytes, up to a cache line of it, goes
// first into one of the writer's extensions (layout.LineExt): up to 32
// bytes into its half of a shared extension line, halved as the shared
// line is, a longer rest into a line of its own. Such a message costs
// the transfer of that line too, but not the ring's record and the NIC's
// work around it. The
// signal is written last. A line record takes its place in the
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
// a half, with a record or alone (a recLineAck), in an EvLine.
//
// A process that has written its half does not read the peer's for a
// short while, its quiet window (package llc/shm), so that the peer finds the
// line still in its own cache when it writes its answer.
const (
	lineBody     = layout.LineBody
	lineHalfBody = layout.LineHalfBody
	lineSig      = layout.LineSig
	recLineAck   = layout.KindLineAck // the receiver's report of an acknowledgement alone
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
	meta   uint32   // kind, flags and body length of the last record, where its signal has them
}

// lineMeta returns the kind, flags and body length of a line record in
// the bits of its signal word that hold them (layout.LineSignal).
func lineMeta(kind, flags uint8, length int) uint32 {
	return uint32(layout.LineSignal(0, kind, flags, length, 0))
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

// writeLine writes a record of at most lineBody bytes of body, of which
// at most lineHalfBody of ctl, and no aux into dst's line, which is free
// (lineState.free), instead of its ring: the body's first lineHalfBody
// bytes in the half, the rest as the command's Data, which goes into the
// extension line before the half. The caller has reserved the record's
// cell in the ring; seq is its sequence number.
func (e *Engine) writeLine(dst int, seq uint32, kind, flags uint8, tag int32, ctx uint32, ctl, payload []byte) {
	first := payload[:min(len(payload), lineHalfBody-len(ctl))]
	l := &e.peers[dst].line
	l.seq = seq
	l.sent++
	l.meta = lineMeta(kind, flags, len(ctl)+len(payload))
	// Built in place without alloc's zeroing: every field a CmdWriteLine
	// is read for is set.
	c := e.sched.next()
	c.Kind, c.Peer, c.Region, c.Off, c.HeadLen, c.Data, c.Token = CmdWriteLine, dst, l.region, l.out, lineSig, payload[len(first):], 0
	c.Signal, c.SigOff, c.Size, c.Old, c.New = uint64(seq)<<32|uint64(uint8(l.recv))<<24|uint64(l.meta), l.out+lineSig, l.inPeer, 0, 0
	h := c.Head[:lineSig]
	binary.LittleEndian.PutUint64(h[0:], uint64(uint32(tag))|uint64(ctx)<<32)
	w0, w1 := lineWords(ctl, first)
	binary.LittleEndian.PutUint64(h[8:], w0)
	binary.LittleEndian.PutUint64(h[16:], w1)
	e.stats.CommandsIssued++
	e.stats.LineSent++
}

// free reports whether the line exists and its last record there has
// been acknowledged: a record may go into it.
func (l *lineState) free() bool { return l.ok && l.acked == l.sent }

// partialWord returns the little-endian word of b, fewer than 8 bytes,
// zero beyond them: in at most three loads, without a call to copy or a
// loop over the bytes.
func partialWord(b []byte) uint64 {
	var w uint64
	i := 0
	if len(b) >= 4 {
		w, i = uint64(binary.LittleEndian.Uint32(b)), 4
	}
	if len(b)-i >= 2 {
		w |= uint64(binary.LittleEndian.Uint16(b[i:])) << (8 * i)
		i += 2
	}
	if len(b)-i >= 1 {
		w |= uint64(b[i]) << (8 * i)
	}
	return w
}

// halfWords returns the two little-endian words of a half that carry b,
// the start of a line record's body (at most lineHalfBody bytes), zero
// beyond it: in word loads, without a call to copy, which costs more than
// the bytes here.
func halfWords(b []byte) (w0, w1 uint64) {
	switch {
	case len(b) == lineHalfBody:
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	case len(b) >= 8:
		return binary.LittleEndian.Uint64(b), partialWord(b[8:])
	}
	return partialWord(b), 0
}

// lineWords is halfWords of ctl then payload (at most lineHalfBody bytes
// together): a control record's start, gathered first where it has ctl.
func lineWords(ctl, payload []byte) (w0, w1 uint64) {
	if len(ctl) == 0 {
		return halfWords(payload)
	}
	var b [lineHalfBody]byte
	copy(b[copy(b[:], ctl):], payload)
	return binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])
}

// lineAck writes this process's acknowledgement of src's line records
// alone into its own half of their line, when a record arrived from src
// while this process's last record there still waits for src's
// acknowledgement (see the comment at the top; stepLine).
func (e *Engine) lineAck(src int) {
	l := &e.peers[src].line
	e.stats.LineAcks++
	c := e.command()
	c.Kind, c.Peer, c.Region, c.Off = CmdWriteLine, src, l.region, l.out
	c.Signal, c.SigOff, c.Size = uint64(l.seq)<<32|uint64(uint8(l.recv))<<24|uint64(l.meta), l.out+lineSig, l.inPeer
}
