package nicemu

// The PATLB in virtual time.
//
// The Initiator's PATLB lookup of a PUSH's source costs firmware time on a
// miss (pushTakeover), and the PATLB is keyed by the source's virtual
// pages. The sources are Go memory, which a Go heap places differently
// from run to run (a runtime's buffers follow its garbage collector and
// the order in which messages came), so a PATLB keyed by those addresses
// made the virtual times of a PM/RHiNET job differ between runs
// (docs/decisions.md, the PATLB in virtual time). In virtual time the
// Initiator therefore finds every source page in its PATLB (4096 entries
// map 16 MB: the registered buffers of the thesis's PM mostly hit),
// except after a flush (FlushPATLB, as the driver does when it unpins
// memory): the request after a flush looks its source pages up as in real
// time, and each page misses, as Fig 7.9's ping-pong measures.

// virtualSourceHit reports whether, in virtual time, the Initiator finds
// the source pages of a PUSH from src in its PATLB without looking them
// up (see above); it counts them as hits. It consumes a flush: the request
// after it looks its pages up.
func (n *NIC) virtualSourceHit(src []byte) bool {
	if n.clock == nil {
		return false
	}
	if n.patlb.flushed {
		n.patlb.flushed = false
		return false
	}
	n.patlb.hits += pageCount(addr(src), len(src))
	return true
}

// pageCount is the number of pages [at, at+length) spans (at least one).
func pageCount(at uint64, length int) uint64 {
	return (at+uint64(max(length, 1))-1)/PageSize - at/PageSize + 1
}
