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
// Control records travel through the same ring as eager data, so a
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
	return 13
}

func (r *rts) get(b []byte) {
	r.length = binary.LittleEndian.Uint64(b[0:])
	r.region = RegionID(binary.LittleEndian.Uint32(b[8:]))
	r.mode = RndvMode(b[12])
}

func (e *Engine) newID() uint64 {
	e.nextID++
	return e.nextID
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
	if e.cfg.Rendezvous == RndvPull {
		e.emit(&Command{Kind: CmdRegister, Peer: e.cfg.Self, Data: op.Data, Token: token(tokRegSend, op.id)})
	}
}

func (e *Engine) onRegSend(id uint64, ev Event) {
	op := e.rndvSends[id]
	if op == nil {
		// The send failed while its buffer was being registered.
		if ev.Kind == EvDone {
			e.emit(&Command{Kind: CmdRelease, Peer: e.cfg.Self, Region: RegionID(ev.Value)})
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
		e.emit(&Command{Kind: CmdRelease, Peer: e.cfg.Self, Region: op.region})
		op.region = 0
	}
}

func (e *Engine) writeRTS(dst int, op *SendOp) bool {
	r := rts{length: uint64(len(op.Data)), region: op.region, mode: e.cfg.Rendezvous}
	var b [16]byte
	n := r.put(b[:])
	return e.writeRecord(dst, recRTS, op.Tag, op.Ctx, op.id, b[:n], nil)
}

// rndvRecvStart begins receiving a matched rendezvous message.
func (e *Engine) rndvRecvStart(op *RecvOp, src int, tag int32, r *rts) {
	e.stats.RndvRecv++
	e.stats.BytesRecv += r.length
	n := min(r.length, uint64(len(op.Buf)))
	op.Status = Status{Source: src, Tag: tag, Len: int(r.length)}
	op.sendID = r.sendID
	id := e.newID()
	e.rndvRecvs[id] = op
	switch {
	case r.mode == RndvPull && n == 0:
		e.finishRecvPull(id, op, nil)
	case r.mode == RndvPull:
		e.emit(&Command{Kind: CmdRead, Peer: src, Region: r.region, Data: op.Buf[:n], Token: token(tokPullDone, id)})
	case n == 0:
		e.grant(id, op, 0, 0)
	default:
		e.emit(&Command{Kind: CmdRegister, Peer: e.cfg.Self, Data: op.Buf[:n], Token: token(tokRegRecv, id)})
	}
}

func (e *Engine) onPullDone(id uint64, ev Event) {
	op := e.rndvRecvs[id]
	if op == nil {
		return
	}
	var err error
	if ev.Kind == EvError {
		err = fmt.Errorf("llc: reading a %d-byte message from process %d: %w", op.Status.Len, op.Status.Source, ev.Err)
	}
	e.finishRecvPull(id, op, err)
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

func (e *Engine) onRegRecv(id uint64, ev Event) {
	op := e.rndvRecvs[id]
	if op == nil {
		return
	}
	if ev.Kind == EvError {
		// Grant nothing, so the sender still completes; report the error.
		op.err = fmt.Errorf("llc: registering a %d-byte receive buffer: %w", len(op.Buf), ev.Err)
		e.grant(id, op, 0, 0)
		return
	}
	op.region = RegionID(ev.Value)
	e.grant(id, op, op.region, min(op.Status.Len, len(op.Buf)))
}

// grant sends CTS for a push rendezvous.
func (e *Engine) grant(id uint64, op *RecvOp, region RegionID, n int) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint32(b[8:], uint32(region))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	e.queueControl(op.Status.Source, recCTS, op.sendID, b[:])
}

func (e *Engine) onCTS(src int, sendID uint64, body []byte) {
	op := e.rndvSends[sendID]
	if op == nil {
		e.fail(fmt.Errorf("llc: CTS from process %d for unknown send %d", src, sendID))
		return
	}
	op.recvID = binary.LittleEndian.Uint64(body[0:])
	region := RegionID(binary.LittleEndian.Uint32(body[8:]))
	op.grant = int(binary.LittleEndian.Uint32(body[12:]))
	if op.grant == 0 {
		e.finishSendPush(op, nil)
		return
	}
	e.emit(&Command{Kind: CmdWrite, Peer: src, Region: region, Data: op.Data[:op.grant], Token: token(tokPushDone, sendID)})
}

func (e *Engine) onPushDone(id uint64, ev Event) {
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
	delete(e.rndvSends, op.id)
	var failed []byte
	if err != nil {
		failed = putFailed[:] // the receiver must not take the buffer as written
	}
	e.queueControl(op.Peer, recPUT, op.recvID, failed)
	op.finish(err)
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
	delete(e.rndvSends, sendID)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Peer: e.cfg.Self, Region: op.region})
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
	delete(e.rndvRecvs, recvID)
	if op.region != 0 {
		e.emit(&Command{Kind: CmdRelease, Peer: e.cfg.Self, Region: op.region})
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
