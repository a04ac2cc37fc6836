package nicemu

import (
	"sync/atomic"
	"unsafe"
)

// Arrival stamps (virtual time): beside the partitions, the segment keeps
// for every 64-byte cell of every process's heap the virtual time at which
// the last write into the cell became visible. Writes stamp the cells
// before their data lands (the stamp is there when the data is seen) and
// are counted after it has (wrote); Arrived reads the stamps.

// stampCell is the size of heap memory one stamp covers.
const stampCell = 64

// stampAreaSize is the size of one process's stamps for a heap of heap
// bytes, followed by two counters for each process that may write into
// it: its writes (writesWord) and how many of them the owner has seen
// (seenWord).
func stampAreaSize(heap int) int {
	return roundUp((heap+stampCell-1)/stampCell*8+2*MaxProcs*8, PageSize)
}

// writesWord counts the writes of process src into process p's memory.
func (s *Segment) writesWord(p, src int) *uint64 {
	off := s.stampBase(p) + roundUp(int(s.hdr.heapSize), stampCell)/stampCell*8 + src*8
	return (*uint64)(unsafe.Pointer(&s.mem[off]))
}

// seenWord is how many writes of process src process p had seen when it
// last found nothing to take.
func (s *Segment) seenWord(p, src int) *uint64 {
	off := s.stampBase(p) + roundUp(int(s.hdr.heapSize), stampCell)/stampCell*8 + (MaxProcs+src)*8
	return (*uint64)(unsafe.Pointer(&s.mem[off]))
}

// stampBase is the offset of process p's stamps.
func (s *Segment) stampBase(p int) int {
	return s.part0 + s.NProcs()*s.partSize + p*stampAreaSize(int(s.hdr.heapSize))
}

// stampWord returns the stamp of the cell holding segment offset at, in
// process p's heap (nil outside it or without stamps).
func (s *Segment) stampWord(p int, at uint64) *uint64 {
	if s.hdr.clock == 0 {
		return nil
	}
	hb := uint64(s.heapBase(p))
	if at < hb || at-hb >= s.hdr.heapSize {
		return nil
	}
	return (*uint64)(unsafe.Pointer(&s.mem[s.stampBase(p)+int((at-hb)/stampCell)*8]))
}

// stamp records that n bytes at segment offset at, in p's heap, become
// visible at virtual time t. The writer stamps the cells before the data
// lands, and counts the write (wrote) once it has.
func (s *Segment) stamp(p int, at uint64, n int, t int64) {
	if n <= 0 {
		return
	}
	for c := at &^ (stampCell - 1); c < at+uint64(n); c += stampCell {
		if w := s.stampWord(p, c); w != nil {
			atomic.StoreUint64(w, uint64(t))
		}
	}
}

// wrote counts a write of process src into p's memory, once its data has
// landed. Not before: a look that counts the write (Clock.Look) must find
// its data, or the process would wait as if it had seen it and, taking no
// part in the ordering, let the others go on past the time at which it
// takes the data (see Segment.floor).
func (s *Segment) wrote(p, src int) {
	atomic.AddUint64(s.writesWord(p, src), 1)
	atomic.AddUint64(&s.hdr.vwrites, 1)
}

// stampOf returns the latest stamp of the cells holding n bytes at segment
// offset at, in p's heap.
func (s *Segment) stampOf(p int, at uint64, n int) int64 {
	var t int64
	for c := at &^ (stampCell - 1); c < at+uint64(max(n, 1)); c += stampCell {
		if w := s.stampWord(p, c); w != nil {
			t = max(t, int64(atomic.LoadUint64(w)))
		}
	}
	return t
}

// Clock returns the process's virtual clock: nil unless the job runs in
// virtual time.
func (n *NIC) Clock() *Clock { return n.clock }

// Arrived tells the NIC, in virtual time, that the process has found the
// data of length bytes at off in its own segment region sid, and reports
// whether it may take it now. Data whose arrival is later than the
// process's clock may not be taken while another process that could still
// send it something earlier is running behind that arrival (then Arrived
// reports false: look again later), unless that has lasted seconds (see
// escapeLimit). Taken, the data moves the clock to its arrival if that is
// later. In real time, or for memory that is not its own segment memory,
// Arrived reports true and does nothing.
func (n *NIC) Arrived(sid SID, off uint64, length int) bool {
	if n.clock == nil {
		return true
	}
	e, ok := n.segRegions[sid]
	if !ok || off >= uint64(e.size) {
		return true
	}
	length = min(length, e.size-int(off))
	return n.clock.take(n.seg.stampOf(n.pid, uint64(e.off)+off, length))
}
