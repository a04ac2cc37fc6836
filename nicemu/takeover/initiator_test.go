package takeover

import (
	"errors"
	"testing"
)

const (
	fig75Push = "IDLE PGID IPA IPA2 CHK1 CHK2 CONT IDLE"
	fig76Push = "IDLE FLIT0 FLIT1 FLIT2 FLIT3 RVACHK RVA SET1 SET2 SET3 SET4 IDLE"
	rbendPath = "IDLE BPA BPA2 BDMA BWAIT BHAND IDLE"
)

// TestPushNormalPath follows one small PUSH through Fig 7.5 at the sender
// and Fig 7.6 at the receiver, without exceptions.
func TestPushNormalPath(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA + 16, Length: 64, Target: 1, SID: dataSID, Offset: 128})
	if got := path(tr, Initiator); got != fig75Push {
		t.Fatalf("Initiator path %q, want %q%s", got, fig75Push, dump(tr))
	}
	reads := effects(tr, EffectDMARead)
	if len(reads) != 1 {
		t.Fatalf("%d DMA reads%s", len(reads), dump(tr))
	}
	if e := reads[0].Effect; e.PID != 0 || e.VA != bufVA+16 || e.PA != bufPA(0)+16 || e.Length != 64 || e.Offset != 0 || reads[0].From != StateCHK1 {
		t.Errorf("DMA read %+v in %v", e, reads[0].From)
	}
	pk := packets(tr)
	want := Header{Type: PacketPush, SrcPGID: testPGID, SrcPID: 0, DstPID: 1, SID: dataSID, Offset: 128, Length: 64, MessageLength: 64}
	if len(pk) != 1 || pk[0] != want {
		t.Fatalf("packets %+v, want %+v", pk, want)
	}
	if cf := effects(tr, EffectContFlag); len(cf) != 1 || cf[0].Effect.Window != windowOf(0) || cf[0].Soft {
		t.Errorf("contflag %v", cf)
	}
	if n := len(ofKind(tr, Initiator, EventTakeover)); n != 0 {
		t.Errorf("%d takeovers", n)
	}
	c := w.nics[0].Counters()
	if c.Transitions[Initiator] != 7 || c.Takeovers != 0 || c.SoftSteps[Initiator] != 0 {
		t.Errorf("counters %+v", c)
	}

	rx := w.deliver(tr)
	if got := path(rx, RFend); got != fig76Push {
		t.Errorf("RFend path %q, want %q%s", got, fig76Push, dump(rx))
	}
	if got := path(rx, RBend); got != rbendPath {
		t.Errorf("RBend path %q, want %q", got, rbendPath)
	}
	if got := path(rx, Replier); got != "" {
		t.Errorf("Replier ran without an ack request: %q", got)
	}
	writes := effects(rx, EffectDMAWrite)
	if len(writes) != 1 {
		t.Fatalf("%d DMA writes%s", len(writes), dump(rx))
	}
	if e := writes[0].Effect; e.PID != 1 || e.VA != bufVA+128 || e.PA != bufPA(1)+128 || e.Length != 64 || e.Flag {
		t.Errorf("DMA write %+v", e)
	}
	if !w.nics[1].Module(RFend).Idle() || !w.nics[1].Module(RBend).Idle() || !w.nics[0].Module(Initiator).Idle() {
		t.Error("modules not idle after the push")
	}
}

// TestPushSplitsPacketsAndPages: 5000 bytes from an unaligned source make
// three packets (MTU), their DMA pieces end at page boundaries, and only
// the last packet asks for the ack; the receiver's Replier acks it and the
// sender's RBend sets the flag.
func TestPushSplitsPacketsAndPages(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA + 4000, Length: 5000, Target: 1, SID: dataSID, Offset: 0, FlagVA: flagVA})
	const wantPath = "IDLE PGID IPA IPA2 CHK1 IPA IPA2 CHK1 CHK2 IPA IPA2 CHK1 CHK2 IPA IPA2 CHK1 IPA IPA2 CHK1 CHK2 CONT IDLE"
	if got := path(tr, Initiator); got != wantPath {
		t.Fatalf("Initiator path\n%q, want\n%q", got, wantPath)
	}
	var lens, offs []int
	for _, e := range effects(tr, EffectDMARead) {
		lens = append(lens, e.Effect.Length)
		offs = append(offs, e.Effect.Offset)
		if e.Effect.VA/PageSize != (e.Effect.VA+uint64(e.Effect.Length)-1)/PageSize {
			t.Errorf("piece %+v crosses a page", e.Effect)
		}
	}
	if want := []int{96, 1952, 2048, 96, 808}; !equalInts(lens, want) || !equalInts(offs, []int{0, 96, 0, 0, 96}) {
		t.Errorf("piece lengths %v offsets %v", lens, offs)
	}
	pk := packets(tr)
	if len(pk) != 3 {
		t.Fatalf("%d packets", len(pk))
	}
	for i, p := range pk {
		wantLen := []int{2048, 2048, 904}[i]
		last := i == 2
		if p.Length != wantLen || p.Offset != uint64(2048*i) || p.MessageLength != 5000 || p.Ack != last || (p.AckVA == flagVA) != last {
			t.Errorf("packet %d: %+v", i, p)
		}
	}
	rx := w.deliver(tr)
	total := 0
	for _, e := range effects(rx, EffectDMAWrite) {
		if e.Module == RBend && e.Effect.PID == 1 {
			total += e.Effect.Length
		}
	}
	if total != 5000 {
		t.Errorf("receiver wrote %d bytes", total)
	}
	if got := path(rx, Replier); got != "IDLE RACK RSEND IDLE" {
		t.Errorf("Replier path %q%s", got, dump(rx))
	}
	var flags []Effect
	for _, e := range effects(rx, EffectDMAWrite) {
		if e.Effect.Flag {
			flags = append(flags, e.Effect)
		}
	}
	if len(flags) != 1 || flags[0].PID != 0 || flags[0].VA != flagVA || flags[0].PA != flagPA(0) || flags[0].Length != FlagSize {
		t.Errorf("flag writes %+v", flags)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPullAndBOTFPaths: the Initiator's PULL and BOTF paths, and the pull
// served by the remote Replier in MTU-sized replies, the completion flag
// written after the last one.
func TestPullAndBOTFPaths(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := issuePullRequest(t, w)
	rx := w.deliver(tr)
	checkPullReplies(t, rx)
	checkPullWrites(t, rx)
	checkBOTFPath(t, w)
}

// issuePullRequest has PID 0 pull 5000 bytes from PID 1 and checks the
// Initiator sends one pull request header and reads nothing; it returns
// the trace.
func issuePullRequest(t *testing.T, w *world) []Event {
	t.Helper()
	tr := w.issue(0, Request{Kind: RequestPull, LocalVA: bufVA + 100, Length: 5000, Target: 1, SID: dataSID, Offset: 10, FlagVA: flagVA})
	if got := path(tr, Initiator); got != "IDLE PGID PHDR CONT IDLE" {
		t.Fatalf("PULL path %q", got)
	}
	pk := packets(tr)
	want := Header{Type: PacketPullRequest, SrcPGID: testPGID, SrcPID: 0, DstPID: 1, SID: dataSID, Offset: 10, Length: 5000,
		MessageLength: 5000, AckVA: flagVA, ReplyVA: bufVA + 100}
	if len(pk) != 1 || pk[0] != want {
		t.Fatalf("pull request %+v", pk)
	}
	if n := len(effects(tr, EffectDMARead)); n != 0 {
		t.Errorf("a pull request read %d pieces", n)
	}
	return tr
}

// checkPullReplies checks the Replier's path serving the pull in rx and
// its three MTU-sized replies, the last carrying the completion flag.
func checkPullReplies(t *testing.T, rx []Event) {
	t.Helper()
	// Source bytes [10, 5010) of the segment: the second reply packet,
	// [2058, 4106), crosses a page and takes two pieces.
	const replierPath = "IDLE RPA RPA2 RDMA RWAIT RSEND RPA RPA2 RDMA RPA RPA2 RDMA RWAIT RSEND RPA RPA2 RDMA RWAIT RSEND IDLE"
	if got := path(rx, Replier); got != replierPath {
		t.Errorf("Replier path\n%q, want\n%q", got, replierPath)
	}
	var replies []Header
	for _, p := range packets(rx) {
		if p.Type == PacketPullReply {
			replies = append(replies, p)
		}
	}
	if len(replies) != 3 {
		t.Fatalf("%d replies%s", len(replies), dump(rx))
	}
	for i, p := range replies {
		last := i == 2
		if p.DstPID != 0 || p.ReplyVA != bufVA+100+uint64(2048*i) || (p.AckVA == flagVA) != last || p.MessageLength != 5000 {
			t.Errorf("reply %d: %+v", i, p)
		}
	}
}

// checkPullWrites: the requester receives the 5000 bytes, then the
// completion flag as its last write.
func checkPullWrites(t *testing.T, rx []Event) {
	t.Helper()
	var data, flag int
	var lastWrite Effect
	for _, e := range effects(rx, EffectDMAWrite) {
		if e.Effect.PID != 0 {
			continue
		}
		lastWrite = e.Effect
		if e.Effect.Flag {
			flag += e.Effect.Length
		} else {
			data += e.Effect.Length
		}
	}
	if data != 5000 || flag != FlagSize || !lastWrite.Flag || lastWrite.PA != flagPA(0) {
		t.Errorf("requester got %d data bytes, %d flag bytes, last write %+v", data, flag, lastWrite)
	}
}

// checkBOTFPath has PID 2 send a 40-byte BOTF push to PID 1 and checks
// the Initiator's path, the packet and the write at the target.
func checkBOTFPath(t *testing.T, w *world) {
	t.Helper()
	tr := w.issue(2, Request{Kind: RequestBOTF, PacketType: PacketPush, Length: 40, Target: 1, SID: dataSID, Offset: 8})
	if got := path(tr, Initiator); got != "IDLE PGID BHDR CONT IDLE" {
		t.Fatalf("BOTF path %q", got)
	}
	if pk := packets(tr); len(pk) != 1 || pk[0].SrcPGID != testPGID || pk[0].SrcPID != 2 || pk[0].Length != 40 {
		t.Fatalf("BOTF packet %+v", pk)
	}
	rx := w.deliver(tr)
	if ws := effects(rx, EffectDMAWrite); len(ws) != 1 || ws[0].Effect.VA != bufVA+8 || ws[0].Effect.Length != 40 {
		t.Errorf("BOTF write %v", ws)
	}
}

// TestInitiatorExceptions raises every Initiator exception of Table 7.1
// from its state and checks the last-state and cause registers.
func TestInitiatorExceptions(t *testing.T) {
	push := Request{Kind: RequestPush, LocalVA: bufVA, Length: 64, Target: 1, SID: dataSID}
	cases := []struct {
		name  string
		req   Request
		setup func(w *world)
		last  State
		cause Cause
	}{
		{"unknown request kind", Request{Kind: 42}, nil, StateIdle, CauseSpecialRequest},
		{"PULL switched to firmware", Request{Kind: RequestPull, Length: 8, Target: 1, SID: dataSID},
			func(w *world) { w.env.SetRequestInHardware(RequestPull, false) }, StateIdle, CauseSpecialRequest},
		{"invalid Window", Request{Kind: RequestPush, Window: 999, LocalVA: bufVA, Length: 8, Target: 1, SID: dataSID}, nil,
			StatePGID, CauseProtectionViolation},
		{"target of another job", Request{Kind: RequestPush, LocalVA: bufVA, Length: 8, Target: foreignPID, SID: dataSID}, nil,
			StatePGID, CauseProtectionViolation},
		{"BOTF to another job", Request{Kind: RequestBOTF, PacketType: PacketPush, Length: 8, Target: foreignPID, SID: dataSID}, nil,
			StatePGID, CauseProtectionViolation},
		{"PATLB miss", push, func(w *world) { w.env.FlushTLBs() }, StateIPA2, CausePATLBMiss},
		{"DMA read never completes", push, func(w *world) { w.env.DMAStuck[Initiator] = true }, StateCHK2, CauseTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fw := &recorder{}
			w := newWorld(t, func(PID) Firmware { return fw })
			w.warm()
			if c.setup != nil {
				c.setup(w)
			}
			tr := w.issue(0, c.req)
			m := w.nics[0].Module(Initiator)
			if len(fw.seen) != 1 || fw.seen[0] != (suspension{Initiator, c.last, c.cause}) {
				t.Fatalf("firmware saw %+v, want %v in %v%s", fw.seen, c.cause, c.last, dump(tr))
			}
			if m.LastState() != c.last || m.Cause() != c.cause {
				t.Errorf("registers: last %v cause %v", m.LastState(), m.Cause())
			}
			ex := ofKind(tr, Initiator, EventException)
			if len(ex) != 1 || ex[0].From != c.last || ex[0].Cause != c.cause || ex[0].To != StateMiss {
				t.Errorf("exception events %v", ex)
			}
			if got := w.nics[0].Counters().Exceptions[Initiator][c.cause]; got != 1 {
				t.Errorf("counted %d", got)
			}
			if c.cause == CauseTimeout {
				if n := len(ofKind(tr, Initiator, EventWait)); n != w.nics[0].TimeoutSteps {
					t.Errorf("%d waits before the timeout, want %d", n, w.nics[0].TimeoutSteps)
				}
			}
			if !m.Idle() {
				t.Errorf("Initiator not idle after Cancel: %v", m.State())
			}
		})
	}
}

// TestProtectionViolationRefused: under the standard firmware a request
// from an invalid Window or to another job is refused, counted, never
// performed, and the Window released.
func TestProtectionViolationRefused(t *testing.T) {
	cases := []struct {
		name   string
		req    Request
		reason Refusal
	}{
		{"invalid Window", Request{Kind: RequestPush, Window: 999, LocalVA: bufVA, Length: 8, Target: 1, SID: dataSID}, RefusedInvalidWindow},
		{"another job", Request{Kind: RequestPull, LocalVA: bufVA, Length: 8, Target: foreignPID, SID: dataSID}, RefusedForeignJob},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, nil)
			w.warm()
			tr := w.issue(0, c.req)
			for _, op := range []EffectOp{EffectDMARead, EffectDMAWrite, EffectSendPacket} {
				if n := len(effects(tr, op)); n != 0 {
					t.Errorf("refused request performed %d %v%s", n, op, dump(tr))
				}
			}
			ref := ofKind(tr, Initiator, EventRefused)
			if len(ref) != 1 || ref[0].Refusal != c.reason {
				t.Errorf("refusals %v", ref)
			}
			cf := effects(tr, EffectContFlag)
			if len(cf) != 1 || !cf[0].Soft || cf[0].Effect.Window != c.req.Window && c.req.Window != 0 {
				t.Errorf("Window release %v", cf)
			}
			cnt := w.nics[0].Counters()
			if cnt.Exceptions[Initiator][CauseProtectionViolation] != 1 || cnt.Refusals[c.reason] != 1 || cnt.Cancellations != 1 {
				t.Errorf("counters %+v", cnt)
			}
			if got := path(tr, Initiator); got != "IDLE PGID MISS IDLE" {
				t.Errorf("path %q", got)
			}
			// The Initiator takes the next request.
			tr = w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA, Length: 8, Target: 1, SID: dataSID})
			if len(packets(tr)) != 1 {
				t.Errorf("next request not performed%s", dump(tr))
			}
		})
	}
}

// TestPATLBMissHard: firmware refills the PATLB and resumes the Initiator
// at IPA; the hardware finishes the PUSH (HARD of Fig 7.9).
func TestPATLBMissHard(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	w.env.ForcePATLBMisses = 1
	tr := w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA, Length: 64, Target: 1, SID: dataSID})
	if got, want := path(tr, Initiator), "IDLE PGID IPA IPA2 MISS IPA IPA2 CHK1 CHK2 CONT IDLE"; got != want {
		t.Fatalf("path %q, want %q%s", got, want, dump(tr))
	}
	for _, e := range tr {
		if e.Soft {
			t.Errorf("soft event in HARD mode: %v", e)
		}
	}
	fw := ofKind(tr, Initiator, EventFirmware)
	act := ofKind(tr, Initiator, EventAction)
	if len(fw) != 1 || fw[0].Op != OpRefillPATLB || len(act) != 1 || act[0].Action != ActionResume || act[0].To != StateIPA {
		t.Errorf("firmware %v, action %v", fw, act)
	}
	c := w.nics[0].Counters()
	if c.Resumes[ModeHard] != 1 || c.Resumes[ModeSoft] != 0 || c.Exceptions[Initiator][CausePATLBMiss] != 1 || c.Takeovers != 1 {
		t.Errorf("counters %+v", c)
	}
	if len(packets(tr)) != 1 {
		t.Error("PUSH not sent")
	}
}

// TestPATLBMissSoft: after the refill firmware does the rest of the PUSH in
// software (SOFT of Fig 7.9): every later step and effect is marked Soft.
func TestPATLBMissSoft(t *testing.T) {
	for _, length := range []int{64, 6000} { // one page; three pages, missing on each
		w := newWorld(t, func(PID) Firmware { return &StandardFirmware{PATLBMode: ModeSoft} })
		w.warm()
		w.env.FlushTLBs()
		tr := w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA + 10, Length: length, Target: 1, SID: dataSID})
		if length == 64 {
			if got, want := path(tr, Initiator), "IDLE PGID IPA IPA2 MISS IPA IPA2 CHK1 CHK2 CONT IDLE"; got != want {
				t.Fatalf("path %q, want %q", got, want)
			}
		}
		afterAction := false
		for _, e := range tr {
			if e.Kind == EventAction {
				afterAction = true
				if e.Action != ActionCompleteSoft || e.To != StateIPA {
					t.Errorf("action %v", e)
				}
			}
			if !afterAction && e.Soft {
				t.Errorf("soft before the takeover: %v", e)
			}
			if afterAction && (e.Kind == EventTransition || e.Kind == EventEffect) && !e.Soft {
				t.Errorf("hardware work after CompleteSoft: %v%s", e, dump(tr))
			}
		}
		c := w.nics[0].Counters()
		misses := c.Exceptions[Initiator][CausePATLBMiss]
		if c.Resumes[ModeSoft] != misses || c.Resumes[ModeHard] != 0 || misses == 0 {
			t.Errorf("%d bytes: counters %+v", length, c)
		}
		if length == 64 && c.SoftSteps[Initiator] != 5 {
			t.Errorf("%d soft steps, want 5", c.SoftSteps[Initiator])
		}
		sent := 0
		for _, p := range packets(tr) {
			sent += p.Length
		}
		if sent != length {
			t.Errorf("sent %d of %d bytes", sent, length)
		}
		if cf := effects(tr, EffectContFlag); len(cf) != 1 || !cf[0].Soft {
			t.Errorf("contflag %v", cf)
		}
	}
}

// TestPATLBMissUnpinnedRefused: a source page that is not pinned cannot be
// refilled: the PUSH is refused and nothing is sent.
func TestPATLBMissUnpinnedRefused(t *testing.T) {
	w := newWorld(t, nil)
	tr := w.issue(0, Request{Kind: RequestPush, LocalVA: 0x90_0000, Length: 64, Target: 1, SID: dataSID})
	if len(packets(tr)) != 0 || len(effects(tr, EffectDMARead)) != 0 {
		t.Errorf("unpinned source sent%s", dump(tr))
	}
	if c := w.nics[0].Counters(); c.Refusals[RefusedUnmappedPage] != 1 || c.Cancellations != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestSpecialRequestDispatched: a request kind without hardware path is
// dispatched to its software handler with the PGIDTBL identity, then
// firmware releases the Window.
func TestSpecialRequestDispatched(t *testing.T) {
	var got InitiatorRegs
	fw := &StandardFirmware{RequestHandlers: map[RequestKind]RequestHandler{
		42: func(env Environment, r *InitiatorRegs) error { got = *r; return nil },
		43: func(env Environment, r *InitiatorRegs) error { return errors.New("no") },
	}}
	w := newWorld(t, func(PID) Firmware { return fw })
	tr := w.issue(2, Request{Kind: 42, Args: [2]uint64{5, 6}})
	if got.PGID != testPGID || got.PID != 2 || got.Request.Args != [2]uint64{5, 6} {
		t.Errorf("handler saw %+v", got)
	}
	if p := path(tr, Initiator); p != "IDLE MISS CONT IDLE" {
		t.Errorf("path %q%s", p, dump(tr))
	}
	var ops []FirmwareOp
	for _, e := range ofKind(tr, Initiator, EventFirmware) {
		ops = append(ops, e.Op)
	}
	if len(ops) != 2 || ops[0] != OpLookupPGIDTBL || ops[1] != OpDispatchRequest {
		t.Errorf("firmware ops %v", ops)
	}
	if cf := effects(tr, EffectContFlag); len(cf) != 1 || !cf[0].Soft || cf[0].Effect.Window != windowOf(2) {
		t.Errorf("contflag %v", cf)
	}
	if c := w.nics[2].Counters(); c.Resumes[ModeSoft] != 1 || c.Exceptions[Initiator][CauseSpecialRequest] != 1 {
		t.Errorf("counters %+v", c)
	}

	for _, c := range []struct {
		req    Request
		reason Refusal
	}{
		{Request{Kind: 43}, RefusedByHandler},
		{Request{Kind: 44}, RefusedNoHandler},
		{Request{Kind: 42, Window: 999}, RefusedInvalidWindow},
	} {
		tr := w.issue(2, c.req)
		if ref := ofKind(tr, Initiator, EventRefused); len(ref) != 1 || ref[0].Refusal != c.reason {
			t.Errorf("kind %d: refusals %v", c.req.Kind, ref)
		}
		if !w.nics[2].Module(Initiator).Idle() {
			t.Errorf("kind %d: Initiator not idle", c.req.Kind)
		}
	}
}

// TestResumeAtIdleRestartsRequest reproduces experiment (5') of the thesis
// (l.1929): firmware sets the Initiator back to IDLE without cancelling,
// and the hardware runs IDLE-PGID-IPA-IPA2-MISS again.
func TestResumeAtIdleRestartsRequest(t *testing.T) {
	fw := &recorder{decide: func(env Environment, m *Module) Action {
		if m.NIC().Counters().Exceptions[Initiator][CausePATLBMiss] < 4 {
			return Resume(StateIdle)
		}
		return Cancel()
	}}
	w := newWorld(t, func(PID) Firmware { return fw })
	tr := w.issue(0, Request{Kind: RequestPush, LocalVA: bufVA, Length: 64, Target: 1, SID: dataSID})
	const loop = "IDLE PGID IPA IPA2 MISS "
	if got, want := path(tr, Initiator), loop+loop+loop+loop+"IDLE"; got != want {
		t.Errorf("path\n%q, want\n%q", got, want)
	}
	if c := w.nics[0].Counters(); c.Resumes[ModeHard] != 3 || c.Cancellations != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestBOTFPullImage: a BOTF image of a pull request carries no payload, so
// it may ask for more than the MTU; the reply comes back as for PULL.
func TestBOTFPullImage(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	tr := w.issue(0, Request{Kind: RequestBOTF, PacketType: PacketPullRequest, LocalVA: bufVA + 64, Length: 3000,
		Target: 1, SID: dataSID, FlagVA: flagVA})
	pk := packets(tr)
	if len(pk) != 1 || pk[0].Type != PacketPullRequest || pk[0].ReplyVA != bufVA+64 || pk[0].Length != 3000 {
		t.Fatalf("image %+v", pk)
	}
	rx := w.deliver(tr)
	data := 0
	for _, e := range effects(rx, EffectDMAWrite) {
		if e.Effect.PID == 0 && !e.Effect.Flag {
			data += e.Effect.Length
		}
	}
	if data != 3000 {
		t.Errorf("%d bytes returned", data)
	}
}
