package llc

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// Endpoint is the I/O loop around an Engine: it issues the engine's
// commands on a Transport in schedule order, feeds completions back, and
// waits for operations. It is safe for concurrent use by many goroutines;
// its lock is held only while the engine runs, never across a wait.
type Endpoint struct {
	mu  sync.Mutex
	eng *Engine
	tr  Transport
	// charger is tr when it charges host work and the engine reports
	// some (EagerPM, EagerQueue); nil otherwise.
	charger HostCharger
	// clock is tr's virtual clock when it runs in virtual time: the
	// endpoint's calls are the communication layer, whose time is the
	// network's, not the caller's computing.
	clock Clock
	// advisor is tr as a YieldAdvisor, nil if it is not one; publisher
	// tr as a CPUPublisher.
	advisor   YieldAdvisor
	publisher CPUPublisher
	// notes are the notifications the batches carried, not yet taken by
	// NextEvent: the event queue.
	notes fifo[Notification]

	// Backoff of waiters: Spin polls, then Yield polls each followed by a
	// yield of the processor, then a doorbell sleep. SpinFor, if set,
	// ends the spinning sooner, once it has lasted that long: a process
	// whose peer shares its processor (the scheduler put both on one core
	// though each could have its own) waits for it that long per message,
	// not Spin polls' time. YieldFor, if set, likewise ends the yielding
	// once it has lasted that long: a yield costs a whole turn of every
	// other process on the core, and a process that waits for long (an
	// idle rank while two others exchange) would otherwise take its turns
	// from them for Yield of them before it sleeps.
	Spin, Yield       int
	SpinFor, YieldFor time.Duration
	// SpinBusy and YieldBusyFor, where more than Spin and YieldFor, take
	// their place while operations run in the background
	// (StartBackground): with several in flight the next message tends to
	// come within a few polls, and a waiter that yields at once, or sleeps,
	// pays a switch of processes for every message.
	SpinBusy     int
	YieldBusyFor time.Duration

	background atomic.Int32 // operations running in the background

	// Stalled, if set, is asked by a wait about to sleep on the doorbell
	// (never on the message path) whether what it waits for can never
	// come (see Stall): an error it returns ends the wait with it,
	// failing the receive or probe waited for, or the engine for any
	// other wait. It runs with the endpoint's lock held and must not call
	// the endpoint. Set it before the endpoint is used.
	Stalled func(Stall) error

	// Unpin, if set, is called by a waiting goroutine once programs
	// outside the job crowd the process off the CPU it is pinned to, or
	// another process of its host has unpinned itself (crowd.go): it lets
	// the process run on more CPUs than that one and reports whether it
	// did. The endpoint then publishes that the process is pinned to none
	// (CPUPublisher) and calls it no more. It must not call the endpoint.
	// Set it before the endpoint is used.
	Unpin func() bool

	waits, sleeps uint64
	crowd         crowdWatch
	failed        atomic.Bool // the engine has failed (set by progress)

	// Operations of SendWait, RecvWait and RMAFlush, recycled under mu.
	freeSends   freeList[SendOp]
	freeRecvs   freeList[RecvOp]
	freeFlushes freeList[FlushOp]
	// The cancels and probes of the endpoint's calls, reused under mu.
	cancelOp CancelOp
	probeOp  ProbeOp

	// The waiters (park.go), under mu: whether a goroutine polls for
	// them, those parked meanwhile, and their records for reuse.
	polling    bool
	parked     []*parked
	freeParked freeList[parked]

	// SendEager's operation, reused under mu, and RecvWait's, with
	// whether a RecvWait holds it. Last: the fields above keep their
	// places in the endpoint's cache lines.
	eagerOp    SendOp
	recvOp     RecvOp
	recvOpBusy bool
}

// WaitStats counts how waiting went.
type WaitStats struct {
	Waits    uint64 // operations waited for
	Sleeps   uint64 // doorbell sleeps taken
	Unpinned bool   // the process, crowded off its CPU, was unpinned (Unpin)
	// Beside: the process, with a CPU of its own, slept instead of
	// yielding it while programs outside the job took a share of it
	// (crowd.go).
	Beside bool
}

// NewEndpoint returns an endpoint driving eng over tr. When tr implements
// HostCharger and the engine's eager transport reports host work (EagerPM,
// EagerQueue), the endpoint charges that work to tr.
func NewEndpoint(eng *Engine, tr Transport) *Endpoint {
	ep := &Endpoint{eng: eng, tr: tr, Spin: 4000, Yield: 200}
	if hc, ok := tr.(HostCharger); ok && eng.Config().Eager != EagerRings {
		ep.charger = hc
	}
	if c, ok := tr.(Clocked); ok {
		ep.clock = c.VirtualClock()
	}
	ep.advisor, _ = tr.(YieldAdvisor)
	ep.publisher, _ = tr.(CPUPublisher)
	return ep
}

// Clock returns the transport's virtual clock: nil unless it runs in
// virtual time.
func (ep *Endpoint) Clock() Clock { return ep.clock }

// lock takes the endpoint's lock for a call into the communication layer:
// in virtual time the caller's computing since its last call is charged
// first.
func (ep *Endpoint) lock() {
	if ep.clock != nil {
		ep.clock.Enter()
	}
	ep.mu.Lock()
}

// unlock releases the lock at the end of a call into the communication
// layer: in virtual time the caller computes from now on.
func (ep *Endpoint) unlock() {
	ep.mu.Unlock()
	if ep.clock != nil {
		ep.clock.Leave()
	}
}

// drain takes the engine's batches of output while it has any. The caller
// holds ep.mu.
func (ep *Endpoint) drain() {
	if ep.eng.HasReady() {
		ep.drainBatches()
	}
}

// drainBatches is drain's loop: it charges each batch's host work (the
// host works before the network does what it asked for), issues its
// commands in order, steps their completions and acknowledges it; a
// failure of the engine is noted for Failed.
func (ep *Endpoint) drainBatches() {
	for ep.eng.HasReady() {
		rd := ep.eng.Ready()
		if ep.charger != nil || rd.Err != nil || len(rd.Notes) != 0 { // a message's batch has none of them
			ep.batchExtras(rd)
		}
		for i, cmds := 0, rd.Commands; i < len(cmds); i++ {
			if ev := ep.tr.Execute(&cmds[i]); ev != nil {
				ep.eng.Step(ev)
			}
		}
		ep.eng.Advance()
	}
}

// batchExtras takes what a batch carries beside its commands: its host
// work to charge, the engine's failure, its notifications.
func (ep *Endpoint) batchExtras(rd *Ready) {
	if ep.charger != nil {
		ep.charge(&rd.Work)
	}
	if rd.Err != nil {
		ep.failed.Store(true)
	}
	for _, n := range rd.Notes {
		ep.notes.push(n)
	}
}

// charge charges a batch's host work to the transport: polls, then
// receives, then sends, the order in which a round of progress does them,
// then the copies (their count before their bytes) and the zeroing.
func (ep *Endpoint) charge(w *WorkCounts) {
	for _, k := range [...]HostWork{WorkPoll, WorkRecv, WorkSend, WorkCopies, WorkCopy, WorkZero} {
		if n := w[k]; n > 0 {
			ep.charger.Charge(k, n)
		}
	}
}

// submit submits op to the engine and issues what it asks for, under the
// endpoint's lock, taken as for a call into the communication layer.
func (ep *Endpoint) submit(op Op) {
	ep.lock()
	ep.eng.Submit(op)
	ep.drain()
	ep.unlock()
}

// Start issues the engine's start-up commands (the receive queue; in
// EagerPM mode the connections to every process) and returns the engine's
// error, if they failed.
func (ep *Endpoint) Start() error {
	ep.lock()
	ep.drain()
	err := ep.eng.Err()
	ep.unlock()
	return err
}

// Exclusive runs f while no call of the endpoint runs: f may use the
// transport, which is not safe for concurrent use (recording the
// process's state in the NIC, closing the network). f must not call the
// endpoint.
func (ep *Endpoint) Exclusive(f func()) {
	ep.lock()
	f()
	ep.drain()
	ep.unlock()
}

// Config returns the engine's configuration.
func (ep *Endpoint) Config() Config { return ep.eng.Config() }

// Send starts op and reports whether it is already done.
func (ep *Endpoint) Send(op *SendOp) bool {
	ep.lock()
	ep.eng.submitSend(op)
	ep.drain()
	done := op.done
	ep.mu.Unlock() // unlock's lines, inlined whatever the profile says (see Test)
	if ep.clock != nil {
		ep.clock.Leave()
	}
	return done
}

// SendEager sends data to peer with tag and ctx at once where it can go
// out eagerly now, into the pair's shared line or as one record into the
// peer's ring, and reports whether it did: the send is then complete,
// without error. It uses an operation of the endpoint's own, which
// nothing keeps once it returns. Where it reports false nothing was done,
// and the caller sends with an operation of its own (Send). A nonblocking
// send that completes at once, as most small ones do, so needs no
// operation that outlives the call.
func (ep *Endpoint) SendEager(peer int, tag int32, ctx uint32, data []byte) bool {
	ep.lock()
	// Only the fields that a caller's SendOp would set: the rest are as
	// sendLine or sendRing left them, which is what they would set again
	// (a zero SendOp stored whole costs some 30 instructions).
	op := &ep.eagerOp
	op.Peer, op.Tag, op.Ctx, op.Data = peer, tag, ctx, data
	sent := ep.eng.sendLine(op) || ep.eng.sendRing(op) // submitSend's first two ways
	if sent {
		ep.drain()
	}
	op.Data = nil // the caller's buffer, not kept
	ep.unlock()
	return sent
}

// SendUnsolicited starts an unsolicited send and reports whether it is
// already done.
func (ep *Endpoint) SendUnsolicited(op *SendOp) bool {
	ep.submit(Unsolicited{op})
	return op.Done()
}

// Recv posts op and reports whether it is already done.
func (ep *Endpoint) Recv(op *RecvOp) bool {
	ep.lock()
	ep.eng.recv(op)        // Submit of a receive, without its dispatch on the type
	if ep.eng.HasReady() { // drain's test, without its call: a receive posted before its message issues nothing
		ep.drainBatches()
	}
	done := op.done
	ep.mu.Unlock() // unlock's lines, inlined whatever the profile says (see Test)
	if ep.clock != nil {
		ep.clock.Leave()
	}
	return done
}

// NextEvent pops the oldest notification of the event queue, the notes
// that the engine's batches carried, running a round of progress first if
// there is none.
func (ep *Endpoint) NextEvent() (Notification, bool) {
	ep.lock()
	if ep.notes.n == 0 {
		ep.progress()
	}
	var n Notification
	ok := ep.notes.n > 0
	if ok {
		n = *ep.notes.front()
		ep.notes.pop()
	}
	ep.unlock()
	return n, ok
}

// Release hands the buffer of a NoteUnsolicited notification back to the
// engine (ReleaseNote).
func (ep *Endpoint) Release(n Notification) { ep.submit(ReleaseNote{n}) }

// Shutdown stops the engine: every pending operation completes with err,
// and every later one fails with it.
func (ep *Endpoint) Shutdown(err error) {
	ep.lock()
	ep.eng.Submit(Stop{err})
	ep.unlock()
}

// SendWait sends data to peer and waits until the send completes, with an
// operation the endpoint recycles: a blocking send that does not allocate.
func (ep *Endpoint) SendWait(peer int, tag int32, ctx uint32, data []byte) error {
	ep.lock()
	// A send that can go out eagerly now, as most small ones can, is done
	// at once, as SendEager's is: with SendEager's operation, without a
	// recycled one's get, zeroing and put. Written out rather than
	// called, so that the message's path does not depend on what the
	// profile inlines.
	eop := &ep.eagerOp
	eop.Peer, eop.Tag, eop.Ctx, eop.Data = peer, tag, ctx, data
	if ep.eng.sendLine(eop) || ep.eng.sendRing(eop) {
		if ep.eng.HasReady() { // drain's test, without its call
			ep.drainBatches()
		}
		eop.Data = nil
		ep.mu.Unlock() // unlock's lines, inlined whatever the profile says (see Test)
		if ep.clock != nil {
			ep.clock.Leave()
		}
		return nil
	}
	eop.Data = nil
	op := ep.freeSends.get()
	op.Peer, op.Tag, op.Ctx, op.Data = peer, tag, ctx, data
	ep.eng.Submit(op)
	ep.drain()
	if !op.done { // not already done, as an eager send is
		ep.wait(op)
	}
	err := op.err
	ep.freeSends.put(op)
	ep.unlock()
	return err
}

// RecvWait receives into buf from source with tag and waits until the
// receive completes, with an operation the endpoint recycles.
func (ep *Endpoint) RecvWait(source int, tag int32, ctx uint32, buf []byte) (Status, error) {
	// lock and unlock, spelled out as in Test: the profile leaves their
	// calls here out of line.
	if ep.clock != nil {
		ep.clock.Enter()
	}
	ep.mu.Lock()
	// The endpoint's own operation unless another goroutine's RecvWait
	// holds it (a wait lets the lock go), else a recycled one: the own
	// one costs no free list's get and put (some 35 instructions).
	op := &ep.recvOp
	own := !ep.recvOpBusy
	if own {
		ep.recvOpBusy = true
	} else {
		op = ep.freeRecvs.get()
	}
	op.Source, op.Tag, op.Ctx, op.Buf = source, tag, ctx, buf
	ep.eng.recv(op)        // Submit of a receive, without its dispatch on the type
	if ep.eng.HasReady() { // drain's test, without its call: a receive posted before its message issues nothing
		ep.drainBatches()
	}
	if !op.done { // not already done, as the receive of a message that came first is
		ep.wait(op)
	}
	st, err := op.Status, op.err
	if own {
		ep.recvOp, ep.recvOpBusy = RecvOp{}, false
	} else {
		ep.freeRecvs.put(op)
	}
	ep.mu.Unlock()
	if ep.clock != nil {
		ep.clock.Leave()
	}
	return st, err
}

// RecvKept posts the receive that op describes (its Source, Tag, Ctx,
// Buf and Message: what a nonblocking receive sets) through an
// operation the endpoint keeps: taken from its free list under the lock
// that the post holds anyway, where a sync.Pool's Get and Put, once
// several receives are outstanding, take locked instructions of their
// own. While the receive is pending it returns that operation, to be
// given back by ReturnKept once done; a receive done at once (its
// message was there, or op.Message, set, is a message that a probe
// took) leaves its result in *op (Status, Err, Cancelled, Done) and
// returns nil.
func (ep *Endpoint) RecvKept(op *RecvOp) *RecvOp {
	ep.lock()
	kept := ep.freeRecvs.get()
	kept.Source, kept.Tag, kept.Ctx, kept.Buf, kept.Message = op.Source, op.Tag, op.Ctx, op.Buf, op.Message
	ep.eng.recv(kept) // Submit of a receive, without its dispatch on the type
	ep.drain()
	if kept.done {
		op.Status, op.err, op.cancelled, op.done = kept.Status, kept.err, kept.cancelled, true
		ep.freeRecvs.keep(kept)
		kept = nil
	}
	ep.unlock()
	return kept
}

// ReturnKept gives back an operation of RecvKept that is done. The caller
// holds the endpoint's lock, as a Completion's Done does.
func (ep *Endpoint) ReturnKept(op *RecvOp) { ep.freeRecvs.keep(op) }

// Cancel cancels a posted receive that has not matched and reports
// whether it did.
func (ep *Endpoint) Cancel(op *RecvOp) bool {
	ep.lock()
	ok := ep.cancel(CancelOp{Recv: op})
	ep.unlock()
	return ok
}

// CancelSend cancels op if it has not left yet (see CancelOp) and reports
// whether it did.
func (ep *Endpoint) CancelSend(op *SendOp) bool {
	ep.mu.Lock()
	ok := ep.cancel(CancelOp{Send: op})
	ep.mu.Unlock()
	return ok
}

// WithdrawSend cancels op if it has not left, or withdraws it if it is a
// rendezvous send whose request has left (see CancelOp), and reports
// whether op is done: false while a withdrawn send waits for the
// receiver's answer.
func (ep *Endpoint) WithdrawSend(op *SendOp) (done bool) {
	ep.lock()
	ep.cancel(CancelOp{Send: op, Withdraw: true})
	done = op.done
	ep.unlock()
	return done
}

// CancelCurrent cancels the receive or send that current names (nil: none)
// at the time of the cancel, as Cancel or CancelSend do. current runs with
// the endpoint's lock held: a caller that gives finished operations back
// for reuse while a wait's Done runs (under that lock) cannot name one
// given back meanwhile.
func (ep *Endpoint) CancelCurrent(current func() (*RecvOp, *SendOp)) {
	ep.lock()
	if r, s := current(); r != nil || s != nil {
		ep.cancel(CancelOp{Recv: r, Send: s})
	}
	ep.unlock()
}

// cancel submits c with the endpoint's reused CancelOp, issues what it
// asks for and reports whether it cancelled. The caller holds ep.mu.
func (ep *Endpoint) cancel(c CancelOp) bool {
	ep.cancelOp = c
	ep.eng.Submit(&ep.cancelOp)
	ep.drain()
	ok := ep.cancelOp.Cancelled
	ep.cancelOp = CancelOp{}
	return ok
}

// Completed reports in done, under one hold of the endpoint's lock, which
// of ops are done.
func (ep *Endpoint) Completed(ops []Completion, done []bool) {
	ep.lock()
	for i, op := range ops {
		done[i] = op.Done()
	}
	ep.drain()
	ep.unlock()
}

// progress runs one round of the I/O loop. The caller holds ep.mu.
func (ep *Endpoint) progress() bool {
	p := ep.tr.Poll(ep.eng)
	if ep.eng.Poll() {
		p = true
	}
	ep.drain()
	return p
}

// StartBackground counts an operation that a goroutine of the process
// runs in the background (a nonblocking collective) until EndBackground.
func (ep *Endpoint) StartBackground() { ep.background.Add(1) }

// EndBackground ends what StartBackground began.
func (ep *Endpoint) EndBackground() { ep.background.Add(-1) }

// Failed reports whether the engine has failed, as seen by the last round
// of progress. It takes no lock, so that a Completion's Done may call it
// to stop waiting for something the failed engine cannot bring.
func (ep *Endpoint) Failed() bool { return ep.failed.Load() }

// Progress runs one round of the I/O loop and reports whether anything
// happened.
func (ep *Endpoint) Progress() bool {
	ep.lock()
	p := ep.progress()
	ep.unlock()
	return p
}

// Completion is an operation that can be waited for: *SendOp or *RecvOp.
type Completion interface{ Done() bool }

// Test runs one round of progress and reports whether op is done.
func (ep *Endpoint) Test(op Completion) bool {
	// lock and unlock, spelled out: they inline only where the profile
	// finds their calls hot, and MPI_Test's loops are not in it.
	if ep.clock != nil {
		ep.clock.Enter()
	}
	ep.mu.Lock()
	done := op.Done()
	if !done {
		ep.progress()
		done = op.Done()
	}
	ep.mu.Unlock()
	if ep.clock != nil {
		ep.clock.Leave()
	}
	return done
}

type funcCompletion func() bool

func (f funcCompletion) Done() bool { return f() }

// WaitFunc drives progress until done, called with the lock held, returns
// true.
func (ep *Endpoint) WaitFunc(done func() bool) { ep.Wait(funcCompletion(done)) }

// WaitState drives progress until done, called with the lock held and
// given a snapshot of the engine, returns true.
func (ep *Endpoint) WaitState(done func(State) bool) {
	ep.WaitFunc(func() bool { return done(ep.eng.State()) })
}

// Wait drives progress until op is done (op.Done is called with the lock
// held): it spins, then yields the processor between polls (where the
// transport, a YieldAdvisor, does not say that no other process could use
// it), then sleeps on the doorbell, so that more processes than cores
// still make progress.
func (ep *Endpoint) Wait(op Completion) {
	ep.lock()
	ep.wait(op)
	ep.unlock()
}

// wait is Wait for a caller that holds ep.mu; it returns with ep.mu held
// and op done. The lock is released between polls. While another
// goroutine of the process polls, the caller parks instead (park.go).
func (ep *Endpoint) wait(op Completion) {
	ep.waits++
	if op.Done() {
		return
	}
	if ep.clock != nil {
		defer ep.clock.Waiting(false)
	}
	if ep.polling {
		if ep.park(op) {
			return
		}
	} else {
		ep.polling = true
	}
	ep.poll(op)
	ep.handOff() // called, not deferred: poll returns, and a defer cost every wait some 60 instructions
}

// poll is wait's polling: it returns with ep.mu held and op done.
func (ep *Endpoint) poll(op Completion) {
	var phases waitPhases
	for idle := 0; !op.Done(); {
		p := ep.progress()
		if op.Done() {
			return
		}
		woken := 0
		if len(ep.parked) > 0 {
			woken = ep.wakeDone()
		}
		// In virtual time, whether the engine retries a connection of its
		// own accord (then the process does not wait for data).
		retrying := ep.clock != nil && ep.eng.State().Retrying
		ep.mu.Unlock()
		if p || woken > 0 {
			idle = 0
			phases = waitPhases{}
			letRun(woken)
		} else {
			idle = ep.backOff(op, idle, ep.bounds(), &phases, retrying)
		}
		ep.mu.Lock()
	}
}

// waitBounds are a poll's bounds on its spinning and yielding.
type waitBounds struct {
	spin     int
	yieldFor time.Duration
}

// bounds returns the bounds of a poll's quiet spell: Spin and YieldFor,
// or SpinBusy and YieldBusyFor where more while operations run in the
// background.
func (ep *Endpoint) bounds() waitBounds {
	b := waitBounds{spin: ep.Spin, yieldFor: ep.YieldFor}
	if ep.background.Load() > 0 {
		b.spin = max(b.spin, ep.SpinBusy)
		if b.yieldFor > 0 {
			b.yieldFor = max(b.yieldFor, ep.YieldBusyFor)
		}
	}
	return b
}

// waitPhases is when the phases of a poll's quiet spell began, once looked
// at: its spinning, its yielding and its first sleep.
type waitPhases struct{ spun, yielded, quiet time.Time }

// backOff is a poll's wait after a round in which nothing happened, the
// idle-th in a row; it returns the count to go on from. The caller does
// not hold ep.mu.
func (ep *Endpoint) backOff(op Completion, idle int, b waitBounds, ph *waitPhases, retrying bool) int {
	if ep.clock != nil && !retrying {
		// Nothing came: the process waits (taking data makes it run
		// again). Not while it retries a connection: the retry is a
		// request at its clock.
		ep.clock.Waiting(true)
	}
	idle++
	if idle < b.spin && ep.SpinFor > 0 && idle%spinClockEvery == 0 {
		idle = phaseEnd(idle, &ph.spun, ep.SpinFor, b.spin)
	}
	yield := ep.Yield
	if ep.crowd.beside {
		yield = 0 // a yield would hand the CPU to a program outside the job (crowd.go)
	}
	switch {
	case idle < b.spin:
		// The processor's spin-wait hint between polls: the poll after
		// the data came is sooner than a plain loop's, at a small cost
		// where both sides of a pair send at once.
		spinwait.Pause()
	case idle < b.spin+yield:
		if ep.advisor == nil || ep.advisor.YieldHelps() {
			yieldCPU(idle)
		}
		if (b.yieldFor > 0 || ep.Unpin != nil) && (idle-b.spin)%yieldClockEvery == 1 { // from the first yield on
			idle = ep.yieldLook(idle, b, ph)
		}
	default:
		if ph.quiet.IsZero() {
			ph.quiet = time.Now()
		}
		if ep.Stalled == nil || !ep.stall(op, time.Since(ph.quiet)) {
			ep.sleep(op)
		}
		idle = b.spin
		ph.yielded = time.Time{}
	}
	return idle
}

// spinClockEvery is how many polls of a spinning waiter pass between two
// looks at the clock (SpinFor): under a virtual machine's clock source a
// look costs a few polls' time (docs/decisions.md, spinClockEvery).
// yieldClockEvery is the same for a yielding waiter (YieldFor), whose
// every poll is a system call.
const (
	spinClockEvery  = 64
	yieldClockEvery = 8
)

// phaseEnd returns idle, or end once the phase of waiting that began at
// *began (set now if zero) has lasted limit.
func phaseEnd(idle int, began *time.Time, limit time.Duration, end int) int {
	return phaseEndAt(time.Now(), idle, began, limit, end)
}

// phaseEndAt is phaseEnd at now.
func phaseEndAt(now time.Time, idle int, began *time.Time, limit time.Duration, end int) int {
	switch {
	case began.IsZero():
		*began = now
	case now.Sub(*began) >= limit:
		return end
	}
	return idle
}

// sleep blocks on the doorbell unless work is already there; for at most
// retrySleep while the engine retries a connection or a record that found
// the peer's ring or queue full.
func (ep *Endpoint) sleep(op Completion) {
	switch {
	case ep.Unpin != nil:
		ep.followPeers()
	case ep.crowd.beside:
		ep.besideLook()
	}
	t := ep.tr.Arm()
	ep.mu.Lock()
	p := ep.progress()
	ok := op.Done()
	woken := 0
	if len(ep.parked) > 0 {
		woken = ep.wakeDone()
	}
	retrying := false
	if !p && !ok && woken == 0 {
		ep.sleeps++
		retrying = ep.eng.State().Retrying
	}
	ep.mu.Unlock()
	if p || ok || woken > 0 {
		ep.tr.Disarm()
		letRun(woken)
		return
	}
	if ts, timed := ep.tr.(TimedSleeper); retrying && timed {
		ts.SleepFor(t, retrySleep)
		return
	}
	ep.tr.Sleep(t)
}

// retrySleep bounds a sleep while the engine retries a connection whose
// common slot another process held: that process frees the slot without
// ringing anyone, so that an unbounded sleep lasted the transport's
// safety-net timeout before the retry (half a second for the first send
// of one of several processes to a common peer, as in every hello). The
// same holds for a record that found the peer's ring or queue full: the
// peer makes room without ringing the sender.
const retrySleep = 50 * time.Microsecond

// Probe runs one round of progress and reports the earliest unexpected
// message matching (source, tag, ctx).
func (ep *Endpoint) Probe(source int, tag int32, ctx uint32) (Status, bool) {
	ep.lock()
	ep.progress()
	p := &ep.probeOp
	p.reset(source, tag, ctx, false)
	ep.eng.Submit(p)
	st, ok := p.Status, p.Found
	ep.unlock()
	return st, ok
}

// probeWait is a Completion that is done when a matching message arrived
// (taken out of the matching with Take), or the engine has failed.
type probeWait struct {
	eng   *Engine
	probe ProbeOp
	err   error
	// stalled is the error with which Stalled ended the wait.
	stalled error
}

func (w *probeWait) Done() bool {
	if w.stalled != nil {
		w.err = w.stalled
		return true
	}
	if !w.probe.Found {
		w.eng.Submit(&w.probe)
	}
	w.err = w.probe.Err
	return w.probe.Found || w.err != nil
}

// WaitProbe drives progress until a message matching (source, tag, ctx)
// has arrived, and returns its status without receiving it. It fails if
// the engine fails first, since no message can arrive after that.
func (ep *Endpoint) WaitProbe(source int, tag int32, ctx uint32) (Status, error) {
	w := &probeWait{eng: ep.eng, probe: ProbeOp{Source: source, Tag: tag, Ctx: ctx}}
	ep.Wait(w)
	if w.err != nil {
		return Status{}, w.err
	}
	return w.probe.Status, nil
}

// Mprobe runs one round of progress and takes the earliest unexpected
// message matching (source, tag, ctx) out of the matching (ProbeOp with
// Take).
func (ep *Endpoint) Mprobe(source int, tag int32, ctx uint32) (*Matched, bool) {
	ep.mu.Lock()
	ep.progress()
	p := &ep.probeOp
	p.reset(source, tag, ctx, true)
	ep.eng.Submit(p)
	ep.drain()
	m, ok := p.Message, p.Found
	*p = ProbeOp{}
	ep.mu.Unlock()
	return m, ok
}

// WaitMprobe drives progress until a message matching (source, tag, ctx)
// has arrived and takes it out of the matching. It fails if the engine
// fails first.
func (ep *Endpoint) WaitMprobe(source int, tag int32, ctx uint32) (*Matched, error) {
	w := &probeWait{eng: ep.eng, probe: ProbeOp{Source: source, Tag: tag, Ctx: ctx, Take: true}}
	ep.mu.Lock()
	ep.wait(w)
	ep.drain() // the acknowledgement of a synchronous message
	ep.mu.Unlock()
	if w.probe.Message == nil {
		return nil, w.err
	}
	return w.probe.Message, nil
}

// RecvMatched starts receiving m, which Mprobe or WaitMprobe took, into
// op (op.Message) and reports whether it is already done.
func (ep *Endpoint) RecvMatched(m *Matched, op *RecvOp) bool {
	op.Message = m
	ep.mu.Lock()
	ep.eng.Submit(op)
	ep.drain()
	done := op.done
	ep.mu.Unlock()
	return done
}

// idleWait is a Completion that is done when the engine has nothing in
// flight (or has failed).
type idleWait struct{ eng *Engine }

func (w idleWait) Done() bool {
	st := w.eng.State()
	return st.Idle || st.Err != nil
}

// WaitIdle drives progress until the engine has nothing in flight.
func (ep *Endpoint) WaitIdle() { ep.Wait(idleWait{ep.eng}) }

// Stats returns the engine's counters.
func (ep *Endpoint) Stats() Counters {
	ep.mu.Lock()
	s := ep.eng.State().Stats
	ep.mu.Unlock()
	return s
}

// Statistics is what an endpoint counts: the engine's counters, the
// transport's, how waiting went, and the settings in force.
type Statistics struct {
	Protocol Counters
	// Network is the transport's name (Caps.Name), NetworkCounters its
	// counters when it reports some (StatsReporter).
	Network         string
	NetworkCounters []Stat
	Wait            WaitStats
	Config          Config
}

// Statistics returns the endpoint's counters, read together.
func (ep *Endpoint) Statistics() Statistics {
	ep.lock()
	st := Statistics{Protocol: ep.eng.State().Stats, Network: ep.tr.Caps().Name, Config: ep.eng.Config(),
		Wait: ep.waitStats()}
	if sr, ok := ep.tr.(StatsReporter); ok {
		st.NetworkCounters = sr.Stats()
	}
	ep.drain()
	ep.unlock()
	return st
}

// WaitStats returns how waiting went.
func (ep *Endpoint) WaitStats() WaitStats {
	ep.mu.Lock()
	s := ep.waitStats()
	ep.mu.Unlock()
	return s
}

func (ep *Endpoint) waitStats() WaitStats {
	return WaitStats{Waits: ep.waits, Sleeps: ep.sleeps, Unpinned: ep.crowd.unpinned.Load(), Beside: ep.crowd.besideSeen.Load()}
}

// Err returns the engine's fatal error, if any.
func (ep *Endpoint) Err() error {
	ep.mu.Lock()
	err := ep.eng.Err()
	ep.mu.Unlock()
	return err
}

// RMA starts a one-sided operation and reports whether it is already done
// (then with its error, if it failed before it was issued).
func (ep *Endpoint) RMA(op *RMAOp) bool {
	ep.lock()
	ep.eng.Submit(op)
	ep.drain()
	done := op.done
	ep.unlock()
	return done
}

// RMAFlush waits until every one-sided operation to peer (every peer when
// negative) is complete at the target: the operations in flight are done
// and, on a transport that completes writes before they are in place
// (Caps.Async), a read behind the last writes has come back (FlushOp). It
// returns the error of a settling read; the operations' own errors are
// theirs.
func (ep *Endpoint) RMAFlush(peer int) error {
	ep.lock()
	f := ep.freeFlushes.get()
	f.Peer, f.Settle = peer, ep.tr.Caps().Async
	ep.eng.Submit(f)
	ep.drain()
	if !f.Done() { // a network that completed them at once needs no wait
		ep.wait(f)
	}
	err := f.Err()
	ep.freeFlushes.put(f)
	ep.unlock()
	return err
}

// Expose registers memory for one-sided operations (ExposeOp), or
// releases it when withdraw is true (Unexpose), and waits until done.
func (ep *Endpoint) Expose(op *ExposeOp, withdraw bool) error {
	ep.lock()
	if withdraw {
		ep.eng.Submit(Unexpose{op})
	} else {
		ep.eng.Submit(op)
	}
	ep.drain()
	ep.wait(op)
	ep.unlock()
	return op.err
}
