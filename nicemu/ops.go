package nicemu

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"unsafe"
)

// ErrorEvent records a refused request, as the NIC's error event queue.
type ErrorEvent struct {
	Op        Op
	Violation Violation
	Target    int
	SID       SID
	Offset    uint64
	Length    int
}

const maxErrorEvents = 64

// ErrorEvents returns the most recent refused requests of this process
// (at most 64), oldest first. Safe for concurrent use.
func (n *NIC) ErrorEvents() []ErrorEvent {
	n.eventsMu.Lock()
	defer n.eventsMu.Unlock()
	return append([]ErrorEvent(nil), n.events...)
}

// recordEvent appends a refused request to the error events, dropping the
// oldest beyond maxErrorEvents. Safe for concurrent use.
func (n *NIC) recordEvent(e ErrorEvent) {
	n.eventsMu.Lock()
	if len(n.events) == maxErrorEvents {
		n.events = append(n.events[:0], n.events[1:]...)
	}
	n.events = append(n.events, e)
	n.eventsMu.Unlock()
}

// refuse counts and records a refused request and returns its error.
func (n *NIC) refuse(op Op, v Violation, dst int, sid SID, off uint64, length int, detail string) error {
	n.stats.Refused++
	n.stats.RefusedBy[v]++
	atomic.AddUint64(&n.seg.hdr.refused, 1)
	if dst >= 0 && dst < n.seg.NProcs() {
		atomic.AddUint64(&n.procs[dst].refused, 1)
	}
	n.recordEvent(ErrorEvent{op, v, dst, sid, off, length})
	return &AccessError{Op: op, Violation: v, Target: dst, SID: sid, Offset: off, Length: length, Detail: detail}
}

// target performs the protection and translation checks of a request aimed
// at (dst, sid, off, length): the PGIDTBL comparison of the two processes'
// jobs, then SID translation through the RVATLB and the bounds check.
func (n *NIC) target(op Op, dst int, sid SID, off uint64, length int, checkPGID bool) (sidView, error) {
	if uint(dst) >= uint(len(n.procs)) {
		return sidView{}, n.refuse(op, ViolationBadProcess, dst, sid, off, length, "")
	}
	if checkPGID && n.procs[dst].pgid != n.ent.pgid {
		return sidView{}, n.refuse(op, ViolationForeignJob, dst, sid, off, length, "")
	}
	misses := n.rvatlb.misses
	v, ok := n.rvatlb.lookup(n.seg, dst, sid)
	if !ok {
		return v, n.refuse(op, ViolationBadSID, dst, sid, off, length, "")
	}
	if n.rvatlb.misses != misses {
		n.mapPeerRegion(dst, sid, v)
	}
	if off > v.length || uint64(length) > v.length-off {
		return v, n.refuse(op, ViolationOutOfRange, dst, sid, off, length, "")
	}
	return v, nil
}

func addr(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&b[0])))
}

// pushGeneral is execPush for every request: its refusals, process memory,
// the timing models and virtual time.
func (n *NIC) pushGeneral(dst int, sid SID, off uint64, src []byte, op Op) error {
	v, err := n.target(op, dst, sid, off, len(src), op != OpAOTF)
	if err != nil {
		return err
	}
	switch {
	case n.timing != nil && n.asVPUSH:
		n.patlb.touch(n.pid, addr(src), len(src)) // Initiator: DMA read of the source, as VPush
		n.visible = n.timing.vpush(dst, len(src))
	case n.timing != nil:
		if op == OpPush { // Initiator: DMA read of the source, taken over on a PATLB miss
			if n.timing.takeover, err = n.pushTakeover(n.kicked, dst, sid, off, src); err != nil {
				return err
			}
		}
		n.visible = n.timing.write(op, dst, len(src), n.wantAck)
	case op == OpPush:
		n.patlb.touch(n.pid, addr(src), len(src)) // Initiator: DMA read of the source
	}
	if err := n.write(dst, sid, v, off, src); err != nil {
		return err
	}
	n.arrive(dst)
	if n.clock != nil {
		// Virtual time: settle may wait for the target's clock, which
		// moves once the target has taken the data: wake it first.
		n.notify(dst)
	}
	if n.timing != nil {
		n.timing.settle()
	}
	n.countWrite(op, len(src))
	if n.clock == nil {
		n.notify(dst)
	}
	return nil
}

// write moves src into the translated target region.
func (n *NIC) write(dst int, sid SID, v sidView, off uint64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if v.kind == KindSegment {
		at := v.base + off
		n.patlb.touch(dst, at, len(src)) // RBend: DMA write
		if n.clock != nil {
			n.seg.stamp(dst, at, len(src), n.visible)
		}
		end := at + uint64(len(src))
		switch {
		case len(src) >= 8 && end%8 == 0:
			n.storeInOrder(at, end, src)
		default:
			copy(n.seg.mem[at:end], src)
		}
		if n.clock != nil {
			n.seg.wrote(dst, n.pid)
		}
		n.stats.SegmentOps++
		return nil
	}
	n.patlb.touch(dst, v.base+off, len(src))
	if dst == n.pid {
		copy(n.procRegions[sid][off:], src)
		return nil
	}
	if n.cma {
		err := n.cmaWrite(dst, v.base+off, src)
		if !errors.Is(err, errCMADenied) {
			return err
		}
		n.cma = false
	}
	return n.bounce(OpPush, dst, sid, off, src)
}

// execPull is the read path of PULL.
func (n *NIC) execPull(src int, sid SID, off uint64, buf []byte) error {
	v, err := n.target(OpPull, src, sid, off, len(buf), true)
	if err != nil {
		return err
	}
	if n.timing != nil {
		n.timing.read(src, len(buf), n.otfPull, false)
	}
	if err := n.read(src, sid, v, off, buf); err != nil {
		return err
	}
	if n.timing != nil {
		n.timing.settle()
	}
	n.pulled(buf)
	return nil
}

// pulled ends a PULL whose data is in buf: the DMA write of the reply
// into buf, and the counts.
func (n *NIC) pulled(buf []byte) {
	n.patlb.touch(n.pid, addr(buf), len(buf)) // RBend: DMA write of the reply
	n.stats.Pull++
	n.stats.PullBytes += uint64(len(buf))
	n.stats.Packets += packets(len(buf)) + 1 // request plus replies
}

func (n *NIC) read(src int, sid SID, v sidView, off uint64, buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	n.patlb.touch(src, v.base+off, len(buf)) // Replier: DMA read at the target
	if v.kind == KindSegment {
		n.readSegment(v.base+off, buf)
		return nil
	}
	if src == n.pid {
		copy(buf, n.procRegions[sid][off:])
		return nil
	}
	if n.cma {
		err := n.cmaRead(src, v.base+off, buf)
		if !errors.Is(err, errCMADenied) {
			return err
		}
		n.cma = false
	}
	return n.bounce(OpPull, src, sid, off, buf)
}

// readSegment reads buf from segment memory at at: a word read at once
// where it is one.
func (n *NIC) readSegment(at uint64, buf []byte) {
	if len(buf) == 8 && at%8 == 0 {
		binary.LittleEndian.PutUint64(buf, atomic.LoadUint64((*uint64)(unsafe.Pointer(&n.seg.mem[at]))))
	} else {
		copy(buf, n.seg.mem[at:at+uint64(len(buf))])
	}
	n.stats.SegmentOps++
}

// execAtomic performs CAS and FAA on segment memory.
func (n *NIC) execAtomic(r *windowRegs, op Op) error {
	dst, sid, off := int(r.dst), SID(r.sid), r.off
	v, err := n.target(op, dst, sid, off, 8, true)
	if err != nil {
		return err
	}
	if v.kind != KindSegment {
		return n.refuse(op, ViolationNotSegment, dst, sid, off, 8, "")
	}
	at := v.base + off
	if at%8 != 0 {
		return n.refuse(op, ViolationMisaligned, dst, sid, off, 8, "")
	}
	if n.timing != nil {
		n.timing.read(dst, 8, false, true)
	}
	r.result = n.atomicAt(op, at, r.arg0, r.arg1)
	if n.timing != nil {
		n.timing.settle()
	}
	n.stats.Packets += 2
	n.notify(dst)
	return nil
}

// atomicAt performs op, CAS (old arg0, new arg1) or FAA (delta arg0), on
// the word of segment memory at at, 8-byte aligned, counts it and returns
// the word before.
func (n *NIC) atomicAt(op Op, at, arg0, arg1 uint64) uint64 {
	w := (*uint64)(unsafe.Pointer(&n.seg.mem[at]))
	if op != OpCAS {
		n.stats.FAA++
		return atomic.AddUint64(w, arg0) - arg0
	}
	n.stats.CAS++
	for {
		cur := atomic.LoadUint64(w)
		if cur != arg0 || atomic.CompareAndSwapUint64(w, cur, arg1) {
			return cur
		}
	}
}

// aotfHeader is one entry of the AOTF Header Buffer, in the owner's
// control page. The header is censored when registered, not when used.
type aotfHeader struct {
	valid, dst, sid, off uint64
}

const aotfOffset = 512

// SetAOTFHeader registers the push header that AOTF stores to page will
// send: target (dst, sid) at offset off, whose low 12 bits each store
// replaces. The header is checked now (the target must be a process of the
// same job with sid registered); AOTF stores are not checked against PGIDTBL.
func (n *NIC) SetAOTFHeader(page int, dst int, sid SID, off uint64) error {
	if page < 0 || page >= NumAOTFPages {
		return n.refuse(OpAOTF, ViolationBadRequest, dst, sid, off, 8, "AOTF page out of range")
	}
	if _, err := n.target(OpAOTF, dst, sid, off&^(PageSize-1), 8, true); err != nil {
		return err
	}
	h := &n.aotf[page]
	h.dst, h.sid, h.off = uint64(dst), uint64(sid), off&^(PageSize-1)
	atomic.StoreUint64(&h.valid, 1)
	return nil
}

// AOTF sends one 8-byte store: the value v lands at the registered header's
// target with the low 12 bits of the offset replaced by low12, which must be
// 8-byte aligned.
func (n *NIC) AOTF(page int, low12 uint64, v uint64) error {
	if page < 0 || page >= NumAOTFPages || atomic.LoadUint64(&n.aotf[page].valid) == 0 || low12 >= PageSize || low12%8 != 0 {
		return n.refuse(OpAOTF, ViolationBadRequest, -1, 0, low12, 8, "AOTF store to an unregistered page or misaligned address")
	}
	if n.timing != nil {
		n.timing.begin()
	}
	h := &n.aotf[page]
	binary.LittleEndian.PutUint64(n.scratch[:], v)
	return n.execPush(int(h.dst), SID(h.sid), h.off|low12, n.scratch[:], OpAOTF)
}
