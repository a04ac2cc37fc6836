package llc

import (
	"errors"
	"fmt"
	"math"
)

// One-sided operations (RMA) on memory another process registered: the
// engine turns each into one IR command (a put into CmdWrite, a get into
// CmdRead, the 8-byte atomics into CmdCAS and CmdFetchAdd) whose token
// names the operation, and completes the operation with the command's
// event. The target takes no part: the network serves the command. A
// combination (RMACombine) is the exception: on networks that serve it
// (Caps.Combine), the target applies it (combine.go).
//
// A transport may complete a write once its data has left (Caps.Async:
// TCP completes it once it is on the socket), before the target's memory
// holds it. Since commands to one peer take effect in the order they were
// issued, a flush settles such writes with a read of one byte behind them:
// once the read completes, every earlier write to that peer is in place.
// Since that read follows every put, a put's write is Lazy: TCP sends a
// Put and its Flush's read in one system call.

// RMAKind is the kind of a one-sided operation.
type RMAKind uint8

// One-sided operations.
const (
	// RMAPut writes Data at (Peer, Region, Off).
	RMAPut RMAKind = iota + 1
	// RMAGet reads len(Data) bytes at (Peer, Region, Off) into Data.
	RMAGet
	// RMACompareSwap replaces the 8-byte word at (Peer, Region, Off) by
	// Operand if it equals Compare; Result is the previous word.
	RMACompareSwap
	// RMAFetchAdd adds Operand to the 8-byte word at (Peer, Region, Off);
	// Result is the previous word.
	RMAFetchAdd
	// RMACombine combines Data into the bytes at (Peer, Region, Off) with
	// the Combiner of Code, under the ticket lock whose word is at
	// (Peer, LockRegion, LockOff), and copies the bytes before into Fetch
	// unless it is nil: len(Fetch) bytes are combined when it is not
	// nil, else len(Data) (at most MaxCombine, and as much operand).
	// With LockRegion 0 the bytes are combined word by word, each 8-byte
	// word atomically, as the network's atomics change them
	// (CombineWords): Off and the length are then multiples of 8. Only
	// networks that report Caps.Combine serve it, and never at this
	// process itself (its memory is its own to combine).
	RMACombine
)

var rmaNames = [...]string{"", "put", "get", "compare-and-swap", "fetch-and-add", "combination"}

func (k RMAKind) String() string {
	if int(k) < len(rmaNames) && k != 0 {
		return rmaNames[k]
	}
	return fmt.Sprintf("RMAKind(%d)", k)
}

// Errors of one-sided operations, matched with errors.Is.
var (
	// ErrRMARange: the operation reaches outside the target region.
	ErrRMARange = errors.New("outside the target region")
	// ErrRMAAlign: an atomic operation on a word that is not 8-byte
	// aligned in its region.
	ErrRMAAlign = errors.New("atomic operation on an unaligned word")
)

// RMAOp is one one-sided operation on the registered memory of process
// Peer. The caller fills the exported fields except Result; the engine
// completes it. Data must not be used by the caller until the op is done.
type RMAOp struct {
	Kind   RMAKind
	Peer   int
	Region RegionID
	Off    uint64
	// Limit is the size in bytes of the target region as its owner
	// published it: an operation that reaches past it fails with
	// ErrRMARange before anything is sent.
	Limit uint64
	// Data is the source of a put and the destination of a get.
	Data []byte
	// Compare and Operand are the arguments of the atomics: the expected
	// and the new word of a compare-and-swap, the addend of a
	// fetch-and-add.
	Compare, Operand uint64
	// Result is the word before an atomic operation, once done.
	Result uint64
	// Code, Fetch, LockRegion and LockOff are RMACombine's: the
	// combination, where the bytes before go (nil: not wanted), and the
	// place of its lock's word in the target's memory.
	Code       uint32
	Fetch      []byte
	LockRegion RegionID
	LockOff    uint64

	done bool
	err  error
}

// Done reports whether the operation completed.
func (o *RMAOp) Done() bool { return o.done }

// Err returns the operation's error once done.
func (o *RMAOp) Err() error { return o.err }

func (o *RMAOp) finish(err error) { o.done, o.err = true, err }

// rmaState is the engine's bookkeeping of one-sided operations.
type rmaState struct {
	// slots hold the operations in flight; free are the empty ones. An
	// operation's id names its slot (rmaSlotBits) and a sequence number,
	// so that a stale event finds its slot taken by another id.
	slots    []rmaSlot
	free     []uint32
	inflight int
	seq      uint64
	pending  []int // operations in flight, per peer
	// unsettled marks the peers written to since their last settling
	// read, and last the place of the last write to each (where the
	// settling read reads).
	unsettled []bool
	last      []rmaPlace
	probe     [1]byte // destination of settling reads
	// exposing are the registrations and releases in flight.
	exposing map[uint64]*ExposeOp
}

type rmaPlace struct {
	region RegionID
	off    uint64
}

type rmaSlot struct {
	id uint64
	op *RMAOp // nil: free
}

// rmaSlotBits is the share of an operation's id that names its slot.
const rmaSlotBits = 24

func (r *rmaState) init(n int) {
	if r.pending == nil {
		r.pending = make([]int, n)
		r.unsettled = make([]bool, n)
		r.last = make([]rmaPlace, n)
	}
}

// add puts op in a slot and returns its id.
func (r *rmaState) add(op *RMAOp) uint64 {
	var slot uint32
	if n := len(r.free); n > 0 {
		slot, r.free = r.free[n-1], r.free[:n-1]
	} else {
		slot = uint32(len(r.slots))
		r.slots = append(r.slots, rmaSlot{})
	}
	r.seq++
	id := r.seq<<rmaSlotBits | uint64(slot)
	r.slots[slot] = rmaSlot{id: id, op: op}
	r.inflight++
	r.pending[op.Peer]++
	return id
}

// take removes the operation of id and returns it, or nil if none has
// that id (it failed with the engine meanwhile).
func (r *rmaState) take(id uint64) *RMAOp {
	slot := id & (1<<rmaSlotBits - 1)
	if slot >= uint64(len(r.slots)) || r.slots[slot].id != id || r.slots[slot].op == nil {
		return nil
	}
	op := r.slots[slot].op
	r.slots[slot] = rmaSlot{}
	r.free = append(r.free, uint32(slot))
	r.inflight--
	r.pending[op.Peer]--
	return op
}

// rmaStart starts op. It fails op at once (done, with an error) when the engine
// has failed, the peer does not exist, or the operation is outside its
// region or, for an atomic one, unaligned; otherwise op completes with the
// event of its command, during this call or a later Step.
func (e *Engine) rmaStart(op *RMAOp) {
	op.done, op.err, op.Result = false, nil, 0
	if err := e.checkRMA(op); err != nil {
		op.finish(err)
		return
	}
	e.rma.init(e.cfg.Size)
	if e.rma.inflight >= 1<<rmaSlotBits {
		op.finish(fmt.Errorf("llc: %v at process %d: %d one-sided operations in flight already", op.Kind, op.Peer, 1<<rmaSlotBits))
		return
	}
	id := e.rma.add(op)
	c := Command{Peer: op.Peer, Region: op.Region, Off: op.Off, Token: token(tokRMA, id)}
	switch op.Kind {
	case RMAPut:
		c.Kind, c.Data = CmdWrite, op.Data
		e.stats.RMAPuts++
		e.stats.RMABytes += uint64(len(op.Data))
		if len(op.Data) > 0 {
			c.Lazy = true // the flush's settling read follows it
			e.rma.unsettled[op.Peer] = true
			e.rma.last[op.Peer] = rmaPlace{op.Region, op.Off}
		}
	case RMAGet:
		c.Kind, c.Data = CmdRead, op.Data
		e.stats.RMAGets++
		e.stats.RMABytes += uint64(len(op.Data))
	case RMACompareSwap:
		c.Kind, c.Old, c.New = CmdCAS, op.Compare, op.Operand
		e.stats.RMAAtomics++
	case RMAFetchAdd:
		c.Kind, c.New = CmdFetchAdd, op.Operand
		e.stats.RMAAtomics++
	case RMACombine:
		c.Kind, c.Data, c.Result, c.New = CmdCombine, op.Data, op.Fetch, uint64(op.Code)
		c.Size, c.Old = int(op.LockRegion), op.LockOff
		e.stats.RMACombines++
		e.stats.RMABytes += uint64(op.combined())
	}
	e.emit(&c)
}

// checkRMA checks op before it is issued.
func (e *Engine) checkRMA(op *RMAOp) error {
	if e.err != nil {
		return e.err
	}
	if op.Peer < 0 || op.Peer >= e.cfg.Size {
		return fmt.Errorf("llc: %v at process %d: only %d processes", op.Kind, op.Peer, e.cfg.Size)
	}
	n := uint64(8)
	switch op.Kind {
	case RMAPut, RMAGet:
		n = uint64(len(op.Data))
	case RMACompareSwap, RMAFetchAdd:
		if op.Off%8 != 0 {
			return fmt.Errorf("llc: %v at offset %d of process %d's region %d: %w", op.Kind, op.Off, op.Peer, op.Region, ErrRMAAlign)
		}
	case RMACombine:
		if err := e.checkCombine(op); err != nil {
			return err
		}
		n = uint64(op.combined())
	default:
		return fmt.Errorf("llc: unknown one-sided operation %d", op.Kind)
	}
	if op.Off > op.Limit || n > op.Limit-op.Off {
		return fmt.Errorf("llc: %v of %d bytes at offset %d of process %d's region of %d bytes: %w",
			op.Kind, n, op.Off, op.Peer, op.Limit, ErrRMARange)
	}
	if n > 0 && op.Region == 0 {
		return fmt.Errorf("llc: %v at process %d: no region", op.Kind, op.Peer)
	}
	return nil
}

// combined returns the number of bytes an RMACombine combines.
func (o *RMAOp) combined() int {
	if o.Fetch != nil {
		return len(o.Fetch)
	}
	return len(o.Data)
}

// checkCombine checks what an RMACombine needs beyond the checks of
// every operation: a target other than this process, at most MaxCombine
// bytes, a lock word or whole words.
func (e *Engine) checkCombine(op *RMAOp) error {
	switch n := op.combined(); {
	case op.Peer == e.cfg.Self:
		return fmt.Errorf("llc: %v at process %d, this process itself", op.Kind, op.Peer)
	case n == 0 || n > MaxCombine || len(op.Data) > MaxCombine:
		return fmt.Errorf("llc: %v of %d bytes with %d of operand (1 to %d bytes)", op.Kind, n, len(op.Data), MaxCombine)
	case op.LockRegion == 0 && (op.Off%8 != 0 || n%8 != 0):
		return fmt.Errorf("llc: %v of %d bytes at offset %d of process %d's region %d, word by word: %w", op.Kind, n, op.Off, op.Peer, op.Region, ErrRMAAlign)
	case op.LockOff%8 != 0 || op.LockOff > math.MaxUint32:
		return fmt.Errorf("llc: %v at process %d: its lock's word at offset %d of region %d: %w", op.Kind, op.Peer, op.LockOff, op.LockRegion, ErrRMAAlign)
	}
	return nil
}

// onRMA completes the operation of id with its command's event.
func (e *Engine) onRMA(id uint64, ev *Event) {
	op := e.rma.take(id)
	if op == nil {
		return // failed with the engine meanwhile
	}
	if ev.Kind == EvError {
		op.finish(fmt.Errorf("llc: %v of %d bytes at offset %d of process %d: %w", op.Kind, len(op.Data), op.Off, op.Peer, ev.Err))
		return
	}
	op.Result = ev.Value
	op.finish(nil)
}

// rmaPending returns the number of one-sided operations in flight to peer,
// or to every peer when peer is negative.
func (e *Engine) rmaPending(peer int) int {
	if e.rma.pending == nil {
		return 0
	}
	if peer < 0 {
		return e.rma.inflight
	}
	if peer >= e.cfg.Size {
		return 0
	}
	return e.rma.pending[peer]
}

// rmaSettle starts, for peer (every peer when negative), a read of one
// byte behind the writes not settled yet, and appends those reads to
// reads: once they and every earlier operation to their peers are done,
// the writes are in the targets' memory. Transports that complete writes
// only once they are in place (not Caps.Async) need none: settle false
// only marks the writes settled. A flush of one peer looks at that
// peer's mark alone.
func (e *Engine) rmaSettle(peer int, settle bool, reads []*RMAOp) []*RMAOp {
	if peer >= 0 {
		if peer < len(e.rma.unsettled) && e.rma.unsettled[peer] {
			reads = e.settlePeer(peer, settle, reads)
		}
		return reads
	}
	for p, dirty := range e.rma.unsettled {
		if dirty {
			reads = e.settlePeer(p, settle, reads)
		}
	}
	return reads
}

// settlePeer is rmaSettle's for peer p, whose writes are not settled.
func (e *Engine) settlePeer(p int, settle bool, reads []*RMAOp) []*RMAOp {
	e.rma.unsettled[p] = false
	if !settle {
		return reads
	}
	at := e.rma.last[p]
	op := &RMAOp{Kind: RMAGet, Peer: p, Region: at.region, Off: at.off, Limit: at.off + 1, Data: e.rma.probe[:]}
	e.rmaStart(op)
	e.stats.RMAGets-- // not the caller's
	e.stats.RMABytes--
	e.stats.RMASettles++
	return append(reads, op)
}

// failRMA completes every one-sided operation in flight with err.
func (e *Engine) failRMA(err error) {
	for i := range e.rma.slots {
		if op := e.rma.slots[i].op; op != nil {
			e.rma.take(e.rma.slots[i].id)
			op.finish(err)
		}
	}
	for id, op := range e.rma.exposing {
		op.done, op.err = true, err
		delete(e.rma.exposing, id)
	}
	clear(e.rma.pending)
}

// ExposeOp makes memory of this process a target of one-sided operations
// of process Peer, or withdraws it (Submit it, or Unexpose of it).
type ExposeOp struct {
	Peer int
	// Data is the memory to register; when Size is not 0, the network
	// gives Size bytes of zeroed memory instead (CmdAlloc), which is Mem
	// once done: memory on which every network does atomic operations.
	Data []byte
	Size int
	// Region names the memory once done (Expose); the region to release
	// (Withdraw).
	Region RegionID
	Mem    []byte

	done bool
	err  error
}

// Done reports whether the registration or release completed.
func (o *ExposeOp) Done() bool { return o.done }

// Err returns its error once done.
func (o *ExposeOp) Err() error { return o.err }

// expose registers op.Data, or allocates op.Size bytes, for one-sided
// operations of process op.Peer.
func (e *Engine) expose(op *ExposeOp) {
	c := Command{Kind: CmdRegister, Peer: op.Peer, Data: op.Data}
	if op.Size != 0 {
		c = Command{Kind: CmdAlloc, Peer: op.Peer, Size: op.Size}
	}
	e.startExpose(op, c)
}

func (e *Engine) startExpose(op *ExposeOp, c Command) {
	op.done, op.err = false, nil
	if e.err != nil {
		op.done, op.err = true, e.err
		return
	}
	if c.Kind != CmdRelease {
		op.Region, op.Mem = 0, nil
	}
	if e.rma.exposing == nil {
		e.rma.exposing = make(map[uint64]*ExposeOp)
	}
	id := e.newID()
	e.rma.exposing[id] = op
	c.Token = token(tokExpose, id)
	e.emit(&c)
}

func (e *Engine) onExpose(id uint64, ev *Event) {
	op := e.rma.exposing[id]
	if op == nil {
		return
	}
	delete(e.rma.exposing, id)
	op.done = true
	if ev.Kind == EvError {
		op.err = fmt.Errorf("llc: window memory of process %d: %w", op.Peer, ev.Err)
		return
	}
	if op.Region == 0 {
		op.Region, op.Mem = RegionID(ev.Value), ev.Mem
	}
}
