package nicemu

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// windowRegs is a Window's request area as the process writes it: the
// parameters of one request, then a kick selects the operation. For BOTF the
// packet image follows the registers.
type windowRegs struct {
	op     uint64
	dst    uint64 // target PID
	sid    uint64 // target SID
	off    uint64 // offset within the SID
	length uint64
	arg0   uint64 // CAS expected value, FAA delta
	arg1   uint64 // CAS new value
	result uint64 // value returned by CAS and FAA
	_      [128 - 64]byte
	image  [WindowSize - 128]byte
}

// botfHeader is the header of a BOTF packet image. The NIC overwrites pgid
// with the PGIDTBL value of the Window, so it cannot be forged.
type botfHeader struct {
	pgid   uint64
	dst    uint64
	sid    uint64
	off    uint64
	length uint64
	_      [64 - 40]byte
}

// MaxBOTF is the largest payload a BOTF packet image can carry.
const MaxBOTF = WindowSize - 128 - int(unsafe.Sizeof(botfHeader{}))

// window returns the next Window, round robin. A Window may be reused only
// after the NIC wrote its contflag for the previous request.
func (n *NIC) window() int {
	if n.timing != nil {
		n.timing.begin() // the host's first store into the Window
	}
	w := n.next
	n.next = (w + 1) & (NumWindows - 1)
	// The contflag page is written by the NIC and read only by the
	// owning process, which kicks requests one at a time: plain accesses.
	for n.cont[w*8] != n.issued[w] {
		runtime.Gosched()
	}
	return w
}

// kick starts the request written in Window w and returns once the emulated
// hardware has processed it; the contflag of the Window is written when the
// NIC has read the source data.
func (n *NIC) kick(w int, op Op) error {
	r := n.windows[w]
	n.issued[w]++
	n.kicked = w
	var err error
	switch op {
	case OpPush:
		err = n.execPush(int(r.dst), SID(r.sid), r.off, n.local[w], OpPush)
	case OpPull:
		err = n.execPull(int(r.dst), SID(r.sid), r.off, n.local[w])
	case OpBOTF:
		err = n.execBOTF(r)
	case OpCAS, OpFAA:
		err = n.execAtomic(r, op)
	}
	n.local[w] = nil
	n.cont[w*8] = n.issued[w]
	return err
}

// Push writes src into (dst, sid, off): Martini's remote write. It returns
// once the source has been read, so src may be reused. If ack is not nil,
// the NIC sets *ack to 1 when the data has been written remotely.
//
// Data lands in address order, as Martini's in-order DMA delivers it: when
// a transfer into segment memory ends on an 8-byte boundary, its last 8
// bytes are stored atomically after all the bytes before them, so a
// receiver may poll a trailer word to learn that the whole transfer landed
// (an 8-byte aligned transfer of 8 bytes is a single atomic store).
func (n *NIC) Push(dst int, sid SID, off uint64, src []byte, ack *uint64) error {
	w := n.window()
	r := n.windows[w]
	r.dst, r.sid, r.off, r.length = uint64(dst), uint64(sid), off, uint64(len(src))
	n.local[w] = src
	n.wantAck = ack != nil
	err := n.kick(w, OpPush)
	n.wantAck = false
	if err == nil && ack != nil {
		atomic.StoreUint64(ack, 1)
	}
	return err
}

// PushAsVPUSH is Push of at most one packet (MaxVPUSH bytes) whose
// timing is a VPUSH's (thesis 7.5.3, Fig 7.10): the target's firmware
// takes the packet over, and the sender goes on once the message is due
// to be published. It models a message of PM/RHiNET-VP that carries part
// of a larger transfer: the thesis's PM/RHiNET-VP has no remote memory
// access (its Replier serves the VPUSH firmware), so a library sends
// larger data as a series of VPUSH messages, whose payloads the receiver
// copies out of its queue. The data lands at (dst, sid, off) directly; the
// receiver's copy, host work inside the message layer, is not modelled.
// Under the native profile it is Push.
func (n *NIC) PushAsVPUSH(dst int, sid SID, off uint64, src []byte) error {
	if len(src) > MaxVPUSH {
		return n.refuse(OpVPUSH, ViolationBadRequest, dst, sid, off, len(src), "VPUSH message longer than the MTU")
	}
	n.asVPUSH = true
	err := n.Push(dst, sid, off, src, nil)
	n.asVPUSH = false
	return err
}

// Pull reads (src, sid, off) into buf: Martini's remote read. If done is not
// nil, the NIC sets *done to 1 once the data is in buf.
func (n *NIC) Pull(src int, sid SID, off uint64, buf []byte, done *uint64) error {
	return n.pull(src, sid, off, buf, done)
}

// BOTFPull is Pull with the pull request written into the Window as a
// whole packet image (BOTF) rather than built by the Initiator from the
// Window's registers. The result is the same; under the martini timing
// profile it is 0.18 µs sooner (thesis Table 6.3).
func (n *NIC) BOTFPull(src int, sid SID, off uint64, buf []byte, done *uint64) error {
	n.otfPull = true
	err := n.pull(src, sid, off, buf, done)
	n.otfPull = false
	return err
}

func (n *NIC) pull(src int, sid SID, off uint64, buf []byte, done *uint64) error {
	w := n.window()
	r := n.windows[w]
	r.dst, r.sid, r.off, r.length = uint64(src), uint64(sid), off, uint64(len(buf))
	n.local[w] = buf
	err := n.kick(w, OpPull)
	if err == nil && done != nil {
		atomic.StoreUint64(done, 1)
	}
	return err
}

// BOTF sends payload to (dst, sid, off) as a whole packet image written into
// the Window (Block On-The-Fly): no DMA read of host memory. payload may be
// at most MaxBOTF bytes.
func (n *NIC) BOTF(dst int, sid SID, off uint64, payload []byte) error {
	return n.BOTFImage(n.ent.pgid, dst, sid, off, payload)
}

// BOTFImage is BOTF with an explicit PGID written into the packet image, as
// a user process could write any bytes there. The NIC overwrites the field
// with the Window's PGID from PGIDTBL, so a forged value has no effect
// beyond being counted in Stats.PGIDOverwrites.
func (n *NIC) BOTFImage(pgid uint64, dst int, sid SID, off uint64, payload []byte) error {
	w := n.window()
	r := n.windows[w]
	if len(payload) > MaxBOTF {
		n.issued[w]++
		n.cont[w*8] = n.issued[w]
		return n.refuse(OpBOTF, ViolationBadRequest, dst, sid, off, len(payload), "BOTF payload larger than the Window")
	}
	h := (*botfHeader)(unsafe.Pointer(&r.image[0]))
	h.pgid, h.dst, h.sid, h.off, h.length = pgid, uint64(dst), uint64(sid), off, uint64(len(payload))
	copy(r.image[unsafe.Sizeof(botfHeader{}):], payload)
	return n.kick(w, OpBOTF)
}

func (n *NIC) execBOTF(r *windowRegs) error {
	h := (*botfHeader)(unsafe.Pointer(&r.image[0]))
	if h.pgid != n.ent.pgid {
		n.stats.PGIDOverwrites++
		h.pgid = n.ent.pgid
	}
	ln := int(h.length)
	if ln > MaxBOTF {
		return n.refuse(OpBOTF, ViolationBadRequest, int(h.dst), SID(h.sid), h.off, ln, "BOTF length field larger than the Window")
	}
	hs := int(unsafe.Sizeof(botfHeader{}))
	return n.execPush(int(h.dst), SID(h.sid), h.off, r.image[hs:hs+ln], OpBOTF)
}

// CompareAndSwap atomically replaces the 8-byte word at (dst, sid, off) with
// new if it equals old, and returns the previous value. The word must be
// 8-byte aligned segment memory.
func (n *NIC) CompareAndSwap(dst int, sid SID, off, old, new uint64) (uint64, error) {
	w := n.window()
	r := n.windows[w]
	r.dst, r.sid, r.off, r.length, r.arg0, r.arg1 = uint64(dst), uint64(sid), off, 8, old, new
	err := n.kick(w, OpCAS)
	return r.result, err
}

// FetchAndAdd atomically adds delta to the 8-byte word at (dst, sid, off)
// and returns the previous value.
func (n *NIC) FetchAndAdd(dst int, sid SID, off, delta uint64) (uint64, error) {
	w := n.window()
	r := n.windows[w]
	r.dst, r.sid, r.off, r.length, r.arg0 = uint64(dst), uint64(sid), off, 8, delta
	err := n.kick(w, OpFAA)
	return r.result, err
}
