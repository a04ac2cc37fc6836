package tcp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
)

// Remote writes, reads, compare-and-swaps and fetch-and-adds act on the
// target's registered memory, served by its Poll: writes complete when
// Execute has consumed their data, the others later, from Poll, with the
// previous word as Value.
func TestRemoteMemory(t *testing.T) {
	x := newFabric(t, 2, Options{Key: 7})
	mem := make([]byte, 256)
	r := x.region(1, mem)

	w := llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Off: 8, HeadLen: 2, Data: pattern(1, 100), Signal: 0xabc, SigOff: 128, Token: 2}
	w.Head[0], w.Head[1] = 'h', 'd'
	if ev := x.exec(0, w); ev.Kind != llc.EvDone || ev.Token != 2 {
		t.Fatalf("write: %+v, want its completion from Execute", ev)
	}
	buf := make([]byte, 102)
	if ev := x.exec(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Off: 8, Data: buf, Token: 3}); ev.Kind != llc.EvNone {
		t.Fatalf("read: %+v from Execute, want its completion from Poll", ev)
	}
	x.until("read", func() bool { _, ok := x.sinks[0].find(llc.EvDone, 3); return ok })
	if want := append([]byte("hd"), pattern(1, 100)...); !bytes.Equal(buf, want) || !bytes.Equal(mem[8:110], want) {
		t.Fatalf("read %x, memory %x, want %x", buf, mem[8:110], want)
	}
	if got := binary.LittleEndian.Uint64(mem[128:]); got != 0xabc {
		t.Fatalf("signal word %#x, want 0xabc", got)
	}
	word := func(v uint64) {
		t.Helper()
		if got := binary.LittleEndian.Uint64(mem[128:]); got != v {
			t.Fatalf("word %d, want %d", got, v)
		}
	}
	for i, c := range []struct {
		kind          llc.CmdKind
		old, new      uint64
		before, after uint64
	}{
		{llc.CmdCAS, 0xabc, 5, 0xabc, 5},
		{llc.CmdCAS, 1, 9, 5, 5}, // fails: the word is not 1
		{llc.CmdFetchAdd, 0, 10, 5, 15},
	} {
		ev := x.do(0, llc.Command{Kind: c.kind, Peer: 1, Region: r, Off: 128, Old: c.old, New: c.new, Token: 10 + uint64(i)})
		if ev.Kind != llc.EvDone || ev.Value != c.before {
			t.Fatalf("%v %d: %+v, want the previous word %d", c.kind, i, ev, c.before)
		}
		word(c.after)
	}
	var eight [8]byte
	if ev := x.do(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Off: 128, Data: eight[:], Token: 20}); ev.Kind != llc.EvDone || binary.LittleEndian.Uint64(eight[:]) != 15 {
		t.Fatalf("word read: %+v, %x", ev, eight)
	}
}

// Writes and reads larger than the socket's buffers stream straight
// between user memory and the sockets; a large write with a Token keeps
// its data (zero copy) and completes from Poll once it is written; small
// writes issued behind it keep their order.
func TestLargeTransfers(t *testing.T) {
	x := newFabric(t, 2, Options{})
	const size = 6<<20 + 3
	dst := make([]byte, size+64)
	r := x.region(1, dst)
	src := pattern(2, size)
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Data: src, Token: 1})
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Off: size, Data: []byte("after"), Signal: 7, SigOff: size + 13})
	x.until("both writes", func() bool { return binary.LittleEndian.Uint64(dst[size+13:]) == 7 })
	if _, ok := x.sinks[0].find(llc.EvDone, 1); !ok {
		x.until("the large write's completion", func() bool { _, ok := x.sinks[0].find(llc.EvDone, 1); return ok })
	}
	if !bytes.Equal(dst[:size], src) || string(dst[size:size+5]) != "after" {
		t.Fatal("the large write and the write behind it did not land whole")
	}
	back := make([]byte, size)
	if ev := x.do(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Data: back, Token: 2}); ev.Kind != llc.EvDone || !bytes.Equal(back, src) {
		t.Fatalf("reading %d bytes back: %+v, equal %v", size, ev, bytes.Equal(back, src))
	}
	if stat(t, x.trs[0], "zero-copy writes") == 0 {
		t.Error("the large write was copied")
	}
}

// Bad accesses are refused by the target and reported with the command's
// token, a token-less one as an EvError of token 0; a refused write stops
// the target's engine too; the connection goes on working.
func TestRemoteErrors(t *testing.T) {
	x := newFabric(t, 2, Options{})
	mem := make([]byte, 128)
	r := x.region(1, mem)
	for i, c := range []struct {
		cmd   llc.Command
		words []string
	}{
		{llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Off: 120, Data: make([]byte, 9)}, []string{"out of range", "process 1"}},
		{llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Off: 1 << 62, Data: make([]byte, 1)}, []string{"out of range"}},
		{llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Signal: 1, SigOff: 124}, []string{"out of range"}},
		{llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r + 9, Data: make([]byte, 20<<10)}, []string{"no region"}},
		{llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r + 1, Data: make([]byte, 1)}, []string{"no region", "Read"}},
		{llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Off: 100, Data: make([]byte, 29)}, []string{"out of range"}},
		{llc.Command{Kind: llc.CmdCAS, Peer: 1, Region: r, Off: 4}, []string{"aligned"}},
		{llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, Off: 128}, []string{"out of range"}},
		{llc.Command{Kind: llc.CmdEnqueue, Peer: 1, HeadLen: 8}, []string{"record"}},
		{llc.Command{Kind: llc.CmdEnqueue, Peer: 1, HeadLen: 24, Data: make([]byte, MaxRecord)}, []string{"record"}},
		{llc.Command{Kind: llc.CmdEnqueue, Peer: 0, HeadLen: 8}, []string{"record"}},
		{llc.Command{Kind: llc.CmdWrite, Peer: 0, Region: r, HeadLen: llc.MaxHead + 1}, []string{"head of 57"}},
		{llc.Command{Kind: llc.CmdWrite, Peer: 2, Region: r}, []string{"no process 2"}},
		{llc.Command{Kind: llc.CmdRead, Peer: 0, Region: 99, Data: make([]byte, 1)}, []string{"no region 99", "itself"}},
		{llc.Command{Kind: llc.CmdRelease, Region: 99}, []string{"no region 99"}},
		{llc.Command{Kind: llc.CmdAlloc}, []string{"allocating 0"}},
		{llc.Command{Kind: 0}, []string{"unknown command"}},
	} {
		c.cmd.Token = 100 + uint64(i)
		x.exec(0, c.cmd) // a write completes first, when sent; its failure comes later
		var ev llc.Event
		x.until("the failure", func() bool { var ok bool; ev, ok = x.sinks[0].find(llc.EvError, c.cmd.Token); return ok })
		wantErr(t, fmt.Sprintf("command %d (%v)", i, c.cmd.Kind), ev, c.cmd.Token, c.words...)
	}
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Off: 125, Data: make([]byte, 8)})
	x.until("the token-less failure", func() bool { _, ok := x.sinks[0].find(llc.EvError, 0); return ok })
	ev, _ := x.sinks[0].find(llc.EvError, 0)
	wantErr(t, "token-less write", ev, 0, "out of range")
	if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 3, Token: 1}); ev.Kind != llc.EvDone || mem[0] != 3 {
		t.Fatalf("after the errors: %+v, word %d", ev, mem[0])
	}
	// The target of a refused write is told too, so that it does not take
	// a buffer for written.
	ev, ok := x.sinks[1].find(llc.EvError, 0)
	if !ok {
		t.Fatal("the target of the refused writes was not told")
	}
	wantErr(t, "the target", ev, 0, "process 0", "refused", "out of range")
}

// Records arrive in order, split into meta and body, from other processes
// and from this one; the receive queue is a name without memory, made
// once.
func TestRecords(t *testing.T) {
	x := newFabric(t, 2, Options{})
	ev := llc.Outcome(x.trs[1].Execute(&llc.Command{Kind: llc.CmdAllocQueue, Size: 1 << 20, Token: 5}))
	if ev.Kind != llc.EvDone || ev.Value == 0 || ev.Token != 5 {
		t.Fatalf("AllocQueue: %+v", ev)
	}
	ev = llc.Outcome(x.trs[1].Execute(&llc.Command{Kind: llc.CmdAllocQueue, Size: 1 << 20, Token: 6}))
	wantErr(t, "second queue", ev, 6, "second")
	sizes := []int{0, 1, 32, 1000, wholeMax, 60000, MaxRecord - llc.RecordMeta}
	var want [][]byte
	for from := range 2 {
		for i, n := range sizes {
			c := llc.Command{Kind: llc.CmdEnqueue, Peer: 1, HeadLen: llc.RecordMeta, Data: pattern(i, n), Token: 1}
			if n < 10 {
				copy(c.Head[llc.RecordMeta:], c.Data)
				c.HeadLen, c.Data = uint8(llc.RecordMeta+n), nil
			}
			binary.LittleEndian.PutUint32(c.Head[:], uint32(100*from+i))
			if ev := x.exec(from, c); ev.Kind != llc.EvDone {
				t.Fatalf("enqueue %d from %d: %+v", i, from, ev)
			}
			if from == 0 {
				want = append(want, pattern(i, n))
			}
		}
	}
	x.until("records", func() bool { return len(x.sinks[1].records()) == 2*len(sizes) })
	seen := map[int]int{}
	for _, rec := range x.sinks[1].records() {
		from, i := rec.Peer, int(binary.LittleEndian.Uint32(rec.Head))-100*rec.Peer
		if i != seen[from] || len(rec.Head) != llc.RecordMeta || !bytes.Equal(rec.Data, want[i]) {
			t.Fatalf("record from %d: number %d (want %d), %d+%d bytes", from, i, seen[from], len(rec.Head), len(rec.Data))
		}
		seen[from]++
	}
}

// Both processes dial each other at once: each sends on its own dial and
// reads the other's too, then the pair converges on the lower rank's dial
// (converge.go), and nothing either wrote is lost or reordered; when one
// closes, the other takes it for no failure.
func TestSimultaneousDials(t *testing.T) {
	x := newFabric(t, 2, Options{})
	mems := [][]byte{make([]byte, 8*1000), make([]byte, 8*1000)}
	regions := []llc.RegionID{x.region(0, mems[0]), x.region(1, mems[1])}
	const n = 1000
	write := func(p, i int) {
		c := llc.Command{Kind: llc.CmdWrite, Peer: 1 - p, Region: regions[1-p], Off: uint64(8 * i), HeadLen: 8}
		binary.LittleEndian.PutUint64(c.Head[:], uint64(i+1))
		if i == n-1 {
			c.HeadLen, c.Signal, c.SigOff = 0, n, uint64(8*i)
		}
		x.exec(p, c)
	}
	for i := range n / 2 {
		write(0, i)
		write(1, i)
	}
	x.until("both dials accepted", func() bool {
		return stat(t, x.trs[0], "connections accepted") == 1 && stat(t, x.trs[1], "connections accepted") == 1
	})
	for i := n / 2; i < n; i++ {
		write(0, i)
		write(1, i)
	}
	x.until("every write", func() bool {
		return binary.LittleEndian.Uint64(mems[0][8*(n-1):]) == n && binary.LittleEndian.Uint64(mems[1][8*(n-1):]) == n
	})
	for p, mem := range mems {
		for i := range n {
			if got := binary.LittleEndian.Uint64(mem[8*i:]); got != uint64(i+1) {
				t.Fatalf("process %d, word %d: %d", p, i, got)
			}
		}
		for name, v := range map[string]uint64{"connections dialed": 1, "connections refused": 0, "connections accepted": 1} {
			if got := stat(t, x.trs[p], name); got != v {
				t.Errorf("process %d: %s %d, want %d", p, name, got, v)
			}
		}
	}
	x.until("one connection", func() bool {
		p0, p1 := &x.trs[0].peers[1], &x.trs[1].peers[0]
		return p0.rfd < 0 && p1.rfd < 0 && p1.oldFD < 0 && !p0.held && !p1.switching && p0.fd >= 0 && p1.fd >= 0
	})
	if err := x.trs[1].Close(); err != nil {
		t.Fatal(err)
	}
	p0 := &x.trs[0].peers[1]
	x.until("the goodbye", func() bool { return p0.state == stLost })
	if ev, ok := x.sinks[0].find(llc.EvError, 0); ok {
		t.Fatalf("a goodbye on two connections was taken for a failure: %+v", ev)
	}
	if !strings.Contains(p0.err.Error(), "finalized") {
		t.Fatalf("after the goodbye: %v", p0.err)
	}
}

// A connection whose hello is not of this job (another key, a wrong
// process, garbage) is refused and closed; the job's own connections
// still work.
func TestStrayConnections(t *testing.T) {
	x := newFabric(t, 2, Options{Key: 42})
	for i, h := range []header{
		{kind: fHello, off: helloMagic, a: 41, b: 0<<32 | 1, c: 2},
		{kind: fHello, off: helloMagic, a: 42, b: 0<<32 | 0, c: 2},
		{kind: fHello, off: helloMagic, a: 42, b: 5<<32 | 1, c: 2},
		{kind: fHello, off: helloMagic, a: 42, b: 0<<32 | 1, c: 3},
		{kind: fWrite, n: 8},
	} {
		conn, err := net.Dial("tcp", x.trs[1].Addr())
		if err != nil {
			t.Fatal(err)
		}
		var b [hdrSize]byte
		h.put(b[:])
		if _, err := conn.Write(b[:]); err != nil {
			t.Fatal(err)
		}
		x.until("refusal", func() bool { return stat(t, x.trs[1], "connections refused") == uint64(i+1) })
		var w header
		if _, err := io.ReadFull(conn, b[:]); err != nil {
			t.Fatalf("stray %d: reading the welcome: %v", i, err)
		}
		if w.get(b[:]); w.kind != fWelcome || w.status != welcomeRefused {
			t.Fatalf("stray %d: welcome %+v, want a refusal", i, w)
		}
		if n, err := conn.Read(b[:]); err != io.EOF {
			t.Fatalf("stray %d: the connection is still open (%d, %v)", i, n, err)
		}
		conn.Close()
	}
	mem := make([]byte, 8)
	r := x.region(1, mem)
	if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1}); ev.Kind != llc.EvDone {
		t.Fatalf("the job's own connection: %+v", ev)
	}
}

// A process of another job (another key) that dials is refused: the
// dialer fails its commands with an error naming the process.
func TestOtherJobRefused(t *testing.T) {
	a, b := listenAll(t, 2, Options{Key: 1}), listenAll(t, 2, Options{Key: 2})
	if err := a[0].SetPeers([]string{a[0].Addr(), b[1].Addr()}); err != nil {
		t.Fatal(err)
	}
	x := &fabric{t: t, trs: []*Transport{a[0], b[1]}, sinks: []*sink{{}, {}}}
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: 1, Data: []byte("x")})
	x.until("the refusal", func() bool { _, ok := x.sinks[0].find(llc.EvError, 0); return ok })
	ev, _ := x.sinks[0].find(llc.EvError, 0)
	wantErr(t, "dial into another job", ev, 0, "process 1", "refused", "key 0x1")
}

// A peer that closes while a request to it waits fails that request and
// is reported as an error naming it; later commands to it fail at once.
func TestLostPeer(t *testing.T) {
	x := newFabric(t, 2, Options{})
	r := x.region(1, make([]byte, 64))
	if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1}); ev.Kind != llc.EvDone {
		t.Fatalf("before the loss: %+v", ev)
	}
	x.exec(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Data: make([]byte, 8), Token: 2})
	crash(x.trs[1]) // its connections end without a goodbye
	x.until("the loss", func() bool { _, ok := x.sinks[0].find(llc.EvError, 0); return ok })
	ev, _ := x.sinks[0].find(llc.EvError, 0)
	wantErr(t, "loss", ev, 0, "process 1")
	ev, ok := x.sinks[0].find(llc.EvError, 2)
	if !ok {
		t.Fatal("the read waiting for the lost peer did not fail")
	}
	wantErr(t, "waiting read", ev, 2, "process 1")
	ev = llc.Outcome(x.trs[0].Execute(&llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Token: 3}))
	wantErr(t, "write after the loss", ev, 3, "process 1")
}

// A process that closes its transport (it finalized) says goodbye: the
// end of its connection is no failure of the job, though a request still
// waiting for it fails, and so do later commands to it.
func TestGoodbye(t *testing.T) {
	x := newFabric(t, 2, Options{})
	r := x.region(1, make([]byte, 64))
	if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1}); ev.Kind != llc.EvDone {
		t.Fatalf("before the goodbye: %+v", ev)
	}
	x.exec(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Data: make([]byte, 8), Token: 2})
	if err := x.trs[1].Close(); err != nil {
		t.Fatal(err)
	}
	x.until("the waiting read's failure", func() bool { _, ok := x.sinks[0].find(llc.EvError, 2); return ok })
	ev, _ := x.sinks[0].find(llc.EvError, 2)
	wantErr(t, "waiting read", ev, 2, "process 1", "finalized")
	for range 100 {
		x.trs[0].Poll(x.sinks[0])
	}
	if ev, ok := x.sinks[0].find(llc.EvError, 0); ok {
		t.Fatalf("a goodbye was taken for a failure: %+v", ev)
	}
	ev = llc.Outcome(x.trs[0].Execute(&llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r, Token: 3}))
	wantErr(t, "write after the goodbye", ev, 3, "process 1", "finalized")
}

// A request whose connection fails as it is written fails once, with
// the loss of its peer.
func TestRequestFailsOnce(t *testing.T) {
	x := newFabric(t, 2, Options{})
	r := x.region(1, make([]byte, 8))
	x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1})
	unix.Shutdown(x.trs[0].peers[1].fd, unix.SHUT_WR) // the next write fails
	x.exec(0, llc.Command{Kind: llc.CmdCAS, Peer: 1, Region: r, Token: 7})
	x.until("the loss", func() bool { _, ok := x.sinks[0].find(llc.EvError, 0); return ok })
	n := 0
	for _, ev := range x.sinks[0].evs {
		if ev.Token == 7 {
			n++
			wantErr(t, "the request", ev, 7, "process 1")
		}
	}
	if n != 1 {
		t.Fatalf("%d events for the request, want 1", n)
	}
}

// A dial to a process that is not listening fails with an error naming
// the process and its address.
func TestDialRefused(t *testing.T) {
	x := newFabric(t, 2, Options{})
	addr := x.trs[1].Addr()
	x.trs[1].Close()
	x.exec(0, llc.Command{Kind: llc.CmdCAS, Peer: 1, Region: 1, Token: 4})
	x.until("the failure", func() bool { _, ok := x.sinks[0].find(llc.EvError, 4); return ok })
	ev, _ := x.sinks[0].find(llc.EvError, 4)
	wantErr(t, "dial", ev, 4, "process 1", addr)
	if n := stat(t, x.trs[0], "connections lost"); n != 1 {
		t.Errorf("connections lost: %d, want 1", n)
	}
}

// A sleeper waits for room on a socket only while output waits for it:
// flush, which a dial's handshake also uses to send its hello, withdraws
// the interest once everything is written.
func TestPollsetOutput(t *testing.T) {
	x := newFabric(t, 2, Options{})
	tr := x.trs[0]
	p := &tr.peers[1]
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: 1, HeadLen: 8})
	x.until("the connection", func() bool { return p.state == stUp && p.out.Empty() })
	events := func() int16 {
		tr.syncPollset()
		for _, f := range tr.pollfds {
			if int(f.Fd) == p.fd {
				return f.Events
			}
		}
		t.Fatal("the socket is not in the pollset")
		return 0
	}
	if ev := events(); ev&unix.POLLOUT != 0 {
		t.Fatalf("events %#x with nothing to write", ev)
	}
	p.wantOut, tr.dirty = true, true // as output that had to wait leaves it
	if ev := events(); ev&unix.POLLOUT == 0 {
		t.Fatalf("events %#x while output waits", ev)
	}
	if err := tr.flush(p); err != nil {
		t.Fatal(err)
	}
	if ev := events(); ev&unix.POLLOUT != 0 {
		t.Fatalf("events %#x once everything is written: a sleeper would not sleep", ev)
	}
}

// Bad arguments are refused with errors naming them.
func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		self, size int
		addr       string
	}{{2, 2, ""}, {-1, 2, ""}, {0, 0, ""}, {0, 2, "localhost:0"}, {0, 2, "127.0.0.1"}} {
		if tr, err := Listen(c.self, c.size, Options{Addr: c.addr}); err == nil {
			tr.Close()
			t.Errorf("Listen(%d, %d, %q) succeeded", c.self, c.size, c.addr)
		}
	}
	tr := listenAll(t, 2, Options{})[0]
	if err := tr.SetPeers([]string{tr.Addr()}); err == nil {
		t.Error("SetPeers with one address for two processes succeeded")
	}
	if err := tr.SetPeers([]string{tr.Addr(), "nowhere"}); err == nil {
		t.Error("SetPeers with a bad address succeeded")
	}
	alone, err := Listen(0, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	ev := llc.Outcome(alone.Execute(&llc.Command{Kind: llc.CmdWrite, Peer: 1, Token: 9}))
	wantErr(t, "command before SetPeers", ev, 9, "SetPeers")
}

// A process's first frames to a peer reach it with no later call of the
// sender: the dial needs nothing of the peer's process but its listener's
// backlog, so that a process that has left the communication layer owes
// its peers nothing. Alone (process 0 to 1), and when two processes dial
// each other at once (1 and 2), each then polled alone.
func TestFirstFramesNeedNoMorePolls(t *testing.T) {
	x := newFabric(t, 3, Options{})
	mems := [][]byte{make([]byte, 64), make([]byte, 64), make([]byte, 64)}
	var regions []llc.RegionID
	for i, m := range mems {
		regions = append(regions, x.region(i, m))
	}
	write := func(from, to int) {
		c := llc.Command{Kind: llc.CmdWrite, Peer: to, Region: regions[to], Off: uint64(8 * from), HeadLen: 8,
			Signal: uint64(from + 1), SigOff: 32 + uint64(8*from)}
		binary.LittleEndian.PutUint64(c.Head[:], uint64(100+from))
		if ev := x.exec(from, c); ev.Kind == llc.EvError {
			t.Fatalf("write from %d to %d: %+v", from, to, ev)
		}
	}
	arrived := func(from, to int) bool {
		return binary.LittleEndian.Uint64(mems[to][32+8*from:]) == uint64(from+1) &&
			binary.LittleEndian.Uint64(mems[to][8*from:]) == uint64(100+from)
	}
	pollOnly := func(to int, from ...int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for _, f := range from {
			for !arrived(f, to) {
				if time.Now().After(deadline) {
					t.Fatalf("the write of process %d did not reach process %d without process %d's polls", f, to, f)
				}
				x.trs[to].Poll(x.sinks[to])
			}
		}
	}
	write(0, 1)
	write(1, 2)
	write(2, 1)
	pollOnly(1, 0, 2)
	pollOnly(2, 1)
}

// Every connection, dialed or accepted, bounds a stall by
// Options.StallTimeout (DefaultStallTimeout if not set): unacknowledged
// data (TCP_USER_TIMEOUT) and unanswered keepalive probes; the error of a
// stalled connection names the peer and its address.
func TestStallBound(t *testing.T) {
	for _, c := range []struct {
		stall    time.Duration
		ms, idle int
	}{{0, int(DefaultStallTimeout.Milliseconds()), int(DefaultStallTimeout / 4 / time.Second)}, {3 * time.Second, 3000, 1}} {
		x := newFabric(t, 2, Options{StallTimeout: c.stall})
		r := x.region(1, make([]byte, 8))
		if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1}); ev.Kind != llc.EvDone {
			t.Fatalf("stall bound %v: %+v", c.stall, ev)
		}
		for i, fd := range []int{x.trs[0].peers[1].fd, x.trs[1].peers[0].fd} {
			for _, o := range []struct {
				level, opt, want int
				name             string
			}{
				{unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, c.ms, "TCP_USER_TIMEOUT"},
				{unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1, "SO_KEEPALIVE"},
				{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, c.idle, "TCP_KEEPIDLE"},
			} {
				if v, err := unix.GetsockoptInt(fd, o.level, o.opt); err != nil || v != o.want {
					t.Errorf("stall bound %v, process %d: %s %d (%v), want %d", c.stall, i, o.name, v, err, o.want)
				}
			}
		}
		err := x.trs[0].connErr(&x.trs[0].peers[1], unix.ETIMEDOUT)
		for _, w := range []string{"process 1 at " + x.trs[1].Addr(), "stalled", "timed out"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("stall error %q does not say %q", err, w)
			}
		}
	}
}

// Every connection, dialed or accepted, asks for Options.SendBuffer, which
// the kernel doubles.
func TestSendBuffer(t *testing.T) {
	const size = 32 << 10
	x := newFabric(t, 2, Options{SendBuffer: size})
	r := x.region(1, make([]byte, 8))
	if ev := x.do(0, llc.Command{Kind: llc.CmdFetchAdd, Peer: 1, Region: r, New: 1, Token: 1}); ev.Kind != llc.EvDone {
		t.Fatalf("fetch-and-add: %+v", ev)
	}
	for i, fd := range []int{x.trs[0].peers[1].fd, x.trs[1].peers[0].fd} {
		if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF); err != nil || v != 2*size {
			t.Errorf("process %d: SO_SNDBUF %d (%v), want %d", i, v, err, 2*size)
		}
	}
	if b := CacheSendBuffer(); b < 64<<10 {
		t.Errorf("CacheSendBuffer() = %d: below the default buffers it replaces", b)
	}
}

// A peer that dialed this process while this process dialed it, and then
// closed, says goodbye on this process's dial first when this process has
// not yet accepted the peer's: its frames on its own dial are still read,
// and the goodbye is no failure.
func TestGoodbyeBeforeSecondConnection(t *testing.T) {
	x := newFabric(t, 2, Options{})
	mem := make([]byte, 64)
	r0 := x.region(0, mem)
	r1 := x.region(1, make([]byte, 64))
	x.exec(0, llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: r1, HeadLen: 8})
	c := llc.Command{Kind: llc.CmdWrite, Peer: 0, Region: r0, HeadLen: 8, Signal: 7, SigOff: 32}
	binary.LittleEndian.PutUint64(c.Head[:], 99)
	x.exec(1, c)
	deadline := time.Now().Add(hangGuard)
	for x.trs[1].peers[0].rfd < 0 { // process 1 accepts process 0's dial; process 0 does nothing
		x.trs[1].Poll(x.sinks[1])
		if time.Now().After(deadline) {
			t.Fatal("process 1 did not accept process 0's dial")
		}
	}
	if err := x.trs[1].Close(); err != nil {
		t.Fatal(err)
	}
	p := &x.trs[0].peers[1]
	x.until("process 1's write and goodbye", func() bool { return p.state == stLost })
	if got := binary.LittleEndian.Uint64(mem[32:]); got != 7 || binary.LittleEndian.Uint64(mem) != 99 {
		t.Fatalf("process 1's write did not land (signal %d)", got)
	}
	if ev, ok := x.sinks[0].find(llc.EvError, 0); ok {
		t.Fatalf("the goodbye was taken for a failure: %+v", ev)
	}
}

// The two connections of a pair that dialed each other at once may end
// in either order. When the peer's dial (which this process only reads)
// ends first, and then this process's own dial with a goodbye saying the
// peer's frames went on the other, the peer has finalized: it is not
// waited for.
func TestDialsEndInEitherOrder(t *testing.T) {
	x := newFabric(t, 2, Options{})
	tr, p := x.trs[0], &x.trs[0].peers[1]
	var own, peers [2]int
	for _, sp := range []*[2]int{&own, &peers} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		*sp = fds
		t.Cleanup(func() { unix.Close(fds[1]) })
	}
	p.state, p.fd, p.rfd, p.held = stUp, own[0], peers[0], true
	tr.ended(p, true) // the peer's dial: its goodbye, then its end
	p.in.bye, p.in.elsewhere = true, true
	tr.ended(p, false) // this process's dial: a goodbye saying the frames went on the other
	if p.state != stLost || !strings.Contains(p.err.Error(), "finalized") {
		t.Fatalf("after both ends: state %d, fd %d, error %v; want the peer finalized", p.state, p.fd, p.err)
	}
}

// A lower rank that waits for its peer's fSwitch holds what comes on its
// own dial after the welcome, however much comes, and acts on it, in
// order, once the switch is in.
func TestHeldDialWaitsForSwitch(t *testing.T) {
	x := newFabric(t, 2, Options{})
	tr, p, out := x.trs[0], &x.trs[0].peers[1], x.sinks[0]
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[1]) })
	p.state, p.fd, p.welcome, p.held, p.hsOff = stUp, fds[0], true, true, hdrSize
	var b []byte
	put := func(h header, payload []byte) {
		var hb [hdrSize]byte
		h.put(hb[:])
		b = append(append(b, hb[:]...), payload...)
	}
	put(header{kind: fWelcome, status: welcomeOK}, nil)
	const records = 3 * inBufSize / (hdrSize + llc.RecordMeta + 8) // more than the buffer holds
	for i := range records {
		rec := make([]byte, llc.RecordMeta+8)
		binary.LittleEndian.PutUint32(rec, uint32(i))
		put(header{kind: fRecord, n: uint64(len(rec))}, rec)
	}
	sent := 0
	write := func() {
		for sent < len(b) {
			n, err := unix.Write(fds[1], b[sent:])
			if err == unix.EAGAIN {
				return
			} else if err != nil {
				t.Fatal(err)
			}
			sent += n
		}
	}
	for range 3 { // the socket full: the held process reads no further
		write()
		if _, err := tr.receive(p, false, out); err != nil {
			t.Fatalf("while held: %v", err)
		}
	}
	if p.welcome || len(out.records()) != 0 || sent == len(b) {
		t.Fatalf("welcome pending %v, %d records acted on while held, %d of %d bytes taken", p.welcome, len(out.records()), sent, len(b))
	}
	p.held = false // the fSwitch came on the other connection
	for len(out.records()) < records {
		write()
		if _, err := tr.receive(p, false, out); err != nil {
			t.Fatal(err)
		}
	}
	for i, rec := range out.records() {
		if got := binary.LittleEndian.Uint32(rec.Head); got != uint32(i) {
			t.Fatalf("record %d is number %d", i, got)
		}
	}
}
