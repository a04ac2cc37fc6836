package nicemu

import "sync/atomic"

// pushNative is execPush's common case, flattened: a write (PUSH, BOTF or
// AOTF) of 8 bytes or more into segment memory, ending on an 8-byte
// boundary, under the native profile (no timing model, no virtual clock),
// whose target translation the RVATLB holds. It makes the same checks,
// lookups, stores and counts as the general path, in one function, and
// reports false, having done nothing, for any request it does not cover
// (a refusal among them): the general path then serves it.
func (n *NIC) pushNative(dst int, sid SID, off uint64, src []byte, op Op) bool {
	if uint(dst) >= uint(len(n.procs)) || len(src) < 8 {
		return false
	}
	pe := n.procs[dst]
	if op != OpAOTF && pe.pgid != n.ent.pgid {
		return false
	}
	e, hit := n.rvatlb.entry(dst, sid)
	v := &e.view
	if !hit || v.kind != KindSegment || off > v.length || uint64(len(src)) > v.length-off {
		return false
	}
	at := v.base + off
	end := at + uint64(len(src))
	if end%8 != 0 || end > uint64(len(n.seg.mem)) {
		return false
	}
	n.rvatlb.hits++
	if op == OpPush {
		n.patlb.touch(n.pid, addr(src), len(src)) // Initiator: DMA read of the source
	}
	n.patlb.touch(dst, at, len(src)) // RBend: DMA write
	n.storeInOrder(at, end, src)
	n.stats.SegmentOps++
	n.countWrite(op, len(src))
	if atomic.LoadUint32(&pe.sleepers) != 0 {
		n.notify(dst)
	}
	return true
}
