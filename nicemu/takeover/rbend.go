package takeover

// RBend (thesis l.1211) writes a received packet into host memory. The
// thesis does not name its states; this package's are:
//
//	IDLE -> BPA -> BPA2 -> BDMA -> BWAIT -> BHAND -> IDLE
//	(BDMA -> BPA for each further page, and for the flag after the
//	payload of an ack or of the last pull reply)
//
// BHAND hands a push that asked for an ack to the Replier, which therefore
// starts right after the DMA writes complete (l.1211, l.1989). Exceptions:
// BPA2 (PATLB miss; firmware resumes at BPA), BWAIT (timeout waiting for
// the DMA writes), BHAND (timeout waiting for the Replier).

func (m *Module) stepRBend(env Environment) outcome {
	r := &m.Regs.RBend
	switch m.state {
	case StateIdle:
		if _, _, _, _, ok := r.piece(); ok {
			return goTo(StateBPA)
		}
		return goTo(StateBHAND)

	case StateBPA:
		va, _, _, _, ok := r.piece()
		if !ok {
			return goTo(StateBWAIT) // firmware consumed the work
		}
		r.PageVA = va
		r.PA, r.TLBHit = env.LookupPATLB(r.Packet.SrcPGID, r.PID, va)
		return goTo(StateBPA2)

	case StateBPA2:
		if !r.TLBHit {
			return raise(CausePATLBMiss)
		}
		return goTo(StateBDMA)

	case StateBDMA:
		if va, n, off, flag, ok := r.piece(); ok {
			m.effect(Effect{Op: EffectDMAWrite, PGID: r.Packet.SrcPGID, PID: r.PID, VA: va, PA: r.PA + (va - r.PageVA),
				Length: n, Offset: off, Flag: flag})
			if flag {
				r.FlagDone += n
			} else {
				r.Done += n
			}
		}
		if _, _, _, _, ok := r.piece(); ok {
			return goTo(StateBPA)
		}
		return goTo(StateBWAIT)

	case StateBWAIT:
		if !env.DMADone(RBend) {
			return waitHere()
		}
		return goTo(StateBHAND)

	case StateBHAND:
		if r.Packet.Type == PacketPush && r.Packet.Ack {
			rep := &m.nic.mods[Replier]
			if !rep.available() {
				return waitHere()
			}
			rep.Regs.Replier = ReplierRegs{Packet: r.Packet, PID: r.PID, VA: r.VA, Length: r.Length}
			rep.loaded = true
		}
		return goTo(StateIdle)
	}
	return waitHere() // not an RBend state: the module hangs
}
