package nicemu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/nicemu/takeover"
)

// VPUSH (thesis 7.5.3): a PUSH whose receive address the target's firmware
// chooses, so that messages from every sender land one after another in a
// single receive queue of the target, in arrival order.
//
// A process makes its queue with AllocQueue: segment memory laid out as
//
//	[0, 8)                  the receive pointer: bytes of messages published
//	                        (monotonic), written after each message's bytes
//	[VPUSHQueueHeader, …)   the message space, a power of two of bytes
//
// A message at position pos (receive pointer before it, modulo the space)
// occupies its length rounded up to VPUSHAlign. A message never wraps:
// when it does not fit before the end of the space, the firmware writes the
// 4-byte marker VPUSHWrap at pos and the message starts at 0; the receive
// pointer counts the skipped bytes. The owner tells the NIC how far it has
// consumed with ReleaseQueue (a NIC register on Martini), which frees the
// space. The message carries its own length, as PM's messages do: the
// queue records only positions.
//
// VPush sends one message of at most MaxVPUSH bytes. The target's receive
// path runs through the takeover state machines with the VPUSH firmware of
// package takeover (Fig 7.10): RFend misses in the RVATLB on the VPUSH SID,
// the firmware reserves the message's place and resumes RFend, RBend writes
// the payload, the Replier stops at its breakpoint and the firmware
// publishes the receive pointer. The issuing process runs the target's
// models while it holds the target's receive path (one message at a time,
// as the single receive FIFO is held while firmware runs). When the queue
// has no room the message is refused with ErrVPUSHFull and nothing is
// written: send it again once the owner has consumed.

// VPUSH queue layout.
const (
	VPUSHQueueHeader = 64
	VPUSHAlign       = 8
	VPUSHWrap        = 0xffffffff
	// MaxVPUSH is the largest VPUSH message: one packet (the MTU), so
	// that messages from several senders cannot interleave.
	MaxVPUSH = takeover.MaxVPUSH
)

// vpushSID is the SID VPUSH packets carry: outside the SID table, so it is
// never registered and every VPUSH packet misses in the RVATLB.
const vpushSID = takeover.SID(NumSIDs)

// OpVPUSH is a VPUSH, as reported in AccessError.Op.
const OpVPUSH = OpDeliver + 1

// ErrVPUSHFull is matched (errors.Is) by VPush when the target's queue has
// no room for the message now.
var ErrVPUSHFull = errors.New("nicemu: VPUSH queue full")

// ErrRoomAnnounced is matched, beside ErrVPUSHFull, by a VPush in virtual
// time that found the queue full when the target's next release will wake
// the process (vroom.go): it may wait for that rather than send again.
var ErrRoomAnnounced = errors.New("nicemu: the target's release of room wakes the sender")

// vpushRegs are a process's VPUSH queue registers, in its control page:
// where the queue is (set once by AllocQueue), the firmware's reservation
// and receive pointers and the lock of the receive path (taken by the
// issuing process of each message), and the release pointer the owner
// writes.
type vpushRegs struct {
	base, size, valid uint64 // queue memory: segment offset, message space
	_                 [40]byte
	lock              uint64 // 0: free; otherwise the holder's PID+1
	reserved          uint64 // end of the last reserved message
	received          uint64 // end of the last published message
	_                 [40]byte
	released          uint64 // the owner's release pointer
	_                 [56]byte
}

// vpushOffset places the registers in the control page, after the timing
// resources.
const vpushOffset = timingOffset + int(unsafe.Sizeof(nicResources{}))

func (s *Segment) vpushRegs(p int) *vpushRegs {
	return (*vpushRegs)(unsafe.Pointer(&s.mem[s.partBase(p)+partCtl+vpushOffset]))
}

// The registers must fit in the control page.
var _ [PageSize - vpushOffset - int(unsafe.Sizeof(vpushRegs{}))]byte

// AllocQueue makes this process's VPUSH receive queue with a message space
// of size bytes (a power of two, at least 2 × MaxVPUSH), in segment memory.
// It returns the queue's SID and memory (layout above). A process has one
// queue, for the life of the job.
func (n *NIC) AllocQueue(size int) (SID, []byte, error) {
	if size < 2*MaxVPUSH || size&(size-1) != 0 {
		return 0, nil, fmt.Errorf("nicemu: VPUSH queue of %d bytes: want a power of two of at least %d", size, 2*MaxVPUSH)
	}
	r := n.seg.vpushRegs(n.pid)
	if atomic.LoadUint64(&r.valid) != 0 {
		return 0, nil, fmt.Errorf("nicemu: PID %d already has a VPUSH queue", n.pid)
	}
	sid, mem, err := n.RegisterSegment(VPUSHQueueHeader + size)
	if err != nil {
		return 0, nil, fmt.Errorf("nicemu: VPUSH queue: %w", err)
	}
	r.base, r.size = uint64(n.segRegions[sid].off), uint64(size)
	atomic.StoreUint64(&r.valid, 1)
	return sid, mem, nil
}

// ReleaseQueue tells the NIC that this process has consumed its queue up
// to pos (bytes, skipped tails included): that space may be reused.
func (n *NIC) ReleaseQueue(pos uint64) error {
	r := n.seg.vpushRegs(n.pid)
	if atomic.LoadUint64(&r.valid) == 0 {
		return fmt.Errorf("nicemu: release VPUSH queue of PID %d: no queue", n.pid)
	}
	if rel, rec := atomic.LoadUint64(&r.released), atomic.LoadUint64(&r.received); pos < rel || pos > rec {
		return fmt.Errorf("nicemu: release VPUSH queue of PID %d to %d: outside [%d, %d]", n.pid, pos, rel, rec)
	}
	var at uint64
	if n.clock != nil {
		// A sender takes the release 1 ns after the owner's clock: by
		// then the owner has gone past it, so that every sender that
		// looks at that time finds it (vorder.go: a look finds what
		// arrived by the others' floors).
		at = uint64(n.clock.now() + 1)
		atomic.StoreUint64(&n.seg.roomRegs(n.pid).at, at)
	}
	atomic.StoreUint64(&r.released, pos)
	if n.clock != nil {
		n.releasedRoom(at)
	}
	return nil
}

// VPush sends msg (at most MaxVPUSH bytes) into the receive queue of
// process dst. It fails with an error matching ErrVPUSHFull when the queue
// has no room now, and with an *AccessError when the request is refused
// (no such process, another job, no queue, too long).
func (n *NIC) VPush(dst int, msg []byte) error {
	w := n.window()
	n.issued[w]++
	defer func() { n.cont[w*8] = n.issued[w] }()
	switch {
	case uint(dst) >= uint(len(n.procs)):
		return n.refuse(OpVPUSH, ViolationBadProcess, dst, SID(vpushSID), 0, len(msg), "")
	case n.procs[dst].pgid != n.ent.pgid:
		return n.refuse(OpVPUSH, ViolationForeignJob, dst, SID(vpushSID), 0, len(msg), "")
	case len(msg) > MaxVPUSH:
		return n.refuse(OpVPUSH, ViolationBadRequest, dst, SID(vpushSID), 0, len(msg), "VPUSH message longer than the MTU")
	case atomic.LoadUint64(&n.seg.vpushRegs(dst).valid) == 0:
		return n.refuse(OpVPUSH, ViolationBadSID, dst, SID(vpushSID), 0, len(msg), "the target has no VPUSH queue")
	}
	n.patlb.touch(n.pid, addr(msg), len(msg)) // Initiator: DMA read of the source
	if n.timing != nil {
		n.visible = n.timing.vpush(dst, len(msg))
	}
	var seen uint64
	if n.clock != nil {
		// After the timing, which held the process until no other could
		// act before the message lands: the owner's releases by then
		// are in, a later one cannot come while it is written.
		seen = atomic.LoadUint64(&n.seg.vpushRegs(dst).released)
	}
	err := n.receiveVPUSH(dst, msg)
	if err != nil {
		if !errors.Is(err, ErrVPUSHFull) {
			return err
		}
		n.stats.VPUSHFull++
		// Refused by the target's firmware: the request is over, and
		// nothing was written (in virtual time, the clock no longer
		// waits for a write to land).
		if n.timing != nil {
			n.timing.settle()
		}
		if n.clock != nil && n.awaitRoom(dst, seen) {
			return fmt.Errorf("%w (%w)", err, ErrRoomAnnounced)
		}
		return err
	}
	n.arrive(dst)
	if n.clock != nil {
		n.notify(dst) // before settle, as execPush
	}
	if n.timing != nil {
		n.timing.settle()
	}
	n.stats.Push++
	n.stats.PushBytes += uint64(len(msg))
	n.stats.Packets++
	if n.clock == nil {
		n.notify(dst)
	}
	return nil
}

// receiveVPUSH runs dst's receive path for a VPUSH packet carrying msg:
// the takeover models with the VPUSH firmware decide where it lands; the
// DMA writes they issue are performed, then the receive pointer is
// published.
func (n *NIC) receiveVPUSH(dst int, msg []byte) error {
	tk := n.takeoverState()
	r := n.seg.vpushRegs(dst)
	n.lockReceive(r)
	defer atomic.StoreUint64(&r.lock, 0)
	tk.rxq.regs, tk.rxq.owner, tk.rxq.publish = r, dst, 0
	before := tk.rx.Counters()
	hdr := takeover.Header{Type: takeover.PacketPush, SrcPGID: jobPGID, SrcPID: takeover.PID(n.pid),
		DstPID: takeover.PID(dst), SID: vpushSID, Length: len(msg), MessageLength: len(msg)}
	var err error
	tk.trace, err = tk.rx.Receive(&tk.env, hdr, tk.trace[:0])
	if err != nil {
		return fmt.Errorf("nicemu: VPUSH to PID %d: %w", dst, err)
	}
	after := tk.rx.Counters()
	if after.Refusals[takeover.RefusedQueueFull] != before.Refusals[takeover.RefusedQueueFull] {
		return fmt.Errorf("nicemu: VPUSH of %d bytes to PID %d: %w", len(msg), dst, ErrVPUSHFull)
	}
	if after.TotalRefusals() != before.TotalRefusals() || tk.rxq.publish == 0 {
		return n.refuse(OpVPUSH, ViolationBadRequest, dst, SID(vpushSID), 0, len(msg), "refused by the VPUSH firmware")
	}
	for _, e := range tk.trace {
		if e.Kind == takeover.EventEffect && e.Effect.Op == takeover.EffectDMAWrite && !e.Effect.Flag {
			if n.clock != nil {
				n.seg.stamp(dst, e.Effect.VA, e.Effect.Length, n.visible)
			}
			copy(n.seg.mem[e.Effect.VA:e.Effect.VA+uint64(e.Effect.Length)], msg[e.Effect.Offset:e.Effect.Offset+e.Effect.Length])
		}
	}
	// The Replier handler's DMA write of the receive pointer, after the
	// payload.
	atomic.StoreUint64(&r.received, tk.rxq.publish)
	if n.clock != nil {
		n.seg.stamp(dst, r.base, 8, n.visible)
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&n.seg.mem[r.base])), tk.rxq.publish)
	if n.clock != nil {
		n.seg.wrote(dst, n.pid) // the message and its receive pointer have landed
	}
	n.stats.SegmentOps++
	return nil
}

// lockReceive takes a target's VPUSH receive path.
func (n *NIC) lockReceive(r *vpushRegs) {
	for i := 0; !atomic.CompareAndSwapUint64(&r.lock, 0, uint64(n.pid)+1); i++ {
		if i&63 == 63 {
			runtime.Gosched()
		}
	}
}

// sharedQueue is a target's VPUSH queue as its firmware sees it
// (takeover.ReceiveQueue), over the queue registers in shared memory. It
// is used only while the issuing process holds the target's receive path.
// Addresses are segment offsets.
type sharedQueue struct {
	n       *NIC
	regs    *vpushRegs
	owner   int
	publish uint64 // receive pointer to publish once the payload is written (0: none)
}

// Reserve implements takeover.ReceiveQueue.
func (q *sharedQueue) Reserve(owner takeover.PID, length int) (uint64, error) {
	r := q.regs
	if int(owner) != q.owner || r == nil || length < 0 || length > MaxVPUSH {
		return 0, takeover.ErrNoQueue
	}
	size := r.size
	need := uint64(length+VPUSHAlign-1) &^ (VPUSHAlign - 1)
	res := r.reserved
	pos := res % size
	skip := uint64(0)
	if pos+need > size {
		skip = size - pos
	}
	if skip+need > size-(res-atomic.LoadUint64(&r.released)) {
		return 0, takeover.ErrQueueFull
	}
	mem := q.n.seg.mem[r.base+VPUSHQueueHeader:]
	if skip != 0 {
		binary.LittleEndian.PutUint32(mem[pos:], VPUSHWrap)
		pos = 0
	}
	r.reserved = res + skip + need
	return r.base + VPUSHQueueHeader + pos, nil
}

// Publish implements takeover.ReceiveQueue: the receive pointer moves past
// the message once its payload is written (receiveVPUSH).
func (q *sharedQueue) Publish(owner takeover.PID, va uint64, length int) error {
	if int(owner) != q.owner || q.regs == nil {
		return takeover.ErrNoQueue
	}
	q.publish = q.regs.reserved
	return nil
}
