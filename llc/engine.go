package llc

import (
	"github.com/rhinet-go/martini/llc/layout"

	"errors"
	"fmt"
	"slices"
)

// Wildcards for receives and probes.
const (
	AnySource = -1
	AnyTag    = -1
)

// RndvMode selects the rendezvous variant used for messages above the
// eager limit.
type RndvMode uint8

// Rendezvous variants.
const (
	// RndvPull: the receiver reads the sender's registered buffer (RDMA
	// read, after Sur et al.), then tells the sender it is done.
	RndvPull RndvMode = iota
	// RndvPush: the receiver registers its buffer and grants it; the sender
	// writes into it (RDMA write), then tells the receiver it is done.
	RndvPush
	// RndvSplit: both: the receiver reads the first half of a large
	// message while the sender writes the second half, so that both
	// processes copy at once.
	RndvSplit
)

func (m RndvMode) String() string {
	switch m {
	case RndvPush:
		return "push"
	case RndvSplit:
		return "split"
	}
	return "pull"
}

// Config parameterises an Engine.
type Config struct {
	Self, Size int
	// Boot is the bootstrap region of every process, as published in the
	// management data store: BootSize(Size) bytes of zeroed memory that
	// peers can write (CmdAlloc; see AllocBoot). Boot[Self] is this
	// process's own; EagerQueue does not use them.
	Boot []RegionID
	// EagerLimit is the largest message sent eagerly, through the rings
	// or the receive queue (see Eager).
	EagerLimit int
	// EagerHintLimit, in EagerRings mode, is the largest message a send
	// marked Eager sends eagerly to a ring peer; 0 or less than EagerLimit:
	// EagerLimit. At most MaxEagerLimit(RingSize).
	EagerHintLimit int
	// RingSize is the record space of each ring this process grants, a
	// power of two.
	RingSize int
	// RingCap bounds the ring memory this process grants in total; rings
	// are granted first come, first served.
	RingCap int
	// PackedRecords, in the ring modes, is the size of the largest ring
	// record written as one write whose last word lands last (the signal
	// word ends the record): Caps.PackedRecords, where the network carries
	// writes of that size as one packet or, as PM/RHiNET's pmSend, as
	// packets in order. Longer records are written in two parts (see
	// package llc/layout); 0: every record of more than one cell. At most
	// MaxPackedRecords.
	PackedRecords int
	// Rendezvous selects the rendezvous variant for large messages.
	Rendezvous RndvMode
	// ExchangePush is the smallest pull or split rendezvous message a
	// receiver that is itself sending to the sender takes by push (see
	// Exchange in rndv.go); 0: never.
	ExchangePush int
	// Eager selects how eager messages and control records travel; the
	// zero value is EagerRings. RingSize and RingCap apply to EagerRings
	// and EagerPM, QueueSize to EagerQueue.
	Eager EagerMode
	// QueueSize is the record space of this process's receive queue in
	// EagerQueue mode, a power of two of at least
	// MinQueueSize(EagerLimit).
	QueueSize int
	// MaxRecord is the largest record the transport's receive queue
	// carries (Caps.MaxRecord); 0 means MaxQueueRecord.
	MaxRecord int
	// QueuePeers, in EagerRings and EagerPM mode, marks the processes
	// reached through this process's receive queue instead of rings (a
	// network that carries records itself, as TCP's streams do): records
	// from and to them travel as in EagerQueue mode. nil: none.
	QueuePeers []bool
	// SharedLines, in EagerRings mode, carries the small records of each
	// pair of processes through the pair's shared line (line.go) when it
	// is free: a network that shares memory with load and store
	// (Caps.SharedLines). Not with QueuePeers.
	SharedLines bool
}

// Counters are the engine's per-protocol statistics.
type Counters struct {
	EagerSent, EagerRecv    uint64 // eager messages
	RndvSent, RndvRecv      uint64 // rendezvous messages
	Withdrawn               uint64 // rendezvous sends withdrawn after their RTS left (CancelOp.Withdraw)
	BytesSent, BytesRecv    uint64 // message payload bytes
	Unexpected              uint64 // messages that arrived before their receive
	Truncated               uint64 // receives whose buffer was too small
	ControlSent             uint64 // RTS, CTS and FIN records
	Connections             uint64 // connections this process initiated
	ConnectRetries          uint64 // lost compare-and-swap on a common command slot
	RingsGranted, RingBytes uint64 // rings allocated for senders, and their memory
	RingFull, TailReads     uint64 // sends that found a ring full; consumer-count reads
	CommandsIssued          uint64 // IR commands emitted
	// QueueFull counts the enqueues (EagerQueue) that the receiver's
	// queue refused for lack of room; every retry that is refused again
	// counts too.
	QueueFull uint64
	// One-sided operations (RMA): puts, gets, and compare-and-swap or
	// fetch-and-add atomics issued, the bytes the puts and gets moved,
	// and the reads that settled writes at a flush.
	RMAPuts, RMAGets, RMAAtomics uint64
	RMABytes, RMASettles         uint64
	// LineSent counts the records written into the pairs' shared lines
	// (Config.SharedLines), LineAcks the acknowledgements written there
	// without a record.
	LineSent, LineAcks uint64
}

// Errors reported by the engine.
var (
	// ErrTruncated is matched (errors.Is) by a receive whose buffer was too
	// small; the error text gives both sizes.
	ErrTruncated = errors.New("message truncated")
	// ErrNoRing means the peer had no ring memory left for this process.
	ErrNoRing = errors.New("peer has no ring memory left")
)

// Engine is the network-independent protocol engine: connection, ring
// buffer allocation, eager and rendezvous send-receive with MPI matching.
// User operations come in through Submit, everything the network says
// through Step (and the engine's own retries through Poll); what it asks
// of the network goes out as batches of IR commands (Ready), which the
// driver issues and acknowledges (Advance). It never calls a network. An
// Engine is not safe for concurrent use.
type Engine struct {
	cfg   Config
	sched schedQueue
	peers []peer

	rings   int // rings granted to senders and watched
	granted int // ring memory granted so far

	pm        bool       // EagerPM: aligned records, start-up connections, host work
	pmPending int        // EagerPM: connections initiated at start and not settled
	work      WorkCounts // EagerPM, EagerQueue: host work not reported yet (Ready)
	// countsWork: host work is reported in the batches (EagerPM,
	// EagerQueue). batchLimit bounds the commands of a batch: one where
	// host work is reported, so that the work reported with each command
	// is the work done before it.
	countsWork bool
	batchLimit int
	ready      Ready        // the batch Ready hands out
	readyWork  WorkCounts   // the work the last Ready reported
	unrecv     []Unreceived // State's, reused

	parts  []partial // messages in several queue records begun, by sender (parts.go)
	posted recvQueue
	unexp  unexpQueue
	pool   bufPool
	events eventQueue

	rndvSends map[uint64]*SendOp
	rndvRecvs map[uint64]*RecvOp
	syncSends map[uint64]*SendOp // synchronous eager sends waiting for their acknowledgement
	rma       rmaState
	nextID    uint64

	blocked int // peers with queued records
	err     error
	// notice: the next batch has something to report besides commands,
	// a failure or host work (HasReady).
	notice bool
	stats  Counters
}

// NewEngine checks cfg and returns an engine for it.
func NewEngine(cfg Config) (*Engine, error) {
	switch {
	case cfg.Size < 1 || cfg.Self < 0 || cfg.Self >= cfg.Size:
		return nil, fmt.Errorf("llc: process %d of %d", cfg.Self, cfg.Size)
	case len(cfg.Boot) != cfg.Size && cfg.Eager != EagerQueue:
		return nil, fmt.Errorf("llc: %d bootstrap regions for %d processes", len(cfg.Boot), cfg.Size)
	case cfg.MaxRecord < 0:
		return nil, fmt.Errorf("llc: largest queue record %d bytes", cfg.MaxRecord)
	case cfg.QueuePeers != nil && len(cfg.QueuePeers) != cfg.Size:
		return nil, fmt.Errorf("llc: queue peers given for %d processes of %d", len(cfg.QueuePeers), cfg.Size)
	case cfg.Rendezvous > RndvSplit:
		return nil, fmt.Errorf("llc: unknown rendezvous mode %d", cfg.Rendezvous)
	case cfg.SharedLines && (cfg.Eager != EagerRings || slices.Contains(cfg.QueuePeers, true)):
		return nil, fmt.Errorf("llc: shared lines need the rings of every peer (eager mode %v)", cfg.Eager)
	}
	if cfg.MaxRecord == 0 {
		cfg.MaxRecord = MaxQueueRecord
	}
	var err error
	switch cfg.Eager {
	case EagerRings:
		err = checkRings(&cfg)
	case EagerPM:
		if err = checkRings(&cfg); err == nil {
			err = checkPM(&cfg)
		}
	case EagerQueue:
		err = checkQueue(&cfg)
	default:
		err = fmt.Errorf("llc: unknown eager mode %d", cfg.Eager)
	}
	if err == nil && cfg.Eager != EagerQueue && slices.Contains(cfg.QueuePeers, true) {
		err = checkQueue(&cfg) // the queue of the QueuePeers
	}
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:       cfg,
		peers:     make([]peer, cfg.Size),
		rndvSends: make(map[uint64]*SendOp),
		rndvRecvs: make(map[uint64]*RecvOp),
		syncSends: make(map[uint64]*SendOp),
		pm:        cfg.Eager == EagerPM,
	}
	e.sched.init(64)
	e.batchLimit = 1 << 30
	if e.countsWork = cfg.Eager != EagerRings; e.countsWork {
		e.batchLimit = 1
	}
	switch cfg.Eager {
	case EagerRings:
		e.watchRequests()
		e.startQueue(e.queuePeer)
	case EagerPM:
		e.watchRequests()
		e.startQueue(e.queuePeer)
		e.startPM()
	case EagerQueue:
		e.startQueue(func(int) bool { return true })
	}
	return e, nil
}

// checkRings checks the ring configuration of EagerRings and EagerPM.
func checkRings(cfg *Config) error {
	switch {
	case cfg.RingSize < 4*cell || cfg.RingSize&(cfg.RingSize-1) != 0:
		return fmt.Errorf("llc: ring size %d must be a power of two and at least %d", cfg.RingSize, 4*cell)
	case cfg.EagerLimit < 0 || layout.RecordSize(cfg.EagerLimit) > uint64(cfg.RingSize)/2:
		return fmt.Errorf("llc: eager limit %d too large for rings of %d bytes (at most %d)",
			cfg.EagerLimit, cfg.RingSize, MaxEagerLimit(cfg.RingSize))
	case cfg.EagerHintLimit > MaxEagerLimit(cfg.RingSize):
		return fmt.Errorf("llc: eager hint limit %d too large for rings of %d bytes (at most %d)",
			cfg.EagerHintLimit, cfg.RingSize, MaxEagerLimit(cfg.RingSize))
	case cfg.PackedRecords < 0 || cfg.PackedRecords > MaxPackedRecords:
		return fmt.Errorf("llc: packed records of up to %d bytes: want 0 to %d", cfg.PackedRecords, MaxPackedRecords)
	}
	return nil
}

// MaxPackedRecords is the largest Config.PackedRecords: a packed record
// counts its cells in 16 bits.
const MaxPackedRecords = 1 << 20

// MaxEagerLimit returns the largest eager limit rings of ringSize allow,
// in EagerRings mode and, for rings of at least 2*PMAlign bytes, in
// EagerPM mode.
func MaxEagerLimit(ringSize int) int { return ringSize/2 - cell }

// RingOverhead is the memory a ring takes beyond its record space: its
// control line and the pair's shared line.
const RingOverhead = ringCtl

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

func (e *Engine) emit(c *Command) {
	e.stats.CommandsIssued++
	e.sched.push(c)
}

// fail stops the engine: every pending operation completes with err.
func (e *Engine) fail(err error) {
	if e.err != nil {
		return
	}
	e.err, e.notice = err, true
	for op := e.posted.head; op != nil; op = op.next {
		op.finish(err)
	}
	e.posted = recvQueue{}
	for _, op := range e.rndvRecvs {
		op.finish(err)
	}
	for _, op := range e.rndvSends {
		op.finish(err)
	}
	for _, op := range e.syncSends {
		op.finish(err)
	}
	// Forget them, so that a late completion or record cannot complete
	// them again.
	clear(e.rndvRecvs)
	clear(e.rndvSends)
	clear(e.syncSends)
	e.failRMA(err)
	for i := range e.peers {
		e.peers[i].failQueued(err)
	}
	e.blocked = 0
}

// Step delivers an IR event to the engine: an arrival (a record, a
// signalled slot) or the completion of a command. *ev is read during the
// call only.
func (e *Engine) Step(ev *Event) {
	if ev.Kind != EvRecord {
		e.step(ev)
		return
	}
	// A record, the path of every message: delivered here, without a
	// call more.
	src, head, body := ev.Peer, ev.Head, ev.Data
	if e.err != nil {
		return
	}
	if len(head) < recMeta || src < 0 || src >= e.cfg.Size {
		e.fail(fmt.Errorf("llc: corrupt record: %d bytes of meta from process %d", len(head), src))
		return
	}
	var m meta
	m.get(head)
	if e.cfg.Eager != EagerRings {
		e.addWork(WorkRecv, 1)
	}
	if m.flags&flagLine != 0 {
		if m.kind == recLineAck {
			e.peers[src].line.acked = uint32(m.aux)
			return
		}
		e.lineArrived(src, uint32(m.aux))
		m.flags &^= flagLine
		m.aux = 0
	}
	if m.kind == recPart || m.flags&flagParts != 0 {
		e.assemble(src, &m, body) // a message in several queue records
		return
	}
	if int(m.length) != len(body) {
		e.fail(fmt.Errorf("llc: corrupt record from process %d: body of %d bytes, its meta says %d", src, len(body), m.length))
		return
	}
	e.dispatch(src, &m, body)
}

// step is Step of an event other than a record.
func (e *Engine) step(ev *Event) {
	if ev.Kind == EvNone || e.err != nil {
		return // nothing to report, or stopped: every operation is complete
	}
	kind, id := splitToken(ev.Token)
	if ev.Kind == EvError && kind == tokNone {
		e.fail(fmt.Errorf("llc: network command failed: %w", ev.Err))
		return
	}
	switch kind {
	case tokConnCAS:
		e.onConnCAS(int(id), *ev)
	case tokConnReq:
		e.onConnRequest(*ev)
	case tokConnReply:
		e.onConnReply(int(id), *ev)
	case tokRingAlloc:
		e.onRingAlloc(int(id), *ev)
	case tokTail:
		e.onTail(int(id), *ev)
	case tokRegSend:
		e.onRegSend(id, *ev)
	case tokRegRecv:
		e.onRegRecv(id, *ev)
	case tokPullDone:
		e.onPullDone(id, *ev)
	case tokPushDone:
		e.onPushDone(id, *ev)
	case tokQueueAlloc:
		e.onQueueAlloc(*ev)
	case tokEnqueue:
		e.onEnqueue(int(id), *ev)
	case tokRMA:
		e.onRMA(id, *ev)
	case tokExpose:
		e.onExpose(id, *ev)
	default:
		e.fail(fmt.Errorf("llc: event %d of unknown token %#x", ev.Kind, ev.Token))
	}
}

// Poll does the engine's own share of progress: it retries sends that were
// waiting for a connection or for ring or queue space, and (EagerPM)
// connections whose slot another process held. Arrivals come through
// Step. It reports whether anything happened.
func (e *Engine) Poll() bool {
	if e.blocked == 0 && !e.countsWork {
		return false // nothing to retry: the path of every poll of a wait
	}
	return e.poll()
}

// poll is Poll with something to retry, or host work to count.
func (e *Engine) poll() bool {
	if e.err != nil {
		return false
	}
	switch e.cfg.Eager {
	case EagerPM:
		e.pollPM()
	case EagerQueue:
		e.addWork(WorkPoll, 1)
	}
	progressed := false
	if e.blocked > 0 {
		for p := range e.peers {
			if e.peers[p].queued() {
				if e.trySend(p) {
					progressed = true
				}
			}
		}
	}
	return progressed
}

// dispatch processes one record from src, of any eager transport: its meta
// m and its body.
func (e *Engine) dispatch(src int, m *meta, body []byte) {
	switch m.kind {
	case recEager:
		e.stats.EagerRecv++
		payload := body
		e.stats.BytesRecv += uint64(len(payload))
		if op := e.posted.match(src, m.tag, m.ctx); op != nil {
			op.deliver(src, m.tag, payload)
			e.countTrunc(op)
			e.ackSync(src, syncID(m))
			return
		}
		e.stats.Unexpected++
		u := e.unexp.alloc()
		*u = unexpected{src: src, tag: m.tag, ctx: m.ctx, length: len(payload), data: e.pool.get(len(payload)), syncID: syncID(m)}
		copy(u.data, payload)
		e.unexp.push(u)
	case recRTS:
		var r rts
		if err := r.get(body); err != nil {
			e.fail(fmt.Errorf("llc: corrupt record from process %d: %w", src, err))
			return
		}
		r.sendID = m.aux
		if op := e.posted.match(src, m.tag, m.ctx); op != nil {
			e.rndvRecvStart(op, src, m.tag, &r)
			return
		}
		e.stats.Unexpected++
		u := e.unexp.alloc()
		*u = unexpected{src: src, tag: m.tag, ctx: m.ctx, length: int(r.length), rndv: true, rts: r}
		e.unexp.push(u)
	case recUnsolicited:
		e.onUnsolicited(src, m.tag, body)
	case recCTS:
		e.onCTS(src, m.aux, body)
	case recFIN:
		e.onFIN(m.aux)
	case recPUT:
		e.onPUT(src, m.aux, body)
	case recSyncAck:
		e.onSyncAck(src, m.aux)
	case recWithdraw:
		e.onWithdraw(src, m.aux)
	case recWithdrawn:
		e.onWithdrawn(src, m.aux)
	default:
		e.fail(fmt.Errorf("llc: corrupt record of kind %d from process %d", m.kind, src))
	}
}

func (e *Engine) countTrunc(op *RecvOp) {
	if op.err != nil && errors.Is(op.err, ErrTruncated) {
		e.stats.Truncated++
	}
}

// send starts op. An eager send completes before send returns whenever the
// connection exists and the ring has room; otherwise op completes during a
// later Poll or Step.
func (e *Engine) send(op *SendOp, unsolicited bool) {
	op.done, op.err, op.region, op.id, op.unsolicited, op.events, op.cancelled = false, nil, 0, 0, unsolicited, nil, false
	op.withdrawn = false
	if op.Notify {
		op.events = &e.events
	}
	if e.err != nil {
		op.finish(e.err)
		return
	}
	if op.Peer < 0 || op.Peer >= e.cfg.Size {
		op.finish(fmt.Errorf("llc: send to process %d: only %d processes", op.Peer, e.cfg.Size))
		return
	}
	if unsolicited && len(op.Data) > e.cfg.EagerLimit {
		op.finish(e.unsolicitedTooLarge(op))
		return
	}
	p := &e.peers[op.Peer]
	if e.sendsEager(op, unsolicited) {
		if op.awaitsAck() {
			e.startSync(op)
		}
		if p.conn == connUp && !p.queued() && e.writeEager(op.Peer, op) {
			return
		}
		p.enqueue(outItem{op: op})
	} else {
		e.rndvSendStart(op)
		p.enqueue(outItem{op: op, rndv: true})
	}
	if p.q.n == 1 {
		e.blocked++
	}
	e.trySend(op.Peer)
}

// sendsEager reports whether op goes by the eager path: up to the eager
// limit unless it asks for a rendezvous, up to EagerHintLimit to a ring
// peer if it asks for the eager path. Unsolicited sends are eager (send
// has refused those above the limit).
func (e *Engine) sendsEager(op *SendOp, unsolicited bool) bool {
	n := len(op.Data)
	switch {
	case unsolicited:
		return true
	case op.Rendezvous:
		return false
	case n <= e.cfg.EagerLimit:
		return true
	}
	return op.Eager && n <= e.cfg.EagerHintLimit && e.cfg.Eager == EagerRings && !e.queuePeer(op.Peer)
}

// recv posts op: it matches the earliest unexpected message first, in
// arrival order, else waits in the posted queue; or it receives the
// matched message op.Message.
func (e *Engine) recv(op *RecvOp) {
	if op.Message != nil {
		e.recvMatched(op)
		return
	}
	e.resetRecv(op)
	if e.err != nil {
		op.finish(e.err)
		return
	}
	if op.Source != AnySource && (op.Source < 0 || op.Source >= e.cfg.Size) {
		op.finish(fmt.Errorf("llc: receive from process %d: only %d processes", op.Source, e.cfg.Size))
		return
	}
	if u := e.unexp.match(op.Source, op.Tag, op.Ctx); u != nil {
		if u.rndv {
			e.rndvRecvStart(op, u.src, u.tag, &u.rts)
		} else {
			op.deliver(u.src, u.tag, u.data[:u.length])
			e.countTrunc(op)
			e.pool.put(u.data)
			e.ackSync(u.src, u.syncID)
		}
		e.unexp.free(u)
		return
	}
	e.posted.push(op)
}

// resetRecv readies op for a new receive.
func (e *Engine) resetRecv(op *RecvOp) {
	op.done, op.err, op.region, op.events, op.cancelled, op.matched = false, nil, 0, nil, false, false
	if op.Notify {
		op.events = &e.events
	}
}

// Unreceived describes a rendezvous or synchronous message that arrived
// and that no receive has matched: its sender cannot complete until one
// does.
type Unreceived struct {
	Source int    // the sending process
	Tag    int32  // its tag
	Ctx    uint32 // its context
	Length int    // its length in bytes
}

// unreceived appends to out the messages waiting in the unexpected queue
// whose senders wait for a receive to match them (rendezvous and
// synchronous eager messages), in arrival order.
func (e *Engine) unreceived(out []Unreceived) []Unreceived {
	for u := e.unexp.head; u != nil; u = u.next {
		if u.rndv || u.syncID != 0 {
			out = append(out, Unreceived{Source: u.src, Tag: u.tag, Ctx: u.ctx, Length: u.length})
		}
	}
	return out
}

// retrying reports whether the engine's next Poll issues a request of its
// own accord, with nothing new arrived: it retries a connection whose slot
// another process held. In virtual time the process then does not wait
// for data: it acts at its clock.
func (e *Engine) retrying() bool {
	for p := range e.peers {
		if e.peers[p].conn == connIdle && !e.queuePeer(p) && (e.pmPending > 0 || e.peers[p].queued()) {
			return true
		}
	}
	return false
}

// idle reports whether the engine has no operation in flight that it is
// responsible for advancing (used by Finalize); in EagerPM mode, also no
// start-up connection; and no one-sided operation.
func (e *Engine) idle() bool {
	return e.blocked == 0 && len(e.rndvSends) == 0 && len(e.rndvRecvs) == 0 && len(e.syncSends) == 0 && e.sched.len() == 0 && e.pmPending == 0 &&
		e.rmaPending(-1) == 0
}

func matches(source int, tag int32, ctx uint32, src int, mtag int32, mctx uint32) bool {
	return mctx == ctx && (source == AnySource || source == src) && (tag == AnyTag || tag == mtag)
}
