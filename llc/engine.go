package llc

import (
	"errors"
	"fmt"
	"slices"
)

// Wildcards for receives and probes.
const (
	AnySource = -1
	AnyTag    = -1
)

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

	rings, granted int          // rings granted to senders and watched, and their memory
	requests       requestWatch // whether connection requests are still watched for

	// lineLimit is the largest message that sendLine puts into a line:
	// lineBody, or the eager limit where that is less; -1 without shared
	// lines, and once the engine has failed.
	lineLimit int
	// ringLimit is the largest message that sendRing writes into a
	// ring: the longest body of a packed record, or the eager limit
	// where that is less; -1 under PM/RHiNET and the queue, and once the
	// engine has failed.
	ringLimit int
	pm        bool       // EagerPM: aligned records, start-up connections, host work
	pmPending int        // EagerPM: connections initiated at start and not settled
	work      WorkCounts // EagerPM, EagerQueue: host work not reported yet (Ready)
	// countsWork: host work is reported in the batches (EagerPM,
	// EagerQueue). batchLimit bounds the commands of a batch: one where
	// host work is reported, so that the work reported with each command
	// is the work done before it.
	countsWork bool
	batchLimit int
	// extra: the batches carry more than commands and a failure: host
	// work (countsWork) or notifications (events).
	extra     bool
	ready     Ready        // the batch Ready hands out
	readyWork WorkCounts   // the work the last Ready reported
	unrecv    []Unreceived // State's, reused

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
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	if cfg.MaxRecord == 0 {
		cfg.MaxRecord = MaxQueueRecord
	}
	if err := checkEager(&cfg); err != nil {
		return nil, err
	}
	e := newEngine(cfg)
	e.startEager()
	return e, nil
}

// checkConfig checks cfg's general parameters, before those of its eager
// mode (checkEager): the process and its job, the bootstrap regions, the
// largest queue record, the queue peers, the rendezvous mode, and whether
// the eager mode can carry the shared lines and messages in parts asked
// for.
func checkConfig(cfg Config) error {
	switch {
	case cfg.Size < 1 || cfg.Self < 0 || cfg.Self >= cfg.Size:
		return fmt.Errorf("llc: process %d of %d", cfg.Self, cfg.Size)
	case len(cfg.Boot) != cfg.Size && cfg.Eager != EagerQueue:
		return fmt.Errorf("llc: %d bootstrap regions for %d processes", len(cfg.Boot), cfg.Size)
	case cfg.MaxRecord < 0:
		return fmt.Errorf("llc: largest queue record %d bytes", cfg.MaxRecord)
	case cfg.QueuePeers != nil && len(cfg.QueuePeers) != cfg.Size:
		return fmt.Errorf("llc: queue peers given for %d processes of %d", len(cfg.QueuePeers), cfg.Size)
	case cfg.Rendezvous > RndvSplit:
		return fmt.Errorf("llc: unknown rendezvous mode %d", cfg.Rendezvous)
	case cfg.SharedLines && (cfg.Eager != EagerRings || slices.Contains(cfg.QueuePeers, true)):
		return fmt.Errorf("llc: shared lines need the rings of every peer (eager mode %v)", cfg.Eager)
	case cfg.NoRendezvous && cfg.Eager != EagerQueue && cfg.EagerLimit < cell:
		return fmt.Errorf("llc: messages in parts through rings need an eager limit of at least %d bytes, not %d", cell, cfg.EagerLimit)
	}
	return nil
}

// checkEager checks the parameters of cfg's eager mode (its rings, its
// receive queue), and those of the receive queue of the QueuePeers when
// a ring mode reaches some peers through one.
func checkEager(cfg *Config) error {
	var err error
	switch cfg.Eager {
	case EagerRings:
		err = checkRings(cfg)
	case EagerPM:
		if err = checkRings(cfg); err == nil {
			err = checkPM(cfg)
		}
	case EagerQueue:
		err = checkQueue(cfg)
	default:
		err = fmt.Errorf("llc: unknown eager mode %d", cfg.Eager)
	}
	if err == nil && cfg.Eager != EagerQueue && slices.Contains(cfg.QueuePeers, true) {
		err = checkQueue(cfg) // the queue of the QueuePeers
	}
	return err
}

// newEngine returns an engine for the checked cfg, with the limits of the
// paths its eager mode sends through (shared lines, rings) and of its
// batches, which modes that report host work keep to one command.
func newEngine(cfg Config) *Engine {
	e := &Engine{
		cfg:       cfg,
		peers:     make([]peer, cfg.Size),
		rndvSends: make(map[uint64]*SendOp),
		rndvRecvs: make(map[uint64]*RecvOp),
		syncSends: make(map[uint64]*SendOp),
		pm:        cfg.Eager == EagerPM,
	}
	e.sched.init(64)
	e.lineLimit = -1
	if cfg.SharedLines {
		e.lineLimit = min(lineBody, cfg.EagerLimit)
	}
	e.ringLimit = -1
	if cfg.Eager == EagerRings {
		e.ringLimit = min(packedBody(cfg.PackedRecords), cfg.EagerLimit)
	}
	e.batchLimit = 1 << 30
	if e.countsWork = cfg.Eager != EagerRings; e.countsWork {
		e.batchLimit = 1
	}
	e.extra = e.countsWork
	e.events.eng = e
	return e
}

// startEager issues the first requests of the engine's eager mode, so
// that peers can reach the process from the start: the watch for
// connection requests of a ring mode, the receive queue of the peers
// reached through one, and PM's connections to every process.
func (e *Engine) startEager() {
	switch e.cfg.Eager {
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
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

func (e *Engine) emit(c *Command) {
	e.stats.CommandsIssued++
	e.sched.push(c)
}

// command returns a zero command at the tail of the schedule queue,
// counted as issued, for the caller to fill in place: the commands of the
// message path are built so. emit's copy of a command built elsewhere
// loads 16 bytes at a time across the smaller stores that built it, and
// each such load waits for those stores to land, behind any stores into
// a peer's lines that went before (docs/decisions.md, "Stores and loads
// of different sizes").
func (e *Engine) command() *Command {
	e.stats.CommandsIssued++
	return e.sched.alloc()
}

// fail stops the engine: every pending operation completes with err.
func (e *Engine) fail(err error) {
	if e.err != nil {
		return
	}
	e.err, e.notice = err, true
	e.lineLimit, e.ringLimit = -1, -1
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
	switch ev.Kind {
	case EvLine:
		e.stepLine(ev)
		return
	case EvRecord:
	default:
		e.step(ev)
		return
	}
	// A record, the path of every message: delivered here, without a
	// call more.
	src, head, body := ev.Peer, ev.Head, ev.Data
	if e.err != nil {
		return
	}
	if len(head) < recMeta || uint(src) >= uint(e.cfg.Size) {
		e.fail(fmt.Errorf("llc: corrupt record: %d bytes of meta from process %d", len(head), src))
		return
	}
	kind, flags := head[0], head[1]
	if e.cfg.Eager != EagerRings || kind != recEager || flags&^flagSync != 0 || int(metaLength(head)) != len(body) {
		e.stepRecord(src, head, body)
		return
	}
	// An eager message whole in its record, in rings (which count no host
	// work): the path of every one. Its meta's words are read as they are
	// needed, not into a meta, which would take the stack.
	//
	// The call stays 35 lines into Step, where dispatch's test of the
	// kind made it: the profile-guided build finds a call hot by its
	// line's offset in its function, and inlines eagerArrived here only
	// at that offset (a call and its spills fewer a message). A line
	// added above it is taken out below, or the profile made again
	// (internal/pgo/gen.sh).
	e.eagerArrived(src, metaTag(head), metaCtx(head), metaSync(flags, head), body)
}

// stepRecord is Step of a record that is not an eager message whole in
// it, in rings: a message's part, a record of the other eager modes,
// which count host work, a protocol record, or a corrupt one.
func (e *Engine) stepRecord(src int, head, body []byte) {
	var m meta
	m.get(head)
	if e.cfg.Eager != EagerRings {
		e.addWork(WorkRecv, 1)
		e.countRecvCopy(&m, body)
	}
	if m.kind == recPart || m.flags&flagParts != 0 {
		e.assemble(src, &m, body) // a message in several queue records
		return
	}
	if int(m.length) != len(body) {
		e.fail(fmt.Errorf("llc: corrupt record from process %d: body of %d bytes, its meta says %d", src, len(body), m.length))
		return
	}
	if m.kind == recEager {
		e.eagerArrived(src, m.tag, m.ctx, syncID(&m), body)
		return
	}
	e.dispatch(src, &m, body)
}

// stepLine takes ev, an EvLine: a record from the pair's shared line, or
// the acknowledgement alone. Lines exist only in EagerRings mode, where a
// receive reports no host work, and carry no aux word and no parts.
func (e *Engine) stepLine(ev *Event) {
	src, tc, kv, body := ev.Peer, ev.Token, ev.Value, ev.Data
	if e.err != nil {
		return
	}
	if uint(src) >= uint(e.cfg.Size) {
		e.fail(fmt.Errorf("llc: corrupt line record from process %d", src))
		return
	}
	kind, ack := uint8(kv), uint32(kv>>32)
	l := &e.peers[src].line
	if kind == recLineAck {
		l.acked = ack
		return
	}
	l.recv++ // the record's acknowledgement, with ack the peer's of this process's
	l.acked = ack
	if l.ok && l.acked != l.sent {
		e.lineAck(src)
	}
	if int(uint16(kv>>16)) != len(body) {
		e.fail(fmt.Errorf("llc: corrupt line record from process %d: body of %d bytes, its meta says %d", src, len(body), uint16(kv>>16)))
		return
	}
	tag, ctx := int32(uint32(tc)), uint32(tc>>32)
	if kind == recEager { // the path of every small message; never synchronous (no aux word)
		e.eagerArrived(src, tag, ctx, 0, body)
		return
	}
	m := meta{kind: kind, flags: uint8(kv >> 8), tag: tag, ctx: ctx, length: uint32(len(body))}
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
		e.onConnCAS(int(id), ev)
	case tokConnReq:
		e.onConnRequest(ev)
	case tokConnReply:
		e.onConnReply(int(id), ev)
	case tokRingAlloc:
		e.onRingAlloc(int(id), ev)
	case tokTail:
		e.onTail(int(id), ev)
	case tokRegSend:
		e.onRegSend(id, ev)
	case tokRegRecv:
		e.onRegRecv(id, ev)
	case tokPullDone:
		e.onPullDone(id, ev)
	case tokPushDone:
		e.onPushDone(id, ev)
	case tokQueueAlloc:
		e.onQueueAlloc(ev)
	case tokEnqueue:
		e.onEnqueue(int(id), ev)
	case tokRMA:
		e.onRMA(id, ev)
	case tokExpose:
		e.onExpose(id, ev)
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
// another process held, or a record that found the peer's ring or queue
// full (it reads the ring's consumer count, or enqueues, again). In
// virtual time the process then does not wait for data: it acts at its
// clock, so that a peer cannot run ahead of it and make room at a later
// virtual time than the retry that finds it (a message in several
// records fills a ring at every size beyond the ring's). Not while the
// read of the consumer count is in flight: a transport holds it until the
// count changes (ReadChanged), and the process waits for that as for data.
func (e *Engine) retrying() bool {
	for p := range e.peers {
		q := &e.peers[p]
		if q.conn == connIdle && !e.queuePeer(p) && (e.pmPending > 0 || q.queued()) {
			return true
		}
		if q.full && q.queued() && !q.tailPending {
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

// Ready is one batch of the engine's output: what the driver does next.
// It is the engine's own, and views the engine's storage: valid until
// Advance.
type Ready struct {
	// Commands are the IR commands to issue, in order. Each one's
	// completion, and anything else the network reports meanwhile, goes
	// back in through Step; what that emits comes in a later batch.
	Commands []Command
	// Work is the host work done since the last batch (EagerPM and
	// EagerQueue), for a transport that charges it (HostCharger) to charge
	// before issuing the commands. Where work is counted, a batch holds at
	// most one command, so that the work charged before each command is
	// the work done before it.
	Work WorkCounts
	// Err is the fatal error that stopped the engine, if any: every
	// operation then completes with it. The first batch after the failure
	// reports it even without commands (HasReady).
	Err error
	// Notes are the notifications of the host since the last batch, oldest
	// first: unsolicited messages that arrived, and the completions of
	// sends and receives that asked for one (Notify). A NoteUnsolicited's
	// Data stays valid, after Advance too, until it is handed back by
	// submitting ReleaseNote.
	Notes []Notification
}

// HasReady reports whether Ready has something to do: commands to issue,
// host work to charge, notifications, or a failure not reported yet.
func (e *Engine) HasReady() bool {
	return e.sched.n != 0 || e.notice
}

// Ready returns the engine's next batch of output, which it keeps (a batch
// built and copied on every call would cost a message's path loads that
// wait for the stores just made). Calling it again before Advance hands
// out the batch again, grown by what was emitted since.
func (e *Engine) Ready() *Ready {
	if e.notice || e.extra {
		return e.readyAll()
	}
	// Commands alone, all of them (a batch is limited only where host
	// work is counted, which makes extra true): small enough to inline.
	q := &e.sched
	q.batch = q.n
	e.ready.Commands = q.buf[:q.n:q.n]
	return &e.ready
}

// readyAll is Ready of a batch that may carry more than commands: a
// failure, host work, notifications. The batch's Err, once set, stays: a
// failed engine does not recover.
func (e *Engine) readyAll() *Ready {
	rd := &e.ready
	rd.Commands, rd.Err = e.sched.take(e.batchLimit), e.err
	e.notice = false
	if e.extra {
		e.readyExtra(rd)
	}
	return rd
}

// readyExtra adds to the batch what a message's batches lack: the host
// work done since the last batch, and the notifications.
func (e *Engine) readyExtra(rd *Ready) {
	if e.countsWork {
		rd.Work = e.work
		e.readyWork = e.work
	}
	rd.Notes = e.events.take()
}

// Advance acknowledges the last batch of Ready: its commands were issued,
// its work charged and its notifications taken.
func (e *Engine) Advance() {
	if e.sched.batch != e.sched.n || e.extra {
		e.advance()
		return
	}
	e.sched.n, e.sched.batch = 0, 0 // a message's batch, dropped whole: small enough to inline
}

// advance is Advance of a batch that leaves commands queued, or that
// carried more than commands.
func (e *Engine) advance() {
	e.sched.drop()
	if e.extra {
		e.advanceExtra()
	}
}

// advanceExtra is Advance of a batch's host work and notifications.
func (e *Engine) advanceExtra() {
	if e.countsWork {
		for k := range e.work {
			e.work[k] -= e.readyWork[k]
		}
		e.readyWork = WorkCounts{}
	}
	e.events.drop()
	e.ready.Notes = nil
	e.extra = e.countsWork || e.events.pending()
}

// addCopy counts the copy of a message of n bytes between the user's
// buffer and the layer's.
func (e *Engine) addCopy(n int) {
	if n > 0 && e.countsWork {
		e.addWork(WorkCopies, 1)
		e.addWork(WorkCopy, n)
	}
}

// addWork counts n units of host work w, for the next batch to report.
func (e *Engine) addWork(w HostWork, n int) {
	e.work[w] += n
	if e.countsWork {
		e.notice = true
	}
}

// State is a snapshot of the engine, for the driver's waits and the
// statistics.
type State struct {
	// Err is the fatal error that stopped the engine, if any.
	Err error
	// Idle reports that the engine has no operation in flight that it is
	// responsible for advancing (used by Finalize): no command queued, no
	// send waiting, no rendezvous, no one-sided operation; in EagerPM
	// mode, also no start-up connection.
	Idle bool
	// Retrying reports that the engine's next Poll issues a request of its
	// own accord, with nothing new arrived: it retries a connection whose
	// slot another process held. In virtual time the process then does
	// not wait for data: it acts at its clock.
	Retrying bool
	// Stats are the engine's counters.
	Stats Counters
	// Unreceived are the messages waiting in the unexpected queue whose
	// senders wait for a receive to match them (rendezvous and
	// synchronous eager messages), in arrival order; valid until the next
	// State.
	Unreceived []Unreceived
}

// Err returns the error that stopped the engine, nil while it runs: the
// Err of State without the rest of the snapshot, which a caller that
// checks for a failure after every empty probe would otherwise build
// (the unexpected messages' list, the counters).
func (e *Engine) Err() error { return e.err }

// State returns a snapshot of the engine.
func (e *Engine) State() State {
	e.unrecv = e.unreceived(e.unrecv[:0])
	return State{Err: e.err, Idle: e.idle(), Retrying: e.retrying(), Stats: e.stats, Unreceived: e.unrecv}
}

// schedQueue is the schedule queue between the protocol engine and the
// translator: commands leave in the order they were emitted, so that a
// completion flag is never issued before the data it covers. Ready hands
// out its first commands as a batch (a view of its storage) and Advance
// drops them; commands emitted meanwhile follow them. Its storage grows
// when full and never shrinks, so steady-state traffic does not allocate.
type schedQueue struct {
	buf   []Command // buf[:n] are queued, oldest first
	n     int
	batch int // the first batch of them were handed out and not yet dropped
}

// init sizes the queue.
func (q *schedQueue) init(n int) { q.buf = make([]Command, n) }

func (q *schedQueue) len() int { return q.n }

// alloc returns a zeroed slot at the tail of the queue, to be filled in
// place; it is issued in order like a pushed command.
func (q *schedQueue) alloc() *Command {
	c := q.next()
	*c = Command{}
	return c
}

// next is alloc without the zeroing: the command holds whatever an
// earlier one left there, and the caller sets every field that its kind
// is read for.
func (q *schedQueue) next() *Command {
	if q.n == len(q.buf) {
		q.grow()
	}
	c := &q.buf[q.n]
	q.n++
	return c
}

// grow doubles the storage. A batch handed out keeps viewing the old
// storage, whose commands do not change.
func (q *schedQueue) grow() {
	nb := make([]Command, 2*len(q.buf))
	copy(nb, q.buf[:q.n])
	q.buf = nb
}

func (q *schedQueue) push(c *Command) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.n] = *c
	q.n++
}

// take hands out the oldest commands, at most limit of them, as the
// batch.
func (q *schedQueue) take(limit int) []Command {
	k := min(q.n, limit)
	q.batch = k
	return q.buf[:k:k]
}

// drop removes the batch handed out by take.
func (q *schedQueue) drop() {
	if q.batch == q.n {
		q.n = 0
	} else if q.batch > 0 {
		q.n = copy(q.buf, q.buf[q.batch:q.n])
	}
	q.batch = 0
}

// Submit starts a user operation (see Op). Operations that can complete at
// once do so before Submit returns: an eager send whose connection exists
// and whose ring has room, a receive of a message that arrived first, a
// probe, a cancel. The others complete during a later Step or Poll; the
// commands they need come out of Ready.
func (e *Engine) Submit(op Op) { op.submitTo(e) }
