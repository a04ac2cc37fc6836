package llc

import (
	"errors"
	"testing"
)

// Scripted tests of the engine's one way in (Submit, Step) and one way out
// (Ready, Advance): each drives an engine by those calls alone and checks
// whole batches.

// scriptEngine returns engine 0 of a job of two processes, not connected,
// with its start-up batch checked and acknowledged.
func scriptEngine(t *testing.T, mod func(cfg *Config)) *Engine {
	t.Helper()
	cfg := Config{Self: 0, Size: 2, Boot: []RegionID{1, 2}, EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 20}
	if mod != nil {
		mod(&cfg)
	}
	e, err := NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdWatchSlot || rd.Commands[0].Region != 1 || rd.Err != nil {
		t.Fatalf("start-up batch %v, want the watch of the connection requests", rd.Commands)
	}
	e.Advance()
	if e.HasReady() {
		t.Fatal("a batch after the start-up one")
	}
	return e
}

// recordFrom steps e with the record of kind from process src: tag, ctx
// and body.
func recordFrom(e *Engine, src int, kind uint8, tag int32, ctx uint32, body []byte) {
	var head [recMeta]byte
	putMeta(head[:], kind, 0, tag, ctx, uint32(len(body)), 0)
	e.Step(&Event{Kind: EvRecord, Peer: src, Head: head[:], Data: body})
}

// A send to a process not connected yet: its batch is the connection's
// compare-and-swap alone; Ready hands it out again until Advance; the
// event of the command, stepped while the batch is out, does not change
// the batch, and what it emits comes in the next one.
func TestReadyBatchAcrossStep(t *testing.T) {
	e := scriptEngine(t, nil)
	s := &SendOp{Peer: 1, Tag: 3, Data: []byte("8 bytes!")}
	e.Submit(s)
	if s.Done() {
		t.Fatal("a send without a connection is done")
	}
	rd := e.Ready()
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdCAS || rd.Commands[0].Peer != 1 || rd.Commands[0].Token == 0 {
		t.Fatalf("first batch %v, want the compare-and-swap of the connection", rd.Commands)
	}
	if again := e.Ready(); len(again.Commands) != 1 || &again.Commands[0] != &rd.Commands[0] {
		t.Fatal("Ready before Advance did not hand out the same batch")
	}
	cas := rd.Commands[0]
	e.Step(&Event{Kind: EvDone, Token: cas.Token, Value: cas.Old}) // the slot was free
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdCAS {
		t.Fatalf("the batch changed under its Step: %v", rd.Commands)
	}
	e.Advance()
	rd = e.Ready()
	var kinds []CmdKind
	for _, c := range rd.Commands {
		kinds = append(kinds, c.Kind)
	}
	// The watch of the answer, then the request written into the peer's
	// bootstrap area.
	if len(kinds) != 2 || kinds[0] != CmdWatchSlot || kinds[1] != CmdWrite || rd.Commands[1].Peer != 1 {
		t.Fatalf("second batch %v, want the watch of the answer and the request", kinds)
	}
	e.Advance()
	if e.HasReady() || len(e.Ready().Commands) != 0 {
		t.Fatal("a third batch before the answer")
	}
	e.Advance()
	if s.Done() {
		t.Fatal("the send completed before its connection")
	}
}

// Arrivals enter through Step, probes and cancels carry their results in
// their ops, and none of them emits a command for an eager message.
func TestSubmitProbeReceiveCancel(t *testing.T) {
	e := scriptEngine(t, nil)
	p := &ProbeOp{Source: AnySource, Tag: AnyTag, Ctx: 4}
	e.Submit(p)
	if p.Found || p.Err != nil {
		t.Fatalf("probe of nothing: %+v", p)
	}
	recordFrom(e, 1, recEager, 9, 4, []byte("abc"))
	e.Submit(p)
	if !p.Found || p.Status != (Status{Source: 1, Tag: 9, Len: 3}) || p.Message != nil {
		t.Fatalf("probe: %+v", p)
	}
	take := &ProbeOp{Source: 1, Tag: 9, Ctx: 4, Take: true}
	e.Submit(take)
	if !take.Found || take.Message == nil {
		t.Fatalf("matched probe: %+v", take)
	}
	if e.Submit(p); p.Found {
		t.Fatal("a taken message still probed")
	}
	r := &RecvOp{Buf: make([]byte, 8), Message: take.Message}
	e.Submit(r)
	if !r.Done() || r.Err() != nil || string(r.Buf[:r.Status.Len]) != "abc" {
		t.Fatalf("receive of the matched message: done %v, %v, %q", r.Done(), r.Err(), r.Buf)
	}
	posted := &RecvOp{Source: 1, Tag: 2, Ctx: 4, Buf: make([]byte, 8)}
	e.Submit(posted)
	c := &CancelOp{Recv: posted}
	e.Submit(c)
	if !c.Cancelled || !posted.Done() || !posted.Cancelled() {
		t.Fatalf("cancel of a posted receive: %+v, done %v", c, posted.Done())
	}
	if e.Submit(c); c.Cancelled {
		t.Fatal("a receive cancelled twice")
	}
	if e.HasReady() {
		t.Fatalf("eager arrivals, probes and cancels emitted %v", e.Ready().Commands)
	}
	if st := e.State(); st.Stats.EagerRecv != 1 || st.Stats.Unexpected != 1 || !st.Idle || st.Err != nil {
		t.Fatalf("state %+v", st)
	}
}

// A failure is reported once in a batch of its own; afterwards the engine
// completes every operation at once with it and emits nothing.
func TestReadyReportsFailure(t *testing.T) {
	e := scriptEngine(t, nil)
	r := &RecvOp{Source: 1, Buf: make([]byte, 1)}
	e.Submit(r)
	stop := errors.New("stopped by the test")
	e.Submit(Stop{stop})
	if !r.Done() || r.Err() != stop {
		t.Fatalf("posted receive after Stop: done %v, %v", r.Done(), r.Err())
	}
	if !e.HasReady() {
		t.Fatal("the failure is not reported")
	}
	rd := e.Ready()
	if len(rd.Commands) != 0 || rd.Err != stop {
		t.Fatalf("failure batch: %d commands, error %v", len(rd.Commands), rd.Err)
	}
	e.Advance()
	if e.HasReady() {
		t.Fatal("the failure is reported twice")
	}
	s := &SendOp{Peer: 1, Data: []byte("x")}
	e.Submit(s)
	recordFrom(e, 1, recEager, 1, 0, []byte("y"))
	if !s.Done() || s.Err() != stop || e.HasReady() {
		t.Fatalf("send after the failure: done %v, %v, batch pending %v", s.Done(), s.Err(), e.HasReady())
	}
	if st := e.State(); st.Err != stop || st.Stats.EagerRecv != 0 {
		t.Fatalf("state after the failure %+v", st)
	}
}

// Where host work is counted, a batch holds one command and the work done
// before it: here the queue's allocation, then a send's enqueue after the
// send's own work.
func TestReadyWorkPerCommand(t *testing.T) {
	e, err := NewEngine(Config{Self: 0, Size: 2, Eager: EagerQueue, EagerLimit: 1024, QueueSize: testQueueSize})
	if err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdAllocQueue || rd.Work != (WorkCounts{}) {
		t.Fatalf("start-up batch %v, work %v", rd.Commands, rd.Work)
	}
	e.Step(&Event{Kind: EvDone, Token: rd.Commands[0].Token, Value: 5})
	e.Advance()
	a := &SendOp{Peer: 1, Tag: 1, Data: []byte("a")}
	b := &SendOp{Peer: 1, Tag: 2, Data: []byte("b")}
	e.Submit(a)
	e.Submit(b) // waits for a's enqueue
	rd = e.Ready()
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdEnqueue || rd.Work != (WorkCounts{WorkSend: 1, WorkCopies: 1, WorkCopy: 1}) {
		t.Fatalf("first send's batch %v, work %v", rd.Commands, rd.Work)
	}
	e.Step(&Event{Kind: EvDone, Token: rd.Commands[0].Token}) // a is in the queue: b goes
	e.Advance()
	rd = e.Ready()
	if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdEnqueue || rd.Work != (WorkCounts{WorkSend: 1, WorkCopies: 1, WorkCopy: 1}) {
		t.Fatalf("second send's batch %v, work %v", rd.Commands, rd.Work)
	}
	e.Step(&Event{Kind: EvDone, Token: rd.Commands[0].Token})
	e.Advance()
	if !a.Done() || !b.Done() || e.HasReady() {
		t.Fatalf("sends done %v %v, batch pending %v", a.Done(), b.Done(), e.HasReady())
	}
	e.Poll()
	if rd = e.Ready(); len(rd.Commands) != 0 || rd.Work != (WorkCounts{WorkPoll: 1}) {
		t.Fatalf("a poll's batch %v, work %v", rd.Commands, rd.Work)
	}
	e.Advance()
}

// An eager send on a connection with room completes within Submit, and
// its batch is the one write of its record.
func TestReadyEagerSend(t *testing.T) {
	c := newCluster(t, 2, nil)
	c.connect(0, 1)
	e := c.eng[0]
	if e.HasReady() {
		t.Fatal("a batch pending after the connection")
	}
	s := &SendOp{Peer: 1, Tag: 5, Data: []byte("8 bytes!")}
	e.Submit(s)
	if !s.Done() || s.Err() != nil {
		t.Fatal("eager send not done within Submit")
	}
	rd := e.Ready()
	if len(rd.Commands) != 1 || rd.Err != nil || rd.Work != (WorkCounts{}) {
		t.Fatalf("batch of an eager send: %v", rd.Commands)
	}
	if w := (traced{0, rd.Commands[0]}); w.Peer != 1 || w.recKind() != recEager || w.Signal == 0 {
		t.Fatalf("batch of an eager send: %v, want the write of its record", w)
	}
	c.issue(0, &rd.Commands[0])
	e.Advance()
	if e.HasReady() {
		t.Fatal("a batch after the send's")
	}
	r := c.recv(1, 0, 5, 0, 8)
	c.wait(r)
	checkRecv(t, "receive", r, 0, 5, []byte("8 bytes!"))
}

// Notifications leave in the batches too: an unsolicited message and the
// completion of a receive that asked for one are the notes of the next
// batch, whole, with no command; a note emitted while a batch is out
// comes in the next one; an unsolicited message's buffer outlives the
// batch until ReleaseNote hands it back, and the engine reuses it then.
func TestReadyCarriesNotes(t *testing.T) {
	e := scriptEngine(t, nil)
	recordFrom(e, 1, recUnsolicited, 7, 0, []byte("hello"))
	r := &RecvOp{Source: 1, Tag: 5, Buf: make([]byte, 8), Notify: true}
	e.Submit(r)
	recordFrom(e, 1, recEager, 5, 0, []byte("abc"))
	if !r.Done() || !e.HasReady() {
		t.Fatalf("receive done %v, batch pending %v", r.Done(), e.HasReady())
	}
	rd := e.Ready()
	if len(rd.Commands) != 0 || len(rd.Notes) != 2 {
		t.Fatalf("batch of %d commands and notes %+v, want the two notes alone", len(rd.Commands), rd.Notes)
	}
	un := rd.Notes[0]
	if un.Kind != NoteUnsolicited || un.Source != 1 || un.Tag != 7 || string(un.Data) != "hello" {
		t.Fatalf("first note %+v, want the unsolicited message", un)
	}
	if n := rd.Notes[1]; n.Kind != NoteRecvDone || n.Recv != r {
		t.Fatalf("second note %+v, want the receive's completion", n)
	}
	recordFrom(e, 1, recUnsolicited, 8, 0, []byte("later"))
	if again := e.Ready(); len(again.Notes) != 3 || again.Notes[2].Tag != 8 {
		t.Fatalf("Ready before Advance: notes %+v, want the batch grown by the later note", again.Notes)
	}
	e.Advance()
	if e.HasReady() || len(e.Ready().Notes) != 0 {
		t.Fatal("notes handed out again after Advance")
	}
	e.Advance()
	if string(un.Data) != "hello" {
		t.Fatalf("unsolicited data after Advance: %q", un.Data)
	}
	e.Submit(ReleaseNote{un})
	recordFrom(e, 1, recUnsolicited, 9, 0, []byte("again"))
	rd = e.Ready()
	if len(rd.Notes) != 1 || string(rd.Notes[0].Data) != "again" || &rd.Notes[0].Data[0] != &un.Data[0] {
		t.Fatalf("notes %+v: want the next message in the released buffer", rd.Notes)
	}
	e.Advance()
}
