package nicemu

import (
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// A request's path through the NIC: the process writes its parameters (or,
// for BOTF, a packet image) into one of its Windows and kicks it; the NIC
// checks the request (the job's PGID, the target's SID through the
// RVATLB, the range), translates its pages (PATLB), and writes into
// segment memory with the last word last. Under the native profile the
// common write is one flattened function (pushNative); the general path
// (ops.go) serves the rest.

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

// BOTFBuffer returns the payload area of the packet image of the Window the
// next KickBOTF will send, so that a caller can write the packet image in
// place (MaxBOTF bytes) instead of copying it twice.
func (n *NIC) BOTFBuffer() []byte {
	w := n.window()
	n.botf = w + 1 // KickBOTF sends this Window
	hs := int(unsafe.Sizeof(botfHeader{}))
	return n.windows[w].image[hs : hs+MaxBOTF]
}

// KickBOTF sends the first length bytes written into BOTFBuffer to
// (dst, sid, off).
func (n *NIC) KickBOTF(dst int, sid SID, off uint64, length int) error {
	w := n.botf - 1
	switch {
	case w < 0: // no BOTFBuffer: the next Window, as before
		w = n.window()
	case n.timing != nil:
		n.timing.begin() // the header's stores, as a Window's first
	}
	n.botf = 0
	h := (*botfHeader)(unsafe.Pointer(&n.windows[w].image[0]))
	h.pgid, h.dst, h.sid, h.off, h.length = n.ent.pgid, uint64(dst), uint64(sid), off, uint64(length)
	return n.kick(w, OpBOTF)
}

// pushNative is execPush's common case, flattened: a write (PUSH, BOTF or
// AOTF) of 8 bytes or more into segment memory, ending on an 8-byte
// boundary, under the native profile (no timing model, no virtual clock),
// whose target translation the RVATLB holds. It makes the same checks,
// lookups, stores and counts as the general path, in one function, and
// reports false, having done nothing, for any request it does not cover
// (a refusal among them): the general path then serves it.
func (n *NIC) pushNative(dst int, sid SID, off uint64, src []byte, op Op) bool {
	if len(src) < 8 {
		return false
	}
	pe, at, ok := n.nativeTarget(dst, sid, off, uint64(len(src)), op)
	if !ok {
		return false
	}
	if op == OpPush {
		n.patlb.touch(n.pid, addr(src), len(src)) // Initiator: DMA read of the source
	}
	n.patlb.touch(dst, at, len(src)) // RBend: DMA write
	n.storeInOrder(at, at+uint64(len(src)), src)
	n.stats.SegmentOps++
	n.countWrite(op, len(src))
	if atomic.LoadUint32(&pe.sleepers) != 0 {
		n.notify(dst)
	}
	return true
}

// nativeTarget makes the checks and the lookup of a native write of size
// bytes by op into (dst, sid, off), pushNative's and PushPacket's: the
// job's PGID (but for AOTF, whose header was checked when it was set), a
// hit of the RVATLB on segment memory, the range, and an end on an
// 8-byte boundary. It returns the target's entry and the write's address
// in segment memory, the hit counted, or ok false, having done nothing.
func (n *NIC) nativeTarget(dst int, sid SID, off, size uint64, op Op) (pe *procEntry, at uint64, ok bool) {
	if uint(dst) >= uint(len(n.procs)) {
		return nil, 0, false
	}
	pe = n.procs[dst]
	if op != OpAOTF && pe.pgid != n.ent.pgid {
		return nil, 0, false
	}
	e, hit := n.rvatlb.entry(dst, sid)
	v := &e.view
	if !hit || v.kind != KindSegment || off > v.length || size > v.length-off {
		return nil, 0, false
	}
	at = v.base + off
	if (at+size)%8 != 0 || at+size > uint64(len(n.seg.mem)) {
		return nil, 0, false
	}
	n.rvatlb.hits++
	return pe, at, true
}

// PushPacket writes one packet into (dst, sid, off): head, then data,
// then zeros up to end, then signal as the 8-byte word at end, which lands
// last. It stands for the BOTF request whose Window holds that image (op
// OpBOTF) or the PUSH of a send buffer that holds it (OpPush), under the
// native profile, flattened as pushNative is: the image is gathered where
// it lands instead of in the Window or the buffer first. The request takes
// its Window and is counted as one of op; its checks and translations are
// pushNative's. It reports false, having done nothing, for a request it
// does not cover (a timing profile, a virtual clock, a refusal): the
// caller then builds the image and kicks it.
func (n *NIC) PushPacket(dst int, sid SID, off uint64, head, data []byte, end int, signal uint64, op Op) bool {
	if n.timing != nil || len(head)+len(data) > end {
		return false
	}
	if op == OpBOTF && end+8 > MaxBOTF || op != OpBOTF && op != OpPush {
		return false
	}
	size := uint64(end) + 8
	pe, at, ok := n.nativeTarget(dst, sid, off, size, op)
	if !ok {
		return false
	}
	// The request's Window, kicked and done: as window and kick leave it.
	w := n.next
	n.next = (w + 1) & (NumWindows - 1)
	n.issued[w]++
	n.cont[w*8] = n.issued[w]
	if op == OpPush && len(data) > 0 {
		n.patlb.touch(n.pid, addr(data), len(data)) // Initiator: DMA read of the source
	}
	n.patlb.touch(dst, at, int(size)) // RBend: DMA write
	if mem := n.seg.mem[at : at+size]; size == 64 && len(head) == 56 && !raceEnabled {
		// A ring record of one cell, the commonest packet: seven words,
		// without memmove's call, then the signal.
		storeCell((*[cellSize]byte)(mem), (*[cellSize - 8]byte)(head), signal)
	} else {
		n.storePacket(mem, head, data, signal)
	}
	n.stats.SegmentOps++
	n.countWrite(op, int(size))
	if atomic.LoadUint32(&pe.sleepers) != 0 {
		n.notify(dst)
	}
	return true
}

// PushCell is PushPacket of a packet of one cell, the commonest (a ring
// record of one cell): head's 56 bytes, then signal as the cell's last
// word, stored word by word, the signal last. The request takes its
// Window and is counted as one of op, OpBOTF or OpPush, whose data are
// all in head, so that the initiator reads no buffer. It reports false,
// having done nothing, where PushPacket would.
func (n *NIC) PushCell(dst int, sid SID, off uint64, head *[56]byte, signal uint64, op Op) bool {
	if n.timing != nil || op != OpBOTF && op != OpPush {
		return false
	}
	pe, at, ok := n.nativeTarget(dst, sid, off, cellSize, op)
	if !ok {
		return false
	}
	n.windowDone()
	if !n.patlb.hit(dst, at, cellSize) { // RBend: DMA write
		n.patlb.touchPages(dst, at, cellSize, nil, nil)
	}
	if mem := n.seg.mem[at : at+cellSize]; raceEnabled {
		n.storePacket(mem, head[:], nil, signal) // copyWords, which the race detector sees
	} else {
		storeCell((*[cellSize]byte)(mem), head, signal)
	}
	n.stats.SegmentOps++
	n.countWrite(op, cellSize)
	if atomic.LoadUint32(&pe.sleepers) != 0 {
		n.notify(dst)
	}
	return true
}

// windowDone takes the next Window for a request done at once, kicked
// and completed, as window and kick leave it: under the native profile a
// request completes before the next is written, so the Window is free.
// (PushPacket does the same in its own lines: the profile-guided build's
// inlining of its calls is keyed to their lines.)
func (n *NIC) windowDone() {
	w := n.next
	n.next = (w + 1) & (NumWindows - 1)
	n.issued[w]++
	n.cont[w*8] = n.issued[w]
}

// PushData writes data into (dst, sid, off): the BOTF request whose
// Window holds it (op OpBOTF) or the PUSH of a send buffer that holds it
// (OpPush), under the native profile, flattened as PushPacket is: the
// data goes where it lands without a copy into the Window first. The
// request takes its Window and is counted as one of op; its checks,
// translations and stores are pushNative's, so data must be 8 bytes or
// more and end on an 8-byte boundary at the target. It reports false,
// having done nothing, for a request it does not cover: the caller then
// writes the Window and kicks it.
func (n *NIC) PushData(dst int, sid SID, off uint64, data []byte, op Op) bool {
	if n.timing != nil || op == OpBOTF && len(data) > MaxBOTF || op != OpBOTF && op != OpPush {
		return false
	}
	if !n.pushNative(dst, sid, off, data, op) {
		return false
	}
	n.windowDone()
	return true
}

// PullData reads len(buf) bytes at (src, sid, off) into buf: Martini's
// PULL under the native profile, flattened as PushData is, with the
// checks and translations of nativeTarget (so the bytes end on an 8-byte
// boundary at the target) and the reads, touches and counts of the
// general path. It reports false, having done nothing, for a request it
// does not cover: the caller then pulls by the Window (Pull).
func (n *NIC) PullData(src int, sid SID, off uint64, buf []byte) bool {
	if n.timing != nil || len(buf) == 0 {
		return false
	}
	_, at, ok := n.nativeTarget(src, sid, off, uint64(len(buf)), OpPull)
	if !ok {
		return false
	}
	n.windowDone()
	n.patlb.touch(src, at, len(buf)) // Replier: DMA read at the target
	n.readSegment(at, buf)
	n.pulled(buf)
	return true
}

// AtomicData performs op, OpCAS (old arg0, new arg1) or OpFAA (delta
// arg0), on the word at (dst, sid, off) and returns the word before:
// CompareAndSwap and FetchAndAdd under the native profile, flattened as
// PushData is. It reports false, having done nothing, for a request it
// does not cover: the caller then uses those.
func (n *NIC) AtomicData(op Op, dst int, sid SID, off, arg0, arg1 uint64) (uint64, bool) {
	if n.timing != nil || op != OpCAS && op != OpFAA {
		return 0, false
	}
	_, at, ok := n.nativeTarget(dst, sid, off, 8, op)
	if !ok {
		return 0, false
	}
	n.windowDone()
	old := n.atomicAt(op, at, arg0, arg1)
	n.stats.Packets += 2
	n.notify(dst)
	return old, true
}

// storePacket stores head, data, zeros and signal, the last 8 bytes of
// dst, into segment memory, as storeInOrder stores one source: every
// aligned word as one store, the signal last.
func (n *NIC) storePacket(dst, head, data []byte, signal uint64) {
	end := len(dst) - 8
	copyWords(dst, head)
	at := len(head)
	if len(data) > 0 {
		// The data up to the next cache line first: the rest's vector
		// stores then each land in one line, not across two that
		// another core may hold (a copy straight after a 24-byte meta
		// makes every other store a split one, and a 1 KiB message
		// slower).
		if a := int(-uintptr(unsafe.Pointer(&dst[at])) & 63); a > 0 && a < len(data) {
			at += copy(dst[at:], data[:a])
			data = data[a:]
		}
		at += copy(dst[at:], data)
	}
	clear(dst[at:end])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[end])), signal)
}

// cellSize is the size of a packet of one cell (PushCell, storeCell): a
// cache line.
const cellSize = 64

// storeCell stores a packet of one cell, the 56 bytes of head and then
// signal, into segment memory at dst, a cell: three 16-byte moves and a
// word (a 56-byte array's copy is a call to memmove), each of aligned
// words, then the signal, last.
func storeCell(dst *[cellSize]byte, head *[cellSize - 8]byte, signal uint64) {
	*(*[16]byte)(dst[0:]) = *(*[16]byte)(head[0:])
	*(*[16]byte)(dst[16:]) = *(*[16]byte)(head[16:])
	*(*[16]byte)(dst[32:]) = *(*[16]byte)(head[32:])
	*(*[8]byte)(dst[48:]) = *(*[8]byte)(head[48:])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[56])), signal)
}

// execPush is the common write path of PUSH, BOTF and AOTF.
func (n *NIC) execPush(dst int, sid SID, off uint64, src []byte, op Op) error {
	if n.timing == nil && n.pushNative(dst, sid, off, src, op) {
		return nil
	}
	return n.pushGeneral(dst, sid, off, src, op)
}

// countWrite counts a write of length bytes by op (PUSH, BOTF or AOTF).
func (n *NIC) countWrite(op Op, length int) {
	switch op {
	case OpPush:
		n.stats.Push++
	case OpBOTF:
		n.stats.BOTF++
	case OpAOTF:
		n.stats.AOTF++
	}
	n.stats.PushBytes += uint64(length)
	n.stats.Packets += packets(length)
}

// storeInOrder stores src at [at, end) of segment memory, end 8-aligned
// and src at least 8 bytes, as Martini's in-order DMA delivers it: the
// last 8 bytes land last, atomically, so that a receiver polling them
// knows the rest has landed.
func (n *NIC) storeInOrder(at, end uint64, src []byte) {
	if len(src) == 64 {
		writeLine((*[64]byte)(n.seg.mem[at:end]), (*[64]byte)(src))
		return
	}
	copyWords(n.seg.mem[at:end-8], src[:len(src)-8])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&n.seg.mem[end-8])), binary.LittleEndian.Uint64(src[len(src)-8:]))
}

// copyWords copies src into segment memory at dst, each aligned 8-byte
// word of dst as one store: a receiver may read a word of a write in
// progress (a ring record's first word, which says where its signal is)
// and see it whole. memmove's vector and word stores do that; under the
// race detector, which does not know it, the first word of an aligned dst
// is an atomic store of its own.
func copyWords(dst, src []byte) {
	if !raceEnabled || len(src) < 8 || uintptr(unsafe.Pointer(&dst[0]))%8 != 0 {
		copy(dst, src)
		return
	}
	copy(dst[8:], src[8:])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[0])), binary.LittleEndian.Uint64(src))
}

// writeLine writes the 64 bytes of src into segment memory at dst, a
// cache line's worth: the first 56 as words, then the last word as one
// atomic store, so that it lands after them (see NIC.write). It is
// copyWords and that store for the commonest size, without memmove's
// dispatch on the length.
func writeLine(dst, src *[64]byte) {
	if raceEnabled {
		copyWords(dst[:56], src[:56])
	} else {
		*(*[56]byte)(dst[:56]) = *(*[56]byte)(src[:56])
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[56])), binary.LittleEndian.Uint64(src[56:]))
}

func packets(n int) uint64 {
	if n <= 0 {
		return 1
	}
	return uint64((n + MTU - 1) / MTU)
}

// rvaTLB caches SID table snapshots of remote processes (Martini's RVATLB).
// An entry is valid while the target's state word still matches.
type rvaTLB struct {
	ents         [256]rvaEntry
	hits, misses uint64
}

type rvaEntry struct {
	pid  int32
	sid  SID
	view sidView
	ent  *sidEntry
}

func (t *rvaTLB) lookup(s *Segment, pid int, sid SID) (sidView, bool) {
	e, ok := t.entry(pid, sid)
	if ok {
		t.hits++
		return e.view, true
	}
	return t.refill(e, s, pid, sid)
}

// entry returns the entry that holds (pid, sid) and whether it is valid
// for it (a hit, not yet counted).
func (t *rvaTLB) entry(pid int, sid SID) (*rvaEntry, bool) {
	e := &t.ents[(uint32(pid)*31+uint32(sid))&uint32(len(t.ents)-1)]
	return e, e.ent != nil && e.pid == int32(pid) && e.sid == sid && atomic.LoadUint64(&e.ent.state) == e.view.state
}

// refill is a lookup's miss: the entry e is loaded from the SID table.
func (t *rvaTLB) refill(e *rvaEntry, s *Segment, pid int, sid SID) (sidView, bool) {
	t.misses++
	v, ok := s.readSID(pid, sid)
	if !ok {
		return v, false
	}
	*e = rvaEntry{pid: int32(pid), sid: sid, view: v, ent: s.sidEntry(pid, sid)}
	return v, true
}

// paTLB models Martini's 2-way, 2048-entry page translation cache, keyed by
// (PID, virtual page). Misses are refilled as firmware would and counted.
type paTLB struct {
	sets         [1024][2]uint64 // key+1 (0 = empty); way 0 is most recent
	hits, misses uint64
	// flushed: in virtual time, flush was called and no PUSH has looked
	// its source up since (see vpatlb.go).
	flushed bool
}

func (t *paTLB) touch(pid int, addr uint64, length int) {
	if pg := addr / PageSize; length > 0 && (addr+uint64(length)-1)/PageSize == pg {
		if set, key := t.slot(pid, pg); set[0] == key {
			t.hits++ // one page, the set's most recent: touchPages's first case
			return
		}
	}
	t.touchPages(pid, addr, length, nil, nil)
}

// hit is touch's first case, small enough to inline where a caller
// spares touch's call: [addr, addr+length) lies in one page, the most
// recent of its set, which it counts as a hit; it reports false, having
// done nothing, otherwise. (touch keeps the same lines of its own: the
// profile-guided build inlines it into PushPacket by them.)
func (t *paTLB) hit(pid int, addr uint64, length int) bool {
	if pg := addr / PageSize; length > 0 && (addr+uint64(length)-1)/PageSize == pg {
		if set, key := t.slot(pid, pg); set[0] == key {
			t.hits++ // one page, the set's most recent: touchPages's first case
			return true
		}
	}
	return false
}

// slot returns the set that holds page pg of process pid, and the page's
// key in it.
func (t *paTLB) slot(pid int, pg uint64) (*[2]uint64, uint64) {
	return &t.sets[(pg^uint64(pid)*0x9e37)&1023], (uint64(pid)<<52 | pg) + 1
}

// touchPages looks up the pages of [addr, addr+length) of process pid,
// filling the misses, and appends the pages that missed to missed (at
// *n, as far as it has room) when missed is not nil.
func (t *paTLB) touchPages(pid int, addr uint64, length int, missed []uint64, n *int) {
	if length <= 0 {
		length = 1
	}
	first := addr / PageSize
	last := (addr + uint64(length) - 1) / PageSize
	for pg := first; pg <= last; pg++ {
		set, key := t.slot(pid, pg)
		switch key {
		case set[0]:
			t.hits++
		case set[1]:
			t.hits++
			set[0], set[1] = set[1], set[0]
		default:
			t.misses++
			set[1] = set[0]
			set[0] = key
			if missed != nil && *n < len(missed) {
				missed[*n] = pg
				*n++
			}
		}
	}
}

// flush invalidates every entry.
func (t *paTLB) flush() {
	t.sets = [1024][2]uint64{}
	t.flushed = true
}
