package takeover

import (
	"errors"
	"reflect"
	"testing"
)

// scenario runs traffic that visits the states of all four modules (PUSH
// with ack over several packets and pages, PULL, BOTF, AOTF, an RVATLB
// miss, a software request) and returns every effect, tagged with the NIC,
// and the whole trace.
func scenario(t *testing.T, w *world) (effs []taggedEffect, all []Event) {
	t.Helper()
	w.warm()
	w.env.ForceRVATLBMisses = 1
	collect := func(pid PID, tr []Event) {
		for _, e := range tr {
			if e.Kind == EventEffect {
				effs = append(effs, taggedEffect{pid, e.Module, e.Soft, e.Effect})
			}
		}
		all = append(all, tr...)
	}
	run := func(pid PID, req Request) {
		tr := w.issue(pid, req)
		collect(pid, tr)
		for len(packets(tr)) > 0 {
			var next []Event
			for _, p := range packets(tr) {
				rx := w.receive(p)
				collect(p.DstPID, rx)
				next = append(next, rx...)
			}
			tr = next
		}
	}
	run(0, Request{Kind: RequestPush, LocalVA: bufVA + 4000, Length: 5000, Target: 1, SID: dataSID, FlagVA: flagVA})
	run(0, Request{Kind: RequestPull, LocalVA: bufVA + 8000, Length: 3000, Target: 1, SID: dataSID, Offset: 4000, FlagVA: flagVA + 8})
	run(2, Request{Kind: RequestBOTF, PacketType: PacketPush, Length: 16, Target: 1, SID: dataSID, Offset: 32})
	run(2, Request{Kind: 42})
	collect(1, w.receive(aotfTo(1, 64)))
	return effs, all
}

type taggedEffect struct {
	nic    PID
	module ModuleID
	soft   bool
	effect Effect
}

func scenarioFirmware(onBreakpoint func(env Environment, m *Module) Action) func(PID) Firmware {
	return func(PID) Firmware {
		return &StandardFirmware{
			RequestHandlers: map[RequestKind]RequestHandler{42: func(Environment, *InitiatorRegs) error { return nil }},
			OnBreakpoint:    onBreakpoint,
		}
	}
}

// TestBreakpointsOnEveryState sets a breakpoint on each state the scenario's
// hardware enters, in turn: the module stops on entering it, before acting, with
// the state in its last-state register; firmware resumes it there and the
// scenario's effects are exactly those of a run without breakpoints.
func TestBreakpointsOnEveryState(t *testing.T) {
	base := newWorld(t, scenarioFirmware(nil))
	want, all := scenario(t, base)
	entered := scenarioStates(t, all)
	for _, v := range entered {
		t.Run(v.id.String()+"/"+v.s.String(), func(t *testing.T) {
			checkBreakpointOn(t, v, want)
		})
	}
}

// modState is one state of one module.
type modState struct {
	id ModuleID
	s  State
}

// scenarioStates returns the states the hardware enters in the trace all,
// in order of first entry, and checks the scenario visits every state but
// MISS, RVACHK2 only by Resume.
func scenarioStates(t *testing.T, all []Event) (entered []modState) {
	t.Helper()
	// Breakpoints act on hardware transitions into a state; RVACHK2 is
	// entered only by firmware (Resume), so it is visited but not entered.
	seen := make(map[modState]bool)
	isEntered := make(map[modState]bool)
	for _, e := range all {
		if e.Kind != EventTransition {
			continue
		}
		seen[modState{e.Module, e.From}] = true
		k := modState{e.Module, e.To}
		seen[k] = true
		if !e.Soft && !isEntered[k] {
			isEntered[k] = true
			entered = append(entered, k)
		}
	}
	if isEntered[modState{RFend, StateRVACHK2}] || !seen[modState{RFend, StateRVACHK2}] {
		t.Errorf("RVACHK2 should be reached by Resume only")
	}
	for id := ModuleID(0); id < NumModules; id++ {
		for _, s := range StatesOf(id) {
			if s != StateMiss && !seen[modState{id, s}] {
				t.Errorf("scenario never visits %v %v", id, s)
			}
		}
	}
	return entered
}

// checkBreakpointOn runs the scenario with a breakpoint on v in every NIC,
// resumed where it stopped, and checks each hit, that the module stopped
// before acting, the effects against want, and the hit counters.
func checkBreakpointOn(t *testing.T, v modState, want []taggedEffect) {
	t.Helper()
	var hits []suspension
	w := newWorld(t, scenarioFirmware(func(env Environment, m *Module) Action {
		hits = append(hits, suspension{m.ID(), m.LastState(), m.Cause()})
		return Resume(m.LastState())
	}))
	for _, n := range w.nics {
		if err := n.Module(v.id).SetBreakpoint(v.s); err != nil {
			t.Fatal(err)
		}
	}
	got, tr := scenario(t, w)
	if len(hits) == 0 {
		t.Fatalf("breakpoint never hit")
	}
	for _, h := range hits {
		if h != (suspension{v.id, v.s, CauseBreakpoint}) {
			t.Errorf("hit %+v", h)
		}
	}
	checkStoppedOnEntry(t, tr, v)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("effects differ from the run without breakpoint:\n got %v\nwant %v", got, want)
	}
	var total uint64
	for _, n := range w.nics {
		total += n.Counters().BreakpointHits
	}
	if total != uint64(len(hits)) {
		t.Errorf("BreakpointHits %d, firmware saw %d", total, len(hits))
	}
}

// checkStoppedOnEntry: in tr, every breakpoint exception of v's module
// directly follows its transition into v's state, before it acts.
func checkStoppedOnEntry(t *testing.T, tr []Event, v modState) {
	t.Helper()
	// The module entered the state and stopped before acting.
	var prev *Event
	for i := range tr {
		e := &tr[i]
		if e.Module != v.id {
			continue
		}
		if e.Kind == EventException && e.Cause == CauseBreakpoint {
			if prev == nil || prev.Kind != EventTransition || prev.To != v.s {
				t.Errorf("breakpoint exception after %v", prev)
			}
		}
		prev = e
	}
}

// TestBreakpointHoldAndService: firmware holds the Initiator at a
// breakpoint; the Window stays busy until Service lets firmware resume it.
func TestBreakpointHoldAndService(t *testing.T) {
	release := false
	fw := &StandardFirmware{OnBreakpoint: func(env Environment, m *Module) Action {
		if !release {
			return Hold()
		}
		return Resume(m.LastState())
	}}
	w := newWorld(t, func(PID) Firmware { return fw })
	w.warm()
	n := w.nics[0]
	ini := n.Module(Initiator)
	if err := ini.SetBreakpoint(StateCHK1); err != nil {
		t.Fatal(err)
	}
	req := Request{Kind: RequestPush, Window: windowOf(0), LocalVA: bufVA, Length: 64, Target: 1, SID: dataSID}
	tr := w.issue(0, req)
	if !ini.Held() || ini.LastState() != StateCHK1 || len(packets(tr)) != 0 || len(effects(tr, EffectDMARead)) != 0 {
		t.Fatalf("not held before CHK1 acted%s", dump(tr))
	}
	if _, err := n.Issue(w.env, req, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("Issue on a held Initiator: %v", err)
	}
	tr, err := n.Service(w.env, nil)
	if err != nil || !ini.Held() {
		t.Fatalf("Service: %v, held %v", err, ini.Held())
	}
	release = true
	tr, err = n.Service(w.env, tr[:0])
	if err != nil {
		t.Fatal(err)
	}
	if got := path(tr, Initiator); got != "MISS CHK1 CHK2 CONT IDLE" {
		t.Errorf("path after release %q%s", got, dump(tr))
	}
	if len(packets(tr)) != 1 || len(effects(tr, EffectContFlag)) != 1 || !ini.Idle() {
		t.Errorf("push not completed%s", dump(tr))
	}
	c := n.Counters()
	if c.BreakpointHits != 1 || c.Holds != 2 || c.Takeovers != 3 || c.Resumes[ModeHard] != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestBreakpointOnIdle: a breakpoint on IDLE stops the module when it
// finishes, before it takes new work.
func TestBreakpointOnIdle(t *testing.T) {
	fw := &recorder{decide: func(env Environment, m *Module) Action { return Resume(m.LastState()) }}
	w := newWorld(t, func(PID) Firmware { return fw })
	w.warm()
	_ = w.nics[1].Module(RBend).SetBreakpoint(StateIdle)
	tr := w.receive(pushTo(1, 0, 8))
	if got := path(tr, RBend); got != "IDLE BPA BPA2 BDMA BWAIT BHAND IDLE MISS IDLE" {
		t.Errorf("path %q", got)
	}
	if len(fw.seen) != 1 || fw.seen[0] != (suspension{RBend, StateIdle, CauseBreakpoint}) {
		t.Errorf("firmware saw %v", fw.seen)
	}
}
