package martini

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
	"github.com/rhinet-go/martini/nicemu"
)

// lineOut is the translator's view of this process's half of its shared
// line with one peer (llc.CmdWriteLine): segment memory, of this process
// or of the peer, that the translator stores into itself. Shared lines
// exist only under the native profile (Caps), where a store into the
// segment is what a PUSH would end with.
type lineOut struct {
	region llc.RegionID
	off    uint64
	inPeer bool
	half   []byte // layout.LineHalf bytes, nil until mapped
}

// writeLine performs a CmdWriteLine: the head's words, then the signal
// word by a sequentially consistent store, which orders the write before
// the look at the peer's doorbell that follows.
func (t *Translator) writeLine(c *llc.Command) error {
	if t.lines == nil {
		t.lines = make([]lineOut, t.nic.NumProcs())
	}
	if uint(c.Peer) >= uint(len(t.lines)) {
		return fmt.Errorf("martini: shared line with process %d of %d", c.Peer, len(t.lines))
	}
	l := &t.lines[c.Peer]
	if l.half == nil || l.region != c.Region || l.off != c.Off || l.inPeer != (c.Size == llc.LineInPeer) {
		if err := t.mapLine(c, l); err != nil {
			return err
		}
	}
	head := c.Head[:c.HeadLen]
	at := c.SigOff - c.Off
	if len(head)%8 != 0 || uint64(len(head)) > at || at > layout.LineHalf-8 || at%8 != 0 {
		return fmt.Errorf("martini: shared line write of %d bytes and a signal at %d, in a half of %d", len(head), at, layout.LineHalf)
	}
	half := l.half
	for i := 0; i < len(head); i += 8 {
		*(*uint64)(unsafe.Pointer(&half[i])) = binary.LittleEndian.Uint64(head[i:])
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&half[at])), c.Signal)
	t.nic.WakePeer(c.Peer)
	t.mem.Wrote(c.Peer)
	return nil
}

// mapLine maps the half that c names into l.
func (t *Translator) mapLine(c *llc.Command, l *lineOut) error {
	owner := t.nic.PID()
	if c.Size == llc.LineInPeer {
		owner = c.Peer
	}
	mem, err := t.nic.SharedRegion(owner, nicemu.SID(c.Region))
	switch {
	case err != nil:
		return fmt.Errorf("martini: shared line with process %d: %w", c.Peer, err)
	case c.Off%8 != 0 || c.Off > uint64(len(mem)) || uint64(len(mem))-c.Off < layout.LineHalf:
		return fmt.Errorf("martini: shared line half at %d of a region of %d bytes", c.Off, len(mem))
	}
	*l = lineOut{region: c.Region, off: c.Off, inPeer: c.Size == llc.LineInPeer, half: mem[c.Off : c.Off+layout.LineHalf]}
	return nil
}

// watchLine has the local memory watch the half of a shared line that
// c (CmdWatchLine) names, in this process's memory or the peer's.
func (t *Translator) watchLine(c *llc.Command) error {
	var mem []byte
	if c.Size == llc.LineInPeer {
		var err error
		if mem, err = t.PeerMemory(c.Peer, c.Region); err != nil {
			return err
		}
	}
	return t.mem.WatchLine(c, mem)
}
