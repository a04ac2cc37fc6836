package takeover

import "fmt"

// Firmware is the program of Martini's on-chip processor as far as the
// takeover mechanism is concerned. Handle is invoked when a module has
// suspended (its interrupt, thesis §7.3.3): it reads the module's last
// state, cause and registers, may write registers, touch other modules and
// record its work (Module.Record, Module.Refuse), and returns what the
// module does next. Handle must not apply the action itself.
type Firmware interface {
	Handle(env Environment, m *Module) Action
}

// ActionKind is the kind of a firmware decision.
type ActionKind uint8

// The firmware decisions.
const (
	// ActionResume: the hardware continues from the chosen state.
	ActionResume ActionKind = iota + 1
	// ActionCancel: the request or packet is dropped; the module goes
	// back to IDLE.
	ActionCancel
	// ActionCompleteSoft: firmware does the module's remaining work in
	// software, starting with the chosen state.
	ActionCompleteSoft
	// ActionHold: the module stays suspended.
	ActionHold
)

// String returns the decision's name.
func (k ActionKind) String() string {
	switch k {
	case ActionResume:
		return "resume"
	case ActionCancel:
		return "cancel"
	case ActionCompleteSoft:
		return "complete-soft"
	case ActionHold:
		return "hold"
	}
	return fmt.Sprintf("ActionKind(%d)", uint8(k))
}

// Action is a firmware decision for a suspended module.
type Action struct {
	// Kind is the decision.
	Kind ActionKind
	// At is the state to resume at (Resume) or whose work firmware does
	// first (CompleteSoft).
	At State
}

// Resume lets the hardware continue from state at.
func Resume(at State) Action { return Action{Kind: ActionResume, At: at} }

// CompleteSoft makes firmware finish the module's work in software,
// starting with the work of state from (StateIdle: nothing is left).
func CompleteSoft(from State) Action { return Action{Kind: ActionCompleteSoft, At: from} }

// Cancel drops the module's request or packet.
func Cancel() Action { return Action{Kind: ActionCancel} }

// Hold leaves the module suspended.
func Hold() Action { return Action{Kind: ActionHold} }

// ResumeMode is how the firmware continues after it has removed the cause
// of an exception (Fig 7.9, thesis l.1951-1965).
type ResumeMode uint8

// The resume modes.
const (
	// ModeHard: set the module back to the state before the exception and
	// let the hardware finish (HARD).
	ModeHard ResumeMode = iota
	// ModeSoft: firmware does the remaining work itself (SOFT).
	ModeSoft
)

// NumResumeModes is the number of resume modes.
const NumResumeModes = 2

// String returns the mode's name as Fig 7.9 writes it.
func (r ResumeMode) String() string {
	switch r {
	case ModeHard:
		return "HARD"
	case ModeSoft:
		return "SOFT"
	}
	return fmt.Sprintf("ResumeMode(%d)", uint8(r))
}

// RequestHandler performs a request kind the Initiator has no hardware
// path for. The Initiator's registers carry the request; firmware has
// filled PGID and PID from the PGIDTBL. A non-nil error refuses the
// request.
type RequestHandler func(env Environment, req *InitiatorRegs) error

// PacketHandler performs a packet RFend cannot receive in hardware
// (network control, custom types). A non-nil error refuses the packet.
type PacketHandler func(env Environment, pkt *RFendRegs) error

// StandardFirmware is the exception handling of Table 7.1 and §7.4.2:
//
//   - SpecialRequest: look the Window up in the PGIDTBL (an invalid Window
//     is refused), run the RequestHandler registered for the kind, then
//     let firmware write the contflag (CompleteSoft at CONT) so the Window
//     can be reused; no handler, or a failing one, refuses.
//   - ProtectionViolation: refuse (never performed), cancel; the exception
//     counter and the refusal event record it.
//   - PATLBMiss: refill the PATLB; then resume at IPA, BPA or RPA (HARD,
//     the default) or complete the work in software from there (SOFT),
//     as PATLBMode says. A page that is not pinned is refused.
//   - SpecialPacket: run the PacketHandler registered for the type; the
//     packet is consumed (CompleteSoft at IDLE); no handler refuses.
//   - RVATLBMiss: VPUSH's packets go to VPUSH; otherwise refill the
//     RVATLB and resume at RVACHK2 (AOTF after AOTFR). An unknown SID or
//     an access beyond the segment is refused.
//   - Timeout: refuse and cancel.
//   - Breakpoint: VPUSH's Replier breakpoint goes to VPUSH; otherwise
//     OnBreakpoint decides, or the module resumes where it stopped.
//
// The zero value is ready to use. Its fields are configuration only.
type StandardFirmware struct {
	// PATLBMode selects HARD or SOFT completion after a PATLB refill.
	PATLBMode ResumeMode
	// RequestHandlers performs software requests, by kind.
	RequestHandlers map[RequestKind]RequestHandler
	// PacketHandlers performs software packets, by type (PacketControl
	// for network-control packets).
	PacketHandlers map[PacketType]PacketHandler
	// OnBreakpoint decides for breakpoints that are not VPUSH's; nil
	// resumes the module at the state it stopped in.
	OnBreakpoint func(env Environment, m *Module) Action
	// VPUSH, when set, receives packets addressed to its SID.
	VPUSH *VPUSH
}

// Handle implements Firmware.
func (f *StandardFirmware) Handle(env Environment, m *Module) Action {
	switch m.Cause() {
	case CauseSpecialRequest:
		return f.specialRequest(env, m)
	case CauseProtectionViolation:
		v := m.Regs.Initiator.Violation
		if v == RefusedNone {
			v = RefusedInvalidWindow
		}
		m.Refuse(v)
		return Cancel()
	case CausePATLBMiss:
		return f.patlbMiss(env, m)
	case CauseSpecialPacket:
		return f.specialPacket(env, m)
	case CauseRVATLBMiss:
		return f.rvatlbMiss(env, m)
	case CauseTimeout:
		m.Refuse(RefusedTimeout)
		return Cancel()
	case CauseBreakpoint:
		if f.VPUSH != nil {
			if a, ok := f.VPUSH.HandleReplierBreakpoint(env, m); ok {
				return a
			}
		}
		if f.OnBreakpoint != nil {
			return f.OnBreakpoint(env, m)
		}
		return Resume(m.LastState())
	}
	return Cancel()
}

func (f *StandardFirmware) specialRequest(env Environment, m *Module) Action {
	r := &m.Regs.Initiator
	m.Record(OpLookupPGIDTBL)
	pgid, pid, ok := env.LookupPGIDTBL(r.Request.Window)
	if !ok {
		m.Refuse(RefusedInvalidWindow)
		return Cancel()
	}
	r.PGID, r.PID = pgid, pid
	m.Record(OpDispatchRequest)
	h := f.RequestHandlers[r.Request.Kind]
	return dispatch(m, h != nil, func() error { return h(env, r) }, StateCONT)
}

// dispatch runs a software handler found for a special request or packet
// and has the module complete in software from then; without a handler,
// or when it fails, the work is refused and cancelled.
func dispatch(m *Module, found bool, handle func() error, then State) Action {
	if !found {
		m.Refuse(RefusedNoHandler)
		return Cancel()
	}
	if err := handle(); err != nil {
		m.Refuse(RefusedByHandler)
		return Cancel()
	}
	return CompleteSoft(then)
}

// patlbResume is where the hardware resumes after a PATLB refill.
func patlbResume(id ModuleID) (State, bool) {
	switch id {
	case Initiator:
		return StateIPA, true
	case RBend:
		return StateBPA, true
	case Replier:
		return StateRPA, true
	}
	return 0, false
}

func (f *StandardFirmware) patlbMiss(env Environment, m *Module) Action {
	at, ok := patlbResume(m.ID())
	pgid, pid, va, hasKey := m.PATLBKey()
	if !ok || !hasKey {
		return Cancel()
	}
	m.Record(OpRefillPATLB)
	if !env.RefillPATLB(pgid, pid, va) {
		m.Refuse(RefusedUnmappedPage)
		return Cancel()
	}
	if f.PATLBMode == ModeSoft {
		return CompleteSoft(at)
	}
	return Resume(at)
}

func (f *StandardFirmware) specialPacket(env Environment, m *Module) Action {
	r := &m.Regs.RFend
	m.Record(OpDispatchPacket)
	h := f.PacketHandlers[r.Packet.Type]
	return dispatch(m, h != nil, func() error { return h(env, r) }, StateIdle)
}

func (f *StandardFirmware) rvatlbMiss(env Environment, m *Module) Action {
	if f.VPUSH != nil {
		if a, ok := f.VPUSH.HandleRVATLBMiss(env, m); ok {
			return a
		}
	}
	if m.ID() != RFend {
		return Cancel()
	}
	p := &m.Regs.RFend.Packet
	m.Record(OpRefillRVATLB)
	_, length, ok := env.RefillRVATLB(p.SrcPGID, p.DstPID, p.SID)
	switch {
	case !ok:
		m.Refuse(RefusedUnknownSegment)
		return Cancel()
	case !fits(p.Offset, p.Length, length):
		m.Refuse(RefusedOutOfRange)
		return Cancel()
	}
	if m.LastState() == StateAOTFR {
		return Resume(StateAOTF)
	}
	return Resume(StateRVACHK2)
}
