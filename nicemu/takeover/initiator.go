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
		last := r.Done+r.PacketLen >= q.Length
		r.Packet = Header{Type: PacketPush, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
			Offset: q.Offset + uint64(r.Done), Length: r.PacketLen, MessageLength: q.Length}
		if last && q.FlagVA != 0 {
			r.Packet.Ack, r.Packet.AckVA = true, q.FlagVA
		}
		m.effect(Effect{Op: EffectSendPacket, PGID: r.PGID, PID: r.PID, Packet: r.Packet})
		r.Done += r.PacketLen
		r.PacketLen, r.PacketDone = 0, 0
		if r.Done < q.Length {
			return goTo(StateIPA)
		}
		return goTo(StateCONT)

	case StatePHDR:
		r.Packet = Header{Type: PacketPullRequest, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
			Offset: q.Offset, Length: q.Length, MessageLength: q.Length, AckVA: q.FlagVA, ReplyVA: q.LocalVA}
		m.effect(Effect{Op: EffectSendPacket, PGID: r.PGID, PID: r.PID, Packet: r.Packet})
		return goTo(StateCONT)

	case StateBHDR:
		// The image is the process's; only the PGID (and the source PID)
		// are stamped from the PGIDTBL, so they cannot be forged.
		r.Packet = Header{Type: q.PacketType, SrcPGID: r.PGID, SrcPID: r.PID, DstPID: q.Target, SID: q.SID,
			Offset: q.Offset, Length: q.Length, MessageLength: q.Length, AckVA: q.FlagVA, ReplyVA: q.LocalVA,
			Ack: q.PacketType == PacketPush && q.FlagVA != 0}
		m.effect(Effect{Op: EffectSendPacket, PGID: r.PGID, PID: r.PID, Packet: r.Packet})
		return goTo(StateCONT)

	case StateCONT:
		m.effect(Effect{Op: EffectContFlag, PGID: r.PGID, PID: r.PID, Window: q.Window})
		return goTo(StateIdle)
	}
	return waitHere() // not an Initiator state: the module hangs
}
