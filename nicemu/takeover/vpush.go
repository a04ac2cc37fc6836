package takeover

import "errors"

// ReceiveQueue is the receive buffer of VPUSH (thesis §7.5.3, l.1977-2008):
// messages from any sender land one after another in host memory of the
// owning process, in arrival order. The caller implements it (RingQueue is
// a plain ring); VPUSH only asks for addresses and publishes.
type ReceiveQueue interface {
	// Reserve returns the virtual address, in process owner's memory, at
	// which the next message of n bytes (n <= MaxVPUSH) lands. It returns
	// an error wrapping ErrQueueFull when there is no room now, any other
	// error when the message can never be taken.
	Reserve(owner PID, n int) (va uint64, err error)
	// Publish makes the message of n bytes at va visible to the owner:
	// the receive pointer moves past it. It is called once the message's
	// DMA writes have completed, in reservation order.
	Publish(owner PID, va uint64, n int) error
}

// VPUSH receives pushes addressed to a dedicated SID into a ReceiveQueue,
// as in Fig 7.10. The SID is never registered, so every such packet misses
// in the RVATLB at RVA (3); the handler then computes the next queue
// address, writes it into RFend's VA register with NoTranslate set (4),
// sets a breakpoint on the Replier (5) and resumes RFend at RVA (6)(7): the
// hardware writes the payload exactly as for a PUSH. When the DMA writes
// are done the Replier stops at its breakpoint (8); the handler publishes
// the receive pointer (9) and cancels the ack, since the Replier's ack path
// is not suspendable (l.2068). The sender never receives an ack.
//
// VPUSH also asks RFend for the ack itself (Header.Ack), so the Replier
// breakpoint is reached whether or not the sender wanted an ack.
//
// Refused: packets that are not pushes, senders of another job, messages
// longer than MaxVPUSH (every packet of them: each carries the message
// length), messages the queue rejects. When the queue is full, RFend is
// held suspended (the firmware polls the host's release pointer, l.1983)
// and the packet is retried by NIC.Service; with RefuseWhenFull the packet
// is refused instead. Holding is the default because it loses nothing, but
// it stops the node's whole receive path until the host frees space.
type VPUSH struct {
	// SID is the segment ID senders use for VPUSH; it must never be
	// registered.
	SID SID
	// Queue is where messages land.
	Queue ReceiveQueue
	// RefuseWhenFull refuses messages when the queue is full instead of
	// holding RFend.
	RefuseWhenFull bool
}

// HandleRVATLBMiss takes RFend over at RVA for a VPUSH packet. ok is false
// when the suspension is not VPUSH's (another SID, another state).
func (v *VPUSH) HandleRVATLBMiss(env Environment, m *Module) (a Action, ok bool) {
	if m.ID() != RFend || m.LastState() != StateRVA || m.Cause() != CauseRVATLBMiss {
		return Action{}, false
	}
	r := &m.Regs.RFend
	p := &r.Packet
	if p.SID != v.SID {
		return Action{}, false
	}
	switch {
	case p.Type != PacketPush:
		m.Refuse(RefusedUnknownSegment)
		return Cancel(), true
	case !env.SameJob(p.SrcPGID, p.DstPID):
		m.Refuse(RefusedForeignJob)
		return Cancel(), true
	case p.Length > MaxVPUSH || p.MessageLength > MaxVPUSH:
		m.Refuse(RefusedOversize)
		return Cancel(), true
	case v.Queue == nil:
		m.Refuse(RefusedNoQueue)
		return Cancel(), true
	}
	m.Record(OpReserveSlot)
	va, err := v.Queue.Reserve(p.DstPID, p.Length)
	switch {
	case errors.Is(err, ErrQueueFull) && v.RefuseWhenFull:
		m.Refuse(RefusedQueueFull)
		return Cancel(), true
	case errors.Is(err, ErrQueueFull):
		return Hold(), true
	case err != nil:
		m.Refuse(RefusedNoQueue)
		return Cancel(), true
	}
	r.VA, r.NoTranslate, p.Ack = va, true, true
	m.Record(OpWriteRegisters)
	if err := m.NIC().Module(Replier).SetBreakpoint(StateRACK); err != nil {
		m.Refuse(RefusedNoQueue)
		return Cancel(), true
	}
	m.Record(OpSetBreakpoint)
	return Resume(StateRVA), true
}

// HandleReplierBreakpoint publishes a VPUSH message whose DMA writes have
// completed and cancels its ack. ok is false when the suspension is not
// VPUSH's; a non-VPUSH ack stopped by the same breakpoint must then be
// resumed at RACK by the caller (StandardFirmware does so).
func (v *VPUSH) HandleReplierBreakpoint(env Environment, m *Module) (a Action, ok bool) {
	if m.ID() != Replier || m.LastState() != StateRACK || m.Cause() != CauseBreakpoint {
		return Action{}, false
	}
	r := &m.Regs.Replier
	if r.Packet.Type != PacketPush || r.Packet.SID != v.SID {
		return Action{}, false
	}
	if !v.inPipeline(m.NIC()) {
		if err := m.ClearBreakpoint(StateRACK); err == nil {
			m.Record(OpClearBreakpoint)
		}
	}
	m.Record(OpPublish)
	if v.Queue == nil || v.Queue.Publish(r.PID, r.VA, r.Length) != nil {
		m.Refuse(RefusedNoQueue)
	}
	return Cancel(), true
}

// inPipeline reports whether another VPUSH message is on its way to the
// Replier (taken over in RFend, or being written by RBend), so that the
// Replier breakpoint must stay set. It reads the registers, so VPUSH keeps
// no state of its own.
func (v *VPUSH) inPipeline(n *NIC) bool {
	if rf := n.Module(RFend); !rf.Idle() && rf.Regs.RFend.NoTranslate && rf.Regs.RFend.Packet.SID == v.SID {
		return true
	}
	rb := n.Module(RBend)
	return !rb.Idle() && rb.Regs.RBend.Packet.Type == PacketPush && rb.Regs.RBend.Packet.SID == v.SID
}
