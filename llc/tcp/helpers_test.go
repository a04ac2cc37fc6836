package tcp

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
)

// hangGuard bounds every wait of these tests: reaching it means a hang,
// not slowness.
const hangGuard = 2 * time.Minute

// listenAll returns the transports of a job of n processes on loopback,
// each knowing the others' addresses; the test closes them at its end.
func listenAll(t testing.TB, n int, o Options) []*Transport {
	t.Helper()
	trs := make([]*Transport, n)
	addrs := make([]string, n)
	for i := range trs {
		tr, err := Listen(i, n, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs[i], addrs[i] = tr, tr.Addr()
	}
	for _, tr := range trs {
		if err := tr.SetPeers(addrs); err != nil {
			t.Fatal(err)
		}
	}
	return trs
}

// sink collects the events a transport delivers, copying the bytes that
// are valid only during Step.
type sink struct{ evs []llc.Event }

func (s *sink) Step(e *llc.Event) {
	ev := *e
	ev.Head, ev.Data = bytes.Clone(ev.Head), bytes.Clone(ev.Data)
	s.evs = append(s.evs, ev)
}

// find returns the first event of kind with token.
func (s *sink) find(kind llc.EventKind, token uint64) (llc.Event, bool) {
	for _, ev := range s.evs {
		if ev.Kind == kind && ev.Token == token {
			return ev, true
		}
	}
	return llc.Event{}, false
}

// records returns the records delivered, in order.
func (s *sink) records() []llc.Event {
	var out []llc.Event
	for _, ev := range s.evs {
		if ev.Kind == llc.EvRecord {
			out = append(out, ev)
		}
	}
	return out
}

// fabric drives transports from the test's goroutine, each with its sink.
type fabric struct {
	t     testing.TB
	trs   []*Transport
	sinks []*sink
}

func newFabric(t testing.TB, n int, o Options) *fabric {
	x := &fabric{t: t, trs: listenAll(t, n, o)}
	for range n {
		x.sinks = append(x.sinks, &sink{})
	}
	return x
}

// until polls every transport until cond holds.
func (x *fabric) until(what string, cond func() bool) {
	x.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		for i, tr := range x.trs {
			if !tr.closed {
				tr.Poll(x.sinks[i])
			}
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("%s: not reached", what)
		}
	}
}

// exec issues c on process i; an event Execute returns goes to its sink.
func (x *fabric) exec(i int, c llc.Command) llc.Event {
	ev := llc.Outcome(x.trs[i].Execute(&c))
	if ev.Kind != llc.EvNone {
		x.sinks[i].Step(&ev)
	}
	return ev
}

// do issues c (its Token not 0) on process i and polls until it
// completes; it returns the completion.
func (x *fabric) do(i int, c llc.Command) llc.Event {
	x.t.Helper()
	x.exec(i, c)
	var ev llc.Event
	x.until("completion of "+c.Kind.String(), func() bool {
		var ok bool
		if ev, ok = x.sinks[i].find(llc.EvDone, c.Token); ok {
			return true
		}
		ev, ok = x.sinks[i].find(llc.EvError, c.Token)
		return ok
	})
	return ev
}

// region registers mem at process i and returns its region.
func (x *fabric) region(i int, mem []byte) llc.RegionID {
	x.t.Helper()
	ev := llc.Outcome(x.trs[i].Execute(&llc.Command{Kind: llc.CmdRegister, Data: mem, Token: 1}))
	if ev.Kind != llc.EvDone || ev.Value == 0 {
		x.t.Fatalf("registering %d bytes: %+v", len(mem), ev)
	}
	return llc.RegionID(ev.Value)
}

// wantErr fails the test unless ev is an EvError with token whose text
// holds every one of words.
func wantErr(t testing.TB, what string, ev llc.Event, token uint64, words ...string) {
	t.Helper()
	if ev.Kind != llc.EvError || ev.Token != token || ev.Err == nil {
		t.Fatalf("%s: %+v, want an error with token %d", what, ev, token)
	}
	for _, w := range words {
		if !strings.Contains(ev.Err.Error(), w) {
			t.Fatalf("%s: error %q does not say %q", what, ev.Err, w)
		}
	}
}

// stat returns the counter of tr named name.
func stat(t testing.TB, tr *Transport, name string) uint64 {
	t.Helper()
	i := slices.IndexFunc(tr.Stats(), func(s llc.Stat) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("no counter %q", name)
	}
	return tr.Stats()[i].Value
}

// openFDs returns the number of descriptors this process has open.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settle waits until at most n goroutines run, and returns how many do.
func settle(n int) int {
	deadline := time.Now().Add(hangGuard)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// pattern returns n deterministic bytes for seed.
func pattern(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 12345
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// crash ends tr's connections as the death of its process would: without
// a goodbye.
func crash(tr *Transport) {
	for i := range tr.peers {
		if fd := tr.peers[i].fd; fd >= 0 {
			unix.Close(fd)
			tr.peers[i].fd = -1
		}
		if fd := tr.peers[i].rfd; fd >= 0 {
			unix.Close(fd)
			tr.peers[i].rfd = -1
		}
	}
}
