package takeover

import "testing"

func pullFrom(target PID, off uint64, n int) Header {
	return Header{Type: PacketPullRequest, SrcPGID: testPGID, SrcPID: 0, DstPID: target, SID: dataSID, Offset: off,
		Length: n, MessageLength: n, ReplyVA: bufVA, AckVA: flagVA}
}

func ackedPush(dst PID, off uint64, n int) Header {
	p := pushTo(dst, off, n)
	p.Ack, p.AckVA = true, flagVA
	return p
}

// TestBackEndExceptions raises every RBend and Replier exception.
func TestBackEndExceptions(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world)
		before []Header
		pkt    Header
		module ModuleID
		last   State
		cause  Cause
	}{
		{name: "RBend PATLB miss", setup: func(w *world) { w.env.ForcePATLBMisses = 1 },
			pkt: pushTo(1, 0, 8), module: RBend, last: StateBPA2, cause: CausePATLBMiss},
		{name: "RBend DMA never completes", setup: func(w *world) { w.env.DMAStuck[RBend] = true },
			pkt: pushTo(1, 0, 8), module: RBend, last: StateBWAIT, cause: CauseTimeout},
		{name: "Replier held: BHAND times out", setup: func(w *world) { _ = w.nics[1].Module(Replier).SetBreakpoint(StateRACK) },
			before: []Header{ackedPush(1, 0, 8)}, pkt: ackedPush(1, 64, 8), module: RBend, last: StateBHAND, cause: CauseTimeout},
		{name: "Replier PATLB miss", setup: func(w *world) { w.env.ForcePATLBMisses = 1 },
			pkt: pullFrom(1, 0, 100), module: Replier, last: StateRPA2, cause: CausePATLBMiss},
		{name: "Replier DMA never completes", setup: func(w *world) { w.env.DMAStuck[Replier] = true },
			pkt: pullFrom(1, 0, 100), module: Replier, last: StateRWAIT, cause: CauseTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, tr := expectSuspension(t, c.setup, c.before, c.pkt, suspension{c.module, c.last, c.cause})
			m := w.nics[1].Module(c.module)
			if m.LastState() != c.last || m.Cause() != c.cause || !m.Idle() {
				t.Errorf("registers: last %v cause %v; state %v", m.LastState(), m.Cause(), m.State())
			}
			if c.module == Replier && len(packets(tr)) != 0 {
				t.Errorf("cancelled reply sent%s", dump(tr))
			}
		})
	}
}

// TestBackEndPATLBMissResumes: the standard firmware refills the PATLB and
// resumes RBend at BPA and the Replier at RPA.
func TestBackEndPATLBMissResumes(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	w.env.ForcePATLBMisses = 1
	tr := w.receive(pushTo(1, 0, 8))
	if got, want := path(tr, RBend), "IDLE BPA BPA2 MISS BPA BPA2 BDMA BWAIT BHAND IDLE"; got != want {
		t.Errorf("RBend path %q, want %q", got, want)
	}
	if len(effects(tr, EffectDMAWrite)) != 1 {
		t.Errorf("push not written%s", dump(tr))
	}
	w.env.ForcePATLBMisses = 1
	tr = w.receive(pullFrom(1, 0, 100))
	if got, want := path(tr, Replier), "IDLE RPA RPA2 MISS RPA RPA2 RDMA RWAIT RSEND IDLE"; got != want {
		t.Errorf("Replier path %q, want %q", got, want)
	}
	if pk := packets(tr); len(pk) != 1 || pk[0].Type != PacketPullReply || pk[0].Length != 100 {
		t.Errorf("reply %v", pk)
	}
	if c := w.nics[1].Counters(); c.Resumes[ModeHard] != 2 || c.Exceptions[RBend][CausePATLBMiss] != 1 || c.Exceptions[Replier][CausePATLBMiss] != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestTimeoutCancelled: the standard firmware refuses and cancels a module
// that timed out; a delay shorter than the budget is only waited for.
func TestTimeoutCancelled(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	w.env.DMAPending[RBend] = 10
	tr := w.receive(ackedPush(1, 0, 8))
	if n := len(ofKind(tr, RBend, EventWait)); n != 10 || len(ofKind(tr, RBend, EventException)) != 0 {
		t.Errorf("%d waits%s", n, dump(tr))
	}
	if len(packets(tr)) != 1 {
		t.Error("ack not sent after a short DMA delay")
	}
	w.env.DMAStuck[RBend] = true
	tr = w.receive(ackedPush(1, 0, 8))
	if ref := ofKind(tr, RBend, EventRefused); len(ref) != 1 || ref[0].Refusal != RefusedTimeout {
		t.Errorf("refusals %v", ref)
	}
	if len(packets(tr)) != 0 || path(tr, Replier) != "" {
		t.Errorf("ack sent after a timeout%s", dump(tr))
	}
	c := w.nics[1].Counters()
	if c.Exceptions[RBend][CauseTimeout] != 1 || c.Cancellations != 1 || c.Refusals[RefusedTimeout] != 1 {
		t.Errorf("counters %+v", c)
	}
	if !w.nics[1].Module(RBend).Idle() {
		t.Error("RBend not idle")
	}
}

// TestRBendSoftCompletion: in SOFT mode firmware writes the packet itself
// after the refill; the ack still goes through the hardware Replier.
func TestRBendSoftCompletion(t *testing.T) {
	w := newWorld(t, func(PID) Firmware { return &StandardFirmware{PATLBMode: ModeSoft} })
	w.warm()
	w.env.ForcePATLBMisses = 1
	tr := w.receive(ackedPush(1, 4000, 200)) // two pages
	if got, want := path(tr, RBend), "IDLE BPA BPA2 MISS BPA BPA2 BDMA BPA BPA2 BDMA BWAIT BHAND IDLE"; got != want {
		t.Fatalf("path %q, want %q%s", got, want, dump(tr))
	}
	ws := effects(tr, EffectDMAWrite)
	if len(ws) != 2 || !ws[0].Soft || !ws[1].Soft || ws[0].Effect.Length != 96 || ws[1].Effect.Length != 104 {
		t.Errorf("writes %v", ws)
	}
	if got := path(tr, Replier); got != "IDLE RACK RSEND IDLE" {
		t.Errorf("Replier path %q", got)
	}
	for _, e := range ofKind(tr, Replier, EventTransition) {
		if e.Soft {
			t.Errorf("Replier step done by firmware: %v", e)
		}
	}
	if c := w.nics[1].Counters(); c.SoftSteps[RBend] != 8 || c.Resumes[ModeSoft] != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestEmptyTransfers: a PUSH or PULL of zero bytes still carries its ack or
// completion flag.
func TestEmptyTransfers(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := w.issue(0, Request{Kind: RequestPush, Length: 0, Target: 1, SID: dataSID, FlagVA: flagVA})
	if got := path(tr, Initiator); got != "IDLE PGID CHK1 CHK2 CONT IDLE" {
		t.Errorf("empty PUSH path %q", got)
	}
	rx := w.deliver(tr)
	flags := effects(rx, EffectDMAWrite)
	if len(flags) != 1 || !flags[0].Effect.Flag || flags[0].Effect.PID != 0 {
		t.Errorf("empty PUSH: writes %v%s", flags, dump(rx))
	}
	rx = w.deliver(w.issue(0, Request{Kind: RequestPull, Length: 0, LocalVA: bufVA, Target: 1, SID: dataSID, FlagVA: flagVA}))
	if got := path(rx, Replier); got != "IDLE RSEND IDLE" {
		t.Errorf("empty PULL Replier path %q", got)
	}
	flags = effects(rx, EffectDMAWrite)
	if len(flags) != 1 || !flags[0].Effect.Flag || flags[0].Effect.VA != flagVA {
		t.Errorf("empty PULL: writes %v", flags)
	}
}
