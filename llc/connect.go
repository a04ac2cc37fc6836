package llc

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
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
// acknowledgement into the responder's area.
const (
	bootLock = 0
	bootReq  = 64
	bootTxn  = 128
)

// BootSize returns the bootstrap area size for a job of n processes.
func BootSize(n int) int { return bootTxn + 2*cell*n }

type bootArea struct {
	mem []byte
	n   int
}

func txnOff(i int) uint64               { return bootTxn + uint64(cell*i) }
func (b *bootArea) ackOff(i int) uint64 { return bootTxn + uint64(cell*(b.n+i)) }

// connect starts the connection protocol towards dst.
func (e *Engine) connect(dst int) {
	p := &e.peers[dst]
	if p.conn != connIdle {
		return
	}
	p.conn = connLocking
	e.emit(&Command{Kind: CmdCAS, Peer: dst, Region: e.cfg.Boot[dst], Off: bootLock,
		Old: 0, New: uint64(e.cfg.Self) + 1, Token: token(tokConnCAS, uint64(dst))})
}

func (e *Engine) onConnCAS(dst int, ev Event) {
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
	e.connecting++
	e.stats.Connections++
	e.emit(&Command{Kind: CmdWrite, Peer: dst, Region: e.cfg.Boot[dst],
		Signal: uint64(e.cfg.Self) + 1, SigOff: bootReq})
}

// pollConnect serves a connection request aimed at this process and
// completes connections this process requested.
func (e *Engine) pollConnect() bool {
	progressed := false
	b := &e.boot
	if req := atomic.LoadUint64(word(b.mem, bootReq)); req != 0 {
		atomic.StoreUint64(word(b.mem, bootReq), 0)
		from := int(req - 1)
		if from < 0 || from >= e.cfg.Size {
			e.fail(fmt.Errorf("llc: corrupt connection request %#x", req))
			return true
		}
		size := ringCtl + e.cfg.RingSize
		if e.granted+size > e.cfg.RingCap {
			e.reply(from, 0, refusedCap)
		} else {
			e.granted += size
			e.emit(&Command{Kind: CmdAlloc, Size: size, Token: token(tokRingAlloc, uint64(from))})
		}
		progressed = true
	}
	for dst := 0; e.connecting > 0 && dst < len(e.peers); dst++ {
		p := &e.peers[dst]
		if p.conn != connRequested {
			continue
		}
		slot := txnOff(dst)
		if atomic.LoadUint64(word(b.mem, slot)) == 0 {
			continue
		}
		region := RegionID(binary.LittleEndian.Uint64(b.mem[slot+8:]))
		size := binary.LittleEndian.Uint64(b.mem[slot+16:])
		atomic.StoreUint64(word(b.mem, slot), 0)
		progressed = true
		e.connecting--
		switch {
		case region == 0 && size == refusedCap:
			p.conn = connFailed
			p.err = fmt.Errorf("llc: connecting to process %d: %w (its ring memory cap is reached)", dst, ErrNoRing)
		case region == 0:
			p.conn = connFailed
			p.err = fmt.Errorf("llc: connecting to process %d: %w (it could not register a ring)", dst, ErrNoRing)
		case size < 4*cell || size&(size-1) != 0:
			e.fail(fmt.Errorf("llc: process %d granted a ring of %d bytes, not a power of two of at least %d", dst, size, 4*cell))
			return true
		case e.pm && size < 2*pmRecordSize(recordSize(e.cfg.EagerLimit)):
			e.fail(fmt.Errorf("llc: process %d granted a ring of %d bytes, too small for 2 PM records of the eager limit %d", dst, size, e.cfg.EagerLimit))
			return true
		default:
			p.conn = connUp
			p.out = outRing{region: region, size: size}
			e.emit(&Command{Kind: CmdWrite, Peer: dst, Region: e.cfg.Boot[dst], Signal: 1, SigOff: b.ackOff(e.cfg.Self)})
		}
		e.connSettled()
		e.trySend(dst)
	}
	return progressed
}

func (e *Engine) onRingAlloc(from int, ev Event) {
	if ev.Kind == EvError {
		e.granted -= ringCtl + e.cfg.RingSize
		e.reply(from, 0, refusedAlloc)
		return
	}
	region := RegionID(ev.Value)
	e.inbound = append(e.inbound, newInRing(from, region, ev.Mem))
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
// and releases this process's common command slot.
func (e *Engine) reply(to int, region RegionID, size uint64) {
	c := Command{Kind: CmdWrite, Peer: to, Region: e.cfg.Boot[to], Off: txnOff(e.cfg.Self) + 8,
		Signal: 1, SigOff: txnOff(e.cfg.Self), HeadLen: 16}
	binary.LittleEndian.PutUint64(c.Head[0:], uint64(region))
	binary.LittleEndian.PutUint64(c.Head[8:], size)
	e.emit(&c)
	atomic.StoreUint64(word(e.boot.mem, bootLock), 0)
}
