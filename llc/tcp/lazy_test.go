package tcp

import (
	"bytes"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/fdio"
)

// A Lazy write waits in its connection's queue, completed, until the next
// frame to its peer, which carries it in the same system call, or the next
// Poll; a queue that would grow past lazyMax is written at once, and so
// is data the queue would reference rather than copy.
func TestLazyWrites(t *testing.T) {
	l := newLazyWrites(t)
	l.sentWithRead(t)
	l.sentByPoll(t)
	n := l.sentPastMax(t)
	l.referencedAtOnce(t, n)
}

// lazyWrites is a pair of transports, connected, whose target exposes
// mem, with the initiator's transport and its peer the target.
type lazyWrites struct {
	x   *fabric
	mem []byte
	r   llc.RegionID
	tr  *Transport
	p   *peer
}

// newLazyWrites sets up two transports with the connection up.
func newLazyWrites(t *testing.T) *lazyWrites {
	t.Helper()
	x := newFabric(t, 2, Options{})
	mem := make([]byte, 2*lazyMax)
	r := x.region(1, mem)
	var probe [1]byte
	x.do(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Data: probe[:], Token: 1}) // the connection up
	return &lazyWrites{x: x, mem: mem, r: r, tr: x.trs[0], p: &x.trs[0].peers[1]}
}

// put writes data at off lazily, and wants its completion from Execute.
func (l *lazyWrites) put(t *testing.T, off int, data []byte, token uint64) {
	t.Helper()
	ev := l.x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: l.r, Off: uint64(off), Data: data, Token: token, Lazy: true})
	if ev.Kind != llc.EvDone || ev.Token != token {
		t.Fatalf("lazy write %d: %+v, want its completion from Execute", token, ev)
	}
}

// targetPolls: the target polls and sees nothing: nothing was sent.
func (l *lazyWrites) targetPolls() {
	for range 100 {
		l.x.trs[1].Poll(l.x.sinks[1])
	}
}

// sentWithRead: a lazy write waits in the queue until a read carries it.
func (l *lazyWrites) sentWithRead(t *testing.T) {
	t.Helper()
	x, p := l.x, l.p
	l.put(t, 0, pattern(1, 8), 2)
	if p.out.Empty() || !p.wantOut {
		t.Fatalf("after a lazy write: queue empty %v, waiting for the socket %v; want it queued, and a sleeper woken to write it", p.out.Empty(), p.wantOut)
	}
	l.targetPolls()
	if !bytes.Equal(l.mem[:8], make([]byte, 8)) {
		t.Fatal("a lazy write arrived before anything sent it")
	}
	got := make([]byte, 8)
	x.exec(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: l.r, Data: got, Token: 3})
	if !p.out.Empty() {
		t.Fatal("the read did not send the lazy write with it")
	}
	x.until("the read", func() bool { _, ok := x.sinks[0].find(llc.EvDone, 3); return ok })
	if !bytes.Equal(got, pattern(1, 8)) {
		t.Fatalf("read %x behind the lazy write, want %x", got, pattern(1, 8))
	}
}

// sentByPoll: the next Poll sends one too.
func (l *lazyWrites) sentByPoll(t *testing.T) {
	t.Helper()
	l.put(t, 8, pattern(2, 8), 4)
	l.tr.Poll(l.x.sinks[0])
	if !l.p.out.Empty() {
		t.Fatal("Poll did not send the lazy write")
	}
	l.x.until("the write by Poll", func() bool { return bytes.Equal(l.mem[8:16], pattern(2, 8)) })
}

// sentPastMax: copied writes queue up to lazyMax bytes; the one past it
// sends them all. It returns how many were queued before that one.
func (l *lazyWrites) sentPastMax(t *testing.T) int {
	t.Helper()
	p, mem := l.p, l.mem
	chunk := fdio.CopyMax
	n := 0
	for ; p.out.Len()+hdrSize+chunk <= lazyMax; n++ {
		l.put(t, 16+n*chunk, pattern(3+n, chunk), uint64(10+n))
	}
	if p.out.Len() == 0 {
		t.Fatal("no lazy write queued")
	}
	l.put(t, 16+n*chunk, pattern(3+n, chunk), uint64(10+n))
	if !p.out.Empty() {
		t.Fatalf("%d bytes queued past lazyMax (%d)", p.out.Len(), lazyMax)
	}
	l.x.until("the queued writes", func() bool {
		return bytes.Equal(mem[16+n*chunk:16+(n+1)*chunk], pattern(3+n, chunk))
	})
	for i := range n + 1 {
		if !bytes.Equal(mem[16+i*chunk:16+(i+1)*chunk], pattern(3+i, chunk)) {
			t.Fatalf("queued write %d not in place", i)
		}
	}
	return n
}

// referencedAtOnce: data larger than the queue copies goes at once, after
// the n+2 lazy writes queued so far.
func (l *lazyWrites) referencedAtOnce(t *testing.T, n int) {
	t.Helper()
	chunk := fdio.CopyMax
	if want := uint64(n + 2); l.tr.stats.lazy != want {
		t.Fatalf("%d lazy writes counted, want %d", l.tr.stats.lazy, want)
	}
	l.put(t, lazyMax, pattern(9, chunk+1), 99)
	if l.tr.stats.lazy != uint64(n+2) {
		t.Fatal("a referenced lazy write was queued")
	}
	l.targetPolls()
	if !bytes.Equal(l.mem[lazyMax:lazyMax+chunk+1], pattern(9, chunk+1)) {
		t.Fatal("a referenced lazy write did not arrive without another frame or Poll")
	}
}
