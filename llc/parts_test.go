package llc

import (
	"encoding/binary"
	"errors"
	"testing"
)

// Tests of messages in several receive-queue records (parts.go).

// partsConfig is EagerQueue with the largest eager limit in a queue of
// qsize bytes.
func partsConfig(qsize int) func(i int, cfg *Config) {
	return withEager(EagerQueue, func(_ int, cfg *Config) {
		cfg.EagerLimit, cfg.QueueSize = MaxQueueEagerLimit, qsize
	})
}

// partsOf returns the records a payload of n bytes takes: the first
// carries the payload's length too.
func partsOf(n int) int {
	per := MaxQueueRecord - recMeta
	if recMeta+n <= MaxQueueRecord {
		return 1
	}
	return 1 + (n-(per-partTotal)+per-1)/per
}

// enqueues counts the CmdEnqueue commands of engine src in the trace,
// those the receiver's queue refused included.
func (c *cluster) enqueues(src int) int {
	n := 0
	for _, t := range c.trace {
		if t.src == src && t.Kind == CmdEnqueue {
			n++
		}
	}
	return n
}

// Messages across the records boundary, posted and unexpected, to a peer
// and to self, in a queue smaller than the largest message: each is one
// eager message of as many records as its payload needs.
func TestQueuePartsSizes(t *testing.T) {
	per := MaxQueueRecord - recMeta
	c := newCluster(t, 2, partsConfig(8<<10))
	c.tracing = true
	sizes := []int{per - 1, per, per + 1, 2 * per, 2*per + 1, 8 << 10, MaxQueueEagerLimit - 1, MaxQueueEagerLimit}
	var eager uint64
	for k, size := range sizes {
		for _, dst := range []int{1, 0} {
			for _, posted := range []bool{true, false} {
				before := c.enqueues(0) - int(c.eng[0].State().Stats.QueueFull)
				what := c.transfer(t, k, size, dst, posted)
				if got := c.enqueues(0) - int(c.eng[0].State().Stats.QueueFull) - before; got != partsOf(size) {
					t.Fatalf("%s: %d records, want %d", what, got, partsOf(size))
				}
				eager++
			}
		}
	}
	c.noErrs()
	c.idle()
	if st := c.eng[0].State().Stats; st.EagerSent != eager || st.RndvSent != 0 || st.QueueFull == 0 {
		t.Fatalf("sender counters %+v: want %d eager messages, no rendezvous, a full queue met", st, eager)
	}
}

// The records of two senders interleave in one queue: each sender's
// message is reassembled apart, and the receives match by sender in
// order; a message's receive completes only with its last part, and a
// probe sees it only then.
func TestQueuePartsInterleaved(t *testing.T) {
	c := newCluster(t, 3, partsConfig(64<<10))
	c.hold[0], c.hold[1] = true, true
	size := 3*(MaxQueueRecord-recMeta) + 5 // four records
	sends, data := startInterleavedSends(c, size)
	first := c.recv(interleavedRecv, AnySource, 4, 0, size)
	deliverInterleavedParts(t, c, first)
	if !first.Done() || sends[2].Done() || sends[3].Done() {
		t.Fatalf("after the first messages: receive done %v, second sends done %v %v", first.Done(), sends[2].Done(), sends[3].Done())
	}
	checkRecv(t, "first message", first, 0, 4, data[0][0])
	checkInterleavedRest(t, c, sends, data, size)
}

// interleavedRecv is the receiver of TestQueuePartsInterleaved.
const interleavedRecv = 2

// startInterleavedSends submits two messages of about size bytes from
// each of 0 and 1, alternately, and returns the sends and their data
// (by sender, then message).
func startInterleavedSends(c *cluster, size int) ([]*SendOp, [2][2][]byte) {
	var sends []*SendOp
	var data [2][2][]byte
	for k := range 2 {
		for src := range 2 {
			data[src][k] = pattern(src*10+k, size-k*100)
			op := &SendOp{Peer: interleavedRecv, Tag: 4, Data: data[src][k]}
			c.eng[src].Submit(op)
			c.drain(src)
			sends = append(sends, op)
		}
	}
	return sends, data
}

// deliverInterleavedParts delivers the four parts of each sender's first
// message alternately: the receive first completes only with the last
// part of 0's, and a probe sees 1's only with its last.
func deliverInterleavedParts(t *testing.T, c *cluster, first *RecvOp) {
	t.Helper()
	const recv = interleavedRecv
	for part := range 4 {
		for src := range 2 {
			cmds := c.take(src)
			if len(cmds) != 1 {
				t.Fatalf("part %d of %d: %d commands held, want one enqueue", part, src, len(cmds))
			}
			if k, _ := queueRecKind(cmds[0]); (part == 0) != (k == recEager) || (part > 0) != (k == recPart) {
				t.Fatalf("part %d of %d: record kind %d", part, src, k)
			}
			c.deliver(src, cmds[0])
			c.drain(src)
			c.poll(recv)
			if first.Done() != (part == 3) {
				t.Fatalf("after part %d of %d: the receive done %v", part, src, first.Done())
			}
			if _, ok := probeOn(c.eng[recv], 1, 4, 0); ok != (part == 3 && src == 1) {
				t.Fatalf("probe of 1 after part %d of %d: %v", part, src, ok)
			}
		}
	}
}

// checkInterleavedRest releases the senders' commands and receives the
// other three messages, matched by sender in order.
func checkInterleavedRest(t *testing.T, c *cluster, sends []*SendOp, data [2][2][]byte, size int) {
	t.Helper()
	const recv = interleavedRecv
	c.hold[0], c.hold[1] = false, false
	for _, src := range []int{0, 1} {
		c.drain(src)
		for _, cmd := range c.take(src) {
			c.deliver(src, cmd)
		}
	}
	var got [2][]*RecvOp
	got[1] = append(got[1], c.recv(recv, 1, 4, 0, size))
	for range 2 {
		r := c.recv(recv, AnySource, 4, 0, size)
		c.wait(r)
		got[r.Status.Source] = append(got[r.Status.Source], r)
	}
	c.wait(sends[0], sends[1], sends[2], sends[3])
	checkRecv(t, "second message of 0", got[0][0], 0, 4, data[0][1])
	checkRecv(t, "first message of 1", got[1][0], 1, 4, data[1][0])
	checkRecv(t, "second message of 1", got[1][1], 1, 4, data[1][1])
	c.noErrs()
	c.idle()
}

// A part that finds the receiver's queue full is enqueued again on a later
// poll, the same bytes; nothing else to that peer goes between the parts
// of a message, and the send can no longer be cancelled.
func TestQueuePartsFullMidMessage(t *testing.T) {
	c := newCluster(t, 2, partsConfig(8<<10))
	c.hold[0] = true
	per := MaxQueueRecord - recMeta
	first := per - partTotal                              // the first part carries the payload's length too
	big, small := pattern(1, first+2*per), pattern(2, 10) // three parts
	s := c.send(0, 1, 1, 0, big)
	after := c.send(0, 1, 2, 0, small)
	held := c.take(0)
	if len(held) != 1 {
		t.Fatalf("%d commands, want the first part", len(held))
	}
	c.deliver(0, held[0])
	c.drain(0)
	second := c.take(0)
	if k, _ := queueRecKind(second[0]); len(second) != 1 || k != recPart || string(second[0].Data) != string(big[first:first+per]) {
		t.Fatalf("second part: %v", second)
	}
	c.failHeld(0, second[0], errFull)
	if cancelSendOn(c.eng[0], s) || c.eng[0].sched.len() != 0 {
		t.Fatalf("after a full queue mid-message: cancelled, or %d commands issued", c.eng[0].sched.len())
	}
	c.poll(0)
	retry := c.take(0)
	if k, _ := queueRecKind(retry[0]); len(retry) != 1 || k != recPart || string(retry[0].Data) != string(big[first:first+per]) {
		t.Fatalf("retry: %v", retry)
	}
	for _, want := range []int{2, 3} { // the retried part, then the last
		c.deliver(0, retry[0])
		c.drain(0)
		retry = c.take(0)
		if want == 3 {
			break
		}
		if k, _ := queueRecKind(retry[0]); len(retry) != 1 || k != recPart || len(retry[0].Data) != per {
			t.Fatalf("part %d: %v", want, retry)
		}
		if s.Done() || after.Done() {
			t.Fatal("a send completed before the message's last part")
		}
	}
	if k, tag := queueRecKind(retry[0]); !s.Done() || len(retry) != 1 || k != recEager || tag != 2 {
		t.Fatalf("after the last part: send done %v, next %v", s.Done(), retry)
	}
	c.deliver(0, retry[0])
	c.hold[0] = false
	r1, r2 := c.recv(1, 0, AnyTag, 0, len(big)), c.recv(1, 0, AnyTag, 0, 10)
	c.wait(r1, r2, after)
	checkRecv(t, "large message", r1, 0, 1, big)
	checkRecv(t, "small message", r2, 0, 2, small)
	if st := c.eng[0].State().Stats; st.QueueFull != 1 || st.EagerSent != 2 {
		t.Fatalf("sender counters %+v", st)
	}
	c.noErrs()
	c.idle()
}

// A message in several records truncated by a small buffer, posted or
// not, and a synchronous one.
func TestQueuePartsTruncatedAndSync(t *testing.T) {
	c := newCluster(t, 2, partsConfig(16<<10))
	data := pattern(3, 5000)
	for _, posted := range []bool{true, false} {
		var r *RecvOp
		if posted {
			r = c.recv(1, 0, 1, 0, 3000)
		}
		s := c.send(0, 1, 1, 0, data)
		if !posted {
			c.run("arrival", func() bool { _, ok := probeOn(c.eng[1], 0, 1, 0); return ok })
			r = c.recv(1, 0, 1, 0, 3000)
		}
		c.wait(s, r)
		if !errors.Is(r.Err(), ErrTruncated) || r.Status.Len != 5000 || string(r.Buf) != string(data[:3000]) {
			t.Fatalf("posted=%v: err %v, status %+v", posted, r.Err(), r.Status)
		}
		checkSent(t, "truncated send", s)
	}
	s := &SendOp{Peer: 1, Tag: 2, Data: data, Sync: true}
	c.eng[0].Submit(s)
	c.drain(0)
	c.rounds(50)
	if s.Done() {
		t.Fatal("a synchronous send completed before its receive")
	}
	r := c.recv(1, 0, 2, 0, len(data))
	c.wait(s, r)
	checkRecv(t, "synchronous", r, 0, 2, data)
	if st := c.eng[1].State().Stats; st.Truncated != 2 {
		t.Fatalf("receiver counters %+v", st)
	}
	c.noErrs()
	c.idle()
}

// Parts out of place stop the engine: a part with no message begun, a
// first part while one is begun, a first part longer than its message or
// above the largest eager limit, a part past the message's end.
func TestQueuePartsCorrupt(t *testing.T) {
	per := MaxQueueRecord - recMeta
	rec := func(m meta) []byte {
		b := make([]byte, recMeta)
		m.put(b)
		return b
	}
	// A record: its meta, and a body of n bytes that begins with total
	// (the whole payload's length, at the head of a first part) unless
	// total is negative.
	type record struct {
		m        meta
		total, n int
	}
	first := func(total, n int) record {
		return record{meta{kind: recEager, flags: flagParts, length: uint32(n)}, total, n}
	}
	part := func(length, n int) record { return record{meta{kind: recPart, length: uint32(length)}, -1, n} }
	tests := []struct {
		name    string
		records []record
	}{
		{"part alone", []record{part(10, 10)}},
		{"first twice", []record{first(per+10, per), first(per+10, per)}},
		{"first holds it all", []record{first(per-partTotal, per)}},
		{"first without its length", []record{first(-1, partTotal-1)}},
		{"too large", []record{first(MaxQueueEagerLimit+1, per)}},
		{"past the end", []record{first(per+10, per), part(19, 19)}},
		{"part length", []record{first(per+10, per), part(10, 9)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, 2, partsConfig(16<<10))
			r := c.recv(1, 0, AnyTag, 0, 1<<16)
			for _, x := range tt.records {
				body := make([]byte, x.n)
				if x.total >= 0 {
					binary.LittleEndian.PutUint64(body, uint64(x.total))
				}
				c.eng[1].Step(&Event{Kind: EvRecord, Peer: 0, Head: rec(x.m), Data: body})
			}
			if err := c.eng[1].State().Err; err == nil || !r.Done() {
				t.Fatalf("engine error %v, receive done %v", err, r.Done())
			}
		})
	}
}

// Without rendezvous (Config.NoRendezvous), as MPICH-SCore over PM
// without remote memory access: messages of every size, far larger than
// the eager limit and the rings or the queue, posted and unexpected, to a
// peer and to self, go eagerly, in parts above what one record holds;
// none by rendezvous, whatever the send asks.
func TestNoRendezvousSizes(t *testing.T) {
	for _, eager := range []EagerMode{EagerRings, EagerPM, EagerQueue} {
		t.Run(eager.String(), func(t *testing.T) {
			c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.NoRendezvous = true }))
			sizes := []int{0, 8, 1015, 1016, 1017, 1024, 1025, 5000, 40 << 10, 300 << 10}
			total := c.transferAll(t, sizes)
			s := &SendOp{Peer: 1, Tag: 99, Data: pattern(5, 9000), Rendezvous: true}
			c.eng[0].Submit(s)
			c.drain(0)
			r := c.recv(1, 0, 99, 0, 9000)
			c.wait(s, r)
			checkRecv(t, "a send that asks for a rendezvous", r, 0, 99, s.Data)
			c.noErrs()
			c.idle()
			st0, st1 := c.eng[0].State().Stats, c.eng[1].State().Stats
			if want := uint64(len(sizes)*4 + 1); st0.RndvSent != 0 || st1.RndvRecv != 0 || st0.EagerSent != want {
				t.Fatalf("counters: sender %+v, receiver %+v: want %d eager messages, no rendezvous", st0, st1, want)
			}
			if st0.BytesSent != uint64(total+len(s.Data)) {
				t.Fatalf("BytesSent %d, want %d", st0.BytesSent, total+len(s.Data))
			}
		})
	}
}

// A synchronous send of a message in parts completes only once a receive
// has matched it, though all its parts are in; a message in parts that
// meets a smaller receive truncates it as one record would.
func TestNoRendezvousSyncAndTruncation(t *testing.T) {
	for _, eager := range []EagerMode{EagerPM, EagerQueue} {
		t.Run(eager.String(), func(t *testing.T) {
			c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.NoRendezvous = true }))
			s := &SendOp{Peer: 1, Tag: 3, Data: pattern(7, 20000), Sync: true}
			c.eng[0].Submit(s)
			c.drain(0)
			c.run("arrival", func() bool { _, ok := probeOn(c.eng[1], 0, 3, 0); return ok })
			if s.Done() {
				t.Fatal("a synchronous send completed before its receive")
			}
			r := c.recv(1, 0, 3, 0, len(s.Data))
			c.wait(s, r)
			checkSent(t, "synchronous", s)
			checkRecv(t, "synchronous", r, 0, 3, s.Data)
			big := c.send(0, 1, 4, 0, pattern(8, 10000))
			small := c.recv(1, 0, 4, 0, 100)
			c.wait(big, small)
			if !errors.Is(small.Err(), ErrTruncated) || small.Status.Len != 10000 {
				t.Fatalf("receive of 100 bytes of a 10000-byte message: %v, status %+v", small.Err(), small.Status)
			}
			c.noErrs()
			c.idle()
		})
	}
}

// A message in several records counts one copy of its whole payload at
// each end, as the PM messages MPICH-SCore sends it in are copied from and
// into the user's buffer, and one send or receive per record.
func TestNoRendezvousHostWork(t *testing.T) {
	for _, eager := range []EagerMode{EagerPM, EagerQueue} {
		t.Run(eager.String(), func(t *testing.T) {
			c := newCluster(t, 2, withEager(eager, func(_ int, cfg *Config) { cfg.NoRendezvous = true }))
			c.idle()
			c.connect(0, 1)
			clear(c.work[0][:])
			clear(c.work[1][:])
			const size = 5000
			s := c.send(0, 1, 1, 0, pattern(1, size))
			r := c.recv(1, 0, 1, 0, size)
			c.wait(s, r)
			records := 1 + (size-(1024-partTotal)+1023)/1024 // ring records of the eager limit, 1024 here
			if eager == EagerQueue {
				records = partsOf(size)
			}
			if w := c.work[0]; w[WorkSend] != records || w[WorkCopies] != 1 || w[WorkCopy] != size {
				t.Errorf("sender's work %v: want %d sends, one copy of %d bytes", w, records, size)
			}
			if w := c.work[1]; w[WorkRecv] != records || w[WorkCopies] != 1 || w[WorkCopy] != size {
				t.Errorf("receiver's work %v: want %d receives, one copy of %d bytes", w, records, size)
			}
		})
	}
}
