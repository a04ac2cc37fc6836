package takeover

import "fmt"

// This file holds what firmware can do to a suspended module (thesis
// §7.3.3): set its state and let the hardware go on, finish its work in
// software, drop its work, or leave it suspended.

// checkTarget validates a firmware action on m targeting state s.
func (m *Module) checkTarget(what string, s State) error {
	if m.state != StateMiss {
		return fmt.Errorf("takeover: %s %v at %v: %w (it is in %v)", what, m.id, s, ErrNotSuspended, m.state)
	}
	if !ValidState(m.id, s) || s == StateMiss {
		return fmt.Errorf("takeover: %s %v at %v: %w", what, m.id, s, ErrInvalidState)
	}
	return nil
}

// Resume sets the suspended module's state to at and lets the hardware
// continue from there (HARD in Fig 7.9). The module does not stop at a
// breakpoint on at itself. Resuming at IDLE keeps the request: the hardware
// starts it again (the (5') experiment of thesis l.1929); use Cancel to
// drop it.
func (m *Module) Resume(at State) error {
	if err := m.checkTarget("resume", at); err != nil {
		return err
	}
	m.state = at
	m.held = false
	m.waited = 0
	if m.id == RFend && (at < StateSET1 || at > StateSET4) {
		m.releaseClaim()
	}
	m.nic.record(Event{Kind: EventAction, Module: m.id, From: StateMiss, To: at, Cause: m.cause, Action: ActionResume})
	m.nic.counters.Resumes[ModeHard]++
	return nil
}

// CompleteSoft makes firmware do the module's remaining work in software,
// starting with the work of state from (SOFT in Fig 7.9): the following
// steps appear in the trace as transitions and effects marked Soft. They
// end when the module reaches IDLE, its work consumed; CompleteSoft(IDLE)
// means firmware has already done everything. An exception during the soft
// steps suspends the module again.
func (m *Module) CompleteSoft(from State) error {
	if err := m.checkTarget("complete in software", from); err != nil {
		return err
	}
	m.state = from
	m.held = false
	m.waited = 0
	if m.id == RFend && (from < StateSET1 || from > StateSET4) {
		m.releaseClaim()
	}
	m.nic.record(Event{Kind: EventAction, Module: m.id, From: StateMiss, To: from, Soft: true, Cause: m.cause, Action: ActionCompleteSoft})
	m.nic.counters.Resumes[ModeSoft]++
	if from == StateIdle {
		m.finish()
	} else {
		m.soft = true
	}
	return nil
}

// Cancel drops the suspended module's request or packet and returns it to
// IDLE. Cancelling the Initiator also writes the Window's contflag (by
// firmware), so the process can reuse the Window; the refusal itself is
// reported by the EventRefused firmware recorded.
func (m *Module) Cancel() error {
	if m.state != StateMiss {
		return fmt.Errorf("takeover: cancel %v: %w (it is in %v)", m.id, ErrNotSuspended, m.state)
	}
	if m.id == Initiator && m.loaded {
		r := &m.Regs.Initiator
		m.nic.record(Event{Kind: EventEffect, Module: m.id, From: StateMiss, To: StateMiss, Soft: true,
			Effect: Effect{Op: EffectContFlag, PGID: r.PGID, PID: r.PID, Window: r.Request.Window}})
	}
	m.state = StateIdle
	m.held = false
	m.waited = 0
	m.finish()
	m.nic.record(Event{Kind: EventAction, Module: m.id, From: StateMiss, To: StateIdle, Cause: m.cause, Action: ActionCancel})
	m.nic.counters.Cancellations++
	return nil
}

// Hold leaves the module suspended: firmware waits for something (VPUSH
// waits for room in its queue). The NIC offers a held module to firmware
// again on its next operation (Service, Issue, Receive).
func (m *Module) Hold() error {
	if m.state != StateMiss {
		return fmt.Errorf("takeover: hold %v: %w (it is in %v)", m.id, ErrNotSuspended, m.state)
	}
	m.held = true
	m.nic.record(Event{Kind: EventAction, Module: m.id, From: StateMiss, To: StateMiss, Cause: m.cause, Action: ActionHold})
	m.nic.counters.Holds++
	return nil
}

// Apply carries out a firmware decision.
func (m *Module) Apply(a Action) error {
	switch a.Kind {
	case ActionResume:
		return m.Resume(a.At)
	case ActionCompleteSoft:
		return m.CompleteSoft(a.At)
	case ActionCancel:
		return m.Cancel()
	case ActionHold:
		return m.Hold()
	}
	return fmt.Errorf("takeover: apply %v to %v: %w", a.Kind, m.id, ErrInvalidAction)
}
