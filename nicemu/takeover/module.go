package takeover

import "fmt"

// Module is one of the four modules with the takeover mechanism, as a state
// machine. It belongs to a NIC (NewNIC creates all four). The hardware
// moves it one transition per Step; when it raises an exception or hits a
// breakpoint it enters MISS, records its last state and the cause, and
// waits for firmware (Run and the NIC operations invoke it).
//
// Regs holds the registers; firmware may read and write them while the
// module is suspended.
type Module struct {
	// Regs are the module's registers (only the field of its kind is used).
	Regs Registers

	id    ModuleID
	nic   *NIC
	state State
	last  State // last-state register
	cause Cause // cause register

	loaded    bool // holds a request, packet or hand-over
	soft      bool // firmware executes the module's steps (CompleteSoft)
	held      bool // firmware chose Hold
	claimed   bool // reserved by RFend for a hand-over (RBend, Replier)
	hasClaim  bool // RFend: it reserved claimOf
	claimOf   ModuleID
	bp        stateSet
	bpPending bool // entered a breakpoint state; suspends on the next step
	waited    int  // consecutive wait steps in the current state
}

// outcome is what one state's work decided.
type outcome struct {
	next  State
	cause Cause
	wait  bool
}

func goTo(s State) outcome  { return outcome{next: s} }
func raise(c Cause) outcome { return outcome{cause: c} }
func waitHere() outcome     { return outcome{wait: true} }

// ID returns which module this is.
func (m *Module) ID() ModuleID { return m.id }

// NIC returns the NIC the module belongs to (firmware uses it to reach the
// other modules, e.g. to set a breakpoint on the Replier).
func (m *Module) NIC() *NIC { return m.nic }

// State returns the module's current state. While firmware completes the
// module in software (Soft), it is the state whose work firmware does next.
func (m *Module) State() State { return m.state }

// LastState returns the last-state register: the state the module was in
// when it last entered MISS.
func (m *Module) LastState() State { return m.last }

// Cause returns the cause register: why the module last entered MISS.
func (m *Module) Cause() Cause { return m.cause }

// Suspended reports whether the module is in MISS.
func (m *Module) Suspended() bool { return m.state == StateMiss }

// Held reports whether firmware left the module suspended (Hold).
func (m *Module) Held() bool { return m.state == StateMiss && m.held }

// Soft reports whether firmware is doing the module's remaining work in
// software (after CompleteSoft).
func (m *Module) Soft() bool { return m.soft }

// Idle reports whether the module is in IDLE with no work: it can accept a
// request, a packet or a hand-over.
func (m *Module) Idle() bool {
	return m.state == StateIdle && !m.loaded && !m.bpPending
}

// available reports whether a back-end module can accept a hand-over.
func (m *Module) available() bool { return m.Idle() && !m.claimed }

// SetBreakpoint sets a breakpoint on state s: whenever the hardware enters
// s, the module suspends (CauseBreakpoint) before doing s's work. Any state
// of the module may carry one; see Suspendable for which are safe to resume.
func (m *Module) SetBreakpoint(s State) error {
	if !ValidState(m.id, s) || s == StateMiss {
		return fmt.Errorf("takeover: breakpoint on %v at %v: %w", m.id, s, ErrInvalidState)
	}
	m.bp |= 1 << s
	return nil
}

// ClearBreakpoint removes the breakpoint on state s.
func (m *Module) ClearBreakpoint(s State) error {
	if !ValidState(m.id, s) || s == StateMiss {
		return fmt.Errorf("takeover: clear breakpoint on %v at %v: %w", m.id, s, ErrInvalidState)
	}
	m.bp &^= 1 << s
	return nil
}

// HasBreakpoint reports whether state s carries a breakpoint.
func (m *Module) HasBreakpoint(s State) bool { return m.bp.has(s) }

// Record appends a piece of firmware work done on behalf of this module to
// the trace. Firmware calls it; the hardware never does.
func (m *Module) Record(op FirmwareOp) {
	m.nic.record(Event{Kind: EventFirmware, Module: m.id, From: m.state, To: m.state, Op: op})
}

// Refuse records that firmware refused the module's request or packet and
// counts it. It does not change the module's state: firmware then returns
// Cancel.
func (m *Module) Refuse(r Refusal) {
	m.nic.record(Event{Kind: EventRefused, Module: m.id, From: m.state, To: m.state, Refusal: r})
	if r < NumRefusals {
		m.nic.counters.Refusals[r]++
	}
}

// PATLBKey returns the key of the module's last PATLB lookup: job, process
// and virtual address. ok is false for RFend, which has no PATLB access.
func (m *Module) PATLBKey() (pgid PGID, pid PID, va uint64, ok bool) {
	switch m.id {
	case Initiator:
		r := &m.Regs.Initiator
		return r.PGID, r.PID, r.PageVA, true
	case RBend:
		r := &m.Regs.RBend
		return r.Packet.SrcPGID, r.PID, r.PageVA, true
	case Replier:
		r := &m.Regs.Replier
		return r.Packet.SrcPGID, r.PID, r.PageVA, true
	}
	return 0, 0, 0, false
}

// effect records an effect of the current state's work.
func (m *Module) effect(e Effect) {
	m.nic.record(Event{Kind: EventEffect, Module: m.id, From: m.state, To: m.state, Soft: m.soft, Effect: e})
}

// Step performs one transition of the hardware (or, after CompleteSoft, one
// step of firmware doing the hardware's work) and returns it. A module
// suspended in MISS, or idle without work, does nothing (Kind 0): firmware
// decides for a suspended module, see Run.
func (m *Module) Step(env Environment) Transition {
	if m.nic == nil || env == nil {
		return Transition{Module: m.id, From: m.state, To: m.state}
	}
	switch {
	case m.state == StateMiss:
		return Transition{Module: m.id, From: m.state, To: m.state}
	case m.bpPending:
		m.bpPending = false
		return m.suspend(CauseBreakpoint)
	case m.state == StateIdle && !m.loaded:
		return Transition{Module: m.id, From: m.state, To: m.state}
	}
	var o outcome
	switch m.id {
	case Initiator:
		o = m.stepInitiator(env)
	case RFend:
		o = m.stepRFend(env)
	case RBend:
		o = m.stepRBend(env)
	case Replier:
		o = m.stepReplier(env)
	}
	switch {
	case o.cause != CauseNone:
		return m.suspend(o.cause)
	case o.wait:
		return m.wait()
	}
	return m.move(o.next)
}

// move performs the transition to next.
func (m *Module) move(next State) Transition {
	from, soft := m.state, m.soft
	m.state = next
	m.waited = 0
	m.nic.record(Event{Kind: EventTransition, Module: m.id, From: from, To: next, Soft: soft})
	if soft {
		m.nic.counters.SoftSteps[m.id]++
	} else {
		m.nic.counters.Transitions[m.id]++
	}
	if next == StateIdle {
		m.finish()
	}
	if !soft && m.bp.has(next) {
		m.bpPending = true
	}
	return Transition{Module: m.id, Kind: EventTransition, From: from, To: next, Soft: soft}
}

// wait spends one step waiting in the current state. Where the state can
// raise a Timeout (Raises), waiting longer than the NIC's TimeoutSteps
// suspends the module; elsewhere the module waits for ever (a hang, which
// the NIC reports as ErrRunaway).
func (m *Module) wait() Transition {
	m.waited++
	if m.waited > m.nic.TimeoutSteps && Raises(m.id, m.state).Has(CauseTimeout) {
		return m.suspend(CauseTimeout)
	}
	m.nic.record(Event{Kind: EventWait, Module: m.id, From: m.state, To: m.state, Soft: m.soft})
	m.nic.counters.Waits[m.id]++
	return Transition{Module: m.id, Kind: EventWait, From: m.state, To: m.state, Soft: m.soft}
}

// suspend moves the module to MISS with cause c, recording the last state.
// The request stays in the registers for firmware to inspect.
func (m *Module) suspend(c Cause) Transition {
	from, soft := m.state, m.soft
	m.last, m.cause = from, c
	m.state = StateMiss
	m.soft, m.held, m.bpPending = false, false, false
	m.waited = 0
	m.nic.record(Event{Kind: EventException, Module: m.id, From: from, To: StateMiss, Soft: soft, Cause: c})
	m.nic.counters.Exceptions[m.id][c]++
	if c == CauseBreakpoint {
		m.nic.counters.BreakpointHits++
	}
	return Transition{Module: m.id, Kind: EventException, From: from, To: StateMiss, Soft: soft, Cause: c}
}

// finish ends the module's current work on reaching IDLE: the request or
// packet is consumed and per-packet settings are reset.
func (m *Module) finish() {
	m.loaded = false
	m.soft = false
	if m.id == RFend {
		m.Regs.RFend.NoTranslate = false
		m.releaseClaim()
	}
}

// Run runs the module until it is idle without work or held suspended:
// whenever it enters MISS, fw decides what happens (the decision is
// applied as Apply does). It returns an error when fw returns an invalid
// action or the NIC's StepLimit is exceeded.
func (m *Module) Run(env Environment, fw Firmware) error {
	if m.nic == nil || env == nil || fw == nil {
		return fmt.Errorf("takeover: run %v: %w", m.id, ErrDetached)
	}
	for i := 0; i < m.nic.StepLimit; i++ {
		if m.state == StateMiss {
			kind, err := m.offer(env, fw)
			if err != nil {
				return err
			}
			if kind == ActionHold {
				return nil
			}
			continue
		}
		if m.Idle() {
			return nil
		}
		m.Step(env)
	}
	return fmt.Errorf("takeover: run %v in %v: %w (%d steps)", m.id, m.state, ErrRunaway, m.nic.StepLimit)
}

// offer hands the suspended module to firmware and applies its decision.
func (m *Module) offer(env Environment, fw Firmware) (ActionKind, error) {
	m.nic.record(Event{Kind: EventTakeover, Module: m.id, From: m.last, To: StateMiss, Cause: m.cause})
	m.nic.counters.Takeovers++
	a := fw.Handle(env, m)
	if err := m.Apply(a); err != nil {
		return 0, fmt.Errorf("takeover: firmware for %v suspended at %v (%v): %w", m.id, m.last, m.cause, err)
	}
	return a.Kind, nil
}

// claim reserves back-end module id for a hand-over from RFend; it reports
// false when that module is busy.
func (m *Module) claim(id ModuleID) bool {
	if m.hasClaim {
		return true
	}
	t := &m.nic.mods[id]
	if !t.available() {
		return false
	}
	t.claimed = true
	m.hasClaim, m.claimOf = true, id
	return true
}

// releaseClaim gives up RFend's reservation, if any.
func (m *Module) releaseClaim() {
	if m.hasClaim {
		m.nic.mods[m.claimOf].claimed = false
		m.hasClaim = false
	}
}
