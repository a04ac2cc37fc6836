package llc

import (
	"encoding/binary"
	"fmt"
)

// Rendezvous for messages above the eager limit.
//
// Pull (RDMA read): the sender registers its buffer and sends RTS(length,
// region); the receiver, once matched, reads the data straight into the
// user buffer and sends FIN; the sender releases the registration and
// completes.
//
// Push (RDMA write): the sender sends RTS(length); the receiver, once
// matched, registers its buffer and sends CTS(region, granted bytes); the
// sender writes the data and sends PUT; the receiver releases and completes.
//
// Split (both): as pull, but the receiver also registers its buffer and
// grants it with CTS(region, granted, split point, which part the sender
// writes); it reads one half while the sender writes the other and sends
// PUT; the receiver sends FIN when its read is done. Each side completes
// when both halves are done. Messages below SplitMin are read whole. Of
// two processes, the higher-ranked always copies the leading half and the
// lower-ranked the trailing one, whichever sends (splitLeads): a buffer
// that the two pass back and forth (a broadcast's with its root going
// round, a ping-pong's in place) keeps each half in the caches of the
// core that copies it, where a fixed assignment made each half written
// by one core read next by the other (splitLeads).
//
// Exchange: a receiver of a pull or split RTS of Config.ExchangePush
// bytes or more, up to ExchangePushMax, that is itself sending a
// rendezvous message to the same process (both sides of a Sendrecv, an
// Alltoall's pairs) answers as in push instead: it registers its buffer and grants it whole with CTS
// (split point 0); the sender writes and sends PUT, releases the buffer
// it registered for the read, and completes; the receiver completes on
// PUT: an exchange then moves faster written, while a one-way transfer
// is faster read or split. Above ExchangePushMax, such a receiver reads
// the message whole (pull) instead of splitting it: each process then
// copies its own receive, where the split has both copy half of each
// message for no more hands (docs/tuning.md, "The engine's rendezvous
// thresholds"). The sender must have started its send when the RTS is
// matched: MPI's Sendrecv and the collectives' exchanges start their
// sends before they post their receives.
//
// Control records travel through the same ring (or queue) as eager data, so a
// rendezvous message keeps its place in the non-overtaking order.

// recPUT tells a push-rendezvous receiver that its data was written.
const recPUT uint8 = recFIN + 1

// rts is the body of a request to send.
type rts struct {
	length uint64
	region RegionID
	mode   RndvMode
	sendID uint64 // from the record's aux field
}

func (r *rts) put(b []byte) int {
	binary.LittleEndian.PutUint64(b[0:], r.length)
	binary.LittleEndian.PutUint32(b[8:], uint32(r.region))
	b[12] = byte(r.mode)
	return rtsSize
}

// rtsSize is the encoded size of an rts.
const rtsSize = 13

func (r *rts) get(b []byte) error {
	if len(b) < rtsSize {
		return fmt.Errorf("an RTS record of %d bytes, not %d", len(b), rtsSize)
	}
	r.length = binary.LittleEndian.Uint64(b[0:])
	r.region = RegionID(binary.LittleEndian.Uint32(b[8:]))
	r.mode = RndvMode(b[12])
	return nil
}

func (e *Engine) newID() uint64 {
	e.nextID++
	return e.nextID
}

// SplitMin is the smallest message a split rendezvous divides between the
// two processes; smaller ones are read whole by the receiver.
const SplitMin = 256 << 10

// ConsumePullMax is the largest split rendezvous that a receive marked
// Consume reads whole: beyond it the split's two copiers win
// (docs/tuning.md, "The engine's rendezvous thresholds").
const ConsumePullMax = 512 << 10

// WholePullMax is the largest split rendezvous that a receive marked Whole
// reads whole.
const WholePullMax = 1 << 20

// ExchangePushMin is the smallest message of an exchange that moved
// faster written than read between processes sharing memory (see Exchange
// above): a value for Config.ExchangePush (package tuning).
const ExchangePushMin = 256 << 10

// ExchangePushMax is the largest message of an exchange that is written
// (see Exchange above): beyond it the split's two copiers win
// (docs/tuning.md, "The engine's rendezvous thresholds").
const ExchangePushMax = 512 << 10

// exchanging reports whether a rendezvous send to peer is in progress:
// a message from peer is then one side of an exchange.
func (e *Engine) exchanging(peer int) bool {
	for _, op := range e.rndvSends {
		if op.Peer == peer {
			return true
		}
	}
	return false
}

// splitPoint returns how many leading bytes of an n-byte split transfer the
// receiver reads: half, on a page boundary.
func splitPoint(n int) int {
	if n < SplitMin {
		return n
	}
	return n / 2 &^ 4095
}

func rndvReady(op *SendOp, mode RndvMode) bool {
	return mode == RndvPush || op.region != 0 || len(op.Data) == 0
}

// rndvSendStart registers the send buffer (pull) and records the op.
func (e *Engine) rndvSendStart(op *SendOp) {
	op.id = e.newID()
	e.rndvSends[op.id] = op
	e.stats.RndvSent++
	e.stats.BytesSent += uint64(len(op.Data))
	e.countRndvCopy(len(op.Data), false)
	op.split = e.cfg.Rendezvous == RndvSplit
	if e.cfg.Rendezvous != RndvPush {
		e.emit(&Command{Kind: CmdRegister, Peer: op.Peer, Data: op.Data, Token: token(tokRegSend, op.id)})
	}
}

func (e *Engine) onRegSend(id uint64, ev *Event) {
	op := e.rndvSends[id]
	if op == nil {
		// The send failed while its buffer was being registered.
		if ev.Kind == EvDone {
			e.emit(&Command{Kind: CmdRelease, Region: RegionID(ev.Value)})
		}
		return
	}
	if ev.Kind == EvError {
		delete(e.rndvSends, id)
		op.finish(fmt.Errorf("llc: registering a %d-byte send buffer: %w", len(op.Data), ev.Err))
		e.trySend(op.Peer)
		return
	}
	op.region = RegionID(ev.Value)
	e.trySend(op.Peer)
}

// dropRndvSend forgets a rendezvous send that failed before its RTS was
// sent, and releases its registered buffer.
func (e *Engine) dropRndvSend(op *SendOp) {
	delete(e.rndvSends, op.id)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
}

func (e *Engine) writeRTS(dst int, op *SendOp) bool {
	r := rts{length: uint64(len(op.Data)), region: op.region, mode: e.cfg.Rendezvous}
	var b [16]byte
	n := r.put(b[:])
	return e.writeRecord(dst, recRTS, 0, op.Tag, op.Ctx, op.id, b[:n], nil)
}

// rndvRecvStart begins receiving a matched rendezvous message.
func (e *Engine) rndvRecvStart(op *RecvOp, src int, tag int32, r *rts) {
	op.matched = true
	e.stats.RndvRecv++
	e.stats.BytesRecv += r.length
	n := min(r.length, uint64(len(op.Buf)))
	e.countRndvCopy(int(n), true)
	op.Status = Status{Source: src, Tag: tag, Len: int(r.length)}
	op.sendID = r.sendID
	id := e.newID()
	e.rndvRecvs[id] = op
	op.split, op.pulled, op.putDone, op.srcRegion = false, false, false, r.region
	if r.mode != RndvPush && e.cfg.ExchangePush > 0 && n >= uint64(e.cfg.ExchangePush) && n <= ExchangePushMax && e.exchanging(src) {
		// The sender takes a CTS without split point for its read
		// buffer (Exchange).
		r.mode = RndvPush
	}
	if r.mode == RndvSplit && (op.Consume && n <= ConsumePullMax || op.Whole && n <= WholePullMax) {
		r.mode = RndvPull // into this process's caches, for the reader
	}
	if r.mode == RndvSplit && e.cfg.ExchangePush > 0 && n > ExchangePushMax && e.exchanging(src) {
		r.mode = RndvPull // each process copies its own receive (see Exchange above)
	}
	if r.mode == RndvSplit {
		if n < SplitMin {
			r.mode = RndvPull // the sender takes a FIN without CTS as the end
		} else {
			op.split = true
		}
	}
	switch {
	case r.mode == RndvPull && n == 0:
		e.finishRecvPull(id, op, nil)
	case r.mode == RndvPull:
		e.emit(&Command{Kind: CmdRead, Peer: src, Region: r.region, Data: op.Buf[:n], Token: token(tokPullDone, id)})
	case n == 0:
		e.grant(id, op, 0, 0, 0, false)
	default:
		e.emit(&Command{Kind: CmdRegister, Peer: src, Data: op.Buf[:n], Token: token(tokRegRecv, id)})
	}
}

func (e *Engine) onPullDone(id uint64, ev *Event) {
	op := e.rndvRecvs[id]
	if op == nil {
		return
	}
	var err error
	if ev.Kind == EvError {
		err = fmt.Errorf("llc: reading a %d-byte message from process %d: %w", op.Status.Len, op.Status.Source, ev.Err)
	}
	if op.split {
		// Tell the sender its buffer is no longer read; complete once its
		// PUT has come too.
		op.pulled = true
		if err != nil && op.err == nil {
			op.err = err
		}
		e.queueControl(op.Status.Source, recFIN, op.sendID, nil)
		if op.putDone {
			e.finishRecvSplit(id, op)
		}
		return
	}
	e.finishRecvPull(id, op, err)
}

// finishRecvSplit completes a split receive whose read and PUT are done.
func (e *Engine) finishRecvSplit(id uint64, op *RecvOp) {
	delete(e.rndvRecvs, id)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
	err := op.err
	if err == nil {
		err = truncation(op.Status.Source, op.Status.Tag, op.Status.Len, len(op.Buf))
	}
	op.finish(err)
	e.countTrunc(op)
}

// finishRecvPull tells the sender it may complete, then completes op.
func (e *Engine) finishRecvPull(id uint64, op *RecvOp, err error) {
	delete(e.rndvRecvs, id)
	e.queueControl(op.Status.Source, recFIN, op.sendID, nil)
	if err == nil {
		err = truncation(op.Status.Source, op.Status.Tag, op.Status.Len, len(op.Buf))
	}
	op.finish(err)
	e.countTrunc(op)
}

func (e *Engine) onRegRecv(id uint64, ev *Event) {
	op := e.rndvRecvs[id]
	if op == nil {
		return
	}
	n := min(op.Status.Len, len(op.Buf))
	if ev.Kind == EvError {
		err := fmt.Errorf("llc: registering a %d-byte receive buffer: %w", len(op.Buf), ev.Err)
		if op.split || op.srcRegion != 0 {
			// Read it all instead, as in a pull rendezvous: the sender
			// registered its buffer (split, or pull answered by push).
			op.split = false
			e.emit(&Command{Kind: CmdRead, Peer: op.Status.Source, Region: op.srcRegion, Data: op.Buf[:n], Token: token(tokPullDone, id)})
			return
		}
		// Grant nothing, so the sender still completes; report the error.
		op.err = err
		e.grant(id, op, 0, 0, 0, false)
		return
	}
	op.region = RegionID(ev.Value)
	if !op.split {
		e.grant(id, op, op.region, n, 0, false)
		return
	}
	k := splitPoint(n)
	lead := splitLeads(op.Status.Source, e.cfg.Self)
	e.grant(id, op, op.region, n, k, lead)
	from, to := 0, k // the part this process reads
	if lead {
		from, to = k, n
	}
	e.emit(&Command{Kind: CmdRead, Peer: op.Status.Source, Region: op.srcRegion, Off: uint64(from), Data: op.Buf[from:to], Token: token(tokPullDone, id)})
}

// splitLeads reports whether the sender of a split rendezvous from process
// src to process dst writes the leading part of the message (the receiver
// reading the rest), or the trailing part: the higher-ranked of the two
// always copies the leading part, whichever of them sends, so that a
// buffer passed back and forth has each half copied by one core
// (docs/tuning.md, "The engine's rendezvous thresholds").
func splitLeads(src, dst int) bool { return src > dst }

// cts is the body of a clear to send: the receive operation, the receive
// buffer's region, the bytes granted and, for a split rendezvous, the
// split point: the sender writes from it to the end, or, with lead, up
// to it. Sizes and offsets are 64-bit, so that messages of 4 GiB and more
// are granted whole.
type cts struct {
	recvID       uint64
	region       RegionID
	grant, split uint64
	lead         bool
}

// ctsSize is the encoded size of a cts.
const ctsSize = 29

func (c *cts) put(b []byte) int {
	binary.LittleEndian.PutUint64(b[0:], c.recvID)
	binary.LittleEndian.PutUint32(b[8:], uint32(c.region))
	binary.LittleEndian.PutUint64(b[12:], c.grant)
	binary.LittleEndian.PutUint64(b[20:], c.split)
	b[28] = 0
	if c.lead {
		b[28] = 1
	}
	return ctsSize
}

func (c *cts) get(b []byte) error {
	if len(b) < ctsSize {
		return fmt.Errorf("a CTS record of %d bytes, not %d", len(b), ctsSize)
	}
	c.recvID = binary.LittleEndian.Uint64(b[0:])
	c.region = RegionID(binary.LittleEndian.Uint32(b[8:]))
	c.grant = binary.LittleEndian.Uint64(b[12:])
	c.split = binary.LittleEndian.Uint64(b[20:])
	c.lead = b[28] != 0
	return nil
}

// grant sends CTS: the receive buffer's region, the bytes granted, and for
// a split rendezvous the split point and whether the sender writes the
// part before it (lead) or after it.
func (e *Engine) grant(id uint64, op *RecvOp, region RegionID, n, split int, lead bool) {
	var b [ctsSize]byte
	c := cts{recvID: id, region: region, grant: uint64(n), split: uint64(split), lead: lead}
	e.queueControl(op.Status.Source, recCTS, op.sendID, b[:c.put(b[:])])
}

func (e *Engine) onCTS(src int, sendID uint64, body []byte) {
	op := e.rndvSends[sendID]
	if op == nil {
		e.fail(fmt.Errorf("llc: CTS from process %d for unknown send %d", src, sendID))
		return
	}
	var c cts
	if err := c.get(body); err != nil {
		e.fail(fmt.Errorf("llc: corrupt record from process %d: %w", src, err))
		return
	}
	if c.grant > uint64(len(op.Data)) || c.split > c.grant {
		e.fail(fmt.Errorf("llc: CTS from process %d grants %d bytes from %d of a %d-byte message", src, c.grant, c.split, len(op.Data)))
		return
	}
	op.recvID, op.grant = c.recvID, int(c.grant)
	if op.split && c.split == 0 {
		op.split = false // the receiver reads nothing: push (Exchange)
	}
	from, to := 0, op.grant // the part this process writes
	switch {
	case op.split && c.lead:
		to = int(c.split)
	case op.split:
		from = int(c.split)
	}
	if from >= to {
		e.finishSendPush(op, nil)
		return
	}
	op.pushing = true
	e.emit(&Command{Kind: CmdWrite, Peer: src, Region: c.region, Off: uint64(from), Data: op.Data[from:to], Token: token(tokPushDone, sendID)})
}

func (e *Engine) onPushDone(id uint64, ev *Event) {
	op := e.rndvSends[id]
	if op == nil {
		return
	}
	var err error
	if ev.Kind == EvError {
		err = fmt.Errorf("llc: writing a %d-byte message to process %d: %w", op.grant, op.Peer, ev.Err)
	}
	e.finishSendPush(op, err)
}

func (e *Engine) finishSendPush(op *SendOp, err error) {
	var failed []byte
	if err != nil {
		failed = putFailed[:] // the receiver must not take the buffer as written
	}
	e.queueControl(op.Peer, recPUT, op.recvID, failed)
	if op.split {
		op.pushing = false
		if err != nil && op.err == nil {
			op.err = err
		}
		if op.finned {
			e.finishSendSplit(op)
		}
		return
	}
	delete(e.rndvSends, op.id)
	if op.region != 0 {
		// A pull send answered by push (Exchange): nobody reads it now.
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
	op.finish(err)
}

// finishSendSplit completes a split send whose write and FIN are done.
func (e *Engine) finishSendSplit(op *SendOp) {
	delete(e.rndvSends, op.id)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
	op.finish(op.err)
}

// putFailed is the body of a PUT whose data write failed; a PUT after a
// successful write has none.
var putFailed = [1]byte{1}

// onFIN completes a pull-rendezvous send.
func (e *Engine) onFIN(sendID uint64) {
	op := e.rndvSends[sendID]
	if op == nil {
		e.fail(fmt.Errorf("llc: FIN for unknown send %d", sendID))
		return
	}
	if op.split && op.pushing {
		op.finned = true // complete when the write is done
		return
	}
	if op.split {
		e.finishSendSplit(op)
		return
	}
	delete(e.rndvSends, sendID)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
	op.finish(nil)
}

// onPUT completes a push-rendezvous receive.
func (e *Engine) onPUT(src int, recvID uint64, body []byte) {
	op := e.rndvRecvs[recvID]
	if op == nil {
		e.fail(fmt.Errorf("llc: PUT for unknown receive %d", recvID))
		return
	}
	if op.split {
		if len(body) > 0 && body[0] != 0 && op.err == nil {
			op.err = fmt.Errorf("llc: process %d failed to write its part of a %d-byte message", src, op.Status.Len)
		}
		op.putDone = true
		if op.pulled {
			e.finishRecvSplit(recvID, op)
		}
		return
	}
	delete(e.rndvRecvs, recvID)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Region: op.region})
		op.region = 0
	}
	err := op.err
	if err == nil && len(body) > 0 && body[0] != 0 {
		err = fmt.Errorf("llc: process %d failed to write a %d-byte message into the receive buffer", src, op.Status.Len)
	}
	if err == nil {
		err = truncation(op.Status.Source, op.Status.Tag, op.Status.Len, len(op.Buf))
	}
	op.finish(err)
	e.countTrunc(op)
}
