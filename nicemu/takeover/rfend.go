package takeover

// RFend (Fig 7.6, thesis l.1876-1891 and l.1209-1213) analyses the header
// of an arriving packet and hands it to RBend (data to write) or to the
// Replier (a pull request to answer).
//
//	push, pull request  IDLE -> FLIT0 -> FLIT1 -> FLIT2 -> FLIT3 -> RVACHK
//	                    -> RVA -> SET1 -> SET2 -> SET3 -> SET4 -> IDLE
//	pull reply, ack     ... FLIT3 -> RVA -> SET1 ... (the header carries a
//	                    virtual address: no RVATLB lookup, l.1211)
//	AOTF                IDLE -> FLIT0 -> AOTF -> AOTFR -> IDLE
//
// Exceptions: FLIT1 (network-control packet), FLIT3 (a type without a
// hardware path), RVA and AOTFR (RVATLB miss; timeout waiting for the back
// end). After firmware refills the RVATLB it resumes RFend at RVACHK2 (or
// AOTF). No state after RVA is suspendable (l.1991).

// loadPacket puts an arriving packet into the idle RFend.
func (m *Module) loadPacket(p Header) {
	m.Regs.RFend = RFendRegs{Packet: p}
	m.loaded = true
}

// backEnd is the module that takes the packet over from RFend.
func (r *RFendRegs) backEnd() ModuleID {
	if r.Packet.Type == PacketPullRequest {
		return Replier
	}
	return RBend
}

// translates reports whether the packet names its memory by SID, so that
// RFend must consult the RVATLB (unless firmware set NoTranslate).
func (r *RFendRegs) translates() bool {
	switch r.Packet.Type {
	case PacketPush, PacketPullRequest, PacketAOTF:
		return !r.NoTranslate
	}
	return false
}

// lookup starts the RVATLB lookup (RVACHK, RVACHK2, AOTF).
func (r *RFendRegs) lookup(env Environment) {
	if !r.translates() {
		return
	}
	p := &r.Packet
	r.SegBase, r.SegLength, r.TLBHit = env.LookupRVATLB(p.SrcPGID, p.DstPID, p.SID)
}

// translate checks the RVATLB result and forms VA. An access that does not
// fit the cached segment counts as a miss: firmware, which has the SID
// table, decides (this package's assumption; Martini's bound check is not
// described).
func (r *RFendRegs) translate() bool {
	if !r.translates() {
		return true
	}
	if !r.TLBHit || !fits(r.Packet.Offset, r.Packet.Length, r.SegLength) {
		return false
	}
	r.VA = r.SegBase + r.Packet.Offset
	return true
}

// fits reports whether [off, off+n) lies within a segment of length size.
func fits(off uint64, n int, size uint64) bool {
	return n >= 0 && off <= size && uint64(n) <= size-off
}

func (m *Module) stepRFend(env Environment) outcome {
	r := &m.Regs.RFend
	p := &r.Packet
	switch m.state {
	case StateIdle:
		return goTo(StateFLIT0)

	case StateFLIT0:
		if p.Type == PacketAOTF && env.PacketInHardware(PacketAOTF) {
			return goTo(StateAOTF)
		}
		return goTo(StateFLIT1)

	case StateFLIT1:
		if p.Type == PacketControl {
			return raise(CauseSpecialPacket)
		}
		return goTo(StateFLIT2)

	case StateFLIT2:
		return goTo(StateFLIT3)

	case StateFLIT3:
		return r.route(env)

	case StateRVACHK, StateRVACHK2:
		r.lookup(env)
		return goTo(StateRVA)

	case StateRVA:
		return m.reserveBackEnd()

	case StateSET1:
		return goTo(StateSET2)
	case StateSET2:
		return goTo(StateSET3)
	case StateSET3:
		return goTo(StateSET4)
	case StateSET4:
		if !m.hasClaim && !m.claim(r.backEnd()) {
			// Only after firmware skipped RVA: SET4 cannot time out.
			return waitHere()
		}
		m.handOver()
		return goTo(StateIdle)

	case StateAOTF:
		r.lookup(env)
		return goTo(StateAOTFR)

	case StateAOTFR:
		return m.handOverAOTF()
	}
	return waitHere() // not an RFend state: the module hangs
}

// route does FLIT3's work: it suspends on a packet type without a
// hardware path, and sends a packet that names its memory by SID to the
// RVATLB lookup, one whose header carries the address (pull reply, ack;
// thesis l.1211) straight to RVA.
func (r *RFendRegs) route(env Environment) outcome {
	p := &r.Packet
	if !env.PacketInHardware(p.Type) {
		return raise(CauseSpecialPacket)
	}
	switch p.Type {
	case PacketPush, PacketPullRequest:
		return goTo(StateRVACHK)
	case PacketPullReply:
		r.VA = p.ReplyVA
		return goTo(StateRVA)
	case PacketAck:
		r.VA = 0
		return goTo(StateRVA)
	}
	return raise(CauseSpecialPacket)
}

// reserveBackEnd does RVA's work: it suspends on an RVATLB miss, so that
// firmware can refill the RVATLB, and waits until the back end that takes
// the packet is reserved for the hand-over (SET1 to SET4).
func (m *Module) reserveBackEnd() outcome {
	r := &m.Regs.RFend
	if !r.translate() {
		return raise(CauseRVATLBMiss)
	}
	if !m.claim(r.backEnd()) {
		return waitHere()
	}
	return goTo(StateSET1)
}

// handOverAOTF does AOTFR's work: it suspends on an RVATLB miss, and
// hands the 8-byte write to RBend once RBend can take it.
func (m *Module) handOverAOTF() outcome {
	r := &m.Regs.RFend
	if !r.translate() {
		return raise(CauseRVATLBMiss)
	}
	if !m.claim(RBend) {
		return waitHere()
	}
	m.handOver()
	return goTo(StateIdle)
}

// handOver starts the reserved back-end module with RFend's registers.
func (m *Module) handOver() {
	r := &m.Regs.RFend
	p := r.Packet
	t := &m.nic.mods[m.claimOf]
	m.releaseClaim()
	if t.id == Replier {
		t.Regs.Replier = ReplierRegs{Packet: p, PID: p.DstPID, VA: r.VA, Length: p.Length}
		t.loaded = true
		return
	}
	w := RBendRegs{Packet: p, PID: p.DstPID, VA: r.VA, Length: p.Length}
	switch p.Type {
	case PacketPullReply:
		w.FlagVA = p.AckVA
	case PacketAck:
		w.Length, w.FlagVA = 0, p.AckVA
	}
	t.Regs.RBend = w
	t.loaded = true
}
