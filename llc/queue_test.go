package llc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestMemNetQueue checks that the test network's receive queues follow the
// layout of ir.go.
func TestMemNetQueue(t *testing.T) {
	m := newMemNet(2)
	q := &memQueueProbe{m: m, mem: allocMemNetQueue(t, m)}
	fillMemNetQueue(t, q)
	releaseMemNetQueue(t, q)
	wrapMemNetQueue(t, q)
	checkBadEnqueues(t, m)
}

// execCopy has m perform a copy of c on behalf of process src.
func execCopy(m *memNet, src int, c Command) Event { return m.exec(src, &c) }

// memQueueProbe enqueues to the 256-byte receive queue of process 1 of m
// and reads it (mem).
type memQueueProbe struct {
	m   *memNet
	mem []byte
}

// produced is the queue's produced count.
func (q *memQueueProbe) produced() uint64 { return atomic.LoadUint64(word(q.mem, 0)) }

// enq enqueues from process src a record of n bytes: up to 3 of Head, the
// rest Data.
func (q *memQueueProbe) enq(src, n int) Event {
	c := Command{Kind: CmdEnqueue, Peer: 1, Token: 5, HeadLen: uint8(min(n, 3)), Data: pattern(n, max(n-3, 0))}
	copy(c.Head[:], []byte{1, 2, 3})
	return q.m.exec(src, &c)
}

// allocMemNetQueue checks that queues of bad sizes, and a second queue,
// are refused, and returns the memory of the 256-byte queue it makes for
// process 1.
func allocMemNetQueue(t *testing.T, m *memNet) []byte {
	t.Helper()
	for _, size := range []int{0, QueueHeader, QueueHeader + 1000} {
		if ev := execCopy(m, 1, Command{Kind: CmdAllocQueue, Size: size, Token: 1}); ev.Kind != EvError {
			t.Errorf("queue of %d bytes: %+v, want an error", size, ev)
		}
	}
	ev := execCopy(m, 1, Command{Kind: CmdAllocQueue, Size: QueueHeader + 256, Token: 1})
	if ev.Kind != EvDone || ev.Value == 0 || len(ev.Mem) != QueueHeader+256 {
		t.Fatalf("alloc queue: %+v", ev)
	}
	mem := ev.Mem
	if ev := execCopy(m, 1, Command{Kind: CmdAllocQueue, Size: QueueHeader + 256, Token: 1}); ev.Kind != EvError {
		t.Fatalf("second queue: %+v", ev)
	}
	return mem
}

// fillMemNetQueue enqueues records until the queue is full, checking their
// headers and the produced count.
func fillMemNetQueue(t *testing.T, q *memQueueProbe) {
	t.Helper()
	// Records of 1+8 -> 16 bytes, 100+8 -> 112 bytes.
	if ev := q.enq(0, 1); ev.Kind != EvDone || ev.Token != 5 || q.produced() != 16 {
		t.Fatalf("first record: %+v, produced %d", ev, q.produced())
	}
	rec := q.mem[QueueHeader:]
	if binary.LittleEndian.Uint32(rec) != 1 || binary.LittleEndian.Uint32(rec[4:]) != 0 || rec[8] != 1 {
		t.Fatalf("first record: % x", rec[:16])
	}
	if ev := q.enq(1, 100); ev.Kind != EvDone || q.produced() != 128 {
		t.Fatalf("second record: %+v, produced %d", ev, q.produced())
	}
	if got := binary.LittleEndian.Uint32(rec[16+4:]); got != 1 {
		t.Fatalf("second record from process %d", got)
	}
	if ev := q.enq(0, 100); ev.Kind != EvDone || q.produced() != 240 {
		t.Fatalf("third record: %+v, produced %d", ev, q.produced())
	}
	// 16 bytes are left before the end and none are released: full.
	if ev := q.enq(0, 1); ev.Kind != EvDone || q.produced() != 256 {
		t.Fatalf("fourth record: %+v, produced %d", ev, q.produced())
	}
	if ev := q.enq(0, 1); ev.Kind != EvError || !errors.Is(ev.Err, ErrQueueFull) || q.produced() != 256 {
		t.Fatalf("record into a full queue: %+v, produced %d", ev, q.produced())
	}
}

// releaseMemNetQueue checks that releases past what was produced or
// backwards are refused, and releases the first two records: 128 bytes; a
// 112-byte record fits at the start without a wrap.
func releaseMemNetQueue(t *testing.T, q *memQueueProbe) {
	t.Helper()
	m := q.m
	for _, off := range []uint64{257, 127 + 1<<20} {
		if err := m.release(m.queues[1], off); err == nil {
			t.Fatalf("release to %d succeeded", off)
		}
	}
	if err := m.release(m.queues[1], 128); err != nil {
		t.Fatalf("release: %v", err)
	}
	if err := m.release(m.queues[1], 16); err == nil {
		t.Fatal("release backwards succeeded")
	}
	if ev := q.enq(0, 100); ev.Kind != EvDone || q.produced() != 368 {
		t.Fatalf("record after the release: %+v, produced %d", ev, q.produced())
	}
}

// wrapMemNetQueue releases up to 256; a 112-byte record at position 112
// fits before the end; the next one does not: it needs 32 skipped bytes and
// 112, and only 32 are free until the owner releases all. Then it wraps,
// behind a wrap marker.
func wrapMemNetQueue(t *testing.T, q *memQueueProbe) {
	t.Helper()
	m := q.m
	if err := m.release(m.queues[1], 256); err != nil {
		t.Fatalf("release: %v", err)
	}
	if ev := q.enq(0, 100); ev.Kind != EvDone || q.produced() != 480 {
		t.Fatalf("record at 112: %+v, produced %d", ev, q.produced())
	}
	if ev := q.enq(0, 100); ev.Kind != EvError || !errors.Is(ev.Err, ErrQueueFull) {
		t.Fatalf("record needing a wrap into 32 free bytes: %+v", ev)
	}
	if err := m.release(m.queues[1], 480); err != nil {
		t.Fatalf("release: %v", err)
	}
	if ev := q.enq(0, 100); ev.Kind != EvDone || q.produced() != 480+32+112 {
		t.Fatalf("wrapped record: %+v, produced %d", ev, q.produced())
	}
	rec := q.mem[QueueHeader:]
	if got := binary.LittleEndian.Uint32(rec[224:]); got != QueueWrap {
		t.Fatalf("no wrap marker at 224: %#x", got)
	}
	if got := binary.LittleEndian.Uint32(rec[0:]); got != 100 {
		t.Fatalf("wrapped record length %d", got)
	}
}

// checkBadEnqueues checks that enqueues without a token, to a process
// without a queue or outside the job, or too long, fail other than full.
func checkBadEnqueues(t *testing.T, m *memNet) {
	t.Helper()
	for _, c := range []Command{
		{Kind: CmdEnqueue, Peer: 1},                                                 // no token
		{Kind: CmdEnqueue, Peer: 0, Token: 1},                                       // no queue
		{Kind: CmdEnqueue, Peer: 2, Token: 1},                                       // no process
		{Kind: CmdEnqueue, Peer: 1, Token: 1, Data: make([]byte, MaxQueueRecord+1)}, // too long
	} {
		if ev := execCopy(m, 0, c); ev.Kind != EvError || errors.Is(ev.Err, ErrQueueFull) {
			t.Errorf("%v: %+v, want an error other than full", traced{0, c}, ev)
		}
	}
}

// queueRecKind returns the record kind and tag of a CmdEnqueue.
func queueRecKind(c Command) (uint8, int32) {
	var m meta
	m.get(c.Head[:recMeta])
	return m.kind, m.tag
}

// At most one enqueue per peer is in flight; the next record waits for its
// completion, and a record the receiver's queue refused stays at the head
// and is enqueued again on a later poll.
func TestQueueInFlight(t *testing.T) {
	c := newCluster(t, 3, withEager(EagerQueue, nil))
	c.hold[0] = true
	sends, first := startQueueInFlight(t, c)
	checkQueueRefused(t, c, sends, first)
	checkQueueInOrder(t, c, sends)
	c.hold[0] = false
	for i := range 3 {
		r := c.recv(1, 0, AnyTag, 0, 100)
		c.wait(r)
		checkRecv(t, fmt.Sprint("message ", i), r, 0, int32(i), pattern(i, 10*i))
	}
	c.noErrs()
	c.idle()
}

// startQueueInFlight sends three messages to 1 and one to 2 with engine
// 0's commands held: one enqueue per peer is issued, and the one to 2
// completes. It returns the sends to 1 and the enqueue held for them.
func startQueueInFlight(t *testing.T, c *cluster) ([]*SendOp, Command) {
	t.Helper()
	var sends []*SendOp
	for i := range 3 {
		sends = append(sends, c.send(0, 1, int32(i), 0, pattern(i, 10*i)))
	}
	other := c.send(0, 2, 9, 0, pattern(9, 9)) // another peer: not held up
	held := c.take(0)
	if len(held) != 2 {
		t.Fatalf("%d commands issued, want 2 (one enqueue per peer)", len(held))
	}
	for i, want := range []int{1, 2} {
		if k, _ := queueRecKind(held[i]); held[i].Kind != CmdEnqueue || held[i].Peer != want || k != recEager {
			t.Fatalf("command %d: %v, want an eager record to %d", i, traced{0, held[i]}, want)
		}
	}
	c.deliver(0, held[1])
	checkSent(t, "send to 2", other)
	return sends, held[0]
}

// checkQueueRefused: the queue of 1 is full: nothing more is issued until
// a poll, which enqueues the record at the head again, twice refused too.
func checkQueueRefused(t *testing.T, c *cluster, sends []*SendOp, first Command) {
	t.Helper()
	c.failHeld(0, first, errFull)
	if st := c.eng[0].State().Stats; st.QueueFull != 1 || sends[0].Done() || c.eng[0].sched.len() != 0 {
		t.Fatalf("after a full queue: QueueFull %d, first send done %v, %d commands", st.QueueFull, sends[0].Done(), c.eng[0].sched.len())
	}
	if c.eng[0].State().Idle {
		t.Fatal("idle with records queued")
	}
	for range 2 {
		c.poll(0)
		retry := c.take(0)
		if k, tag := queueRecKind(retry[0]); len(retry) != 1 || k != recEager || tag != 0 {
			t.Fatalf("retry: %v", retry)
		}
		c.failHeld(0, retry[0], errFull)
	}
	if st := c.eng[0].State().Stats; st.QueueFull != 3 {
		t.Fatalf("QueueFull %d after three refusals", st.QueueFull)
	}
}

// checkQueueInOrder: room again: the records go in order, one completion
// at a time.
func checkQueueInOrder(t *testing.T, c *cluster, sends []*SendOp) {
	t.Helper()
	for i := range 3 {
		if i == 0 {
			c.poll(0)
		} else {
			c.drain(0)
		}
		cmds := c.take(0)
		if _, tag := queueRecKind(cmds[0]); len(cmds) != 1 || tag != int32(i) {
			t.Fatalf("record %d: %v", i, cmds)
		}
		c.deliver(0, cmds[0])
		checkSent(t, fmt.Sprint("send ", i), sends[i])
		if i < 2 && sends[i+1].Done() {
			t.Fatalf("send %d done before its record was enqueued", i+1)
		}
	}
}

// An enqueue that fails for another reason than a full queue stops the
// engine, as a failed ring write does.
func TestQueueEnqueueError(t *testing.T) {
	c := newCluster(t, 3, withEager(EagerQueue, nil))
	posted := c.recv(0, 2, 1, 0, 10)
	c.hook, _ = failCmd(func(src int, cmd Command) bool { return src == 0 && cmd.Kind == CmdEnqueue && cmd.Peer == 1 })
	s := c.send(0, 1, 1, 0, pattern(1, 10))
	if !errors.Is(c.eng[0].State().Err, errInjected) {
		t.Fatalf("engine error %v, want the injected failure", c.eng[0].State().Err)
	}
	for i, op := range []Completion{s, posted} {
		if !op.Done() || !errors.Is(opErr(op), errInjected) {
			t.Fatalf("operation %d: done %v err %v", i, op.Done(), opErr(op))
		}
	}
	checkStopped(t, c, 0)
	c.hook = nil
	s = c.send(1, 2, 1, 0, pattern(2, 10))
	r := c.recv(2, 1, 1, 0, 10)
	c.wait(s, r)
	checkRecv(t, "1 to 2", r, 1, 1, pattern(2, 10))
}

// A record that does not fit before the end of the queue starts at 0
// behind a wrap marker; the receiver skips the marker and releases what it
// consumed, skipped bytes included, once per poll.
func TestQueueWrapMarker(t *testing.T) {
	c := newCluster(t, 2, withEager(EagerQueue, func(_ int, cfg *Config) { cfg.QueueSize, cfg.EagerLimit = 1024, 200 }))
	c.tracing = true
	const payload = 100
	span := QueueSpan(recMeta + payload) // 136
	var want uint64
	for i := range 8 {
		s := c.send(0, 1, int32(i), 0, pattern(i, payload))
		checkSent(t, fmt.Sprint("send ", i), s)
		if want+span > 1024 {
			want = 1024 // the wrap marker's skip
		}
		want += span
		if i == 6 {
			// Consume the first seven: one release.
			c.poll(1)
			if got := c.net.queues[1].released; got != 7*span {
				t.Fatalf("released to %d after a poll, want %d", got, 7*span)
			}
		}
	}
	q := c.net.queues[1]
	data := q.mem[QueueHeader:]
	if got := binary.LittleEndian.Uint32(data[7*span:]); got != QueueWrap {
		t.Fatalf("no wrap marker at %d: %#x", 7*span, got)
	}
	if got := atomic.LoadUint64(word(q.mem, 0)); got != want {
		t.Fatalf("produced %d, want %d", got, want)
	}
	c.poll(1)
	if q.released != want || c.net.queues[1].released != want {
		t.Fatalf("released %d, consumed %d, want %d", q.released, c.net.queues[1].released, want)
	}
	for i := range 8 {
		r := c.recv(1, 0, int32(i), 0, payload)
		checkRecv(t, fmt.Sprint("message ", i), r, 0, int32(i), pattern(i, payload))
	}
	if st := c.eng[1].State().Stats; st.EagerRecv != 8 || st.Unexpected != 8 {
		t.Fatalf("receiver counters %+v", st)
	}
	// Nothing new: a poll consumes and releases nothing.
	n := len(c.trace)
	if c.poll(1) || len(c.trace) != n {
		t.Fatalf("an empty poll issued %v", c.trace[n:])
	}
	c.noErrs()
}

// Several senders share one queue: per sender, the order of the records
// is kept through full queues and retries, and any-source receives take
// the messages in arrival order.
func TestQueueSeveralSenders(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			const n, nmsg = 5, 40
			recv := n - 1
			c := newCluster(t, n, withEager(EagerQueue, func(_ int, cfg *Config) {
				cfg.QueueSize, cfg.EagerLimit, cfg.Rendezvous = 2048, 400, mode
			}))
			sent := make([][][]byte, n)
			var sends []Completion
			c.paused[recv] = true
			for k := range nmsg {
				for src := range recv {
					size := (k*53 + src*17) % 401
					if k%10 == 9 {
						size = 1000 + src // rendezvous
					}
					data := pattern(src<<8|k, size)
					sent[src] = append(sent[src], data)
					sends = append(sends, c.send(src, recv, int32(k%3), 0, data))
				}
				if k%4 == 3 {
					c.rounds(2)
					c.paused[recv] = !c.paused[recv]
				}
			}
			c.paused[recv] = false
			var full uint64
			for src := range recv {
				full += c.eng[src].State().Stats.QueueFull
			}
			if full == 0 {
				t.Fatal("no sender found the queue full")
			}
			got := make([][]*RecvOp, n)
			for range recv * nmsg {
				r := c.recv(recv, AnySource, AnyTag, 0, 2000)
				c.wait(r)
				if r.Err() != nil {
					t.Fatalf("receive: %v", r.Err())
				}
				got[r.Status.Source] = append(got[r.Status.Source], r)
			}
			c.wait(sends...)
			for src := range recv {
				if len(got[src]) != nmsg {
					t.Fatalf("%d messages from %d, want %d", len(got[src]), src, nmsg)
				}
				for k, r := range got[src] {
					checkRecv(t, fmt.Sprintf("message %d from %d", k, src), r, src, int32(k%3), sent[src][k])
				}
			}
			if consumed := c.net.queues[recv].released; consumed < 4*2048 {
				t.Fatalf("the queue wrapped only %d bytes", consumed)
			}
			c.noErrs()
			c.idle()
		})
	}
}

// EagerQueue connects to nobody and grants no ring: its only start-up
// command is the allocation of its queue.
func TestQueueNoConnection(t *testing.T) {
	net := newMemNet(2)
	cfg := testConfig(net, 0, 2)
	withEager(EagerQueue, nil)(0, &cfg)
	e, err := NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := popCommand(e)
	if cmd == nil || cmd.Kind != CmdAllocQueue || cmd.Size != QueueHeader+testQueueSize || cmd.Token == 0 || popCommand(e) != nil {
		t.Fatalf("start-up commands: %v", cmd)
	}
	c := newCluster(t, 3, withEager(EagerQueue, nil))
	c.tracing = true
	for src := range 3 {
		for dst := range 3 {
			s := c.send(src, dst, 1, 0, pattern(src, 5000)) // rendezvous
			r := c.recv(dst, src, 1, 0, 5000)
			c.wait(s, r)
			checkRecv(t, fmt.Sprint(src, " to ", dst), r, src, 1, pattern(src, 5000))
		}
	}
	for _, cmd := range c.trace {
		if cmd.Kind == CmdCAS || cmd.Kind == CmdAlloc || (cmd.Kind == CmdWrite && cmd.Region == c.net.boot[cmd.Peer]) {
			t.Fatalf("connection traffic: %v", cmd)
		}
	}
	for i, e := range c.eng {
		if st := e.State().Stats; st.Connections != 0 || st.RingsGranted != 0 || e.rings != 0 {
			t.Fatalf("engine %d: counters %+v", i, st)
		}
		if got := c.net.regions(i); got != 2 { // bootstrap area and queue
			t.Fatalf("engine %d has %d regions", i, got)
		}
	}
	c.idle()
}
