package nicemu

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Multicast (Cenju-4's hardware multicast): a process posts a message once,
// with a bitmap of its destinations, into one of its MulticastSlots slots in
// its partition's sync region; each destination copies it out and clears its
// bit. A slot is free again when every destination has taken the message.
//
// A slot has a meta line (tag, length, sequence number), a pending line (the
// number of destinations yet to take the message; 0 when the slot is free,
// which makes it the claim word), a bitmap page (one bit per process of the
// job) and MulticastSize bytes of data. The sender claims the slot by a
// compare-and-swap of pending from 0 to the destination count, writes the
// data, tag, length and sequence number, then sets the bitmap bits. A
// receiver claims its bit by clearing it, copies, then decrements pending;
// the data stays put until pending reaches 0, so a bit always names the
// message that is in the slot. Sequence numbers keep the messages of one
// sender with equal tags in posting order.

const (
	// MulticastSize is the largest message one multicast carries.
	MulticastSize = 64 << 10
	// MulticastSlots is how many multicasts a process may have in flight:
	// 16, a broadcast of 1 MiB at once. A slot is freed only once every
	// destination has taken its piece, and with processes outnumbering
	// cores a destination takes pieces only when the scheduler runs it:
	// with 2 slots a broadcast of 1 MiB on 8 processes (16 pieces) waited
	// for every destination's turn 8 times (docs/decisions.md).
	MulticastSlots = 16
)

// mcMeta is the header of a multicast slot.
type mcMeta struct {
	tag     uint64
	length  uint64
	seq     uint64 // the sender's post number, from 1
	_       [40]byte
	pending uint64 // destinations yet to take the message; 0: slot free
	_       [56]byte
}

func (s *Segment) mcMeta(p, slot int) *mcMeta {
	return (*mcMeta)(unsafe.Pointer(&s.mem[s.syncBase(p)+syncMcMetaOff+slot*mcMetaSize]))
}

func (s *Segment) mcSeq(p int) *uint64 {
	return (*uint64)(unsafe.Pointer(&s.mem[s.syncBase(p)+syncMcSeqOff]))
}

// mcBitmapWord returns word w of the destination bitmap of p's slot.
func (s *Segment) mcBitmapWord(p, slot, w int) *uint64 {
	return (*uint64)(unsafe.Pointer(&s.mem[s.syncBase(p)+syncMcBitmapOff+slot*mcBitmapSize+w*8]))
}

func (s *Segment) mcData(p, slot int) []byte {
	off := s.syncBase(p) + syncMcDataOff + slot*MulticastSize
	return s.mem[off : off+MulticastSize : off+MulticastSize]
}

// TryMulticast posts data (at most MulticastSize bytes) from the caller to
// the processes dests (job-wide PIDs of the caller's job, distinct, never
// the caller) under tag: it claims a free slot of the caller's multicast
// buffers, copies data in once, stores tag and length, sets the
// destinations' bits of the slot's bitmap and rings each destination's
// doorbell. It returns false, without waiting, when no slot is free; the
// caller may wait on its doorbell, which the last destination to take a
// message rings. With no destinations it does nothing and returns true.
//
// A bad destination or an oversized message is refused: counted in
// Stats.Refused and RefusedBy and in Segment.Refused and returned as an
// *AccessError (Op OpMulticast, Target the offending destination or -1).
// Stats.Multicasts and MulticastBytes count posted messages. Safe for
// concurrent use.
func (n *NIC) TryMulticast(dests []int, tag uint64, data []byte) (bool, error) {
	if len(data) > MulticastSize {
		return false, n.syncRefuse(OpMulticast, ViolationBadRequest, -1, tag, len(data),
			fmt.Sprintf("multicast of %d bytes, at most %d", len(data), MulticastSize))
	}
	words := (len(n.procs) + 63) / 64
	var small [16]uint64
	bm := small[:]
	if words > len(small) {
		bm = make([]uint64, words)
	}
	bm = bm[:words]
	for _, d := range dests {
		switch {
		case uint(d) >= uint(len(n.procs)):
			return false, n.syncRefuse(OpMulticast, ViolationBadProcess, d, tag, len(data), "")
		case n.procs[d].pgid != n.ent.pgid:
			return false, n.syncRefuse(OpMulticast, ViolationForeignJob, d, tag, len(data), "")
		case d == n.pid:
			return false, n.syncRefuse(OpMulticast, ViolationBadRequest, d, tag, len(data), "multicast to the sender itself")
		case bm[d/64]&(1<<(d%64)) != 0:
			return false, n.syncRefuse(OpMulticast, ViolationBadRequest, d, tag, len(data), "destination listed twice")
		}
		bm[d/64] |= 1 << (d % 64)
	}
	if len(dests) == 0 {
		return true, nil
	}
	slot := -1
	for s := range MulticastSlots {
		m := n.seg.mcMeta(n.pid, s)
		if atomic.LoadUint64(&m.pending) == 0 && atomic.CompareAndSwapUint64(&m.pending, 0, uint64(len(dests))) {
			slot = s
			break
		}
	}
	if slot < 0 {
		return false, nil
	}
	m := n.seg.mcMeta(n.pid, slot)
	copy(n.seg.mcData(n.pid, slot), data)
	atomic.StoreUint64(&m.tag, tag)
	atomic.StoreUint64(&m.length, uint64(len(data)))
	atomic.StoreUint64(&m.seq, atomic.AddUint64(n.seg.mcSeq(n.pid), 1))
	// Publish: a destination that sees its bit sees the message.
	for w, b := range bm {
		if b != 0 {
			atomic.OrUint64(n.seg.mcBitmapWord(n.pid, slot, w), b)
		}
	}
	cnt := n.seg.syncCounters(n.pid)
	atomic.AddUint64(&cnt.multicasts, 1)
	atomic.AddUint64(&cnt.mcBytes, uint64(len(data)))
	for _, d := range dests {
		n.ring(d)
	}
	return true, nil
}

// TryDeliver looks in root's multicast slots for a message under tag whose
// bitmap has the caller's bit; of several, it takes the one root posted
// first. If there is one, it copies the message into buf and returns its
// length, which may exceed len(buf): then only len(buf) bytes are copied,
// and the message is consumed all the same. It clears the caller's bit and,
// if the caller was the last destination, frees the slot and rings root's
// doorbell. It returns ok false, without waiting, when there is no such
// message yet.
//
// A bad root (outside the job, of another job, or the caller) is refused as
// by TryMulticast (Op OpDeliver, Target root). Stats.Deliveries counts the
// messages taken. Safe for concurrent use; when several goroutines of one
// process wait for the same root and tag, each message goes to one of them.
func (n *NIC) TryDeliver(root int, tag uint64, buf []byte) (length int, ok bool, err error) {
	switch {
	case uint(root) >= uint(len(n.procs)):
		return 0, false, n.syncRefuse(OpDeliver, ViolationBadProcess, root, tag, len(buf), "")
	case n.procs[root].pgid != n.ent.pgid:
		return 0, false, n.syncRefuse(OpDeliver, ViolationForeignJob, root, tag, len(buf), "")
	case root == n.pid:
		return 0, false, n.syncRefuse(OpDeliver, ViolationBadRequest, root, tag, len(buf), "delivery from the caller itself")
	}
	w, bit := n.pid/64, uint64(1)<<(n.pid%64)
	for {
		slot, seq := -1, uint64(0)
		for s := range MulticastSlots {
			if atomic.LoadUint64(n.seg.mcBitmapWord(root, s, w))&bit == 0 {
				continue
			}
			m := n.seg.mcMeta(root, s)
			if atomic.LoadUint64(&m.tag) != tag {
				continue
			}
			if q := atomic.LoadUint64(&m.seq); slot < 0 || q < seq {
				slot, seq = s, q
			}
		}
		if slot < 0 {
			return 0, false, nil
		}
		word := n.seg.mcBitmapWord(root, slot, w)
		if atomic.AndUint64(word, ^bit)&bit == 0 {
			continue // another goroutine of this process took it
		}
		// The bit is ours: the slot holds the message it was set for. If
		// that is not the one chosen (the slot was reused between the scan
		// and the claim), give the bit back and look again.
		m := n.seg.mcMeta(root, slot)
		if atomic.LoadUint64(&m.tag) != tag || atomic.LoadUint64(&m.seq) != seq {
			atomic.OrUint64(word, bit)
			continue
		}
		data := n.seg.mcData(root, slot)
		length = int(min(atomic.LoadUint64(&m.length), uint64(len(data))))
		copy(buf, data[:length])
		atomic.AddUint64(&n.seg.syncCounters(n.pid).deliveries, 1)
		if atomic.AddUint64(&m.pending, ^uint64(0)) == 0 {
			n.ring(root)
		}
		return length, true, nil
	}
}
