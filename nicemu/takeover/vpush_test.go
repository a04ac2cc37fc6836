package takeover

import (
	"errors"
	"testing"
)

const ringVA = bufVA + 0x8000 // inside PID 0's pinned buffer

// vpushWorld gives PID 0 a VPUSH queue of size bytes.
func vpushWorld(t *testing.T, size int, refuseWhenFull bool) (*world, *RingQueue, *VPUSH) {
	q := &RingQueue{Owner: 0, Base: ringVA, Size: size}
	v := &VPUSH{SID: vpushSID, Queue: q, RefuseWhenFull: refuseWhenFull}
	w := newWorld(t, func(pid PID) Firmware {
		if pid == 0 {
			return &StandardFirmware{VPUSH: v}
		}
		return nil
	})
	w.warm()
	return w, q, v
}

func vpushRequest(n int, flag uint64) Request {
	return Request{Kind: RequestPush, LocalVA: bufVA, Length: n, Target: 0, SID: vpushSID, FlagVA: flag}
}

// TestVPUSHMessagesLandConsecutively: messages from several senders land
// one after another in PID 0's queue (Fig 7.10): RFend is taken over at
// RVA and resumed there, the hardware writes the payload, the Replier
// stops at its breakpoint, the receive pointer is published and the ack
// cancelled.
func TestVPUSHMessagesLandConsecutively(t *testing.T) {
	w, q, _ := vpushWorld(t, 16<<10, false)
	msgs := []struct {
		from PID
		n    int
		flag uint64
	}{{1, 100, 0}, {2, 2048, flagVA}, {3, 8, 0}, {1, 300, flagVA}}
	at := ringVA
	for i, m := range msgs {
		tr := w.issue(m.from, vpushRequest(m.n, m.flag))
		rx := w.deliver(tr)
		checkVPUSHTakeover(t, i, rx)
		checkVPUSHLanded(t, i, rx, at, m.n)
		at += uint64(m.n)
		if q.Received != at-ringVA {
			t.Errorf("message %d: receive pointer %d, want %d", i, q.Received, at-ringVA)
		}
	}
	n := w.nics[0]
	if n.Module(Replier).HasBreakpoint(StateRACK) {
		t.Error("Replier breakpoint left set")
	}
	c := n.Counters()
	if c.Exceptions[RFend][CauseRVATLBMiss] != 4 || c.BreakpointHits != 4 || c.Cancellations != 4 || c.Resumes[ModeHard] != 4 || c.TotalRefusals() != 0 {
		t.Errorf("counters %+v", c)
	}
	// An ordinary acked PUSH to PID 0 is not disturbed.
	tr := w.issue(1, Request{Kind: RequestPush, LocalVA: bufVA, Length: 8, Target: 0, SID: dataSID, FlagVA: flagVA})
	rx := w.deliver(tr)
	if path(rx, Replier) != "IDLE RACK RSEND IDLE" || len(ofKind(rx, RFend, EventTakeover)) != 0 {
		t.Errorf("ordinary push disturbed%s", dump(rx))
	}
}

// checkVPUSHTakeover checks message i's receive trace rx: the RFend is
// taken over at RVA and resumed there, and the Replier stops at RACK,
// each with the firmware operations of Fig 7.10.
func checkVPUSHTakeover(t *testing.T, i int, rx []Event) {
	t.Helper()
	if got, want := path(rx, RFend), "IDLE FLIT0 FLIT1 FLIT2 FLIT3 RVACHK RVA MISS RVA SET1 SET2 SET3 SET4 IDLE"; got != want {
		t.Fatalf("message %d: RFend path\n%q, want\n%q%s", i, got, want, dump(rx))
	}
	if got, want := path(rx, Replier), "IDLE RACK MISS IDLE"; got != want {
		t.Errorf("message %d: Replier path %q, want %q", i, got, want)
	}
	var rfOps, repOps []FirmwareOp
	for _, e := range rx {
		if e.Kind == EventFirmware && e.Module == RFend {
			rfOps = append(rfOps, e.Op)
		}
		if e.Kind == EventFirmware && e.Module == Replier {
			repOps = append(repOps, e.Op)
		}
	}
	if len(rfOps) != 3 || rfOps[0] != OpReserveSlot || rfOps[1] != OpWriteRegisters || rfOps[2] != OpSetBreakpoint {
		t.Errorf("message %d: RFend firmware %v", i, rfOps)
	}
	if len(repOps) != 2 || repOps[0] != OpClearBreakpoint || repOps[1] != OpPublish {
		t.Errorf("message %d: Replier firmware %v", i, repOps)
	}
}

// checkVPUSHLanded: message i's n bytes are written by hardware into PID
// 0's memory from at, with no flag, and no ack is sent.
func checkVPUSHLanded(t *testing.T, i int, rx []Event, at uint64, n int) {
	t.Helper()
	ws := effects(rx, EffectDMAWrite)
	written := 0
	for j, e := range ws {
		if e.Soft || e.Effect.PID != 0 || e.Effect.Flag {
			t.Errorf("message %d: write %v", i, e)
		}
		if j == 0 && e.Effect.VA != at {
			t.Errorf("message %d landed at %#x, want %#x", i, e.Effect.VA, at)
		}
		written += e.Effect.Length
	}
	if written != n {
		t.Errorf("message %d: %d bytes written, want %d", i, written, n)
	}
	if len(packets(rx)) != 0 {
		t.Errorf("message %d: ack sent%s", i, dump(rx))
	}
}

// TestVPUSHOversizeRefused: a message longer than 2048 bytes arrives as two
// packets; both are refused and nothing lands in the queue.
func TestVPUSHOversizeRefused(t *testing.T) {
	w, q, _ := vpushWorld(t, 16<<10, false)
	tr := w.issue(1, vpushRequest(3000, 0))
	if len(packets(tr)) != 2 {
		t.Fatalf("%d packets", len(packets(tr)))
	}
	rx := w.deliver(tr)
	ref := ofKind(rx, RFend, EventRefused)
	if len(ref) != 2 || ref[0].Refusal != RefusedOversize || ref[1].Refusal != RefusedOversize {
		t.Errorf("refusals %v", ref)
	}
	if len(effects(rx, EffectDMAWrite)) != 0 || q.Reserved != 0 || q.Received != 0 {
		t.Errorf("oversize message landed%s", dump(rx))
	}
	if w.nics[0].Module(Replier).HasBreakpoint(StateRACK) {
		t.Error("breakpoint set for a refused message")
	}
	// A 2048-byte message is the largest accepted.
	rx = w.deliver(w.issue(1, vpushRequest(MaxVPUSH, 0)))
	if len(ofKind(rx, RFend, EventRefused)) != 0 || q.Received != MaxVPUSH {
		t.Errorf("2048-byte message%s", dump(rx))
	}
}

// TestVPUSHFullQueueHolds: when the queue is full RFend is held suspended;
// the next packet finds RFend busy; once the host frees space, Service
// lands the message at the start of the ring.
func TestVPUSHFullQueueHolds(t *testing.T) {
	w, q, _ := vpushWorld(t, 5000, false)
	for i := 0; i < 2; i++ {
		w.deliver(w.issue(PID(1+i), vpushRequest(2048, 0)))
	}
	tr := w.issue(3, vpushRequest(1000, 0))
	rx := w.deliver(tr)
	n := w.nics[0]
	rf := n.Module(RFend)
	if !rf.Held() || rf.LastState() != StateRVA {
		t.Fatalf("RFend not held at RVA%s", dump(rx))
	}
	if act := ofKind(rx, RFend, EventAction); len(act) != 1 || act[0].Action != ActionHold {
		t.Errorf("actions %v", act)
	}
	if len(effects(rx, EffectDMAWrite)) != 0 {
		t.Error("written into a full queue")
	}
	if _, err := n.Receive(w.env, packets(w.issue(1, vpushRequest(8, 0)))[0], nil); !errors.Is(err, ErrBusy) {
		t.Errorf("Receive with RFend held: %v", err)
	}
	// Still full: Service holds again.
	rx, err := n.Service(w.env, nil)
	if err != nil || !rf.Held() || len(effects(rx, EffectDMAWrite)) != 0 {
		t.Fatalf("Service on a full queue: %v%s", err, dump(rx))
	}
	if err := q.ReleaseTo(2048); err != nil {
		t.Fatal(err)
	}
	rx, err = n.Service(w.env, rx[:0])
	if err != nil {
		t.Fatal(err)
	}
	checkTrace(t, rx)
	ws := effects(rx, EffectDMAWrite)
	if len(ws) != 1 || ws[0].Effect.VA != ringVA || ws[0].Effect.Length != 1000 {
		t.Errorf("message after release: %v%s", ws, dump(rx))
	}
	if q.Received != 6000 || !rf.Idle() {
		t.Errorf("receive pointer %d, RFend %v", q.Received, rf.State())
	}
	if c := n.Counters(); c.Holds != 2 || c.Exceptions[RFend][CauseRVATLBMiss] != 3 {
		t.Errorf("counters %+v", c)
	}
}

// TestVPUSHFullQueueRefused: with RefuseWhenFull the message is refused.
func TestVPUSHFullQueueRefused(t *testing.T) {
	w, q, _ := vpushWorld(t, 2100, true)
	w.deliver(w.issue(1, vpushRequest(2048, 0)))
	rx := w.deliver(w.issue(2, vpushRequest(100, 0)))
	if ref := ofKind(rx, RFend, EventRefused); len(ref) != 1 || ref[0].Refusal != RefusedQueueFull {
		t.Errorf("refusals %v", ref)
	}
	if !w.nics[0].Module(RFend).Idle() || q.Received != 2048 || len(effects(rx, EffectDMAWrite)) != 0 {
		t.Errorf("after refusal%s", dump(rx))
	}
}

// TestVPUSHReceiverChecks: the firmware refuses senders of another job and
// packets that are not pushes.
func TestVPUSHReceiverChecks(t *testing.T) {
	w, q, _ := vpushWorld(t, 16<<10, false)
	foreign := Header{Type: PacketPush, SrcPGID: foreignPGID, SrcPID: foreignPID, DstPID: 0, SID: vpushSID, Length: 8, MessageLength: 8}
	pull := Header{Type: PacketPullRequest, SrcPGID: testPGID, SrcPID: 1, DstPID: 0, SID: vpushSID, Length: 8, ReplyVA: bufVA}
	for _, c := range []struct {
		pkt    Header
		reason Refusal
	}{{foreign, RefusedForeignJob}, {pull, RefusedUnknownSegment}} {
		rx := w.receive(c.pkt)
		if ref := ofKind(rx, RFend, EventRefused); len(ref) != 1 || ref[0].Refusal != c.reason {
			t.Errorf("%v: refusals %v", c.pkt.Type, ref)
		}
		if len(effects(rx, EffectDMAWrite))+len(packets(rx)) != 0 || q.Reserved != 0 {
			t.Errorf("%v performed%s", c.pkt.Type, dump(rx))
		}
	}
}

func TestRingQueue(t *testing.T) {
	q := &RingQueue{Owner: 3, Base: 0x1000, Size: 100}
	if _, err := q.Reserve(2, 10); !errors.Is(err, ErrNoQueue) {
		t.Errorf("other owner: %v", err)
	}
	if _, err := q.Reserve(3, 101); !errors.Is(err, ErrNoQueue) {
		t.Errorf("larger than the ring: %v", err)
	}
	a, _ := q.Reserve(3, 60)
	b, err := q.Reserve(3, 30)
	if a != 0x1000 || b != 0x1000+60 || err != nil {
		t.Errorf("slots %#x %#x %v", a, b, err)
	}
	if _, err := q.Reserve(3, 20); !errors.Is(err, ErrQueueFull) {
		t.Errorf("full: %v", err)
	}
	if err := q.Publish(3, a, 60); err != nil || q.Received != 60 {
		t.Errorf("publish: %v, received %d", err, q.Received)
	}
	if err := q.ReleaseTo(61); err == nil {
		t.Error("released beyond the receive pointer")
	}
	_ = q.ReleaseTo(60)
	c, err := q.Reserve(3, 20) // skips the last 10 bytes
	if c != 0x1000 || err != nil || q.Reserved != 120 {
		t.Errorf("wrapped slot %#x %v, reserved %d", c, err, q.Reserved)
	}
	if err := q.Publish(3, c, 20); err != nil || q.Received != 120 {
		t.Errorf("publish past an unpublished slot: %v, received %d", err, q.Received)
	}
	if err := q.Publish(3, 0x1000, 50); !errors.Is(err, ErrNoQueue) {
		t.Errorf("publish of an unreserved slot: %v", err)
	}
}

// TestVPUSHDroppedMessage: a VPUSH message dropped after the takeover (its
// DMA times out) leaves the Replier breakpoint set; an ordinary ack meeting
// it is resumed and sent, and the next VPUSH message clears it.
func TestVPUSHDroppedMessage(t *testing.T) {
	w, q, _ := vpushWorld(t, 16<<10, false)
	w.env.DMAStuck[RBend] = true
	rx := w.deliver(w.issue(1, vpushRequest(64, 0)))
	if ref := ofKind(rx, RBend, EventRefused); len(ref) != 1 || ref[0].Refusal != RefusedTimeout {
		t.Fatalf("refusals %v%s", ref, dump(rx))
	}
	w.env.DMAStuck[RBend] = false
	rep := w.nics[0].Module(Replier)
	if !rep.HasBreakpoint(StateRACK) {
		t.Fatal("breakpoint cleared without a Replier stop")
	}
	rx = w.deliver(w.issue(2, Request{Kind: RequestPush, LocalVA: bufVA, Length: 8, Target: 0, SID: dataSID, FlagVA: flagVA}))
	if got := path(rx, Replier); got != "IDLE RACK MISS RACK RSEND IDLE" {
		t.Errorf("ordinary ack path %q%s", got, dump(rx))
	}
	var acks int
	for _, p := range packets(rx) {
		if p.Type == PacketAck {
			acks++
		}
	}
	if acks != 1 {
		t.Errorf("%d acks", acks)
	}
	rx = w.deliver(w.issue(3, vpushRequest(32, 0)))
	if rep.HasBreakpoint(StateRACK) {
		t.Errorf("breakpoint left set%s", dump(rx))
	}
	// The dropped message's slot is skipped by the receive pointer.
	if q.Received != 64+32 {
		t.Errorf("receive pointer %d", q.Received)
	}
}
