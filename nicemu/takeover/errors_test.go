package takeover

import (
	"errors"
	"testing"
)

// TestInvalidUse: misuse returns errors, never panics.
func TestInvalidUse(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	n := w.nics[0]
	ini := n.Module(Initiator)

	checkIdleModuleMisuse(t, ini)
	// Suspend the Initiator at a breakpoint, then misuse the suspended module.
	checkSuspendedModuleMisuse(t)
	checkInvalidOperations(t, w, n, ini)
}

// checkIdleModuleMisuse: controlling a module that is not suspended, or
// naming another module's state, is rejected.
func checkIdleModuleMisuse(t *testing.T, ini *Module) {
	t.Helper()
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"resume a running module", ini.Resume(StateIPA), ErrNotSuspended},
		{"complete an idle module in software", ini.CompleteSoft(StateIPA), ErrNotSuspended},
		{"cancel an idle module", ini.Cancel(), ErrNotSuspended},
		{"hold an idle module", ini.Hold(), ErrNotSuspended},
		{"breakpoint on another module's state", ini.SetBreakpoint(StateFLIT0), ErrInvalidState},
		{"breakpoint on MISS", ini.SetBreakpoint(StateMiss), ErrInvalidState},
		{"clear a breakpoint of another module", ini.ClearBreakpoint(StateRVA), ErrInvalidState},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
}

// checkSuspendedModuleMisuse suspends an Initiator at a breakpoint in a
// second world: invalid actions are rejected without changing the module,
// and only the first valid resume succeeds.
func checkSuspendedModuleMisuse(t *testing.T) {
	t.Helper()
	fw := &recorder{decide: holdBreakpoints}
	w2 := newWorld(t, func(PID) Firmware { return fw })
	w2.warm()
	m := w2.nics[0].Module(Initiator)
	_ = m.SetBreakpoint(StateIPA)
	w2.issue(0, Request{Kind: RequestPush, LocalVA: bufVA, Length: 8, Target: 1, SID: dataSID})
	if !m.Suspended() {
		t.Fatal("not suspended")
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"resume at another module's state", m.Resume(StateRVA), ErrInvalidState},
		{"resume at MISS", m.Resume(StateMiss), ErrInvalidState},
		{"resume at an unknown state", m.Resume(State(250)), ErrInvalidState},
		{"complete in software at another module's state", m.CompleteSoft(StateBPA), ErrInvalidState},
		{"unknown action", m.Apply(Action{}), ErrInvalidAction},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if !m.Suspended() {
		t.Error("a rejected action changed the module")
	}
	if err := m.Resume(StateIPA); err != nil {
		t.Errorf("valid resume: %v", err)
	}
	if err := m.Resume(StateIPA); !errors.Is(err, ErrNotSuspended) {
		t.Errorf("second resume: %v", err)
	}
}

// checkInvalidOperations: malformed requests and packets, a missing
// environment or firmware, and detached modules are reported as errors.
func checkInvalidOperations(t *testing.T, w *world, n *NIC, ini *Module) {
	t.Helper()
	if _, err := n.Issue(w.env, Request{Kind: RequestPush, Length: -1}, nil); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("negative length: %v", err)
	}
	if _, err := n.Issue(w.env, Request{Kind: RequestBOTF, Length: MTU + 1}, nil); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("BOTF beyond the MTU: %v", err)
	}
	if _, err := n.Receive(w.env, Header{Type: PacketPush, Length: MTU + 1}, nil); !errors.Is(err, ErrInvalidPacket) {
		t.Errorf("packet beyond the MTU: %v", err)
	}
	if _, err := n.Receive(w.env, Header{Type: PacketPullRequest, Length: -1}, nil); !errors.Is(err, ErrInvalidPacket) {
		t.Errorf("negative pull: %v", err)
	}
	if _, err := n.Issue(nil, Request{Kind: RequestPush}, nil); !errors.Is(err, ErrDetached) {
		t.Errorf("nil environment: %v", err)
	}
	if n.Module(ModuleID(7)) != nil {
		t.Error("Module of an unknown id")
	}
	var loose Module
	if tr := loose.Step(w.env); tr.Kind != 0 {
		t.Errorf("detached Step did %v", tr)
	}
	if err := loose.Run(w.env, &StandardFirmware{}); !errors.Is(err, ErrDetached) {
		t.Errorf("detached Run: %v", err)
	}
	if err := ini.Run(w.env, nil); !errors.Is(err, ErrDetached) {
		t.Errorf("Run without firmware: %v", err)
	}
}

// TestFirmwareErrorsSurface: an invalid decision or a module that never
// finishes is reported by the operation.
func TestFirmwareErrorsSurface(t *testing.T) {
	bad := &recorder{decide: func(Environment, *Module) Action { return Resume(StateFLIT0) }}
	w := newWorld(t, func(PID) Firmware { return bad })
	_, err := w.nics[0].Issue(w.env, Request{Kind: 42, Window: windowOf(0)}, nil)
	if !errors.Is(err, ErrInvalidState) {
		t.Errorf("invalid resume state: %v", err)
	}

	forever := &recorder{decide: func(Environment, *Module) Action { return Resume(StateIdle) }}
	w = newWorld(t, func(PID) Firmware { return forever })
	w.nics[0].StepLimit = 1000
	_, err = w.nics[0].Issue(w.env, Request{Kind: 42, Window: windowOf(0)}, nil)
	if !errors.Is(err, ErrRunaway) {
		t.Errorf("endless restart: %v", err)
	}

	// Run on a single module reports the same.
	w = newWorld(t, func(PID) Firmware { return forever })
	n := w.nics[0]
	n.StepLimit = 1000
	m := n.Module(Initiator)
	m.loadRequest(Request{Kind: 42, Window: windowOf(0)})
	n.ResetTrace(nil)
	if err := m.Run(w.env, forever); !errors.Is(err, ErrRunaway) {
		t.Errorf("Run: %v", err)
	}
}

// TestStepAndRunDirectly drives one module with Step and Run.
func TestStepAndRunDirectly(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	w.env.ForcePATLBMisses = 1
	n := w.nics[0]
	n.ResetTrace(make([]Event, 0, 32))
	m := n.Module(Initiator)
	m.loadRequest(Request{Kind: RequestPush, Window: windowOf(0), LocalVA: bufVA, Length: 8, Target: 1, SID: dataSID})
	var got []Transition
	for i := 0; i < 4; i++ {
		got = append(got, m.Step(w.env))
	}
	want := []Transition{
		{Module: Initiator, Kind: EventTransition, From: StateIdle, To: StatePGID},
		{Module: Initiator, Kind: EventTransition, From: StatePGID, To: StateIPA},
		{Module: Initiator, Kind: EventTransition, From: StateIPA, To: StateIPA2},
		{Module: Initiator, Kind: EventException, From: StateIPA2, To: StateMiss, Cause: CausePATLBMiss},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if tr := m.Step(w.env); tr.Kind != 0 || tr.From != StateMiss {
		t.Errorf("step while suspended: %+v", tr)
	}
	if err := m.Run(w.env, n.Firmware()); err != nil {
		t.Fatal(err)
	}
	if got := path(n.Trace(), Initiator); got != "IDLE PGID IPA IPA2 MISS IPA IPA2 CHK1 CHK2 CONT IDLE" {
		t.Errorf("path %q", got)
	}
	if !m.Idle() {
		t.Error("not idle")
	}
}
