package takeover

import "testing"

// TestNoAllocationsWithoutExceptions: with a reused trace buffer, a PUSH
// through the Initiator and its reception through RFend and RBend do not
// allocate.
func TestNoAllocationsWithoutExceptions(t *testing.T) {
	w := newWorld(t, nil)
	w.warm()
	sender, receiver := w.nics[0], w.nics[1]
	req := Request{Kind: RequestPush, Window: windowOf(0), LocalVA: bufVA + 100, Length: 3000, Target: 1, SID: dataSID}
	pkt := pushTo(1, 0, 1500)
	buf := make([]Event, 0, 64)
	var err error
	allocs := testing.AllocsPerRun(200, func() {
		buf, err = sender.Issue(w.env, req, buf[:0])
	})
	if err != nil || len(packets(buf)) != 2 {
		t.Fatalf("push: %v%s", err, dump(buf))
	}
	if allocs != 0 {
		t.Errorf("PUSH allocates %.1f times", allocs)
	}
	allocs = testing.AllocsPerRun(200, func() {
		buf, err = receiver.Receive(w.env, pkt, buf[:0])
	})
	if err != nil || len(effects(buf, EffectDMAWrite)) != 1 {
		t.Fatalf("receive: %v%s", err, dump(buf))
	}
	if allocs != 0 {
		t.Errorf("receive allocates %.1f times", allocs)
	}
	if c := sender.Counters(); c.Takeovers != 0 {
		t.Errorf("%d takeovers", c.Takeovers)
	}
}
