package takeover

// The Replier (thesis l.1213) answers packets: an ack for a push that asked
// for one, pull-reply packets for a pull request (processed "like the
// Initiator processes a PUSH"). The thesis does not name its states; this
// package's are:
//
//	ack   IDLE -> RACK -> RSEND -> IDLE
//	pull  IDLE -> RPA -> RPA2 -> RDMA -> RWAIT -> RSEND -> IDLE
//	      (RDMA -> RPA for each further page of a reply packet, RSEND ->
//	      RPA for each further packet of a reply longer than the MTU)
//
// Exceptions: RPA2 (PATLB miss; firmware resumes at RPA), RWAIT (timeout
// waiting for the DMA reads). RACK is not suspendable (thesis l.2068).

func (m *Module) stepReplier(env Environment) outcome {
	r := &m.Regs.Replier
	p := &r.Packet
	switch m.state {
	case StateIdle:
		switch p.Type {
		case PacketPush:
			return goTo(StateRACK)
		case PacketPullRequest:
			if r.Length > 0 {
				return goTo(StateRPA)
			}
			return goTo(StateRSEND) // an empty pull: only the flag
		}
		return goTo(StateIdle) // nothing the Replier answers: dropped

	case StateRACK:
		if !p.Ack {
			return goTo(StateIdle)
		}
		r.Reply = Header{Type: PacketAck, SrcPGID: p.SrcPGID, SrcPID: r.PID, DstPID: p.SrcPID, AckVA: p.AckVA}
		return goTo(StateRSEND)

	case StateRPA:
		r.translate(env, p.SrcPGID, r.PID, r.VA, r.Length)
		return goTo(StateRPA2)

	case StateRPA2:
		if !r.TLBHit {
			return raise(CausePATLBMiss)
		}
		return goTo(StateRDMA)

	case StateRDMA:
		if r.readPiece(m, p.SrcPGID, r.PID) {
			return goTo(StateRPA)
		}
		return goTo(StateRWAIT)

	case StateRWAIT:
		if !env.DMADone(Replier) {
			return waitHere()
		}
		return goTo(StateRSEND)

	case StateRSEND:
		if p.Type != PacketPullRequest {
			m.effect(Effect{Op: EffectSendPacket, PGID: p.SrcPGID, PID: r.PID, Packet: r.Reply})
			return goTo(StateIdle)
		}
		m.sendPullReply()
		if r.Done < r.Length {
			return goTo(StateRPA)
		}
		return goTo(StateIdle)
	}
	return waitHere() // not a Replier state: the module hangs
}

// sendPullReply does RSEND's work for a pull: it sends the packet just
// read as a pull reply, which lands at the puller's reply address and,
// as the last one, carries the flag address that completes the pull, and
// moves the pull's progress past it.
func (m *Module) sendPullReply() {
	r := &m.Regs.Replier
	p := &r.Packet
	last := r.Done+r.PacketLen >= r.Length
	r.Reply = Header{Type: PacketPullReply, SrcPGID: p.SrcPGID, SrcPID: r.PID, DstPID: p.SrcPID,
		Length: r.PacketLen, MessageLength: r.Length, ReplyVA: p.ReplyVA + uint64(r.Done)}
	if last {
		r.Reply.AckVA = p.AckVA
	}
	m.effect(Effect{Op: EffectSendPacket, PGID: p.SrcPGID, PID: r.PID, Packet: r.Reply})
	r.Done += r.PacketLen
	r.PacketLen, r.PacketDone = 0, 0
}
