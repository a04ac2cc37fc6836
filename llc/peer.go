package llc

import (
	"encoding/binary"
	"fmt"
)

// A peer, as the sender sees it: the connection to it, and the records
// that wait for the connection or for room in its ring (the ring and the
// shared line they go into are in eager.go).

type connState uint8

const (
	connIdle      connState = iota // no connection, none requested
	connLocking                    // CAS on the responder's common command slot issued
	connRequested                  // request written, waiting for the reply
	connUp                         // ring granted
	connFailed                     // the responder refused (no ring memory)
	connQueue                      // EagerQueue: no connection, records go to the peer's queue
)

// peer is the sending side's state for one destination process.
type peer struct {
	conn connState
	out  outRing
	err  error
	// tailPending: a read of the consumer count is in flight.
	tailPending bool
	tailBuf     [8]byte
	// full: the record at the head of the queue found the ring full (it
	// is counted in RingFull once, however many times it is retried), or
	// the peer's receive queue full (EagerQueue).
	full bool
	// enqPending: the CmdEnqueue of the record at the head of the queue
	// is in flight (EagerQueue).
	enqPending bool

	// q holds records waiting for the connection or for ring space, in
	// order.
	q fifo[outItem]
	// line is the pair's shared line (eager.go).
	line lineState
}

// outItem is a record waiting to be written: a user send (eager or RTS) or
// a control record.
type outItem struct {
	op   *SendOp // user send, or nil for control
	rndv bool
	kind uint8 // control record kind
	aux  uint64
	ctl  [recInline]byte // a control record's body: it fits the first cell
	clen int
	// A payload in several queue records (parts.go): the bytes whose
	// records are in the receiver's queue, and those of the record in
	// flight (0: none, or a message in one record).
	sent, inflight int
}

// Control record bodies fit an outItem and the first cell of a record.
var (
	_ [recInline - ctsSize]byte
	_ [recInline - rtsSize]byte
)

func (p *peer) queued() bool { return p.q.n > 0 }

func (p *peer) enqueue(it outItem) { p.q.push(it) }

func (p *peer) failQueued(err error) {
	for ; p.q.n > 0; p.q.pop() {
		if op := p.q.front().op; op != nil && !op.done {
			op.finish(err)
		}
	}
}

// trySend writes queued records to peer dst while the connection is up and
// its ring has room, and reports whether it wrote any.
func (e *Engine) trySend(dst int) bool {
	p := &e.peers[dst]
	switch p.conn {
	case connIdle:
		e.connect(dst)
		return false
	case connFailed:
		return e.failQueue(p)
	case connQueue:
		return e.trySendQueue(dst)
	case connUp:
	default:
		return false
	}
	wrote := false
	for p.q.n > 0 {
		it := p.q.front()
		var ok bool
		switch {
		case it.op == nil:
			ok = e.writeRecord(dst, it.kind, 0, 0, 0, it.aux, it.ctl[:it.clen], nil)
		case it.op.done:
			ok = true // failed before it could be sent
		case it.rndv:
			if !rndvReady(it.op, e.cfg.Rendezvous) {
				return wrote
			}
			ok = e.writeRTS(dst, it.op)
		case e.inParts(it.op):
			ok = e.writeParts(dst, it)
		default:
			ok = e.writeEager(dst, it.op)
		}
		if !ok {
			e.refreshTail(dst)
			return wrote
		}
		wrote = true
		p.q.pop()
		if p.q.n == 0 {
			e.blocked--
		}
	}
	return wrote
}

// failQueue fails the sends queued to p, whose connection failed, with
// its error, and reports whether there were any.
func (e *Engine) failQueue(p *peer) bool {
	if p.q.n == 0 {
		return false
	}
	e.blocked--
	// Rendezvous sends that never sent their RTS: forget them and
	// their registration (one still in flight is released when it
	// completes, see onRegSend).
	for i := range p.q.n {
		switch it := p.q.at(i); {
		case it.op == nil || it.op.done:
		case it.rndv:
			e.dropRndvSend(it.op)
		default:
			e.dropSync(it.op)
		}
	}
	p.failQueued(p.err)
	return true
}

// queueControl sends a control record to dst, behind any queued records.
func (e *Engine) queueControl(dst int, kind uint8, aux uint64, ctl []byte) {
	p := &e.peers[dst]
	if p.conn == connUp && p.q.n == 0 && e.writeRecord(dst, kind, 0, 0, 0, aux, ctl, nil) {
		return
	}
	it := outItem{kind: kind, aux: aux, clen: len(ctl)}
	copy(it.ctl[:], ctl)
	p.enqueue(it)
	if p.q.n == 1 {
		e.blocked++
	}
	e.trySend(dst)
}

// refreshTail reads dst's consumer count, unless a read is in flight: the
// ring looks full, and only then does the sender learn how far the
// receiver has consumed (thesis 8.3.1: PM/RHiNET's sender PULLs the
// receiver's released position only when the free space it knows of runs
// short). The read says what the engine knows, the count it last read: a
// transport may complete it only once the count has changed from that
// (ReadChanged), as a network in virtual time does.
func (e *Engine) refreshTail(dst int) {
	p := &e.peers[dst]
	if p.tailPending {
		return
	}
	p.tailPending = true
	e.stats.TailReads++
	c := e.command()
	c.Kind, c.Peer, c.Region, c.Data = CmdRead, dst, p.out.region, p.tailBuf[:]
	c.Old, c.Size, c.Token = p.out.tail, ReadChanged, token(tokTail, uint64(dst))
}

func (e *Engine) onTail(dst int, ev *Event) {
	p := &e.peers[dst]
	p.tailPending = false
	if ev.Kind == EvError {
		e.fail(fmt.Errorf("llc: reading the ring consumer count of process %d: %w", dst, ev.Err))
		return
	}
	if t := binary.LittleEndian.Uint64(p.tailBuf[:]); t > p.out.tail && t <= p.out.head {
		p.out.tail = t
	}
}
