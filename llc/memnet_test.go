package llc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/layout"
)

// memNet is a test-only network: every process has registered memory, a
// map from RegionID to a byte slice, and commands act on it directly. It
// is safe for concurrent use (the memory itself is touched the way a NIC
// would: plain copies for data, atomic stores for signal words).
type memNet struct {
	mu    sync.Mutex
	procs []map[RegionID][]byte
	next  RegionID
	boot  []RegionID
	mems  [][]byte // bootstrap memory of every process
	// queues[p] is the receive queue of process p (CmdAllocQueue), or nil.
	queues []*memQueue
	// local[p] reads what arrives in process p's memory. Only p's
	// driver touches it.
	local []LocalReceiver
	// late: the completions of commands with a token are delivered by
	// the issuer's next poll, not by Execute (pending[p], in order).
	late    bool
	pending [][]Event
}

// memQueue is a receive queue as the network keeps it: the owner's memory
// (layout in ir.go) and how far the owner has released it.
type memQueue struct {
	region   RegionID
	mem      []byte
	size     uint64 // record space
	released uint64
}

var (
	errNoRegion   = errors.New("memnet: no such region")
	errOutOfRange = errors.New("memnet: access out of range")
	errBadPeer    = errors.New("memnet: no such process")
	errBadCommand = errors.New("memnet: bad command")
	errInjected   = errors.New("injected failure")
	errNoQueue    = errors.New("memnet: the target has no receive queue")
	// errFull is made once, so that a refused enqueue does not allocate.
	errFull = fmt.Errorf("memnet: %w", ErrQueueFull)
)

func newMemNet(n int) *memNet {
	m := &memNet{procs: make([]map[RegionID][]byte, n), queues: make([]*memQueue, n), pending: make([][]Event, n)}
	for i := range m.procs {
		m.procs[i] = make(map[RegionID][]byte)
		m.local = append(m.local, NewLocalReceiver(i))
		mem := make([]byte, BootSize(n))
		r := m.register(i, mem)
		m.local[i].Track(r, mem)
		m.boot = append(m.boot, r)
		m.mems = append(m.mems, mem)
	}
	return m
}

// poll delivers to sink what arrived in process p's memory, and the late
// completions of its commands. It reports whether there was anything.
func (m *memNet) poll(p int, sink Sink) bool {
	progressed := m.local[p].Poll(sink)
	m.mu.Lock()
	evs := m.pending[p]
	m.pending[p] = nil
	m.mu.Unlock()
	for i := range evs {
		sink.Step(&evs[i])
	}
	return progressed || len(evs) > 0
}

// synchronous reports whether a command of kind k completes in Execute
// even on a late network (see Transport).
func synchronous(k CmdKind) bool {
	switch k {
	case CmdRegister, CmdAlloc, CmdAllocQueue, CmdRelease, CmdWatchRing, CmdWatchSlot:
		return true
	}
	return false
}

// register makes mem a region of process p. The caller holds m.mu or has
// the network to itself.
func (m *memNet) register(p int, mem []byte) RegionID {
	m.next++
	m.procs[p][m.next] = mem
	return m.next
}

// region returns memory [off, off+n) of region r of process p.
func (m *memNet) region(p int, r RegionID, off uint64, n int) ([]byte, error) {
	if p < 0 || p >= len(m.procs) {
		return nil, errBadPeer
	}
	mem, ok := m.procs[p][r]
	if !ok {
		return nil, errNoRegion
	}
	if n < 0 || off > uint64(len(mem)) || uint64(n) > uint64(len(mem))-off {
		return nil, errOutOfRange
	}
	return mem[off : off+uint64(n)], nil
}

// word8 returns the aligned 8-byte word at off of region r of process p.
func (m *memNet) word8(p int, r RegionID, off uint64) (*uint64, error) {
	b, err := m.region(p, r, off, 8)
	if err != nil {
		return nil, err
	}
	if off%8 != 0 {
		return nil, errOutOfRange
	}
	return word(b, 0), nil
}

// exec performs c on behalf of process src and returns its completion.
// It does not allocate except for CmdAlloc and on errors.
func (m *memNet) exec(src int, c *Command) Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	val, mem, err := m.do(src, c)
	ev := Event{Kind: EvDone, Token: c.Token, Value: val, Mem: mem}
	switch {
	case err != nil:
		ev = Event{Kind: EvError, Token: c.Token, Err: err}
	case c.Token == 0 || c.Kind == CmdWatchSlot:
		return Event{}
	}
	if m.late && !synchronous(c.Kind) {
		m.pending[src] = append(m.pending[src], ev)
		return Event{}
	}
	return ev
}

// do performs c on behalf of process src, the caller holding m.mu, and
// returns the completion's value and memory.
func (m *memNet) do(src int, c *Command) (val uint64, mem []byte, err error) {
	switch c.Kind {
	case CmdWrite:
		return 0, nil, m.doWrite(src, c)
	case CmdRead:
		return 0, nil, m.doRead(c)
	case CmdCAS:
		return m.doCAS(c)
	case CmdFetchAdd:
		return m.doFetchAdd(c)
	case CmdRegister:
		return uint64(m.register(src, c.Data)), nil, nil
	case CmdAlloc:
		return m.doAlloc(src, c)
	case CmdRelease:
		return 0, nil, m.doRelease(src, c)
	case CmdWatchRing, CmdWatchSlot:
		return 0, nil, m.local[src].Watch(c)
	case CmdWriteLine:
		return 0, nil, m.doWriteLine(src, c)
	case CmdWatchLine:
		return 0, nil, m.doWatchLine(src, c)
	case CmdAllocQueue:
		return m.allocQueue(src, c.Size)
	case CmdEnqueue:
		return 0, nil, m.enqueue(src, c)
	default:
		return 0, nil, errBadCommand
	}
}

// doWrite performs CmdWrite: Head and Data into the peer's region, the
// first word of an aligned write last as one store, then the signal word.
func (m *memNet) doWrite(src int, c *Command) error {
	head := c.Head[:c.HeadLen]
	dst, err := m.region(c.Peer, c.Region, c.Off, len(head)+len(c.Data))
	if err != nil {
		return err
	}
	var sig *uint64
	if c.Signal != 0 {
		if sig, err = m.word8(c.Peer, c.Region, c.SigOff); err != nil {
			return err
		}
	}
	// The first word of an aligned write is one store (a ring
	// record's first word, which the receiver polls).
	first := len(head) >= 8 && c.Off%8 == 0
	if first {
		copy(dst[8:], head[8:])
	} else {
		copy(dst, head)
	}
	copy(dst[len(head):], c.Data)
	if first {
		atomic.StoreUint64(word(dst, 0), binary.LittleEndian.Uint64(head))
	}
	if sig != nil {
		atomic.StoreUint64(sig, c.Signal)
		m.local[src].Wrote(c.Peer, 0)
	}
	return nil
}

// doRead performs CmdRead into c.Data.
func (m *memNet) doRead(c *Command) error {
	if len(c.Data) == 8 && c.Off%8 == 0 {
		// A word (a consumer count): read it atomically, as the
		// owner publishes it with an atomic store.
		w, err := m.word8(c.Peer, c.Region, c.Off)
		if err != nil {
			return err
		}
		*word(c.Data, 0) = atomic.LoadUint64(w)
		return nil
	}
	s, err := m.region(c.Peer, c.Region, c.Off, len(c.Data))
	if err != nil {
		return err
	}
	copy(c.Data, s)
	return nil
}

// doCAS performs CmdCAS and returns the word's old value.
func (m *memNet) doCAS(c *Command) (uint64, []byte, error) {
	w, err := m.word8(c.Peer, c.Region, c.Off)
	if err != nil {
		return 0, nil, err
	}
	for {
		old := atomic.LoadUint64(w)
		if old != c.Old || atomic.CompareAndSwapUint64(w, old, c.New) {
			return old, nil, nil
		}
	}
}

// doFetchAdd performs CmdFetchAdd and returns the word's old value.
func (m *memNet) doFetchAdd(c *Command) (uint64, []byte, error) {
	w, err := m.word8(c.Peer, c.Region, c.Off)
	if err != nil {
		return 0, nil, err
	}
	return atomic.AddUint64(w, c.New) - c.New, nil, nil
}

// doAlloc performs CmdAlloc: a new region of src's, which its local memory
// reads.
func (m *memNet) doAlloc(src int, c *Command) (uint64, []byte, error) {
	if c.Size <= 0 {
		return 0, nil, errBadCommand
	}
	mem := make([]byte, c.Size)
	r := m.register(src, mem)
	m.local[src].Track(r, mem)
	return uint64(r), mem, nil
}

// doRelease performs CmdRelease of one of src's regions.
func (m *memNet) doRelease(src int, c *Command) error {
	if _, ok := m.procs[src][c.Region]; !ok {
		return errNoRegion
	}
	delete(m.procs[src], c.Region)
	m.local[src].Forget(c.Region)
	return nil
}

// doWriteLine performs CmdWriteLine: the rest of the message into the
// line's shared part or extension, then Head and the signal word into its
// half.
func (m *memNet) doWriteLine(src int, c *Command) error {
	owner := src
	if c.Size == LineInPeer {
		owner = c.Peer
	}
	half, err := m.region(owner, c.Region, c.Off, LineHalf)
	if err != nil {
		return err
	}
	span, err := m.region(owner, c.Region, 0, int(layout.LineEnd(c.Off)))
	if err != nil {
		return err
	}
	shared, ext := layout.LineExt(span, c.Off)
	at := c.SigOff - c.Off
	if c.HeadLen%8 != 0 || uint64(c.HeadLen) > at || at > LineHalf-8 || len(c.Data) > layout.LineExtBody {
		return errBadCommand
	}
	if layout.LineRestShared(len(c.Data)) {
		copy(shared, c.Data)
	} else {
		copy(ext, c.Data)
	}
	copy(half, c.Head[:c.HeadLen])
	atomic.StoreUint64(word(half, at), c.Signal)
	m.local[src].Wrote(c.Peer, lineWrite(c))
	return nil
}

// doWatchLine performs CmdWatchLine, in src's memory or, for LineInPeer,
// the peer's.
func (m *memNet) doWatchLine(src int, c *Command) error {
	var mem []byte
	if c.Size == LineInPeer {
		if c.Peer < 0 || c.Peer >= len(m.procs) {
			return errBadPeer
		}
		var ok bool
		if mem, ok = m.procs[c.Peer][c.Region]; !ok {
			return errNoRegion
		}
	}
	return m.local[src].WatchLine(c, mem)
}

// allocQueue makes the receive queue of process src, of size bytes, and
// has its local memory read it.
func (m *memNet) allocQueue(src, size int) (uint64, []byte, error) {
	space := size - QueueHeader
	if space <= 0 || space&(space-1) != 0 || space%QueueAlign != 0 || m.queues[src] != nil {
		return 0, nil, errBadCommand
	}
	mem := make([]byte, size)
	r := m.register(src, mem)
	q := &memQueue{region: r, mem: mem, size: uint64(space)}
	if err := m.local[src].WatchQueue(mem, len(m.procs), func(off uint64) error { return m.release(q, off) }); err != nil {
		return 0, nil, err
	}
	m.queues[src] = q
	return uint64(r), mem, nil
}

// release frees q up to off, as the owner consumed it.
func (m *memNet) release(q *memQueue, off uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if off < q.released || off > atomic.LoadUint64(word(q.mem, 0)) {
		return errOutOfRange
	}
	q.released = off
	return nil
}

// enqueue appends the record of c, from process src, to the queue of
// c.Peer, as ir.go lays it out: header, Head, Data, padding; a wrap marker
// first when it does not fit before the end; produced last.
func (m *memNet) enqueue(src int, c *Command) error {
	if c.Peer < 0 || c.Peer >= len(m.procs) {
		return errBadPeer
	}
	n := int(c.HeadLen) + len(c.Data)
	if c.Token == 0 || n > MaxQueueRecord || int(c.HeadLen) > MaxHead {
		return errBadCommand
	}
	q := m.queues[c.Peer]
	if q == nil {
		return errNoQueue
	}
	pw := word(q.mem, 0)
	produced := atomic.LoadUint64(pw)
	span := QueueSpan(n)
	pos := produced & (q.size - 1)
	skip := uint64(0)
	if pos+span > q.size {
		skip = q.size - pos
	}
	if span+skip > q.size-(produced-q.released) {
		return errFull
	}
	data := q.mem[QueueHeader:]
	if skip > 0 {
		binary.LittleEndian.PutUint32(data[pos:], QueueWrap)
		pos = 0
	}
	rec := data[pos : pos+span]
	binary.LittleEndian.PutUint32(rec[0:], uint32(n))
	binary.LittleEndian.PutUint32(rec[4:], uint32(src))
	copy(rec[QueueRecordHeader+copy(rec[QueueRecordHeader:], c.Head[:c.HeadLen]):], c.Data)
	clear(rec[QueueRecordHeader+n:]) // padding
	atomic.StoreUint64(pw, produced+skip+span)
	return nil
}

// regions returns how many regions process p has registered.
func (m *memNet) regions(p int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.procs[p])
}

// testConfig returns the default configuration of process i of n on net.
func testConfig(net *memNet, i, n int) Config {
	return Config{
		Self: i, Size: n, Boot: net.boot,
		EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 30, Rendezvous: RndvPull,
		PackedRecords: testPacked,
	}
}

// testPacked is the PackedRecords of testConfig: the martini network's.
const testPacked = 256

// traced is a command as issued, with its issuer.
type traced struct {
	src int
	Command
}

func (c traced) String() string {
	s := fmt.Sprintf("%d:%v->%d r%d off=%d len=%d", c.src, c.Kind, c.Peer, c.Region, c.Off, len(c.Data))
	if c.Kind == CmdWrite {
		s += fmt.Sprintf(" head=%d sig=%#x@%d", c.HeadLen, c.Signal, c.SigOff)
		if k := c.recKind(); k != 0 {
			s += fmt.Sprintf(" rec=%d", k)
		}
	}
	return s
}

// recKind returns the ring record kind a write carries, or 0.
func (c traced) recKind() uint8 {
	if c.Kind != CmdWrite || c.HeadLen < 24 {
		return 0
	}
	return c.Head[0]
}

// cluster drives n engines over a memNet from one goroutine.
type cluster struct {
	t   testing.TB
	net *memNet
	eng []*Engine

	// tracing records every issued command in trace.
	tracing bool
	trace   []traced
	// hook, when set, may answer a command instead of the network: it
	// returns the event to deliver and true.
	hook func(src int, c Command) (Event, bool)
	// work[i] is the host work engine i reported in its batches.
	work []WorkCounts
	// notes[i] are the notifications engine i's batches carried, not yet
	// taken by nextNote.
	notes [][]Notification
	// hold[i]: the commands of engine i are kept in held[i] instead of
	// being issued, for scripted delivery.
	hold []bool
	held [][]Command
	// paused[i]: run and round do not poll engine i.
	paused []bool
	// maxRounds bounds run.
	maxRounds int
}

func newCluster(t testing.TB, n int, mod func(i int, c *Config)) *cluster {
	t.Helper()
	return newClusterOn(t, newMemNet(n), mod)
}

// newClusterOn is newCluster on a network made by the caller.
func newClusterOn(t testing.TB, net *memNet, mod func(i int, c *Config)) *cluster {
	t.Helper()
	n := len(net.procs)
	c := &cluster{t: t, net: net, hold: make([]bool, n), held: make([][]Command, n), work: make([]WorkCounts, n),
		notes:  make([][]Notification, n),
		paused: make([]bool, n), maxRounds: 20000}
	for i := range n {
		cfg := testConfig(net, i, n)
		if mod != nil {
			mod(i, &cfg)
		}
		e, err := NewEngine(cfg)
		if err != nil {
			t.Fatalf("NewEngine(%d): %v", i, err)
		}
		c.eng = append(c.eng, e)
	}
	// Issue the start-up commands (EagerPM connections, EagerQueue
	// queues), so that every queue exists before anyone enqueues.
	for i := range n {
		c.drain(i)
	}
	return c
}

// issue executes one command of engine i (or holds it) and steps the
// event.
func (c *cluster) issue(i int, cmd *Command) {
	if c.hold[i] {
		c.held[i] = append(c.held[i], *cmd)
		return
	}
	if c.tracing {
		c.trace = append(c.trace, traced{i, *cmd})
	}
	var ev Event
	ok := false
	if c.hook != nil {
		ev, ok = c.hook(i, *cmd)
	}
	if !ok {
		ev = c.net.exec(i, cmd)
	}
	c.eng[i].Step(&ev)
}

// drain issues every queued command of engine i and reports whether there
// was any.
func (c *cluster) drain(i int) bool {
	e := c.eng[i]
	for any := false; ; any = true {
		rd := e.Ready()
		for k, n := range rd.Work {
			c.work[i][k] += n
		}
		c.notes[i] = append(c.notes[i], rd.Notes...)
		if len(rd.Commands) == 0 {
			e.Advance()
			return any
		}
		for k := range rd.Commands {
			c.issue(i, &rd.Commands[k])
		}
		e.Advance()
	}
}

// nextNote takes the oldest notification that engine i's batches carried.
func (c *cluster) nextNote(i int) (Notification, bool) {
	if len(c.notes[i]) == 0 {
		return Notification{}, false
	}
	n := c.notes[i][0]
	c.notes[i] = c.notes[i][1:]
	return n, true
}

// poll delivers what arrived for engine i, polls it and issues its
// commands.
func (c *cluster) poll(i int) bool {
	p := c.net.poll(i, c.eng[i])
	if c.eng[i].Poll() {
		p = true
	}
	if c.drain(i) {
		p = true
	}
	return p
}

// round drains and polls every engine that is not paused, in order.
func (c *cluster) round() bool {
	p := false
	for i := range c.eng {
		if c.drain(i) {
			p = true
		}
		if !c.paused[i] && c.poll(i) {
			p = true
		}
	}
	return p
}

// run does rounds until cond holds, failing the test after maxRounds.
func (c *cluster) run(what string, cond func() bool) {
	c.t.Helper()
	for r := 0; r < c.maxRounds; r++ {
		if cond() {
			return
		}
		c.round()
	}
	if !cond() {
		c.t.Fatalf("%s: not reached after %d rounds (engine errors: %v)", what, c.maxRounds, c.errs())
	}
}

// rounds does n rounds.
func (c *cluster) rounds(n int) {
	for range n {
		c.round()
	}
}

func (c *cluster) errs() []error {
	var errs []error
	for _, e := range c.eng {
		errs = append(errs, e.State().Err)
	}
	return errs
}

// noErrs fails the test if an engine has failed.
func (c *cluster) noErrs() {
	c.t.Helper()
	for i, e := range c.eng {
		if e.State().Err != nil {
			c.t.Fatalf("engine %d failed: %v", i, e.State().Err)
		}
	}
}

// idle runs until every engine is idle.
func (c *cluster) idle() {
	c.t.Helper()
	c.run("all engines idle", func() bool {
		for _, e := range c.eng {
			if !e.State().Idle {
				return false
			}
		}
		return true
	})
}

// take returns and forgets the commands held for engine i.
func (c *cluster) take(i int) []Command {
	h := c.held[i]
	c.held[i] = nil
	return h
}

// deliver executes a held command of engine i now and steps its event.
func (c *cluster) deliver(i int, cmd Command) {
	if c.tracing {
		c.trace = append(c.trace, traced{i, cmd})
	}
	ev := c.net.exec(i, &cmd)
	c.eng[i].Step(&ev)
}

// failHeld delivers a failure of a held command of engine i.
func (c *cluster) failHeld(i int, cmd Command, err error) {
	c.eng[i].Step(&Event{Kind: EvError, Token: cmd.Token, Err: err})
}

// send starts a send on engine i and issues its commands.
func (c *cluster) send(i, dst int, tag int32, ctx uint32, data []byte) *SendOp {
	op := &SendOp{Peer: dst, Tag: tag, Ctx: ctx, Data: data}
	c.eng[i].Submit(op)
	c.drain(i)
	return op
}

// recv posts a receive on engine i and issues its commands.
func (c *cluster) recv(i, src int, tag int32, ctx uint32, n int) *RecvOp {
	op := &RecvOp{Source: src, Tag: tag, Ctx: ctx, Buf: make([]byte, n)}
	c.eng[i].Submit(op)
	c.drain(i)
	return op
}

// wait runs until every op is done.
func (c *cluster) wait(ops ...Completion) {
	c.t.Helper()
	c.run("operations done", func() bool {
		for _, op := range ops {
			if !op.Done() {
				return false
			}
		}
		return true
	})
}

// connect establishes the connection src -> dst with a 0-byte message.
func (c *cluster) connect(src, dst int) {
	c.t.Helper()
	const tag = 1<<31 - 1
	s := c.send(src, dst, tag, 99, nil)
	r := c.recv(dst, src, tag, 99, 0)
	c.wait(s, r)
	if s.Err() != nil || r.Err() != nil {
		c.t.Fatalf("connect %d->%d: %v, %v", src, dst, s.Err(), r.Err())
	}
}

// pattern returns n deterministic bytes for message seed.
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

// checkRecv fails the test unless op completed without error with
// status (src, tag, len(want)) and data want.
func checkRecv(t testing.TB, what string, op *RecvOp, src int, tag int32, want []byte) {
	t.Helper()
	switch {
	case !op.Done():
		t.Fatalf("%s: receive not done", what)
	case op.Err() != nil:
		t.Fatalf("%s: receive error: %v", what, op.Err())
	case op.Status.Source != src || op.Status.Tag != tag || op.Status.Len != len(want):
		t.Fatalf("%s: status %+v, want source %d tag %d len %d", what, op.Status, src, tag, len(want))
	case !bytes.Equal(op.Buf[:len(want)], want):
		t.Fatalf("%s: payload differs", what)
	}
}

func checkSent(t testing.TB, what string, op *SendOp) {
	t.Helper()
	if !op.Done() || op.Err() != nil {
		t.Fatalf("%s: send done=%v err=%v", what, op.Done(), op.Err())
	}
}

// memTransport is a Transport over a memNet for an Endpoint.
type memTransport struct {
	net  *memNet
	self int
	ev   Event // Execute's event, refilled
}

func (m *memTransport) Caps() Caps { return Caps{Name: "memnet", LoadStore: true, Async: m.net.late} }
func (m *memTransport) Execute(c *Command) *Event {
	return Report(&m.ev, m.net.exec(m.self, c))
}
func (m *memTransport) Poll(sink Sink) bool { return m.net.poll(m.self, sink) }
func (m *memTransport) Arm() uint32         { return 0 }
func (m *memTransport) Sleep(uint32)        { time.Sleep(20 * time.Microsecond) }
func (m *memTransport) Disarm()             {}

// The test network itself: commands act on registered memory, and bad
// accesses fail with an event carrying the command's token.
func TestMemNet(t *testing.T) {
	m := newMemNet(2)
	mem := make([]byte, 128)
	r := m.register(1, mem)
	exec := func(c Command) Event { return m.exec(0, &c) }
	wr := Command{Kind: CmdWrite, Peer: 1, Region: r, Off: 8, HeadLen: 2, Data: []byte{3, 4}, Signal: 0x55, SigOff: 16, Token: 7}
	wr.Head[0], wr.Head[1] = 1, 2
	if ev := exec(wr); ev.Kind != EvDone || ev.Token != 7 {
		t.Fatalf("write: %+v", ev)
	}
	if !bytes.Equal(mem[8:12], []byte{1, 2, 3, 4}) || *word(mem, 16) != 0x55 {
		t.Fatalf("write landed as %v", mem[:24])
	}
	buf := make([]byte, 4)
	if ev := exec(Command{Kind: CmdRead, Peer: 1, Region: r, Off: 8, Data: buf}); ev.Kind != EvNone || !bytes.Equal(buf, mem[8:12]) {
		t.Fatalf("read: %+v %v", ev, buf)
	}
	if ev := exec(Command{Kind: CmdCAS, Peer: 1, Region: r, Off: 16, Old: 1, New: 2, Token: 1}); ev.Value != 0x55 || *word(mem, 16) != 0x55 {
		t.Fatalf("failed CAS: %+v", ev)
	}
	if ev := exec(Command{Kind: CmdCAS, Peer: 1, Region: r, Off: 16, Old: 0x55, New: 2, Token: 1}); ev.Value != 0x55 || *word(mem, 16) != 2 {
		t.Fatalf("CAS: %+v", ev)
	}
	ev := exec(Command{Kind: CmdAlloc, Size: 256, Token: 2})
	if ev.Kind != EvDone || len(ev.Mem) != 256 || ev.Value == 0 {
		t.Fatalf("alloc: %+v", ev)
	}
	if ev := exec(Command{Kind: CmdRelease, Region: RegionID(ev.Value)}); ev.Kind != EvNone {
		t.Fatalf("release: %+v", ev)
	}
	for _, c := range []Command{
		{Kind: CmdWrite, Peer: 1, Region: r, Off: 120, Data: make([]byte, 9)},
		{Kind: CmdWrite, Peer: 1, Region: r, Off: 1 << 62, Data: make([]byte, 1)},
		{Kind: CmdWrite, Peer: 1, Region: r, Signal: 1, SigOff: 124},
		{Kind: CmdWrite, Peer: 1, Region: r, Signal: 1, SigOff: 4},
		{Kind: CmdWrite, Peer: 2, Region: r},
		{Kind: CmdWrite, Peer: -1, Region: r},
		{Kind: CmdWrite, Peer: 0, Region: r},
		{Kind: CmdRead, Peer: 1, Region: r, Off: 100, Data: make([]byte, 29)},
		{Kind: CmdRead, Peer: 1, Region: r + 1, Data: make([]byte, 1)},
		{Kind: CmdCAS, Peer: 1, Region: r, Off: 124},
		{Kind: CmdCAS, Peer: 1, Region: r, Off: 4},
		{Kind: CmdRelease, Region: r}, // not process 0's
		{Kind: CmdAlloc},
		{Kind: 0},
	} {
		c.Token = 99
		if ev := exec(c); ev.Kind != EvError || ev.Token != 99 || ev.Err == nil {
			t.Errorf("%v: %+v, want an error", traced{0, c}, ev)
		}
	}
	// Without a token, a failure is still reported.
	if ev := exec(Command{Kind: CmdRead, Peer: 1, Region: r + 5}); ev.Kind != EvError || ev.Token != 0 {
		t.Fatalf("token-less failure: %+v", ev)
	}
}

// keyedMsg is a message of the ordering tests, received by its key (tag,
// ctx).
type keyedMsg struct {
	tag  int32
	ctx  uint32
	data []byte
}

// sendKeyed sends nmsg messages of varied sizes, a rendezvous now and then,
// from process 0 to process 1 under six keys, and returns them, their sends
// and their total size.
func (c *cluster) sendKeyed(nmsg int) (msgs []keyedMsg, sends []*SendOp, total int) {
	for i := range nmsg {
		size := (i * 37) % 1001
		if i%50 == 49 {
			size = 3000 + i
		}
		m := keyedMsg{tag: int32(i % 3), ctx: uint32(i % 2), data: pattern(i, size)}
		msgs = append(msgs, m)
		total += size
		sends = append(sends, c.send(0, 1, m.tag, m.ctx, m.data))
	}
	return msgs, sends, total
}

// receiveByKey posts process 1's receives key by key, keys in reverse
// order, so that receives are posted in an order different from the sends
// and some find their message unexpected, some wait for it; then it waits
// for every send and receive and checks them.
func (c *cluster) receiveByKey(t *testing.T, msgs []keyedMsg, sends []*SendOp) {
	t.Helper()
	recvs := make([]*RecvOp, len(msgs))
	for key := 5; key >= 0; key-- {
		tag, ctx := int32(key%3), uint32(key/3)
		for i, m := range msgs {
			if m.tag == tag && m.ctx == ctx {
				recvs[i] = c.recv(1, 0, tag, ctx, len(m.data))
			}
		}
		c.rounds(5)
	}
	var all []Completion
	for i := range msgs {
		all = append(all, sends[i], recvs[i])
	}
	c.wait(all...)
	for i, m := range msgs {
		checkSent(t, fmt.Sprint("send ", i), sends[i])
		checkRecv(t, fmt.Sprint("message ", i), recvs[i], 0, m.tag, m.data)
	}
}

// sendRecv sends data from process 0 to process 1 under tag 2 and receives
// it into a buffer of bufLen bytes, the receive posted before the send
// (posted) or after the message arrived; it waits for both.
func (c *cluster) sendRecv(data []byte, bufLen int, posted bool) (*SendOp, *RecvOp) {
	var r *RecvOp
	if posted {
		r = c.recv(1, 0, 2, 0, bufLen)
	}
	s := c.send(0, 1, 2, 0, data)
	if !posted {
		c.run("arrival", func() bool { _, ok := probeOn(c.eng[1], 0, 2, 0); return ok })
		r = c.recv(1, 0, 2, 0, bufLen)
	}
	c.wait(s, r)
	return s, r
}

// lineWrite is what the line's write c is for LocalReceiver.Wrote: a
// record (1, or 2 where its rest took the writer's own extension lines),
// which writes the half's head, or an acknowledgement alone (3).
func lineWrite(c *Command) uint8 {
	switch {
	case c.HeadLen == 0:
		return 3
	case len(c.Data) > layout.LineExtShared: // !layout.LineRestShared
		return 2
	}
	return 1
}
