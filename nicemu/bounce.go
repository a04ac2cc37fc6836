package nicemu

import (
	"sync/atomic"
	"unsafe"
)

// When cross-memory attach is not permitted, a PUSH or PULL that targets
// another process's private memory is staged through that process's bounce
// buffer in the segment: the initiator locks the target's mailbox, posts a
// chunk request, and the target's NIC (Service, run by the target whenever it
// polls) copies between its own memory and the bounce buffer, as Martini's
// Replier and RBend would by DMA. Two copies instead of one; which path ran
// is visible in Stats (CMAOps versus BounceOps).

// mailbox is a process's bounce request slot, at the start of its control
// page.
type mailbox struct {
	lock   uint64 // 0: free; otherwise initiator PID+1
	state  uint64 // boxIdle, boxPosted, boxDone, boxRefused
	op     uint64 // OpPush or OpPull
	sid    uint64
	off    uint64
	length uint64
	from   uint64 // initiator PID
	result uint64 // Violation when refused
}

const (
	boxIdle uint64 = iota
	boxPosted
	boxDone
	boxRefused
)

func (s *Segment) mailbox(p int) *mailbox {
	return (*mailbox)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl]))
}

func (s *Segment) bounceBuf(p int) []byte {
	b := s.partBase(p) + partBounce
	return s.mem[b : b+int(s.hdr.bounceSize) : b+int(s.hdr.bounceSize)]
}

// bounce moves b to or from (dst, sid, off) through dst's bounce buffer.
func (n *NIC) bounce(op Op, dst int, sid SID, off uint64, b []byte) error {
	box := n.seg.mailbox(dst)
	buf := n.seg.bounceBuf(dst)
	me := uint64(n.pid) + 1
	n.await(func() bool { return atomic.CompareAndSwapUint64(&box.lock, 0, me) })
	defer func() {
		atomic.StoreUint64(&box.state, boxIdle)
		atomic.StoreUint64(&box.lock, 0)
	}()
	for done := 0; done < len(b); {
		c := min(len(b)-done, len(buf))
		if op == OpPush {
			copy(buf, b[done:done+c])
		}
		box.op, box.sid, box.off, box.length, box.from = uint64(op), uint64(sid), off+uint64(done), uint64(c), uint64(n.pid)
		atomic.StoreUint64(&box.state, boxPosted)
		n.notify(dst)
		n.await(func() bool { return atomic.LoadUint64(&box.state) != boxPosted })
		if atomic.LoadUint64(&box.state) == boxRefused {
			return n.refuse(op, Violation(box.result), dst, sid, off+uint64(done), c, "refused by the target during a bounce transfer")
		}
		if op == OpPull {
			copy(b[done:done+c], buf)
		}
		done += c
		n.stats.BounceOps++
		n.stats.BounceBytes += uint64(c)
	}
	return nil
}

// pendingService reports whether another process posted a bounce request.
func (n *NIC) pendingService() bool { return atomic.LoadUint64(&n.box.state) == boxPosted }

// Service performs a bounce request another process posted to this
// process's mailbox, if any, and reports whether it did. The layer above
// calls it from its progress loop.
func (n *NIC) Service() bool {
	b := n.box
	if atomic.LoadUint64(&b.state) != boxPosted {
		return false
	}
	// Read the initiator before answering: once the state leaves
	// boxPosted, the initiator may release the mailbox and another one
	// may post (and overwrite from) before this process rings.
	from := int(b.from)
	if from < 0 || from >= n.seg.NProcs() {
		from = n.pid // a malformed request: ring nobody else's doorbell
	}
	region, ok := n.procRegions[SID(b.sid)]
	bounce := n.seg.bounceBuf(n.pid)
	c := b.length
	switch {
	case !ok:
		b.result = uint64(ViolationBadSID)
	case b.off > uint64(len(region)) || c > uint64(len(region))-b.off:
		b.result = uint64(ViolationOutOfRange)
	case c > uint64(len(bounce)):
		b.result = uint64(ViolationBadRequest)
	default:
		buf := bounce[:c]
		if Op(b.op) == OpPush {
			copy(region[b.off:b.off+c], buf)
		} else {
			copy(buf, region[b.off:b.off+c])
		}
		n.stats.Served++
		atomic.StoreUint64(&b.state, boxDone)
		n.notify(from)
		return true
	}
	atomic.StoreUint64(&b.state, boxRefused)
	n.notify(from)
	return true
}
