package takeover

import (
	"strings"
	"testing"
)

// The test job: processes 0..3 in testPGID, process 5 in another job.
const (
	testPGID    PGID = 7
	foreignPGID PGID = 9
	foreignPID  PID  = 5

	bufVA    uint64 = 0x10_0000 // 64 KiB registered as dataSID in every process
	bufLen          = 64 << 10
	flagVA   uint64 = 0x20_0000 // one pinned page for flags
	dataSID  SID    = 1
	vpushSID SID    = 99
)

func windowOf(pid PID) int  { return 100 + int(pid) }
func bufPA(pid PID) uint64  { return uint64(pid+1) << 32 }
func flagPA(pid PID) uint64 { return uint64(pid+1)<<32 + 0x1000_0000 }
func pgidOf(pid PID) PGID {
	if pid == foreignPID {
		return foreignPGID
	}
	return testPGID
}

// world is a set of processes, one NIC each, sharing one MapEnv.
type world struct {
	t    *testing.T
	env  *MapEnv
	nics map[PID]*NIC
}

// newWorld creates processes 0..3 and the foreign process; fw gives each
// NIC its firmware (nil: a zero StandardFirmware).
func newWorld(t *testing.T, fw func(PID) Firmware) *world {
	t.Helper()
	w := &world{t: t, env: NewMapEnv(), nics: make(map[PID]*NIC)}
	for _, pid := range []PID{0, 1, 2, 3, foreignPID} {
		w.env.BindWindow(windowOf(pid), pgidOf(pid), pid)
		w.env.Pin(pid, bufVA, bufLen, bufPA(pid))
		w.env.Pin(pid, flagVA, PageSize, flagPA(pid))
		w.env.Register(pid, dataSID, bufVA, bufLen)
		var f Firmware
		if fw != nil {
			f = fw(pid)
		}
		w.nics[pid] = NewNIC(f)
	}
	return w
}

// warm fills the PATLB and RVATLB with every process's own entries.
func (w *world) warm() {
	for pid := range w.nics {
		w.env.WarmPATLB(pgidOf(pid), pid, bufVA, bufLen)
		w.env.WarmPATLB(pgidOf(pid), pid, flagVA, PageSize)
		w.env.WarmRVATLB(pgidOf(pid), pid, dataSID)
	}
}

// issue kicks req on pid's Window (unless req names one) and checks the
// trace.
func (w *world) issue(pid PID, req Request) []Event {
	w.t.Helper()
	if req.Window == 0 {
		req.Window = windowOf(pid)
	}
	tr, err := w.nics[pid].Issue(w.env, req, nil)
	if err != nil {
		w.t.Fatalf("Issue %v from PID %d: %v", req.Kind, pid, err)
	}
	checkTrace(w.t, tr)
	return tr
}

// receive hands pkt to its destination's NIC and checks the trace.
func (w *world) receive(pkt Header) []Event {
	w.t.Helper()
	tr, err := w.nics[pkt.DstPID].Receive(w.env, pkt, nil)
	if err != nil {
		w.t.Fatalf("Receive %v at PID %d: %v", pkt.Type, pkt.DstPID, err)
	}
	checkTrace(w.t, tr)
	return tr
}

// deliver receives every packet sent in tr, and every packet those sends
// provoke, and returns the receivers' traces in order.
func (w *world) deliver(tr []Event) []Event {
	w.t.Helper()
	var out []Event
	queue := packets(tr)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		rx := w.receive(p)
		out = append(out, rx...)
		queue = append(queue, packets(rx)...)
	}
	return out
}

// checkTrace holds every trace to the exception map and the state sets.
func checkTrace(t *testing.T, tr []Event) {
	t.Helper()
	for i, e := range tr {
		switch e.Kind {
		case EventTransition, EventWait, EventException:
			if !ValidState(e.Module, e.From) || !ValidState(e.Module, e.To) {
				t.Errorf("event %d %v: state not of %v", i, e, e.Module)
			}
		}
		if e.Kind == EventException && e.Cause != CauseBreakpoint && !Raises(e.Module, e.From).Has(e.Cause) {
			t.Errorf("event %d %v: %v raised %v in %v, which Raises does not list", i, e, e.Module, e.Cause, e.From)
		}
	}
}

// packets returns the headers of the packets sent in tr.
func packets(tr []Event) []Header {
	var out []Header
	for _, e := range tr {
		if e.Kind == EventEffect && e.Effect.Op == EffectSendPacket {
			out = append(out, e.Effect.Packet)
		}
	}
	return out
}

// effects returns the effect events of kind op in tr.
func effects(tr []Event, op EffectOp) []Event {
	var out []Event
	for _, e := range tr {
		if e.Kind == EventEffect && e.Effect.Op == op {
			out = append(out, e)
		}
	}
	return out
}

// ofKind returns the events of kind k (of module id) in tr.
func ofKind(tr []Event, id ModuleID, k EventKind) []Event {
	var out []Event
	for _, e := range tr {
		if e.Kind == k && e.Module == id {
			out = append(out, e)
		}
	}
	return out
}

// path is the sequence of states module id went through in tr, as the
// thesis names them: transitions (hardware and soft), suspensions and
// firmware's resumptions. Waits and holds are left out.
func path(tr []Event, id ModuleID) string {
	var states []string
	for _, e := range tr {
		if e.Module != id {
			continue
		}
		switch e.Kind {
		case EventTransition, EventException:
		case EventAction:
			if e.Action == ActionHold {
				continue
			}
		default:
			continue
		}
		if len(states) == 0 {
			states = append(states, e.From.String())
		}
		states = append(states, e.To.String())
	}
	return strings.Join(states, " ")
}

// dump formats a trace for failure messages.
func dump(tr []Event) string {
	var b strings.Builder
	for _, e := range tr {
		b.WriteString("\n\t")
		b.WriteString(e.String())
	}
	return b.String()
}

// suspension is what a recording firmware saw.
type suspension struct {
	module ModuleID
	last   State
	cause  Cause
}

// recorder is a firmware that records every suspension and asks decide
// (default: Cancel).
type recorder struct {
	seen   []suspension
	decide func(env Environment, m *Module) Action
}

func (r *recorder) Handle(env Environment, m *Module) Action {
	r.seen = append(r.seen, suspension{m.ID(), m.LastState(), m.Cause()})
	if r.decide != nil {
		return r.decide(env, m)
	}
	return Cancel()
}

// holdBreakpoints holds modules stopped at breakpoints and cancels the rest.
func holdBreakpoints(env Environment, m *Module) Action {
	if m.Cause() == CauseBreakpoint {
		return Hold()
	}
	return Cancel()
}

// expectSuspension receives before, then pkt, in a warm world (prepared by
// setup, if not nil) whose firmware records suspensions and holds
// breakpoints, and checks that the firmware saw exactly one suspension of
// want's module while pkt was received, and that it is want. It returns
// the world and pkt's trace.
func expectSuspension(t *testing.T, setup func(*world), before []Header, pkt Header, want suspension) (*world, []Event) {
	t.Helper()
	fw := &recorder{decide: holdBreakpoints}
	w := newWorld(t, func(PID) Firmware { return fw })
	w.warm()
	if setup != nil {
		setup(w)
	}
	for _, p := range before {
		w.receive(p)
	}
	fw.seen = nil
	tr := w.receive(pkt)
	var got []suspension
	for _, s := range fw.seen {
		if s.module == want.module {
			got = append(got, s)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("firmware saw %+v, want %v%s", fw.seen, want, dump(tr))
	}
	return w, tr
}
