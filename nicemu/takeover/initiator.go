package takeover

// The Initiator (Fig 7.5, thesis l.1857-1872 and l.1200-1206) processes the
// request of a kicked Window.
//
//	PUSH  IDLE -> PGID -> IPA -> IPA2 -> CHK1 -> CHK2 -> CONT -> IDLE
//	      (CHK1 -> IPA for each further page of a packet, CHK2 -> IPA for
//	      each further packet of a request longer than the MTU)
//	PULL  IDLE -> PGID -> PHDR -> CONT -> IDLE
//	BOTF  IDLE -> PGID -> BHDR -> CONT -> IDLE
//
// Exceptions: IDLE (a request without a hardware path), PGID (protection),
// IPA2 (PATLB miss), CHK2 (timeout waiting for the DMA reads).

// loadRequest puts a kicked request into the idle Initiator.
func (m *Module) loadRequest(req Request) {
	m.Regs.Initiator = InitiatorRegs{Request: req}
	m.loaded = true
}

func (m *Module) stepInitiator(env Environment) outcome {
	r := &m.Regs.Initiator
	q := &r.Request
	switch m.state {
	case StateIdle:
		if hardwareRequest(q.Kind) && env.RequestInHardware(q.Kind) {
			return goTo(StatePGID)
		}
		return raise(CauseSpecialRequest)

	case StatePGID:
		return r.checkJob(env)

	case StateIPA:
		r.translate(env, r.PGID, r.PID, q.LocalVA, q.Length)
		return goTo(StateIPA2)

	case StateIPA2:
		if !r.TLBHit {
			return raise(CausePATLBMiss)
		}
		return goTo(StateCHK1)

	case StateCHK1:
		if r.readPiece(m, r.PGID, r.PID) {
			return goTo(StateIPA)
		}
		return goTo(StateCHK2)

	case StateCHK2:
		if !env.DMADone(Initiator) {
			return waitHere()
		}
		m.sendPush()
		if r.Done < q.Length {
			return goTo(StateIPA)
		}
		return goTo(StateCONT)

	case StatePHDR:
		m.sendRequestPacket(r.pullRequestHeader())
		return goTo(StateCONT)

	case StateBHDR:
		m.sendRequestPacket(r.botfHeader())
		return goTo(StateCONT)

	case StateCONT:
		m.effect(Effect{Op: EffectContFlag, PGID: r.PGID, PID: r.PID, Window: q.Window})
		return goTo(StateIdle)
	}
	return waitHere() // not an Initiator state: the module hangs
}

// checkJob does PGID's work: it stamps the request with the PGID and PID
// of the Window's PGIDTBL entry, raises a protection violation for a
// Window without one or a target outside the job, so that a process
// reaches only its own job, and chooses the request's path.
func (r *InitiatorRegs) checkJob(env Environment) outcome {
	q := &r.Request
	pgid, pid, ok := env.LookupPGIDTBL(q.Window)
	r.PGID, r.PID = pgid, pid
	switch {
	case !ok:
		r.Violation = RefusedInvalidWindow
		return raise(CauseProtectionViolation)
	case !env.SameJob(pgid, q.Target):
		r.Violation = RefusedForeignJob
		return raise(CauseProtectionViolation)
	}
	r.Violation = RefusedNone
	switch q.Kind {
	case RequestPull:
		return goTo(StatePHDR)
	case RequestBOTF:
		return goTo(StateBHDR)
	}
	if r.Done < q.Length {
		return goTo(StateIPA)
	}
	return goTo(StateCHK1) // an empty PUSH: a header-only packet
}

// sendPush does CHK2's work once the packet's DMA reads are done: it sends
// the packet as a push, asking for the ack on the last packet of a
// request that has a flag, and moves the request's progress past it.
func (m *Module) sendPush() {
	r := &m.Regs.Initiator
	q := &r.Request
	last := r.Done+r.PacketLen >= q.Length
	h := Header{Type: PacketPush, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
		Offset: q.Offset + uint64(r.Done), Length: r.PacketLen, MessageLength: q.Length}
	if last && q.FlagVA != 0 {
		h.Ack, h.AckVA = true, q.FlagVA
	}
	m.sendRequestPacket(h)
	r.Done += r.PacketLen
	r.PacketLen, r.PacketDone = 0, 0
}

// pullRequestHeader is PHDR's header-only pull request: the target's
// reply lands at the request's local address.
func (r *InitiatorRegs) pullRequestHeader() Header {
	q := &r.Request
	return Header{Type: PacketPullRequest, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
		Offset: q.Offset, Length: q.Length, MessageLength: q.Length, AckVA: q.FlagVA, ReplyVA: q.LocalVA}
}

// botfHeader is BHDR's packet: the process's own image, of which only the
// PGID (and the source PID) are stamped from the PGIDTBL, so that they
// cannot be forged.
func (r *InitiatorRegs) botfHeader() Header {
	q := &r.Request
	return Header{Type: q.PacketType, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
		Offset: q.Offset, Length: q.Length, MessageLength: q.Length, AckVA: q.FlagVA, ReplyVA: q.LocalVA,
		Ack: q.PacketType == PacketPush && q.FlagVA != 0}
}

// sendRequestPacket records h as the last header the Initiator built and
// sends it from the Window's process.
func (m *Module) sendRequestPacket(h Header) {
	r := &m.Regs.Initiator
	r.Packet = h
	m.effect(Effect{Op: EffectSendPacket, PGID: r.PGID, PID: r.PID, Packet: r.Packet})
}
