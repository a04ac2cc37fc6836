package tcp

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
)

// regions is the memory of this process that peers may access: Go slices
// registered by CmdRegister or allocated by CmdAlloc, by RegionID.
type regions struct {
	m    map[llc.RegionID][]byte
	last llc.RegionID
}

// add registers mem and returns its new region.
func (r *regions) add(mem []byte) llc.RegionID {
	r.last++
	r.m[r.last] = mem
	return r.last
}

// remove deregisters region id.
func (r *regions) remove(id llc.RegionID) error {
	if _, ok := r.m[id]; !ok {
		return fmt.Errorf("no region %d", id)
	}
	delete(r.m, id)
	return nil
}

// span returns bytes [off, off+n) of region id.
func (r *regions) span(id llc.RegionID, off, n uint64) ([]byte, error) {
	mem, ok := r.m[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("no region %d", id)
	case off > uint64(len(mem)) || n > uint64(len(mem))-off:
		return nil, fmt.Errorf("%d bytes at %d of region %d, which has %d: out of range", n, off, id, len(mem))
	}
	return mem[off : off+n], nil
}

// word returns the aligned 8-byte word at off of region id.
func (r *regions) word(id llc.RegionID, off uint64) (*uint64, error) {
	b, err := r.span(id, off, 8)
	if err != nil {
		return nil, err
	}
	if uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return nil, fmt.Errorf("the word at %d of region %d is not 8-byte aligned", off, id)
	}
	return (*uint64)(unsafe.Pointer(&b[0])), nil
}

// atomic does a CmdCAS (old, new) or CmdFetchAdd (new, the addend) on
// the word at (id, off) and returns the previous word.
func (r *regions) atomic(kind llc.CmdKind, id llc.RegionID, off, old, new uint64) (uint64, error) {
	w, err := r.word(id, off)
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

// read copies (id, off) into dst. (Words that their owner publishes with
// atomic stores are read by the owner's own goroutine, the one that
// serves requests, so a plain copy sees them.)
func (r *regions) read(id llc.RegionID, off uint64, dst []byte) error {
	src, err := r.span(id, off, uint64(len(dst)))
	copy(dst, src)
	return err
}

// local performs c, a command whose target is this process, at once.
func (t *Transport) local(c *llc.Command) llc.Event {
	var val uint64
	var err error
	switch c.Kind {
	case llc.CmdWrite:
		err = t.writeLocal(c)
	case llc.CmdRead:
		err = t.mem.read(c.Region, c.Off, c.Data)
	case llc.CmdCAS, llc.CmdFetchAdd:
		val, err = t.mem.atomic(c.Kind, c.Region, c.Off, c.Old, c.New)
	case llc.CmdEnqueue:
		t.selfq = append(append(t.selfq, c.Head[:c.HeadLen]...), c.Data...)
		t.selfn = append(t.selfn, int(c.HeadLen)+len(c.Data))
	}
	if err != nil {
		err = fmt.Errorf("at process %d (itself): %w", t.self, err)
	}
	return done(c, val, err)
}

// writeLocal writes the head and data of c, then its signal word.
func (t *Transport) writeLocal(c *llc.Command) error {
	dst, err := t.mem.span(c.Region, c.Off, uint64(c.HeadLen)+uint64(len(c.Data)))
	var sig *uint64
	if err == nil && c.Signal != 0 {
		sig, err = t.mem.word(c.Region, c.SigOff)
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

// pollSelf delivers the records this process enqueued to itself.
func (t *Transport) pollSelf(sink llc.Sink) bool {
	if len(t.selfn) == 0 {
		return false
	}
	pos := 0
	for _, n := range t.selfn {
		rec := t.selfq[pos : pos+n]
		t.deliver(sink, llc.Event{Kind: llc.EvRecord, Peer: t.self, Head: rec[:llc.RecordMeta], Data: rec[llc.RecordMeta:]})
		pos += n
	}
	t.selfq, t.selfn = t.selfq[:0], t.selfn[:0]
	return true
}

// done returns the completion event of c, done now with value val or
// failed with err.
func done(c *llc.Command, val uint64, err error) llc.Event {
	switch {
	case err != nil:
		return llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("tcp: %v: %w", c.Kind, err)}
	case c.Token == 0:
		return llc.Event{}
	}
	return llc.Event{Kind: llc.EvDone, Token: c.Token, Value: val}
}
