package takeover

// PayloadRead is the progress of a module reading a payload from host
// memory by DMA, packet by packet and, within a packet, page by page: the
// Initiator reading a PUSH's source, the Replier a pull's data.
type PayloadRead struct {
	// PageVA is the virtual address whose translation was looked up last,
	// PA its physical address (meaningful when TLBHit).
	PageVA uint64
	PA     uint64
	TLBHit bool
	// Done is the number of payload bytes already sent in packets.
	Done int
	// PacketLen is the length of the packet being assembled, PacketDone
	// the part of it whose DMA read has been issued.
	PacketLen  int
	PacketDone int
}

// translate looks up the page of the next piece of a payload of total
// bytes at base in the PATLB, starting a packet if none is being
// assembled.
func (r *PayloadRead) translate(env Environment, pgid PGID, pid PID, base uint64, total int) {
	if r.PacketLen == 0 {
		r.PacketLen = min(MTU, total-r.Done)
	}
	r.PageVA = base + uint64(r.Done+r.PacketDone)
	r.PA, r.TLBHit = env.LookupPATLB(pgid, pid, r.PageVA)
}

// readPiece issues the DMA read of the translated page's part of the
// packet and reports whether more of the packet remains to be read.
func (r *PayloadRead) readPiece(m *Module, pgid PGID, pid PID) (more bool) {
	if r.PacketDone < r.PacketLen {
		n := pieceLen(r.PageVA, r.PacketLen-r.PacketDone)
		m.effect(Effect{Op: EffectDMARead, PGID: pgid, PID: pid, VA: r.PageVA, PA: r.PA, Length: n, Offset: r.PacketDone})
		r.PacketDone += n
	}
	return r.PacketDone < r.PacketLen
}

// InitiatorRegs are the Initiator's registers: the request being processed
// and the progress of its translation and DMA. Firmware may read and write
// them while the Initiator is suspended.
type InitiatorRegs struct {
	// Request is the request read from the Window.
	Request Request
	// PGID and PID come from the PGIDTBL entry of the Window (state PGID).
	PGID PGID
	PID  PID
	// Violation says why PGID raised a ProtectionViolation.
	Violation Refusal
	// PayloadRead is the progress of the DMA read of the payload: IPA,
	// IPA2 and CHK1 translate and read it page by page.
	PayloadRead
	// Packet is the last header built.
	Packet Header
}

// RFendRegs are RFend's registers: the latched header, the RVATLB result
// and the virtual address handed to the back end.
type RFendRegs struct {
	// Packet is the header of the packet being received.
	Packet Header
	// SegBase and SegLength are the segment the RVATLB returned, TLBHit
	// whether it hit.
	SegBase   uint64
	SegLength uint64
	TLBHit    bool
	// VA is the virtual address of the payload destination (push, AOTF,
	// pull reply) or of the pull source (pull request).
	VA uint64
	// NoTranslate tells RVACHK, RVA, AOTF and AOTFR not to consult the
	// RVATLB: firmware has written VA itself (VPUSH, thesis l.1989). It
	// applies to the current packet only: RFend clears it in IDLE.
	NoTranslate bool
}

// RBendRegs are RBend's registers: one received packet to write into host
// memory (payload, then an optional completion flag).
type RBendRegs struct {
	// Packet is the header of the packet being written.
	Packet Header
	// PID is the local process written (the packet's destination); the
	// PATLB key is (Packet.SrcPGID, PID, page).
	PID PID
	// VA and Length are the payload destination.
	VA     uint64
	Length int
	// FlagVA is a flag to set after the payload (ack packets, the last
	// pull reply), 0 for none.
	FlagVA uint64
	// PageVA is the virtual address whose translation BPA looked up, PA
	// its physical address (meaningful when TLBHit).
	PageVA uint64
	PA     uint64
	TLBHit bool
	// Done and FlagDone count the payload and flag bytes whose DMA write
	// has been issued.
	Done     int
	FlagDone int
}

// ReplierRegs are the Replier's registers: the packet it answers and the
// reply being built.
type ReplierRegs struct {
	// Packet is the header of the packet answered: a push asking for an
	// ack, or a pull request.
	Packet Header
	// PID is the local process: the one written (push) or read (pull).
	PID PID
	// VA and Length are where the push landed, or the pull source.
	VA     uint64
	Length int
	// PayloadRead is the progress of the DMA read of a pull's data: RPA,
	// RPA2 and RDMA translate and read it page by page.
	PayloadRead
	// Reply is the last ack or pull-reply header built.
	Reply Header
}

// Registers holds the registers of a module. Only the field of the
// module's own kind is used (Initiator for the Initiator, and so on).
type Registers struct {
	// Initiator holds the Initiator's registers.
	Initiator InitiatorRegs
	// RFend holds RFend's registers.
	RFend RFendRegs
	// RBend holds RBend's registers.
	RBend RBendRegs
	// Replier holds the Replier's registers.
	Replier ReplierRegs
}

// pieceLen is the length of the DMA piece starting at va with remaining
// bytes left: it ends at the page boundary at the latest.
func pieceLen(va uint64, remaining int) int {
	room := PageSize - int(va%PageSize)
	if remaining < room {
		return remaining
	}
	return room
}

// piece returns the next DMA piece of RBend's work: the payload first, then
// the flag. ok is false when nothing is left.
func (r *RBendRegs) piece() (va uint64, n, off int, flag, ok bool) {
	if r.Done < r.Length {
		va = r.VA + uint64(r.Done)
		return va, pieceLen(va, r.Length-r.Done), r.Done, false, true
	}
	if r.FlagVA != 0 && r.FlagDone < FlagSize {
		va = r.FlagVA + uint64(r.FlagDone)
		return va, pieceLen(va, FlagSize-r.FlagDone), r.FlagDone, true, true
	}
	return 0, 0, 0, false, false
}
