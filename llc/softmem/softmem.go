// Package softmem is the memory side of a NIC done in software, which a
// translator needs when its network moves bytes but reaches no memory by
// itself (a byte stream, such as TCP): the regions the engine registers
// and allocates, on which the translator performs the writes, reads and
// atomics that arrive from peers (Serve); the requests a process sent
// and whose answers have not come (Requests); the commands a process
// addresses to itself, done at once; and the rings and slots the engine
// watches in that memory (shm.LocalMemory).
//
// It knows no network. A translator hands it the commands that need none
// (Execute) and the remote operations that arrived (Span, Word, Atomic),
// and polls it with its connections (Poll). A new network of this kind
// writes only its wire: what travels, and how. It is not safe for
// concurrent use.
package softmem

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/shm"
)

// Memory is one process's memory that peers may act on, by region.
type Memory struct {
	// ev is the event delivered to the sink, refilled each time: an
	// event handed to a Sink by its address would otherwise be
	// allocated (see llc.Sink).
	ev      llc.Event
	done    llc.Event // the event Execute returns, refilled
	self    int
	regions map[llc.RegionID][]byte
	// allocated marks the regions of CmdAlloc (Private).
	allocated map[llc.RegionID]bool
	last      llc.RegionID
	queue     llc.RegionID // CmdAllocQueue's region, or 0
	local     *shm.LocalMemory
	selfq     []byte // records enqueued to this process, one after another
	selfn     []int  // their lengths
}

// New returns the memory of process self.
func New(self int) *Memory {
	return &Memory{self: self, regions: make(map[llc.RegionID][]byte), allocated: make(map[llc.RegionID]bool), local: shm.NewLocalMemory(self)}
}

// Execute performs c, a command that needs no network: one addressed to
// this process (a write, read, compare-and-swap, fetch-and-add or
// record), or one on the memory itself (CmdRegister, CmdAlloc,
// CmdRelease, CmdWatchRing, CmdWatchSlot, CmdAllocQueue). A record to
// this process is delivered by the next Poll. A watch that is set
// returns no event; a receive queue is a name only, its records being
// delivered by the translator as they arrive.
func (m *Memory) Execute(c *llc.Command) *llc.Event {
	var (
		val uint64
		mem []byte
		err error
	)
	switch c.Kind {
	case llc.CmdWrite, llc.CmdRead, llc.CmdCAS, llc.CmdFetchAdd, llc.CmdEnqueue:
		if val, err = m.self1(c); err != nil {
			err = fmt.Errorf("at process %d (itself): %w", m.self, err)
		}
	case llc.CmdRegister:
		val = uint64(m.add(c.Data))
	case llc.CmdAlloc:
		if c.Size <= 0 {
			err = fmt.Errorf("allocating %d bytes", c.Size)
			break
		}
		mem = make([]byte, c.Size)
		r := m.add(mem)
		m.local.Track(r, mem)
		m.allocated[r] = true
		val = uint64(r)
	case llc.CmdRelease:
		err = m.remove(c.Region)
		m.local.Forget(c.Region)
	case llc.CmdWatchRing, llc.CmdWatchSlot:
		if err = m.local.Watch(c); err == nil {
			return nil
		}
	case llc.CmdAllocQueue:
		if m.queue != 0 {
			err = errors.New("a second receive queue")
			break
		}
		m.queue = m.add(nil)
		val = uint64(m.queue)
	default:
		err = fmt.Errorf("unknown command %v", c.Kind)
	}
	ev := Done(c, val, err)
	ev.Mem = mem
	return llc.Report(&m.done, ev)
}

// Done returns the completion event of c, done with value val, or its
// failure when err is not nil.
func Done(c *llc.Command, val uint64, err error) llc.Event {
	switch {
	case err != nil:
		return llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("%v: %w", c.Kind, err)}
	case c.Token == 0:
		return llc.Event{}
	}
	return llc.Event{Kind: llc.EvDone, Token: c.Token, Value: val}
}

// self1 performs c, a command this process addressed to itself.
func (m *Memory) self1(c *llc.Command) (uint64, error) {
	switch c.Kind {
	case llc.CmdWrite:
		return 0, m.write(c)
	case llc.CmdRead:
		src, err := m.Span(c.Region, c.Off, uint64(len(c.Data)))
		copy(c.Data, src)
		return 0, err
	case llc.CmdCAS, llc.CmdFetchAdd:
		return m.Atomic(c.Kind, c.Region, c.Off, c.Old, c.New)
	}
	m.selfq = append(append(m.selfq, c.Head[:c.HeadLen]...), c.Data...)
	m.selfn = append(m.selfn, int(c.HeadLen)+len(c.Data))
	return 0, nil
}

// write writes the head and data of c, then its signal word.
func (m *Memory) write(c *llc.Command) error {
	dst, err := m.Span(c.Region, c.Off, uint64(c.HeadLen)+uint64(len(c.Data)))
	var sig *uint64
	if err == nil && c.Signal != 0 {
		sig, err = m.Word(c.Region, c.SigOff)
	}
	if err != nil {
		return err
	}
	copy(dst[copy(dst, c.Head[:c.HeadLen]):], c.Data)
	if sig != nil {
		atomic.StoreUint64(sig, c.Signal)
	}
	return nil
}

// Poll delivers to sink what arrived in the watched rings and slots, and
// the records this process enqueued to itself; it reports whether it
// delivered anything.
func (m *Memory) Poll(sink llc.Sink) bool {
	progressed := m.local.Poll(sink)
	if len(m.selfn) == 0 {
		return progressed
	}
	pos := 0
	for _, n := range m.selfn {
		rec := m.selfq[pos : pos+n]
		m.ev = llc.Event{Kind: llc.EvRecord, Peer: m.self, Head: rec[:llc.RecordMeta], Data: rec[llc.RecordMeta:]}
		sink.Step(&m.ev)
		pos += n
	}
	m.selfq, m.selfn = m.selfq[:0], m.selfn[:0]
	return true
}

// add registers mem and returns its new region.
func (m *Memory) add(mem []byte) llc.RegionID {
	m.last++
	m.regions[m.last] = mem
	return m.last
}

// remove deregisters region id.
func (m *Memory) remove(id llc.RegionID) error {
	if _, ok := m.regions[id]; !ok {
		return fmt.Errorf("no region %d", id)
	}
	delete(m.regions, id)
	delete(m.allocated, id)
	return nil
}

// Private reports whether region id is memory this Memory allocated
// (CmdAlloc): memory no other process maps, which changes only through
// this Memory's calls (a transport's, one at a time) and the owner's own
// loads and stores, whereas registered memory (CmdRegister) may be
// another network's, which processes of its host change at any moment.
func (m *Memory) Private(id llc.RegionID) bool { return m.allocated[id] }

// Span returns bytes [off, off+n) of region id.
func (m *Memory) Span(id llc.RegionID, off, n uint64) ([]byte, error) {
	mem, ok := m.regions[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("no region %d", id)
	case off > uint64(len(mem)) || n > uint64(len(mem))-off:
		return nil, fmt.Errorf("%d bytes at %d of region %d, which has %d: out of range", n, off, id, len(mem))
	}
	return mem[off : off+n], nil
}

// Word returns the aligned 8-byte word at off of region id.
func (m *Memory) Word(id llc.RegionID, off uint64) (*uint64, error) {
	b, err := m.Span(id, off, 8)
	if err != nil {
		return nil, err
	}
	if uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return nil, fmt.Errorf("the word at %d of region %d is not 8-byte aligned", off, id)
	}
	return (*uint64)(unsafe.Pointer(&b[0])), nil
}

// Atomic does a CmdCAS (old, new) or CmdFetchAdd (new, the addend) on the
// word at (id, off) and returns the previous word. (Words that their
// owner publishes with atomic stores are read by the owner's own
// goroutine, the one that serves requests, so a plain copy of a span
// sees them too.)
func (m *Memory) Atomic(kind llc.CmdKind, id llc.RegionID, off, old, new uint64) (uint64, error) {
	w, err := m.Word(id, off)
	if err != nil {
		return 0, err
	}
	if kind == llc.CmdFetchAdd {
		return atomic.AddUint64(w, new) - new, nil
	}
	for {
		v := atomic.LoadUint64(w)
		if v != old || atomic.CompareAndSwapUint64(w, v, new) {
			return v, nil
		}
	}
}
