package llc

import (
	"errors"
	"strings"
	"testing"
)

// rmaEngine returns an engine of process 0 of n whose start-up commands
// are discarded, for scripted one-sided operations.
func rmaEngine(t *testing.T, n int) *Engine {
	t.Helper()
	e, err := NewEngine(Config{Self: 0, Size: n, Boot: make([]RegionID, n), EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for popCommand(e) != nil {
	}
	return e
}

// nextCmd returns the engine's next command, which must exist.
func nextCmd(t *testing.T, e *Engine) Command {
	t.Helper()
	c := popCommand(e)
	if c == nil {
		t.Fatal("no command issued")
	}
	return *c
}

func TestRMACommands(t *testing.T) {
	e := rmaEngine(t, 3)
	data := []byte("0123456789")
	ops := []struct {
		op   RMAOp
		want Command
	}{
		{RMAOp{Kind: RMAPut, Peer: 1, Region: 7, Off: 16, Limit: 64, Data: data}, Command{Kind: CmdWrite, Peer: 1, Region: 7, Off: 16, Lazy: true}},
		{RMAOp{Kind: RMAGet, Peer: 2, Region: 8, Off: 54, Limit: 64, Data: data}, Command{Kind: CmdRead, Peer: 2, Region: 8, Off: 54}},
		{RMAOp{Kind: RMACompareSwap, Peer: 0, Region: 9, Off: 56, Limit: 64, Compare: 3, Operand: 4}, Command{Kind: CmdCAS, Peer: 0, Region: 9, Off: 56, Old: 3, New: 4}},
		{RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 7, Off: 0, Limit: 8, Operand: 5}, Command{Kind: CmdFetchAdd, Peer: 1, Region: 7, New: 5}},
	}
	for i := range ops {
		o := &ops[i]
		e.Submit(&o.op)
		c := nextCmd(t, e)
		w := o.want
		if c.Kind != w.Kind || c.Peer != w.Peer || c.Region != w.Region || c.Off != w.Off || c.Old != w.Old || c.New != w.New || c.Lazy != w.Lazy || c.Token == 0 {
			t.Fatalf("%v: command %+v, want %+v with a token", o.op.Kind, c, w)
		}
		if (w.Kind == CmdWrite || w.Kind == CmdRead) && &c.Data[0] != &data[0] {
			t.Fatalf("%v: the command does not carry the op's data", o.op.Kind)
		}
		if o.op.Done() {
			t.Fatalf("%v done before its event", o.op.Kind)
		}
		if got := e.rmaPending(w.Peer); got == 0 {
			t.Fatalf("%v: nothing pending at process %d", o.op.Kind, w.Peer)
		}
		e.Step(&Event{Kind: EvDone, Token: c.Token, Value: uint64(40 + i)})
		if !o.op.Done() || o.op.Err() != nil {
			t.Fatalf("%v after its event: done %v, err %v", o.op.Kind, o.op.Done(), o.op.Err())
		}
		if (w.Kind == CmdCAS || w.Kind == CmdFetchAdd) && o.op.Result != uint64(40+i) {
			t.Fatalf("%v: result %d, want %d", o.op.Kind, o.op.Result, 40+i)
		}
	}
	if n := e.rmaPending(-1); n != 0 {
		t.Fatalf("%d operations pending after their events", n)
	}
	s := e.State().Stats
	if s.RMAPuts != 1 || s.RMAGets != 1 || s.RMAAtomics != 2 || s.RMABytes != 2*uint64(len(data)) {
		t.Fatalf("counters: %d puts, %d gets, %d atomics, %d bytes", s.RMAPuts, s.RMAGets, s.RMAAtomics, s.RMABytes)
	}
	if !e.State().Idle {
		t.Fatal("engine not idle after every operation completed")
	}
}

func TestRMARefused(t *testing.T) {
	e := rmaEngine(t, 2)
	for _, c := range []struct {
		op   RMAOp
		want error
		text string
	}{
		{RMAOp{Kind: RMAPut, Peer: 1, Region: 1, Off: 60, Limit: 64, Data: make([]byte, 5)}, ErrRMARange, "5 bytes at offset 60"},
		{RMAOp{Kind: RMAGet, Peer: 1, Region: 1, Off: 1 << 63, Limit: 64, Data: make([]byte, 1)}, ErrRMARange, "region of 64 bytes"},
		{RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 1, Off: 64, Limit: 64}, ErrRMARange, "fetch-and-add"},
		{RMAOp{Kind: RMACompareSwap, Peer: 1, Region: 1, Off: 4, Limit: 64}, ErrRMAAlign, "offset 4"},
		{RMAOp{Kind: RMAPut, Peer: 2, Region: 1, Limit: 64}, nil, "only 2 processes"},
		{RMAOp{Kind: RMAPut, Peer: -1, Region: 1, Limit: 64}, nil, "process -1"},
		{RMAOp{Kind: 9, Peer: 1, Region: 1, Limit: 64}, nil, "unknown one-sided operation"},
		{RMAOp{Kind: RMAGet, Peer: 1, Limit: 64, Data: make([]byte, 1)}, nil, "no region"},
	} {
		e.Submit(&c.op)
		err := c.op.Err()
		switch {
		case !c.op.Done() || err == nil:
			t.Errorf("%+v: done %v, err %v: want refused", c.op, c.op.Done(), err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%+v: %v, want %v", c.op, err, c.want)
		case !strings.Contains(err.Error(), c.text):
			t.Errorf("%+v: %q does not say %q", c.op, err, c.text)
		}
	}
	if c := popCommand(e); c != nil {
		t.Fatalf("refused operations issued %v", c.Kind)
	}
	if e.rmaPending(-1) != 0 || e.State().Err != nil {
		t.Fatalf("after refusals: %d pending, engine error %v", e.rmaPending(-1), e.State().Err)
	}
}

func TestRMAErrorEvent(t *testing.T) {
	e := rmaEngine(t, 2)
	op := &RMAOp{Kind: RMAGet, Peer: 1, Region: 3, Limit: 8, Data: make([]byte, 8)}
	e.Submit(op)
	c := nextCmd(t, e)
	cause := errors.New("process 1 failed")
	e.Step(&Event{Kind: EvError, Token: c.Token, Err: cause})
	if !op.Done() || !errors.Is(op.Err(), cause) || !strings.Contains(op.Err().Error(), "get of 8 bytes") {
		t.Fatalf("after the error event: done %v, err %v", op.Done(), op.Err())
	}
	if e.State().Err != nil || e.rmaPending(1) != 0 {
		t.Fatalf("a failed operation stopped the engine (%v) or stayed pending (%d)", e.State().Err, e.rmaPending(1))
	}
}

func TestRMAEngineFailure(t *testing.T) {
	e := rmaEngine(t, 2)
	a := &RMAOp{Kind: RMAPut, Peer: 1, Region: 3, Limit: 8, Data: make([]byte, 8)}
	b := &RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 3, Limit: 8, Operand: 1}
	e.Submit(a)
	e.Submit(b)
	ca, cb := nextCmd(t, e), nextCmd(t, e)
	cause := errors.New("peer gone")
	e.fail(cause)
	for _, op := range []*RMAOp{a, b} {
		if !op.Done() || !errors.Is(op.Err(), cause) {
			t.Fatalf("%v after the engine failed: done %v, err %v", op.Kind, op.Done(), op.Err())
		}
	}
	// Late completions change nothing.
	e.Step(&Event{Kind: EvDone, Token: ca.Token})
	e.Step(&Event{Kind: EvDone, Token: cb.Token, Value: 9})
	if b.Result != 0 || !errors.Is(b.Err(), cause) || e.rmaPending(-1) != 0 {
		t.Fatalf("a late completion changed a failed operation: result %d, err %v", b.Result, b.Err())
	}
	c := &RMAOp{Kind: RMAGet, Peer: 1, Region: 3, Limit: 8, Data: make([]byte, 8)}
	e.Submit(c)
	if !c.Done() || !errors.Is(c.Err(), cause) {
		t.Fatalf("an operation on the failed engine: done %v, err %v", c.Done(), c.Err())
	}
}

func TestRMASettle(t *testing.T) {
	e := rmaEngine(t, 3)
	put := func(peer int, off uint64) {
		op := &RMAOp{Kind: RMAPut, Peer: peer, Region: RegionID(10 + peer), Off: off, Limit: 100, Data: make([]byte, 4)}
		e.Submit(op)
		c := nextCmd(t, e)
		e.Step(&Event{Kind: EvDone, Token: c.Token})
	}
	put(1, 8)
	put(1, 20)
	put(2, 4)
	if reads := settleOn(e, 2, false); len(reads) != 0 || popCommand(e) != nil {
		t.Fatal("settling without reads issued a command")
	}
	reads := settleOn(e, -1, true)
	if len(reads) != 1 {
		t.Fatalf("%d settling reads, want 1 (process 2 is settled)", len(reads))
	}
	c := nextCmd(t, e)
	if c.Kind != CmdRead || c.Peer != 1 || c.Region != 11 || c.Off != 20 || len(c.Data) != 1 {
		t.Fatalf("settling read %v of %d bytes at (%d, %d, %d), want 1 byte at (1, 11, 20)", c.Kind, len(c.Data), c.Peer, c.Region, c.Off)
	}
	if e.rmaPending(1) != 1 {
		t.Fatal("the settling read is not pending")
	}
	e.Step(&Event{Kind: EvDone, Token: c.Token})
	if !reads[0].Done() || e.rmaPending(-1) != 0 {
		t.Fatal("the settling read did not complete")
	}
	if reads := settleOn(e, -1, true); len(reads) != 0 {
		t.Fatal("settled writes were settled again")
	}
	if s := e.State().Stats; s.RMAGets != 0 || s.RMASettles != 1 || s.RMAPuts != 3 {
		t.Fatalf("counters: %d gets, %d settles, %d puts", s.RMAGets, s.RMASettles, s.RMAPuts)
	}
}

// asyncTransport completes every command with a token at the next Poll,
// in issue order, as a transport whose writes complete late does.
type asyncTransport struct {
	issued []Command
	late   []Event
}

func (a *asyncTransport) Caps() Caps { return Caps{Name: "async", Async: true} }

func (a *asyncTransport) Execute(c *Command) *Event {
	a.issued = append(a.issued, *c)
	if c.Token != 0 {
		a.late = append(a.late, Event{Kind: EvDone, Token: c.Token})
	}
	return nil
}

func (a *asyncTransport) Poll(s Sink) bool {
	late := a.late
	a.late = nil
	for i := range late {
		s.Step(&late[i])
	}
	return len(late) > 0
}

func (a *asyncTransport) Arm() uint32  { return 0 }
func (a *asyncTransport) Sleep(uint32) {}
func (a *asyncTransport) Disarm()      {}

func TestEndpointRMAFlush(t *testing.T) {
	e := rmaEngine(t, 2)
	tr := &asyncTransport{}
	ep := NewEndpoint(e, tr)
	put := &RMAOp{Kind: RMAPut, Peer: 1, Region: 5, Off: 8, Limit: 64, Data: []byte("abcdefgh")}
	if ep.RMA(put) {
		t.Fatal("a put on an asynchronous transport done at once")
	}
	if err := ep.RMAFlush(1); err != nil {
		t.Fatal(err)
	}
	if !put.Done() || put.Err() != nil {
		t.Fatalf("after the flush: put done %v, err %v", put.Done(), put.Err())
	}
	if len(tr.issued) != 2 || tr.issued[1].Kind != CmdRead || tr.issued[1].Off != 8 {
		t.Fatalf("commands %v: want the write, then a read behind it", tr.issued)
	}
	// The write may wait for the read, which must not wait for anything.
	if !tr.issued[0].Lazy || tr.issued[1].Lazy {
		t.Fatalf("the write lazy %v, the read %v: want true, false", tr.issued[0].Lazy, tr.issued[1].Lazy)
	}
	// Nothing left to settle: a second flush issues nothing.
	if err := ep.RMAFlush(-1); err != nil || len(tr.issued) != 2 {
		t.Fatalf("a second flush: %v, %d commands", err, len(tr.issued))
	}
	refused := &RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 5, Off: 3, Limit: 64}
	if !ep.RMA(refused) || !errors.Is(refused.Err(), ErrRMAAlign) {
		t.Fatalf("an unaligned atomic: done %v, err %v", refused.Done(), refused.Err())
	}
}

func TestExpose(t *testing.T) {
	e := rmaEngine(t, 2)
	buf := make([]byte, 16)
	reg := &ExposeOp{Peer: 1, Data: buf}
	e.Submit(reg)
	if c := nextCmd(t, e); c.Kind != CmdRegister || c.Peer != 1 || &c.Data[0] != &buf[0] || c.Token == 0 {
		t.Fatalf("registration: %v to %d, token %#x", c.Kind, c.Peer, c.Token)
	} else {
		e.Step(&Event{Kind: EvDone, Token: c.Token, Value: 12})
	}
	if !reg.Done() || reg.Err() != nil || reg.Region != 12 {
		t.Fatalf("registered: done %v, err %v, region %d", reg.Done(), reg.Err(), reg.Region)
	}
	mem := make([]byte, 64)
	alloc := &ExposeOp{Peer: 0, Size: 64}
	e.Submit(alloc)
	if c := nextCmd(t, e); c.Kind != CmdAlloc || c.Size != 64 {
		t.Fatalf("allocation: %v of %d bytes", c.Kind, c.Size)
	} else {
		e.Step(&Event{Kind: EvDone, Token: c.Token, Value: 13, Mem: mem})
	}
	if alloc.Region != 13 || len(alloc.Mem) != 64 {
		t.Fatalf("allocated region %d of %d bytes", alloc.Region, len(alloc.Mem))
	}
	e.Submit(Unexpose{reg})
	c := nextCmd(t, e)
	if c.Kind != CmdRelease || c.Region != 12 {
		t.Fatalf("release: %v of region %d", c.Kind, c.Region)
	}
	cause := errors.New("no region 12")
	e.Step(&Event{Kind: EvError, Token: c.Token, Err: cause})
	if !reg.Done() || !errors.Is(reg.Err(), cause) || e.State().Err != nil {
		t.Fatalf("a failed release: done %v, err %v, engine %v", reg.Done(), reg.Err(), e.State().Err)
	}
}

// An operation's slot is reused once it is done; an event that comes
// again with the first operation's token completes nothing, and the
// operations of several slots complete in any order.
func TestRMASlotReuse(t *testing.T) {
	e := rmaEngine(t, 2)
	first := &RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 7, Limit: 8, Operand: 1}
	e.Submit(first)
	c1 := nextCmd(t, e)
	e.Step(&Event{Kind: EvDone, Token: c1.Token, Value: 1})
	second := &RMAOp{Kind: RMAFetchAdd, Peer: 1, Region: 7, Limit: 8, Operand: 1}
	third := &RMAOp{Kind: RMAGet, Peer: 1, Region: 7, Limit: 8, Data: make([]byte, 8)}
	e.Submit(second)
	e.Submit(third)
	c2, c3 := nextCmd(t, e), nextCmd(t, e)
	if c2.Token == c1.Token {
		t.Fatal("the operation in a reused slot has the token of the one before")
	}
	e.Step(&Event{Kind: EvDone, Token: c1.Token, Value: 99}) // stale
	if second.Done() || third.Done() || e.rmaPending(1) != 2 {
		t.Fatalf("a stale event completed an operation: second %v, third %v, %d pending", second.Done(), third.Done(), e.rmaPending(1))
	}
	e.Step(&Event{Kind: EvDone, Token: c3.Token})
	e.Step(&Event{Kind: EvDone, Token: c2.Token, Value: 2})
	if !second.Done() || second.Result != 2 || !third.Done() || e.rmaPending(-1) != 0 {
		t.Fatalf("second done %v (result %d), third done %v, %d pending", second.Done(), second.Result, third.Done(), e.rmaPending(-1))
	}
}
