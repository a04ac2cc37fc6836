package softmem

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc"
)

// events collects what a Poll delivers, copying the records.
type events []llc.Event

func (e *events) Step(ev *llc.Event) {
	c := *ev
	c.Head = bytes.Clone(ev.Head)
	c.Data = bytes.Clone(ev.Data)
	*e = append(*e, c)
}

// do executes c on m and fails the test unless it completes with token's
// EvDone; it returns the event.
func do(t *testing.T, m *Memory, c llc.Command) llc.Event {
	t.Helper()
	ev := llc.Outcome(m.Execute(&c))
	if ev.Kind != llc.EvDone || ev.Token != c.Token {
		t.Fatalf("%v: %+v, want its completion", c.Kind, ev)
	}
	return ev
}

// Commands a process addresses to itself act on its regions at once, and
// its records to itself arrive at the next Poll.
func TestSelfCommands(t *testing.T) {
	m := New(3)
	ev := do(t, m, llc.Command{Kind: llc.CmdAlloc, Size: 64, Token: 1})
	r := llc.RegionID(ev.Value)
	if len(ev.Mem) != 64 {
		t.Fatalf("CmdAlloc gave %d bytes, want 64", len(ev.Mem))
	}
	w := llc.Command{Kind: llc.CmdWrite, Peer: 3, Region: r, Off: 8, HeadLen: 2, Data: []byte("xyz"), SigOff: 32, Signal: 7, Token: 2}
	copy(w.Head[:], "ab")
	do(t, m, w)
	if got := string(ev.Mem[8:13]); got != "abxyz" || ev.Mem[32] != 7 {
		t.Fatalf("memory after the write: %q, signal %d", got, ev.Mem[32])
	}
	dst := make([]byte, 5)
	do(t, m, llc.Command{Kind: llc.CmdRead, Peer: 3, Region: r, Off: 8, Data: dst, Token: 3})
	if string(dst) != "abxyz" {
		t.Fatalf("read %q", dst)
	}
	if ev := do(t, m, llc.Command{Kind: llc.CmdFetchAdd, Peer: 3, Region: r, Off: 32, New: 5, Token: 4}); ev.Value != 7 {
		t.Fatalf("fetch-and-add returned %d, want 7", ev.Value)
	}
	if ev := do(t, m, llc.Command{Kind: llc.CmdCAS, Peer: 3, Region: r, Off: 32, Old: 12, New: 1, Token: 5}); ev.Value != 12 || ev.Mem != nil {
		t.Fatalf("compare-and-swap returned %d, want 12", ev.Value)
	}
	if w, _ := m.Word(r, 32); *w != 1 {
		t.Fatalf("the word is %d after the swap, want 1", *w)
	}
	rec := llc.Command{Kind: llc.CmdEnqueue, Peer: 3, HeadLen: llc.RecordMeta, Data: []byte("body"), Token: 6}
	rec.Head[0] = 9
	do(t, m, rec)
	var got events
	if !m.Poll(&got) || len(got) != 1 || got[0].Kind != llc.EvRecord || got[0].Peer != 3 || got[0].Head[0] != 9 || string(got[0].Data) != "body" {
		t.Fatalf("Poll delivered %+v, want the record", got)
	}
	if got = nil; m.Poll(&got) || len(got) != 0 {
		t.Fatalf("a second Poll delivered %+v", got)
	}
}

// What cannot be done fails with an error that says why, and the region
// of a release is gone.
func TestFailures(t *testing.T) {
	m := New(0)
	r := llc.RegionID(do(t, m, llc.Command{Kind: llc.CmdRegister, Data: make([]byte, 16), Token: 1}).Value)
	do(t, m, llc.Command{Kind: llc.CmdAllocQueue, Token: 2})
	for _, c := range []struct {
		cmd  llc.Command
		want string
	}{
		{llc.Command{Kind: llc.CmdRead, Region: r, Off: 12, Data: make([]byte, 8), Token: 3}, "out of range"},
		{llc.Command{Kind: llc.CmdCAS, Region: r, Off: 4, Token: 4}, "not 8-byte aligned"},
		{llc.Command{Kind: llc.CmdWrite, Region: r + 9, HeadLen: 1, Token: 5}, "no region"},
		{llc.Command{Kind: llc.CmdAlloc, Size: 0, Token: 6}, "allocating 0 bytes"},
		{llc.Command{Kind: llc.CmdAllocQueue, Token: 7}, "a second receive queue"},
		{llc.Command{Kind: llc.CmdRelease, Region: r + 9, Token: 8}, "no region"},
	} {
		ev := llc.Outcome(m.Execute(&c.cmd))
		if ev.Kind != llc.EvError || ev.Token != c.cmd.Token || !strings.Contains(ev.Err.Error(), c.want) {
			t.Errorf("%v: %+v, want an error saying %q", c.cmd.Kind, ev, c.want)
		}
	}
	do(t, m, llc.Command{Kind: llc.CmdRelease, Region: r, Token: 9})
	if _, err := m.Span(r, 0, 1); err == nil {
		t.Error("a released region is still there")
	}
}

// Requests come back oldest first; Fail fails those with a token and
// empties them. Serve reads bytes and does atomics as a peer asks.
func TestRequestsAndServe(t *testing.T) {
	var r Requests
	if r.Oldest() != nil {
		t.Fatal("an empty Requests has an oldest")
	}
	dst := make([]byte, 4)
	r.Add(&llc.Command{Kind: llc.CmdRead, Token: 1, Data: dst})
	r.Add(&llc.Command{Kind: llc.CmdCAS, Token: 2})
	r.Add(&llc.Command{Kind: llc.CmdFetchAdd})
	if q := r.Oldest(); q.Kind != llc.CmdRead || len(q.Data) != 4 {
		t.Fatalf("oldest %+v", q)
	}
	if q := r.Pop(); q.Token != 1 || r.Oldest().Token != 2 {
		t.Fatalf("popped %+v, then %+v", q, r.Oldest())
	}
	var late []llc.Event
	r.Fail(errors.New("gone"), &late)
	if len(late) != 1 || late[0].Token != 2 || late[0].Kind != llc.EvError || r.Oldest() != nil {
		t.Fatalf("after Fail: %+v, oldest %+v", late, r.Oldest())
	}

	m := New(0)
	mem := make([]byte, 16)
	copy(mem, "abcd")
	reg := llc.RegionID(do(t, m, llc.Command{Kind: llc.CmdRegister, Data: mem, Token: 1}).Value)
	if _, data, err := m.Serve(llc.CmdRead, reg, 1, 2, 0); err != nil || string(data) != "bc" {
		t.Fatalf("read: %q, %v", data, err)
	}
	if v, _, err := m.Serve(llc.CmdFetchAdd, reg, 8, 0, 5); err != nil || v != 0 {
		t.Fatalf("fetch-and-add: %d, %v", v, err)
	}
	if v, _, err := m.Serve(llc.CmdCAS, reg, 8, 5, 9); err != nil || v != 5 || mem[8] != 9 {
		t.Fatalf("compare-and-swap: %d, %v, word %d", v, err, mem[8])
	}
	if _, _, err := m.Serve(llc.CmdRead, reg, 12, 8, 0); err == nil {
		t.Fatal("a read past the region was served")
	}
}

// Memory the Memory allocated is private to it, registered memory is
// not, and a released region is neither.
func TestPrivate(t *testing.T) {
	m := New(0)
	a := llc.RegionID(do(t, m, llc.Command{Kind: llc.CmdAlloc, Size: 64, Token: 1}).Value)
	r := llc.RegionID(do(t, m, llc.Command{Kind: llc.CmdRegister, Data: make([]byte, 64), Token: 2}).Value)
	if !m.Private(a) || m.Private(r) {
		t.Fatalf("private: allocated %v, registered %v; want true, false", m.Private(a), m.Private(r))
	}
	do(t, m, llc.Command{Kind: llc.CmdRelease, Region: a, Token: 3})
	if m.Private(a) {
		t.Fatal("a released region is private")
	}
}
