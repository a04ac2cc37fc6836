package nicemu

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Segment memory is mapped into a process page by page as it first touches
// it, and every such touch is a page fault, spread over the first messages
// through a ring; mapping a region whole at once (madvise
// MADV_POPULATE_WRITE) costs a fraction of that (docs/decisions.md, first
// touch). The owner maps its fresh segment memory when it
// registers it (NIC.zero), and every other process the regions it reaches
// when it first translates their SIDs (mapPeerRegion).

// peerRegion names a registered region of another process.
type peerRegion struct {
	pid int
	sid SID
}

// populate maps the pages of mem, segment memory, into the process with
// one call (madvise MADV_POPULATE_WRITE, Linux 5.14). On older kernels it
// does nothing: the pages then fault in as they are touched.
func populate(mem []byte) {
	if len(mem) == 0 {
		return
	}
	lo := int(-uintptr(unsafe.Pointer(unsafe.SliceData(mem))) & (PageSize - 1))
	if pages := (len(mem) - lo) / PageSize; lo < len(mem) && pages > 0 {
		unix.Madvise(mem[lo:lo+pages*PageSize], unix.MADV_POPULATE_WRITE)
	}
}

// mapPeerRegion maps the segment region v of process pid (SID sid) into
// this process, once per registration: target calls it on an RVATLB miss,
// and the snapshot's state tells a new registration of the SID from one
// mapped before.
func (n *NIC) mapPeerRegion(pid int, sid SID, v sidView) {
	if v.kind != KindSegment || pid == n.pid {
		return
	}
	k := peerRegion{pid, sid}
	if n.mapped[k] == v.state {
		return
	}
	if n.mapped == nil {
		n.mapped = make(map[peerRegion]uint64)
	}
	n.mapped[k] = v.state
	if end := v.base + v.length; v.length > 0 && end <= uint64(len(n.seg.mem)) {
		populate(n.seg.mem[v.base:end])
	}
}
