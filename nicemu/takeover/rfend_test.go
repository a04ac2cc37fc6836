package takeover

import (
	"errors"
	"testing"
)

func pushTo(dst PID, off uint64, n int) Header {
	return Header{Type: PacketPush, SrcPGID: testPGID, SrcPID: 0, DstPID: dst, SID: dataSID, Offset: off, Length: n, MessageLength: n}
}

func aotfTo(dst PID, off uint64) Header {
	return Header{Type: PacketAOTF, SrcPGID: testPGID, SrcPID: 0, DstPID: dst, SID: dataSID, Offset: off, Length: 8, MessageLength: 8}
}

// TestRFendExceptions raises every RFend exception from its state.
func TestRFendExceptions(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world)
		before []Header // received first (to make RBend busy)
		pkt    Header
		last   State
		cause  Cause
	}{
		{name: "network-control packet", pkt: Header{Type: PacketControl, SrcPGID: testPGID, DstPID: 1},
			last: StateFLIT1, cause: CauseSpecialPacket},
		{name: "unknown packet type", pkt: Header{Type: 77, SrcPGID: testPGID, DstPID: 1},
			last: StateFLIT3, cause: CauseSpecialPacket},
		{name: "push switched to firmware", setup: func(w *world) { w.env.SetPacketInHardware(PacketPush, false) },
			pkt: pushTo(1, 0, 8), last: StateFLIT3, cause: CauseSpecialPacket},
		{name: "AOTF switched to firmware", setup: func(w *world) { w.env.SetPacketInHardware(PacketAOTF, false) },
			pkt: aotfTo(1, 0), last: StateFLIT3, cause: CauseSpecialPacket},
		{name: "RVATLB miss", setup: func(w *world) { w.env.ForceRVATLBMisses = 1 },
			pkt: pushTo(1, 0, 8), last: StateRVA, cause: CauseRVATLBMiss},
		{name: "AOTF RVATLB miss", setup: func(w *world) { w.env.ForceRVATLBMisses = 1 },
			pkt: aotfTo(1, 0), last: StateAOTFR, cause: CauseRVATLBMiss},
		{name: "RBend held: RVA times out", setup: func(w *world) { _ = w.nics[1].Module(RBend).SetBreakpoint(StateBPA) },
			before: []Header{pushTo(1, 0, 8)}, pkt: pushTo(1, 64, 8), last: StateRVA, cause: CauseTimeout},
		{name: "RBend held: AOTFR times out", setup: func(w *world) { _ = w.nics[1].Module(RBend).SetBreakpoint(StateBPA) },
			before: []Header{pushTo(1, 0, 8)}, pkt: aotfTo(1, 64), last: StateAOTFR, cause: CauseTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, tr := expectSuspension(t, c.setup, c.before, c.pkt, suspension{RFend, c.last, c.cause})
			rf := w.nics[1].Module(RFend)
			if rf.LastState() != c.last || rf.Cause() != c.cause {
				t.Errorf("registers: last %v cause %v", rf.LastState(), rf.Cause())
			}
			if len(effects(tr, EffectDMAWrite)) != 0 {
				t.Errorf("cancelled packet written%s", dump(tr))
			}
			if !rf.Idle() {
				t.Errorf("RFend not idle after Cancel: %v", rf.State())
			}
		})
	}
}

// TestRVATLBMissResumesAtRVACHK2: firmware refills the RVATLB and the
// hardware resumes at RVACHK2 (thesis l.1891), or at AOTF for AOTF packets.
func TestRVATLBMissResumesAtRVACHK2(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	w.env.FlushTLBs()
	w.env.WarmPATLB(testPGID, 1, bufVA, bufLen)
	tr := w.receive(pushTo(1, 256, 100))
	want := "IDLE FLIT0 FLIT1 FLIT2 FLIT3 RVACHK RVA MISS RVACHK2 RVA SET1 SET2 SET3 SET4 IDLE"
	if got := path(tr, RFend); got != want {
		t.Fatalf("path\n%q, want\n%q%s", got, want, dump(tr))
	}
	if fw := ofKind(tr, RFend, EventFirmware); len(fw) != 1 || fw[0].Op != OpRefillRVATLB {
		t.Errorf("firmware %v", fw)
	}
	if ws := effects(tr, EffectDMAWrite); len(ws) != 1 || ws[0].Effect.VA != bufVA+256 || ws[0].Effect.Length != 100 || ws[0].Soft {
		t.Errorf("writes %v", ws)
	}

	w.env.FlushTLBs()
	w.env.WarmPATLB(testPGID, 1, bufVA, bufLen)
	tr = w.receive(aotfTo(1, 512))
	if got, want := path(tr, RFend), "IDLE FLIT0 AOTF AOTFR MISS AOTF AOTFR IDLE"; got != want {
		t.Errorf("AOTF path %q, want %q", got, want)
	}
	if ws := effects(tr, EffectDMAWrite); len(ws) != 1 || ws[0].Effect.VA != bufVA+512 || ws[0].Effect.Length != 8 {
		t.Errorf("AOTF writes %v", ws)
	}
	if c := w.nics[1].Counters(); c.Resumes[ModeHard] != 2 || c.Exceptions[RFend][CauseRVATLBMiss] != 2 {
		t.Errorf("counters %+v", c)
	}
}

// TestAOTFNormalPath: an AOTF packet takes AOTF-AOTFR and is written by
// RBend.
func TestAOTFNormalPath(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := w.receive(aotfTo(1, 8))
	if got := path(tr, RFend); got != "IDLE FLIT0 AOTF AOTFR IDLE" {
		t.Errorf("path %q", got)
	}
	if got := path(tr, RBend); got != rbendPath {
		t.Errorf("RBend path %q", got)
	}
}

// TestRVATLBRefusals: packets the SID tables do not allow are refused at
// the receiver and never written.
func TestRVATLBRefusals(t *testing.T) {
	foreign := pushTo(1, 0, 8)
	foreign.SrcPGID = foreignPGID
	unknown := pushTo(1, 0, 8)
	unknown.SID = 55
	cases := []struct {
		name   string
		pkt    Header
		reason Refusal
	}{
		{"sender of another job", foreign, RefusedUnknownSegment},
		{"unregistered SID", unknown, RefusedUnknownSegment},
		{"beyond the segment", pushTo(1, bufLen-4, 8), RefusedOutOfRange},
		{"pull beyond the segment", Header{Type: PacketPullRequest, SrcPGID: testPGID, DstPID: 1, SID: dataSID, Offset: 8, Length: bufLen}, RefusedOutOfRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, nil)
			w.warm()
			tr := w.receive(c.pkt)
			if ref := ofKind(tr, RFend, EventRefused); len(ref) != 1 || ref[0].Refusal != c.reason {
				t.Errorf("refusals %v%s", ref, dump(tr))
			}
			if len(effects(tr, EffectDMAWrite))+len(effects(tr, EffectDMARead))+len(packets(tr)) != 0 {
				t.Errorf("refused packet performed%s", dump(tr))
			}
		})
	}
}

// TestSpecialPacketsDispatched: network-control and custom packets go to
// their software handlers and are consumed.
func TestSpecialPacketsDispatched(t *testing.T) {
	var seen []PacketType
	fw := &StandardFirmware{PacketHandlers: map[PacketType]PacketHandler{
		PacketControl: func(env Environment, r *RFendRegs) error { seen = append(seen, r.Packet.Type); return nil },
		77:            func(env Environment, r *RFendRegs) error { seen = append(seen, r.Packet.Type); return nil },
		78:            func(env Environment, r *RFendRegs) error { return errors.New("bad") },
	}}
	w := newWorld(t, func(PID) Firmware { return fw })
	w.warm()
	for _, c := range []struct {
		pkt  Header
		path string
	}{
		{Header{Type: PacketControl, DstPID: 1}, "IDLE FLIT0 FLIT1 MISS IDLE"},
		{Header{Type: 77, DstPID: 1}, "IDLE FLIT0 FLIT1 FLIT2 FLIT3 MISS IDLE"},
	} {
		tr := w.receive(c.pkt)
		if got := path(tr, RFend); got != c.path {
			t.Errorf("%v: path %q, want %q", c.pkt.Type, got, c.path)
		}
		act := ofKind(tr, RFend, EventAction)
		if len(act) != 1 || act[0].Action != ActionCompleteSoft || act[0].To != StateIdle {
			t.Errorf("%v: action %v", c.pkt.Type, act)
		}
	}
	if len(seen) != 2 || seen[0] != PacketControl || seen[1] != 77 {
		t.Errorf("handlers saw %v", seen)
	}
	for _, c := range []struct {
		t      PacketType
		reason Refusal
	}{{78, RefusedByHandler}, {79, RefusedNoHandler}} {
		tr := w.receive(Header{Type: c.t, DstPID: 1})
		if ref := ofKind(tr, RFend, EventRefused); len(ref) != 1 || ref[0].Refusal != c.reason {
			t.Errorf("type %v: refusals %v", c.t, ref)
		}
	}
}

// TestFirmwareSkipsRVA: firmware may translate itself and resume RFend past
// RVA; SET4 then reserves the back end on its own.
func TestFirmwareSkipsRVA(t *testing.T) {
	fw := &recorder{decide: func(env Environment, m *Module) Action {
		r := &m.Regs.RFend
		r.VA = bufVA + 0x400
		return Resume(StateSET1)
	}}
	w := newWorld(t, func(PID) Firmware { return fw })
	w.warm()
	w.env.ForceRVATLBMisses = 1
	tr := w.receive(pushTo(1, 0, 16))
	if got, want := path(tr, RFend), "IDLE FLIT0 FLIT1 FLIT2 FLIT3 RVACHK RVA MISS SET1 SET2 SET3 SET4 IDLE"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
	if ws := effects(tr, EffectDMAWrite); len(ws) != 1 || ws[0].Effect.VA != bufVA+0x400 {
		t.Errorf("writes %v", ws)
	}
}
