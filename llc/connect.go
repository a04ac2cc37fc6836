package llc

import (
	"github.com/rhinet-go/martini/llc/layout"

	"encoding/binary"
	"fmt"
)

// The bootstrap area of every process is registered at start-up and its
// region published through the management data store, so every process can
// reach every other's. Layout (n processes):
//
//	[0, 64)                 common command slot lock (0: free, else initiator+1)
//	[64, 128)               common command slot request (initiator+1)
//	[128+64i, 192+64i)      transaction slot for responder i: reply signal,
//	                        ring region, ring size
//	[128+64n+64i, ...)      acknowledgement from initiator i
//
// Connection (lazy, on the first send to a peer; in EagerPM mode, to every
// process when the engine starts): the initiator takes the responder's
// common slot by remote compare-and-swap and writes its id into it; the
// responder, polling, allocates a ring for the initiator (first come, first
// served, within its total cap), answers in the initiator's transaction
// slot, and releases the common slot; the initiator then writes an
// acknowledgement into the responder's area. The responder stops polling
// its slot once every other process has asked (requestWatch).
const (
	bootLock = 0
	bootReq  = 64
	bootTxn  = 128
)

// BootSize returns the bootstrap area size for a job of n processes.
func BootSize(n int) int { return bootTxn + 2*cell*n }

func txnOff(i int) uint64             { return bootTxn + uint64(cell*i) }
func (e *Engine) ackOff(i int) uint64 { return bootTxn + uint64(cell*(e.cfg.Size+i)) }

// txnSlot is the size of a transaction slot's reply: the signal word, the
// ring region and the ring size.
const txnSlot = 24

// AllocBoot allocates the bootstrap area of process self of a job of size
// processes on tr, through the IR (CmdAlloc), and returns its region, to
// be published in the management data store and given to the engine as
// Config.Boot[self].
func AllocBoot(tr Transport, self, size int) (RegionID, error) {
	ev := Outcome(tr.Execute(&Command{Kind: CmdAlloc, Peer: self, Size: BootSize(size), Token: 1}))
	switch {
	case ev.Kind == EvError:
		return 0, fmt.Errorf("llc: allocating the %d-byte bootstrap area: %w", BootSize(size), ev.Err)
	case ev.Kind != EvDone || ev.Value == 0:
		return 0, fmt.Errorf("llc: allocating the bootstrap area: event %d with region %d", ev.Kind, ev.Value)
	}
	return RegionID(ev.Value), nil
}

// requestWatch is the state of the watch of this process's request
// slot. others counts the connection requests served from other
// processes, each of which makes one at most; watching tells whether the
// slot is watched. Once every other process has asked, the slot is
// watched only while this process's own connection to itself needs it,
// and polls skip its look (watchRequests, onConnRequest, connect).
type requestWatch struct {
	others   int
	watching bool
}

// watchRequests asks for the next connection request to this process.
func (e *Engine) watchRequests() {
	e.requests.watching = true
	e.emit(&Command{Kind: CmdWatchSlot, Peer: e.cfg.Self, Region: e.cfg.Boot[e.cfg.Self], Off: bootReq, Size: 8, Token: token(tokConnReq, 0)})
}

// connect starts the connection protocol towards dst.
func (e *Engine) connect(dst int) {
	p := &e.peers[dst]
	if p.conn != connIdle {
		return
	}
	if dst == e.cfg.Self && !e.requests.watching && e.cfg.Eager != EagerQueue {
		e.watchRequests() // its own request comes after every other's
	}
	p.conn = connLocking
	e.emit(&Command{Kind: CmdCAS, Peer: dst, Region: e.cfg.Boot[dst], Off: bootLock,
		Old: 0, New: uint64(e.cfg.Self) + 1, Token: token(tokConnCAS, uint64(dst))})
}

func (e *Engine) onConnCAS(dst int, ev *Event) {
	p := &e.peers[dst]
	if ev.Kind == EvError {
		p.conn, p.err = connFailed, fmt.Errorf("llc: connecting to process %d: %w", dst, ev.Err)
		e.connSettled()
		e.trySend(dst)
		return
	}
	if ev.Value != 0 {
		// Another initiator holds the slot: try again on a later poll.
		e.stats.ConnectRetries++
		p.conn = connIdle
		return
	}
	p.conn = connRequested
	e.stats.Connections++
	e.emit(&Command{Kind: CmdWatchSlot, Peer: e.cfg.Self, Region: e.cfg.Boot[e.cfg.Self], Off: txnOff(dst), Size: txnSlot,
		Token: token(tokConnReply, uint64(dst))})
	e.emit(&Command{Kind: CmdWrite, Peer: dst, Region: e.cfg.Boot[dst],
		Signal: uint64(e.cfg.Self) + 1, SigOff: bootReq})
}

// onConnRequest serves a connection request aimed at this process: it
// allocates a ring for the initiator, unless the ring memory cap is
// reached, and watches for the next request where one may still come:
// from another process that has not asked (each asks once at most: a
// refused one does not retry), or from this process itself, whose
// connection to itself, if it starts later, watches again (connect).
func (e *Engine) onConnRequest(ev *Event) {
	if ev.Kind != EvSignal {
		e.fail(fmt.Errorf("llc: watching for connection requests: %w", ev.Err))
		return
	}
	from := int(ev.Value - 1)
	if from < 0 || from >= e.cfg.Size {
		e.fail(fmt.Errorf("llc: corrupt connection request %#x", ev.Value))
		return
	}
	w := &e.requests
	w.watching = false
	if from != e.cfg.Self {
		w.others++
	}
	if w.others < e.cfg.Size-1 || e.peers[e.cfg.Self].conn == connLocking {
		e.watchRequests()
	}
	size := ringCtl + e.cfg.RingSize
	if e.granted+size > e.cfg.RingCap {
		e.reply(from, 0, refusedCap)
		return
	}
	e.granted += size
	e.emit(&Command{Kind: CmdAlloc, Peer: from, Size: size, Token: token(tokRingAlloc, uint64(from))})
}

// onConnReply completes the connection to dst with its reply: the ring it
// granted, or why it refused.
func (e *Engine) onConnReply(dst int, ev *Event) {
	p := &e.peers[dst]
	switch {
	case ev.Kind != EvSignal:
		e.fail(fmt.Errorf("llc: watching for the connection reply of process %d: %w", dst, ev.Err))
		return
	case dst >= len(e.peers) || p.conn != connRequested || len(ev.Data) < txnSlot-8:
		e.fail(fmt.Errorf("llc: connection reply of process %d that no request awaits", dst))
		return
	}
	region := RegionID(binary.LittleEndian.Uint64(ev.Data[0:]))
	size := binary.LittleEndian.Uint64(ev.Data[8:])
	switch {
	case region == 0 && size == refusedCap:
		p.conn = connFailed
		p.err = fmt.Errorf("llc: connecting to process %d: %w (its ring memory cap is reached)", dst, ErrNoRing)
	case region == 0:
		p.conn = connFailed
		p.err = fmt.Errorf("llc: connecting to process %d: %w (it could not register a ring)", dst, ErrNoRing)
	case size < 4*cell || size&(size-1) != 0:
		e.fail(fmt.Errorf("llc: process %d granted a ring of %d bytes, not a power of two of at least %d", dst, size, 4*cell))
		return
	case e.pm && size < 2*pmRecordSize(layout.RecordSize(e.cfg.EagerLimit)):
		e.fail(fmt.Errorf("llc: process %d granted a ring of %d bytes, too small for 2 PM records of the eager limit %d", dst, size, e.cfg.EagerLimit))
		return
	default:
		p.conn = connUp
		p.out = outRing{region: region, size: size}
		if dst < e.cfg.Self {
			e.openLine(dst, dst, region) // the line is in the ring dst granted
		}
		e.emit(&Command{Kind: CmdWrite, Peer: dst, Region: e.cfg.Boot[dst], Signal: 1, SigOff: e.ackOff(e.cfg.Self)})
	}
	e.connSettled()
	e.trySend(dst)
}

func (e *Engine) onRingAlloc(from int, ev *Event) {
	if ev.Kind == EvError {
		e.granted -= ringCtl + e.cfg.RingSize
		e.reply(from, 0, refusedAlloc)
		return
	}
	region := RegionID(ev.Value)
	e.emit(&Command{Kind: CmdWatchRing, Peer: from, Region: region})
	if e.cfg.Self < from {
		e.openLine(from, e.cfg.Self, region) // the line is in the ring granted here
	}
	e.rings++
	e.stats.RingsGranted++
	e.stats.RingBytes += uint64(len(ev.Mem))
	e.reply(from, region, uint64(len(ev.Mem)-ringCtl))
}

// Reasons for refusing a connection, sent as the ring size of a reply
// whose region is 0.
const (
	refusedCap   = 1 // the ring memory cap is reached
	refusedAlloc = 2 // the ring could not be allocated or registered
)

// reply answers a connection request in the initiator's transaction slot
// and releases this process's common command slot, which the initiator
// holds, by compare-and-swap.
func (e *Engine) reply(to int, region RegionID, size uint64) {
	c := Command{Kind: CmdWrite, Peer: to, Region: e.cfg.Boot[to], Off: txnOff(e.cfg.Self) + 8,
		Signal: 1, SigOff: txnOff(e.cfg.Self), HeadLen: 16}
	binary.LittleEndian.PutUint64(c.Head[0:], uint64(region))
	binary.LittleEndian.PutUint64(c.Head[8:], size)
	e.emit(&c)
	e.emit(&Command{Kind: CmdCAS, Peer: e.cfg.Self, Region: e.cfg.Boot[e.cfg.Self], Off: bootLock, Old: uint64(to) + 1})
}
