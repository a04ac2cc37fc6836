package nicemu

import "fmt"

// SharedRegion returns this process's view of the segment memory that
// process dst of the same job registered as sid (RegisterSegment): the
// segment is mapped into every process of the job, so that the region is
// plain memory that this process loads and stores, without requests (a
// shared-memory window). The view is valid until dst deregisters sid.
// Regions of process memory (RegisterMemory) are not shared and are
// refused, as are other jobs' regions.
func (n *NIC) SharedRegion(dst int, sid SID) ([]byte, error) {
	if uint(dst) >= uint(len(n.procs)) {
		return nil, fmt.Errorf("nicemu: shared region %d of process %d: no such process (%d in the segment)", sid, dst, len(n.procs))
	}
	if n.procs[dst].pgid != n.ent.pgid {
		return nil, fmt.Errorf("nicemu: shared region %d of process %d: another job's", sid, dst)
	}
	v, ok := n.seg.readSID(dst, sid)
	switch {
	case !ok:
		return nil, fmt.Errorf("nicemu: shared region %d of process %d: not registered", sid, dst)
	case v.kind != KindSegment:
		return nil, fmt.Errorf("nicemu: shared region %d of process %d: process memory, not segment memory", sid, dst)
	case v.base > uint64(len(n.seg.mem)) || v.length > uint64(len(n.seg.mem))-v.base:
		return nil, fmt.Errorf("nicemu: shared region %d of process %d: %d bytes at %d, past the segment's %d", sid, dst, v.length, v.base, len(n.seg.mem))
	}
	return n.seg.mem[v.base : v.base+v.length : v.base+v.length], nil
}
